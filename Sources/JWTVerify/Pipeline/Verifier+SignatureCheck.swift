extension Verifier {
    /// Stage B for one token (step 9): the chosen key's own check of the signature over the
    /// token's `header.payload` bytes, by the engine the key chooses for it. With `fingerprint`, a
    /// SHA-256 signature's digest state is continued over the rest of the token into the trace's
    /// fingerprint.
    func checkSignature(
        _ prepared: inout PreparedToken, contexts: ThreadContexts = .current, fingerprint: Bool = false
    ) {
        guard prepared.awaitsSignature else { return }
        let engine = withUnsafeMutablePointer(to: &prepared) { signatureEngine(of: $0) }
        guard let engine else { return settle(&prepared, valid: false) }
        checkSignature(&prepared, engine: engine, contexts: contexts, fingerprint: fingerprint)
    }

    /// The engine of the key a prepared token chose, for its algorithm and signature length
    /// (``EVPPublicKey/signatureEngine(for:signatureLength:)``); `nil` when it has no key. Through a
    /// pointer: a token passed by value, even borrowed from a buffer's element, was copied whole.
    func signatureEngine(of prepared: UnsafeMutablePointer<PreparedToken>) -> SignatureEngine? {
        guard let key = signingKey(of: prepared.pointee) else { return nil }
        // Read outside the closure, which would otherwise copy the token.
        let algorithm = prepared.pointee.header.algorithm
        let length = prepared.pointee.signatureRange.count
        return key._withUnsafeGuaranteedRef { $0.signatureEngine(for: algorithm, signatureLength: length) }
    }

    /// One token's signature checked alone by `engine`: EdDSA over the signing input itself, any
    /// other algorithm over its digest, made in this thread's digest room.
    func checkSignature(
        _ prepared: inout PreparedToken, engine: SignatureEngine, contexts: ThreadContexts, fingerprint: Bool
    ) {
        guard prepared.header.algorithm.family != .edDSA else {
            let valid = engine.isValidSignature(prepared.signature, message: prepared.signingInput, contexts: contexts)
            return settle(&prepared, valid: valid)
        }
        let room = contexts.digestRoom
        let length = hashSigningInput(&prepared, into: room, contexts: contexts, fingerprint: fingerprint)
        let valid = engine.isValidSignature(
            prepared.signature, digest: UnsafeRawBufferPointer(rebasing: room[..<length]),
            algorithm: prepared.header.algorithm, contexts: contexts)
        settle(&prepared, valid: valid)
    }

    /// The digest of the token's signing input under its algorithm into `room` (at least the
    /// digest's size); returns its length. With `fingerprint` and a SHA-256 algorithm, the token's
    /// fingerprint is continued from the same state into its trace. Not for EdDSA, which has none.
    func hashSigningInput(
        _ prepared: inout PreparedToken, into room: UnsafeMutableRawBufferPointer, contexts: ThreadContexts,
        fingerprint: Bool
    ) -> Int {
        let algorithm = prepared.header.algorithm
        guard fingerprint, algorithm.hashesWithSHA256 else {
            return algorithm.unretainedDigest!._withUnsafeGuaranteedRef {
                contexts.hash(prepared.signingInput, with: $0, into: room)
            }
        }
        var continued = SHA256Digest()
        let length = continued.withUnsafeMutableBytes { continued in
            contexts.hash(
                prepared.signingInput,
                continuing: UnsafeRawBufferPointer(rebasing: prepared.token[prepared.jws.signingInput.upperBound...]),
                with: MessageDigest.sha256, into: room, continued: continued)
        }
        prepared.trace.fingerprint = continued
        return length
    }

    /// The key a prepared token's signature is checked with: its `x5c` leaf's (App Store), or the
    /// key set's entry it chose. Unretained: the key set, or the token's own reference to its
    /// chain key, keeps it alive through the stage.
    func signingKey(of prepared: borrowing PreparedToken) -> Unmanaged<EVPPublicKey>? {
        if let certificateKey = prepared.certificateKey { return Unmanaged.passUnretained(certificateKey) }
        return keys.slots[prepared.keyIndex].key
    }

    /// Records the signature's verdict.
    func settle(_ prepared: inout PreparedToken, valid: Bool) {
        guard !valid else {
            prepared.stage = .signed
            return
        }
        prepared.stage = .rejected(
            VerificationError(
                .badSignature,
                detail: prepared.certificateKey != nil
                    ? "\(prepared.header.algorithm.name) signature does not verify with the x5c leaf's key"
                    : "\(prepared.header.algorithm.name) signature does not verify with kid \(Self.quoted(keys.keys[prepared.keyIndex].keyID ?? ""))"
            ))
    }
}
