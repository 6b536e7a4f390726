/// A JWS signature algorithm (RFC 7518 §3, RFC 8037) that JWTVerify can verify.
///
/// A verifier only ever accepts the algorithms on its allow-list (by default ``rs256`` and
/// ``es256``), and only with a key whose type and curve fit the algorithm; the token's header can
/// never widen either. `none` and the HMAC algorithms are not representable at all.
public struct SignatureAlgorithm: Hashable, Sendable, CustomStringConvertible {
    enum Backing: UInt8, CaseIterable, Sendable {
        case rs256, rs384, rs512, ps256, ps384, ps512, es256, es384, es512, edDSA
    }

    let backing: Backing

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    public static let rs256 = SignatureAlgorithm(backing: .rs256)
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    public static let rs384 = SignatureAlgorithm(backing: .rs384)
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    public static let rs512 = SignatureAlgorithm(backing: .rs512)
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-octet salt.
    public static let ps256 = SignatureAlgorithm(backing: .ps256)
    /// RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-octet salt.
    public static let ps384 = SignatureAlgorithm(backing: .ps384)
    /// RSASSA-PSS with SHA-512, MGF1-SHA-512 and a 64-octet salt.
    public static let ps512 = SignatureAlgorithm(backing: .ps512)
    /// ECDSA on P-256 with SHA-256; signatures are the 64-octet R‖S.
    public static let es256 = SignatureAlgorithm(backing: .es256)
    /// ECDSA on P-384 with SHA-384; signatures are the 96-octet R‖S.
    public static let es384 = SignatureAlgorithm(backing: .es384)
    /// ECDSA on P-521 with SHA-512; signatures are the 132-octet R‖S.
    public static let es512 = SignatureAlgorithm(backing: .es512)
    /// EdDSA with Ed25519 (RFC 8037); signatures are 64 octets.
    public static let edDSA = SignatureAlgorithm(backing: .edDSA)

    /// Every algorithm JWTVerify implements.
    public static let all: [SignatureAlgorithm] = Backing.allCases.map(SignatureAlgorithm.init(backing:))

    /// The default allow-list: RS256 and ES256, what Apple, Google and Firebase use.
    public static let defaultAllowed: Set<SignatureAlgorithm> = [.rs256, .es256]

    /// The JWS `alg` name, e.g. `"RS256"`.
    public var name: String {
        switch backing {
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        }
    }

    /// The JWS `alg` name.
    public var description: String { name }

    /// The algorithm with this exact (case-sensitive) JWS name, or `nil`.
    public init?(name: String) {
        guard let match = Self.all.first(where: { exactlyEquals($0.name, name) }) else { return nil }
        self = match
    }

    init(backing: Backing) { self.backing = backing }

    /// How a signature of this algorithm is checked.
    package enum Family: Equatable {
        case rsaPKCS1
        case rsaPSS
        /// ECDSA over `curve` (a JWK `crv` name) with R and S of `scalarSize` octets each.
        case ecdsa(curve: String, scalarSize: Int)
        case edDSA
    }

    package var family: Family {
        switch backing {
        case .rs256, .rs384, .rs512: .rsaPKCS1
        case .ps256, .ps384, .ps512: .rsaPSS
        case .es256: .ecdsa(curve: "P-256", scalarSize: 32)
        case .es384: .ecdsa(curve: "P-384", scalarSize: 48)
        case .es512: .ecdsa(curve: "P-521", scalarSize: 66)
        case .edDSA: .edDSA
        }
    }

    /// The message digest applied to the signing input (EdDSA hashes internally: `nil`).
    package var digest: MessageDigest? {
        switch backing {
        case .rs256, .ps256, .es256: .sha256
        case .rs384, .ps384, .es384: .sha384
        case .rs512, .ps512, .es512: .sha512
        case .edDSA: nil
        }
    }

    /// Whether the signing input is hashed with SHA-256 (RS256, PS256, ES256).
    var hashesWithSHA256: Bool {
        switch backing {
        case .rs256, .ps256, .es256: true
        default: false
        }
    }

    /// ``digest`` without a reference count: the digests are process-wide singletons, and a
    /// retain and release per token on an object every thread shares costs more than the hash.
    var unretainedDigest: Unmanaged<MessageDigest>? {
        switch backing {
        case .rs256, .ps256, .es256: MessageDigest.unretainedSHA256
        case .rs384, .ps384, .es384: MessageDigest.unretainedSHA384
        case .rs512, .ps512, .es512: MessageDigest.unretainedSHA512
        case .edDSA: nil
        }
    }

    /// The JWK `kty` a key must have to verify this algorithm.
    var keyType: String {
        switch family {
        case .rsaPKCS1, .rsaPSS: "RSA"
        case .ecdsa: "EC"
        case .edDSA: "OKP"
        }
    }

    /// The JWK `crv` a key must have, for curve-based algorithms.
    var curve: String? {
        switch family {
        case .rsaPKCS1, .rsaPSS: nil
        case .ecdsa(let curve, _): curve
        case .edDSA: "Ed25519"
        }
    }
}
