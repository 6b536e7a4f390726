#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The configured issuer and audiences as ready-made values, so reading a token whose `iss` and
/// `aud` equal them (the common case) reuses these instead of allocating new strings and arrays.
struct KnownClaimStrings: Sendable {
    private let issuers: [(bytes: [UInt8], string: String)]
    private let audiences: [(bytes: [UInt8], list: [String])]

    init(issuers: [String]?, audiences: [String]?) {
        self.issuers = (issuers ?? []).map { (Array($0.utf8), $0) }
        self.audiences = (audiences ?? []).map { (Array($0.utf8), [$0]) }
    }

    /// An accepted issuer's string, when `bytes` spell it.
    func issuer(_ bytes: UnsafeRawBufferPointer) -> String? {
        for issuer in issuers where Self.equal(bytes, issuer.bytes) { return issuer.string }
        return nil
    }

    /// A one-element audience list, when `bytes` spell an accepted audience.
    func audienceList(_ bytes: UnsafeRawBufferPointer) -> [String]? {
        for audience in audiences where Self.equal(bytes, audience.bytes) { return audience.list }
        return nil
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard let base = a.baseAddress, !b.isEmpty else { return true }
        return b.withUnsafeBytes { memcmp(base, $0.baseAddress!, a.count) == 0 }
    }
}
