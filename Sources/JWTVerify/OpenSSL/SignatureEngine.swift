/// What checks one signature: chosen once per token by
/// ``EVPPublicKey/signatureEngine(for:signatureLength:)``, the one choice the single-token path
/// and the batch stage share, and able to check the signature alone
/// (``isValidSignature(_:digest:algorithm:contexts:)``) or to join a batch call (``batchCall``).
///
/// Its payloads are unretained: the key set owns each key, and each key its chain and table, for
/// as long as a verification runs; holding an engine costs no reference count.
enum SignatureEngine {
    /// No signature of this length verifies with this key and algorithm.
    case refused
    /// OpenSSL's `EVP_PKEY_verify` with this thread's prepared context for the key (a one-shot
    /// verification for EdDSA).
    case evp(Unmanaged<EVPPublicKey>)
    /// RS256, RS384 or RS512 through the key's Montgomery chain, or eight at a time through the
    /// multi-buffer engine when it takes the chain (``RSAMontgomeryKey/laneBits``).
    case rsaChain(Unmanaged<RSAMontgomeryKey>)
    /// ES256 through the key's fixed-base table, alone or many with one modular inversion.
    case fixedBaseP256(Unmanaged<FixedBaseP256Key>)

    /// A call that checks several signatures at once.
    enum BatchCall: Equatable {
        /// None: the signature is checked alone.
        case alone
        /// ``FixedBaseP256Key/verify(_:)``: up to ``SignatureBatch/capacity`` ES256 signatures.
        case fixedBaseP256
        /// ``MultiBufferEngine/verify(_:bits:)``: up to eight RS* signatures of `bits`-bit keys.
        case multiBuffer(bits: Int)
    }

    /// The batch call that can take this signature with others.
    var batchCall: BatchCall {
        switch self {
        case .fixedBaseP256: .fixedBaseP256
        case .rsaChain(let chain):
            chain._withUnsafeGuaranteedRef { $0.laneBits }.map { .multiBuffer(bits: $0) } ?? .alone
        case .refused, .evp: .alone
        }
    }

    /// The C key a batch call takes: the table's (`jwtv_p256_key *`) or the chain's (`jwtv_rsa_key *`).
    var batchKey: OpaquePointer? {
        switch self {
        case .fixedBaseP256(let table): table._withUnsafeGuaranteedRef { $0.pointer }
        case .rsaChain(let chain): chain._withUnsafeGuaranteedRef { $0.pointer }
        case .refused, .evp: nil
        }
    }

    /// Whether `signature` (in JWS form) is a valid `algorithm` signature of the message whose
    /// digest under `algorithm` is `digest`: every family but EdDSA, which signs the message itself
    /// (``isValidSignature(_:message:contexts:)``).
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer, algorithm: SignatureAlgorithm,
        contexts: ThreadContexts
    ) -> Bool {
        switch self {
        case .refused:
            false
        case .evp(let key):
            key._withUnsafeGuaranteedRef {
                $0.isValidThroughEVP(signature, digest: digest, algorithm: algorithm, contexts: contexts)
            }
        case .rsaChain(let chain):
            chain._withUnsafeGuaranteedRef {
                $0.isValidSignature(signature, digest: digest, algorithm: algorithm, contexts: contexts)
            }
        case .fixedBaseP256(let table):
            table._withUnsafeGuaranteedRef { $0.isValidSignature(signature, digest: digest, contexts: contexts) }
        }
    }

    /// Whether `signature` is a valid EdDSA signature of `message`.
    func isValidSignature(
        _ signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, contexts: ThreadContexts
    ) -> Bool {
        guard case .evp(let key) = self else { return false }
        return key._withUnsafeGuaranteedRef { contexts.verifyOneShot(signature, over: message, key: $0) }
    }
}
