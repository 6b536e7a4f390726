internal import COpenSSL
import Synchronization

/// Owns one OpenSSL public key (`EVP_PKEY`).
///
/// Immutable after construction, so it may verify on many threads at once (OpenSSL keys are
/// read-only during verification and their reference counts are atomic). It is freed exactly
/// once, in `deinit`.
package final class EVPPublicKey: @unchecked Sendable {
    /// The owned `EVP_PKEY *`.
    let pointer: OpaquePointer
    /// A process-unique number naming this key in per-thread context caches.
    let id: UInt64
    /// The key size in bits (`EVP_PKEY_get_bits`): the modulus for RSA, the field for EC.
    package let bits: Int
    /// For a P-256 key, when and whether it gets its fixed-base table (``FixedBaseSlot``).
    let fixedBaseSlot: FixedBaseSlot?
    /// For an RSA key, when it gets its RS256/RS384/RS512 chain (``RSAChainSlot``).
    let rsaChainSlot: RSAChainSlot

    private static let nextID = Atomic<UInt64>(1)

    /// Takes ownership of a key at +1; a P-256 key's fixed-base table, if it earns one, counts in
    /// `fixedBasePool` (see ``ec(group:uncompressedPoint:fixedBasePool:)``).
    init(takingOwnershipOf pointer: OpaquePointer, fixedBasePool: FixedBaseSlot.Pool = .keySets) {
        self.pointer = pointer
        self.id = Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        self.bits = Int(EVP_PKEY_get_bits(pointer))
        self.fixedBaseSlot =
            FixedBaseP256Key.isAvailable && Self.isP256(pointer) ? FixedBaseSlot(pool: fixedBasePool) : nil
        self.rsaChainSlot = RSAChainSlot(eligible: EVP_PKEY_is_a(pointer, "RSA") == 1)
    }

    /// Whether this RSA key has its chain now (without building it).
    package var hasRSAChain: Bool { rsaChainSlot.isBuilt }

    /// This RSA key's chain, built now if it was not; `nil` when the key cannot have one (its
    /// exponent is over 64 bits, or it is not an RSA key). Tests and the benchmark's raw limit.
    package var rsaChain: RSAMontgomeryKey? { rsaChainSlot.chain(for: self) }

    /// The chain for verification once built; the first call starts building it (``RSAChainSlot``).
    var readyRSAChain: Unmanaged<RSAMontgomeryKey>? { rsaChainSlot.readyChain(for: self) }

    /// A chain for this key's modulus and exponent, read back from OpenSSL.
    func makeRSAChain() -> RSAMontgomeryKey? {
        guard let modulus = bigNumber("n"), let exponent = bigNumber("e") else { return nil }
        return RSAMontgomeryKey(modulus: modulus, exponent: exponent)
    }

    private static func isP256(_ pointer: OpaquePointer) -> Bool {
        guard EVP_PKEY_is_a(pointer, "EC") == 1 else { return false }
        var name = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, "group", &name, name.count, &length) == 1 else {
            OpenSSLFailure.clear()
            return false
        }
        return String(decoding: name.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            == "prime256v1"
    }

    /// Whether this key has its fixed-base table now (without counting a use).
    package var hasFixedBaseTable: Bool { fixedBaseSlot?.isBuilt ?? false }

    /// This key's fixed-base table, when it has one; counts the use towards building it.
    var fixedBase: FixedBaseP256Key? { fixedBaseSlot?.fixedBase(for: self) }

    /// Builds this P-256 key's fixed-base table now, if the process cap allows (tests, benchmarks);
    /// `nil` for other keys.
    package func buildFixedBaseNow() -> FixedBaseP256Key? { fixedBaseSlot?.buildNow(for: self) }

    deinit { EVP_PKEY_free(pointer) }

    /// An RSA public key from big-endian modulus and exponent octets.
    package static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(OpenSSLFailure) -> EVPPublicKey {
        let pkey = modulus.withUnsafeBufferPointer { n in
            exponent.withUnsafeBufferPointer { e in
                copenssl_rsa_public_key(n.baseAddress, n.count, e.baseAddress, e.count)
            }
        }
        guard let pkey else { throw OpenSSLFailure.drain("RSA key import") }
        return EVPPublicKey(takingOwnershipOf: pkey)
    }

    /// An EC public key on `group` ("P-256", "P-384", "P-521") from an uncompressed SEC1 point;
    /// off-curve points are refused. A key set's key (see the other overload for a client's).
    package static func ec(group: String, uncompressedPoint: [UInt8]) throws(OpenSSLFailure) -> EVPPublicKey {
        try ec(group: group, uncompressedPoint: uncompressedPoint, fixedBasePool: .keySets)
    }

    /// An EC public key on `group` from an uncompressed SEC1 point, its table counted in `fixedBasePool`.
    ///
    /// `fixedBasePool: .proofKeys` for a key a client chose (a DPoP proof's `jwk`): its table, if
    /// it earns one, counts against the proof keys' own cap, so a client's keys never take the
    /// issuers' keys' tables.
    static func ec(group: String, uncompressedPoint: [UInt8], fixedBasePool: FixedBaseSlot.Pool)
        throws(OpenSSLFailure) -> EVPPublicKey
    {
        let pkey = uncompressedPoint.withUnsafeBufferPointer { p in
            copenssl_ec_public_key(group, p.baseAddress, p.count)
        }
        guard let pkey else { throw OpenSSLFailure.drain("EC key import") }
        return EVPPublicKey(takingOwnershipOf: pkey, fixedBasePool: fixedBasePool)
    }

    /// An Ed25519 public key from its 32 raw octets.
    package static func ed25519(_ raw: [UInt8]) throws(OpenSSLFailure) -> EVPPublicKey {
        let pkey = raw.withUnsafeBufferPointer { p in copenssl_raw_public_key("ED25519", p.baseAddress, p.count) }
        guard let pkey else { throw OpenSSLFailure.drain("Ed25519 key import") }
        return EVPPublicKey(takingOwnershipOf: pkey)
    }

    /// Reads a big-number parameter (`"n"`, `"e"`) as minimal big-endian octets.
    func bigNumber(_ name: String) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 2048)
        let n = out.withUnsafeMutableBufferPointer { copenssl_get_bn_param(pointer, name, $0.baseAddress, $0.count) }
        guard n > 0 else {
            OpenSSLFailure.clear()
            return nil
        }
        return Array(out[..<n])
    }

    /// Reads an octet-string parameter (`"pub"`: the EC point).
    package func octets(_ name: String) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 256)
        let n = out.withUnsafeMutableBufferPointer { copenssl_get_octet_param(pointer, name, $0.baseAddress, $0.count) }
        guard n > 0 else {
            OpenSSLFailure.clear()
            return nil
        }
        return Array(out[..<n])
    }
}
