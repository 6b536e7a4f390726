/// A token whose signature, claims and provider rules all checked out.
///
/// The values live in one immutable box, with the payload's bytes in the same allocation: a
/// verified token is handed from the verifier to its cache, to a result and to a report, and each
/// copy costs one reference count, not one per field. `claims` and `provider` are lent, not
/// copied: reading `token.claims.subject` retains the one string it returns, not every string of
/// the claims.
public struct VerifiedToken: Sendable {
    /// The header's `alg` (on the allow-list and fitting the key).
    public var algorithm: SignatureAlgorithm { storage.fields.algorithm }
    /// The header's `kid`, when present.
    public var keyID: String? { storage.fields.keyID }
    /// The typed registered claims (`exp` is always present).
    public var claims: RegisteredClaims { _read { yield storage.fields.claims } }
    /// The provider claims the policy's rules read, typed (empty without provider rules).
    public var provider: ProviderClaims { _read { yield storage.fields.provider } }
    /// The decoded payload: the exact JSON bytes that were signed (a copy of the token's own).
    public var payload: [UInt8] { storage.withPayload { Array($0) } }

    private let held: Held
    private var storage: Storage { held.storage }

    init(
        algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims?,
        payload: [UInt8],
        captured: [JSONValue?] = []
    ) {
        self = payload.withUnsafeBytes {
            VerifiedToken(
                algorithm: algorithm, keyID: keyID, claims: claims, provider: provider, payloadBytes: $0,
                captured: captured)
        }
    }

    /// A verified token whose payload is copied from `payloadBytes` into the token's own box.
    init(
        algorithm: SignatureAlgorithm, keyID: String?, claims: RegisteredClaims, provider: ProviderClaims?,
        payloadBytes: UnsafeRawBufferPointer, captured: [JSONValue?] = []
    ) {
        held = Held(
            storage: Storage.make(
                Fields(
                    algorithm: algorithm, keyID: keyID, claims: claims, provider: provider ?? ProviderClaims(),
                    captured: captured, payloadCount: payloadBytes.count),
                payload: payloadBytes))
    }

    /// The claim the policy kept at `index` of its ``VerificationPolicy/capturedClaims`` (`nil`
    /// when absent from the token), read in the verifier's own pass over the payload.
    package func capturedClaim(at index: Int) -> JSONValue? {
        let captured = storage.fields.captured
        return index < captured.count ? captured[index] : nil
    }

    /// Whether the token kept the policy's captured claims (a verifier whose policy names some).
    package var hasCapturedClaims: Bool { !storage.fields.captured.isEmpty }

    /// The box, shareable across threads: `ManagedBuffer` is not `Sendable`, as its header and
    /// elements may be mutated; this one's are written once, in ``Storage/make(_:payload:)``,
    /// before the box is shared, and only read afterwards.
    private struct Held: @unchecked Sendable {
        let storage: Storage
    }

    /// What the box holds before the payload's bytes.
    private struct Fields {
        let algorithm: SignatureAlgorithm
        let keyID: String?
        let claims: RegisteredClaims
        let provider: ProviderClaims
        let captured: [JSONValue?]
        let payloadCount: Int
    }

    /// The fields, then the payload's bytes, in one allocation. Never mutated after ``make(_:payload:)``:
    /// the fields are read through a pointer, which also spares each read the run-time
    /// exclusivity check a class's `var` would cost.
    private final class Storage: ManagedBuffer<Fields, UInt8> {

        static func make(_ fields: Fields, payload: UnsafeRawBufferPointer) -> Storage {
            let buffer = Storage.create(minimumCapacity: payload.count) { _ in fields }
            buffer.withUnsafeMutablePointerToElements { elements in
                if let source = payload.baseAddress, payload.count > 0 {
                    UnsafeMutableRawPointer(elements).copyMemory(from: source, byteCount: payload.count)
                }
            }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        /// The fields, read in place.
        var fields: Fields {
            _read { yield withUnsafeMutablePointerToHeader { UnsafePointer($0) }.pointee }
        }

        /// Runs `body` with the payload's bytes (valid only inside `body`).
        func withPayload<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            withUnsafeMutablePointers { header, elements in
                body(UnsafeRawBufferPointer(start: elements, count: header.pointee.payloadCount))
            }
        }
    }

    /// Runs `body` with the registered and provider claims lent straight from the token's box (no
    /// copy, no reference count per claim), for writers that read many of them.
    package func withClaims<R>(_ body: (borrowing RegisteredClaims, borrowing ProviderClaims) -> R) -> R {
        let fields = storage.withUnsafeMutablePointerToHeader { UnsafePointer($0) }
        return withExtendedLifetime(storage) { body(fields.pointee.claims, fields.pointee.provider) }
    }

    /// The expiry time (always present in a verified token).
    public var expiresAt: Double { claims.expiresAt ?? 0 }

    /// Any claim of the payload by name, as a JSON value (parses the payload on each call).
    public func claim(_ name: String) -> JSONValue? {
        guard case .success(let document) = storage.withPayload({ JSONDocument.parse($0) }) else { return nil }
        return document.withRoot { $0.member(name)?.value }
    }

    /// Every claim of the payload (parses the payload on each call).
    public var allClaims: [String: JSONValue] {
        guard case .success(let document) = storage.withPayload({ JSONDocument.parse($0) }),
            case .object(let members) = document.withRoot({ $0.value })
        else { return [:] }
        return members
    }
}
