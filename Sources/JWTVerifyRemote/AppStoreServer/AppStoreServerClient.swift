import FoundationEssentials
public import JWTVerify

/// A client of Apple's App Store Server API for one app: transaction info and history,
/// subscription statuses, notification history, test notifications and order look-ups.
///
/// Make one at startup and share it: it is `Sendable`, keeps one ES256 bearer token (renewed
/// before it expires, never one per request), and verifies every signed item of every answer
/// (transactions, renewal infos, notifications) under `VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)`
/// with your bundle ID and the client's environment before it returns: a call hands out verified,
/// typed items only, and an answer with one item that fails throws that item's reason.
///
/// ```swift
/// let store = try AppStoreServerClient(
///     credentials: AppStoreServerCredentials(
///         issuerID: "57246542-96fe-1a63-e053-0824d011072a", keyID: "2X9R4HXF34",
///         bundleID: "com.example.app", privateKeyPEM: p8Bytes),
///     environment: .production)
/// let history = try await store.transactionHistory(for: "2000000123456789")
/// for item in history.transactions { print(item.claims.productID ?? "", item.claims.purchaseDate ?? 0) }
/// ```
///
/// Every call ends by its time-out and throws ``AppStoreServerError``, whose
/// ``AppStoreServerError/isRetryable`` says whether trying again can help.
public final class AppStoreServerClient:
    Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable
{
    /// The production base URL.
    public static let productionBaseURL = "https://api.storekit.apple.com"
    /// The sandbox base URL.
    public static let sandboxBaseURL = "https://api.storekit-sandbox.apple.com"

    /// The issuer, key and bundle IDs.
    public var issuerID: String { credentials.issuerID }
    public var keyID: String { credentials.keyID }
    public var bundleID: String { credentials.bundleID }
    /// The environment every signed item must name.
    public let environment: AppStoreEnvironment
    /// Where the endpoints live.
    public let baseURL: String
    /// Longest time a call waits for one answer, in seconds.
    public let timeout: Double
    /// Largest answer accepted, in octets.
    public let maximumResponseBytes: Int
    /// Most pages one paged call fetches (transaction and notification history).
    public let maximumPages: Int

    private let credentials: AppStoreServerCredentials
    /// The verifier of every signed item.
    let verifier: Verifier
    private let tokens: ServerAPITokenKeeper
    private let transport: Transport

    /// What carries one request to Apple and brings its reply (or why none came).
    typealias Transport = @Sendable (HTTPOutgoing, HTTPTransferLimits) async -> Result<HTTPReply, HTTPTransferFailure>

    /// The client without its secrets: IDs, environment, base URL and time-out; the key and the
    /// bearer token show as `<redacted>`.
    public var description: String {
        Redacted.describe(
            "AppStoreServerClient",
            [
                "credentials": credentials, "environment": environment.rawValue, "baseURL": baseURL,
                "timeout": timeout, "bearerToken": Redacted.marker,
            ])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "credentials": credentials, "environment": environment.rawValue, "baseURL": baseURL,
                "timeout": timeout, "maximumResponseBytes": maximumResponseBytes, "maximumPages": maximumPages,
                "bearerToken": Redacted.marker,
            ],
            displayStyle: .class)
    }

    /// A client for `credentials` in `environment`.
    ///
    /// - Parameters:
    ///   - credentials: issuer ID, key ID, bundle ID and the `.p8` key.
    ///   - environment: `.production` or `.sandbox`: picks the base URL, and every signed item
    ///     must name it.
    ///   - baseURL: another base URL (`https://`, or `http://` to a loopback address, for tests);
    ///     `nil` for Apple's of `environment`.
    ///   - appAppleID: your app's Apple ID, checked on production notifications.
    ///   - trust: the roots signed items must chain to (`AppStoreTrust/appleRootCAG3` unless you test).
    ///   - onlineChecks: OCSP checks of every item's chain (see the policy).
    ///   - timeout: seconds a call waits for each answer (15 by default).
    ///   - maximumResponseBytes: largest answer accepted (1 MiB by default; a page of 20 signed
    ///     transactions is about 100 KiB).
    ///   - maximumPages: most pages one paged call fetches (1,000 by default: 20,000 items).
    ///   - tokenLifetime: seconds each bearer token lasts (20 minutes by default; Apple takes at most 60).
    ///   - clock: the time source for bearer tokens, the system clock by default.
    /// - Throws: ``AppStoreServerError/Kind/configuration`` for an unusable key, an empty ID,
    ///   a lifetime over 60 minutes, or a base URL that is neither https nor http to loopback.
    public convenience init(
        credentials: AppStoreServerCredentials, environment: AppStoreEnvironment, baseURL: String? = nil,
        appAppleID: Int64? = nil, trust: AppStoreTrust = .appleRootCAG3, onlineChecks: Bool = false,
        timeout: Double = 15, maximumResponseBytes: Int = 1 << 20, maximumPages: Int = 1000,
        tokenLifetime: Double = 1200, clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock
    ) throws(AppStoreServerError) {
        try self.init(
            credentials: credentials, environment: environment, baseURL: baseURL, appAppleID: appAppleID,
            trust: trust, onlineChecks: onlineChecks, timeout: timeout, maximumResponseBytes: maximumResponseBytes,
            maximumPages: maximumPages, tokenLifetime: tokenLifetime, clock: clock,
            bearerToken: Self.bearerTokenMaker(credentials), transport: HTTPTransfer.perform)
    }

    /// A client whose bearer tokens come from `bearerToken` and whose requests go through
    /// `transport`: the seam unit tests and the fuzz target use.
    init(
        credentials: AppStoreServerCredentials, environment: AppStoreEnvironment, baseURL: String? = nil,
        appAppleID: Int64? = nil, trust: AppStoreTrust = .appleRootCAG3, onlineChecks: Bool = false,
        timeout: Double = 15, maximumResponseBytes: Int = 1 << 20, maximumPages: Int = 1000,
        tokenLifetime: Double = 1200, clock: @escaping @Sendable () -> Double = VerificationPolicy.systemClock,
        bearerToken: @escaping ServerAPITokenKeeper.Maker, transport: @escaping Transport
    ) throws(AppStoreServerError) {
        guard timeout > 0, timeout.isFinite, maximumResponseBytes > 0, maximumPages > 0 else {
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "timeout, response cap and page cap must be positive")
        }
        guard tokenLifetime >= 60, tokenLifetime <= 3600 else {
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "token lifetime must be 60 to 3600 seconds")
        }
        guard !credentials.issuerID.isEmpty, !credentials.keyID.isEmpty, !credentials.bundleID.isEmpty else {
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "issuer ID, key ID and bundle ID must not be empty")
        }
        let base = baseURL ?? (environment == .production ? Self.productionBaseURL : Self.sandboxBaseURL)
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let url = URL(string: trimmed), HTTPTransfer.isAllowed(url) else {
            throw AppStoreServerError(
                .configuration, .invalidConfiguration, detail: "base URL must be https://, or http:// to loopback")
        }
        self.credentials = credentials
        self.environment = environment
        self.baseURL = trimmed
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumPages = maximumPages
        self.transport = transport
        let checked = onlineChecks ? trust.checkingRevocation(through: HTTPOCSPTransport()) : trust
        verifier = Verifier(
            policy: .appStore(
                bundleIDs: [credentials.bundleID], environment: environment, appAppleID: appAppleID, trust: checked,
                onlineChecks: onlineChecks))
        tokens = try ServerAPITokenKeeper(lifetime: tokenLifetime, clock: clock, make: bearerToken)
    }

    /// Bearer tokens made so far (one per lifetime, not one per call).
    public var bearerTokensMade: Int { tokens.made }

    /// Sends `method path?query` (with `body` as JSON) with our bearer token and judges the answer.
    func send(_ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil)
        async throws(AppStoreServerError) -> AppStoreServerAnswer
    {
        let token = try tokens.token()
        let queryText = query.map { Self.escaped($0.0) + "=" + Self.escaped($0.1) }.joined(separator: "&")
        var request = HTTPOutgoing(url: baseURL + path + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = method
        request.setHeader("Authorization", "Bearer " + token)
        request.setHeader("Accept", "application/json")
        if let body {
            request.setHeader("Content-Type", "application/json")
            request.body = body
        }
        let limits = HTTPTransferLimits(
            connectTimeout: timeout, totalTimeout: timeout, maximumBytes: maximumResponseBytes, maximumRedirects: 0)
        return try AppStoreServerAnswer.judge(await transport(request, limits))
    }

    /// `text` percent-encoded as a path segment or a query component (unreserved characters kept).
    static func escaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + HexDigits.string([byte]).uppercased()
            }
        }
        return out
    }

    /// The signed item `value` (member `name` of the answer), verified and of `kind`; `nil` when absent.
    func verified(_ value: JSONValue?, _ name: String, kind: AppStoreClaims.Kind) throws(AppStoreServerError)
        -> AppStoreSignedItem?
    {
        guard let text = try AppStoreServerAnswer.optionalString(value, name) else { return nil }
        let token: VerifiedToken
        do {
            token = try verifier.verify(text)
        } catch {
            throw .signedData(error, item: name)
        }
        guard let claims = token.provider(as: AppStoreClaims.self) else {
            throw .signedData(VerificationError(.claimType, detail: "not App Store signed data"), item: name)
        }
        guard claims.kind == kind else {
            throw .signedData(
                VerificationError(.claimType, detail: "a \(claims.kind.rawValue), not a \(kind.rawValue)"), item: name)
        }
        return AppStoreSignedItem(signed: text, token: token, claims: claims)
    }

    /// ``verified(_:_:kind:)`` for an item that must be present.
    func required(_ value: JSONValue?, _ name: String, kind: AppStoreClaims.Kind) throws(AppStoreServerError)
        -> AppStoreSignedItem
    {
        guard let item = try verified(value, name, kind: kind) else {
            throw AppStoreServerAnswer.invalid("Apple's answer has no \(name)")
        }
        return item
    }
}
