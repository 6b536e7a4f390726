/// Where a key set comes from: a file, a URL, or a provider preset.
public enum KeySetSource: Sendable, Equatable, CustomStringConvertible {
    /// A local file (JWKS document, single JWK, or kid-to-certificate map).
    case file(String)
    /// An `https://` URL (or `http://` on loopback, for tests).
    case url(String)

    /// Sign in with Apple's keys.
    public static let apple = KeySetSource.url("https://appleid.apple.com/auth/keys")
    /// Google's OAuth 2.0 / OpenID Connect keys.
    public static let google = KeySetSource.url("https://www.googleapis.com/oauth2/v3/certs")
    /// Firebase Authentication ID-token keys (JWKS form).
    public static let firebase = KeySetSource.url(
        "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")

    /// Firebase Authentication session-cookie keys (a `kid`-to-certificate map).
    public static let firebaseSessionCookie = KeySetSource.url(
        "https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys")
    /// Firebase App Check's keys (JWKS).
    public static let firebaseAppCheck = KeySetSource.url("https://firebaseappcheck.googleapis.com/v1/jwks")
    /// Firebase phone-number verification keys (JWKS).
    public static let firebasePhoneNumber = KeySetSource.url("https://fpnv.googleapis.com/v1beta/jwks")

    /// The preset names, in the order help texts list them: each provider's own key set
    /// (the provider registry).
    public static let presetNames = ProviderRegistry.keySetPresets.map(\.name)

    /// The preset names accepted by ``init(parsing:)``. Look a name up with ``init(parsing:)``,
    /// which compares bytes: this dictionary's `String` keys also match Unicode-equivalent spellings.
    public static let presets: [String: KeySetSource] = Dictionary(
        ProviderRegistry.keySetPresets.map { ($0.name, $0.source) }, uniquingKeysWith: { first, _ in first })

    /// The preset named exactly `name` (its bytes: a Unicode-equivalent spelling names none).
    package static func preset(named name: String) -> KeySetSource? {
        ProviderRegistry.keySetPresets.first { exactlyEquals($0.name, name) }?.source
    }

    /// A preset name (`apple`, `google`, `firebase`, `firebase-session`, `firebase-app-check`,
    /// `firebase-phone`), an `http(s)://` URL, or a file path.
    public init(parsing text: String) {
        if let preset = Self.preset(named: text) {
            self = preset
        } else if text.hasPrefix("https://") || text.hasPrefix("http://") {
            self = .url(text)
        } else {
            self = .file(text)
        }
    }

    /// The path or URL.
    public var description: String {
        switch self {
        case .file(let path): path
        case .url(let url): url
        }
    }
}
