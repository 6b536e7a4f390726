#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Verifier {
    /// Stage A's first half, before any scratch is needed: the size check (step 1) and the
    /// verified-token cache, for a token just made (awaiting its signature). It then awaits
    /// ``prepare(_:scratch:contexts:tracing:)`` unless this already decided it. `earlier`: the
    /// batch's tokens before this one, for a repeat of a token the cache missed
    /// (``PreparedToken/Stage/repeatOf(_:)``). In place: a prepared token is never copied.
    func admit(_ prepared: inout PreparedToken, earlier: UnsafeBufferPointer<PreparedToken>? = nil) {
        let token = prepared.token
        guard token.count <= policy.maxTokenBytes else {
            prepared.stage = .rejected(
                VerificationError(
                    .tooLarge, detail: "token is \(token.count) octets; the limit is \(policy.maxTokenBytes)"))
            return
        }
        guard let cache, token.count <= cache.configuration.maxTokenBytes else { return }
        let hash = cache.hash(token)
        if let earlier, let first = Self.firstSighting(of: token, hash: hash, in: earlier) {
            prepared.stage = .repeatOf(first)
            return
        }
        if let entry = cache.lookup(token, hash: hash) {
            if keyStillVerifies(entry) {
                prepared.stage = .cached(entry)
                return
            }
            cache.invalidate(token, hash: hash)
        }
        prepared.cacheHash = hash
    }

    /// The position of an earlier token of the batch with these bytes that the cache missed.
    private static func firstSighting(
        of token: UnsafeRawBufferPointer, hash: UInt64, in earlier: UnsafeBufferPointer<PreparedToken>
    ) -> Int? {
        for position in earlier.indices where earlier[position].cacheHash == hash {
            let other = earlier[position].token
            if other.count == token.count,
                token.isEmpty || memcmp(other.baseAddress!, token.baseAddress!, token.count) == 0
            {
                return position
            }
        }
        return nil
    }

    /// Stage A, steps 2–8 but the signature itself: split, header, header parameters,
    /// payload/signature decoding, key selection and key usability, for a token ``admit(_:earlier:)``
    /// left awaiting. The segments are decoded into `scratch` (at least the token's length); the
    /// payload is decoded, not parsed. With `tracing`, the header's `alg` and `kid` as written
    /// go into the trace. `contexts` are this thread's. App Store signed data takes its key from
    /// its `x5c` chain instead (its validity periods judged in the walk).
    func prepare(
        _ prepared: inout PreparedToken, scratch: UnsafeMutableRawBufferPointer, contexts: ThreadContexts, tracing: Bool
    ) {
        let token = prepared.token
        prepared.scratch = scratch
        switch CompactJWS.split(token) {
        case .success(let split):
            prepared.jws = split
            prepared.isSplit = true
        case .failure(.encrypted):
            prepared.stage = .rejected(
                VerificationError(.unsupportedAlgorithm, detail: "token has 5 segments: JWE is not supported"))
            return
        case .failure(.segmentCount(let count)):
            prepared.stage = .rejected(Self.malformed(token, "token has \(count) segment(s), not 3"))
            return
        }
        let jws = prepared.jws

        // Header: base64url, JSON object, parameters; or, for a header text this thread has
        // verified under this verifier, what that gave (the same header and key).
        let headerSegment = UnsafeRawBufferPointer(rebasing: token[jws.header])
        // App Store headers carry their chain: remembered with its key only while the policy's
        // chain verdicts cannot change (validated chains kept, no online checks), else read each time.
        let readsCertificates = policy.rules.readsCertificateChains
        let remembered = memoizesHeaders ? contexts.headers.lookup(headerSegment, verifier: identity) : nil
        var certificates: [String] = []
        var headerLength = 0
        if let remembered {
            prepared.header = remembered.header
            if tracing {
                prepared.trace.algorithm = remembered.header.algorithm.name
                prepared.trace.keyID = remembered.header.keyID
            }
        } else {
            guard let length = Base64URL.decode(headerSegment, into: scratch) else {
                prepared.stage = .rejected(Self.malformed(token, "header segment is not strict base64url"))
                return
            }
            headerLength = length
            if tracing { prepared.trace.header = UnsafeRawBufferPointer(rebasing: scratch[..<length]) }
            switch JSONObjectParser.parse(
                UnsafeRawBufferPointer(rebasing: scratch[..<length]),
                HeaderReading(
                    allowList: allowList, requirements: policy.rules.headerRequirements,
                    readsCertificates: readsCertificates, report: tracing))
            {
            case .success(let read):
                if tracing {
                    prepared.trace.algorithm = read.algorithm
                    prepared.trace.keyID = read.keyID
                }
                switch read.header {
                case .success(let value):
                    prepared.header = value
                    if readsCertificates {
                        switch read.certificates {
                        case .success(let chain)?: certificates = chain
                        case .failure(let error)?:
                            prepared.stage = .rejected(error)
                            return
                        case nil: break
                        }
                    }
                case .failure(let error):
                    prepared.stage = .rejected(error)
                    return
                }
            case .failure(.invalid(let message)):
                prepared.stage = .rejected(
                    VerificationError(.malformed, detail: "header is not valid JSON: \(message)"))
                return
            case .failure(.notObject):
                prepared.stage = .rejected(VerificationError(.malformed, detail: "header is not a JSON object"))
                return
            }
        }

        // Payload and signature segments: strict base64url, after the header in the scratch.
        let payloadBuffer = UnsafeMutableRawBufferPointer(rebasing: scratch[headerLength...])
        guard
            let payloadLength = Base64URL.decode(
                UnsafeRawBufferPointer(rebasing: token[jws.payload]), into: payloadBuffer)
        else {
            prepared.stage = .rejected(Self.malformed(token, "payload segment is not strict base64url"))
            return
        }
        prepared.payloadRange = headerLength..<(headerLength + payloadLength)
        let signatureStart = headerLength + payloadLength
        guard
            let signatureLength = Base64URL.decode(
                UnsafeRawBufferPointer(rebasing: token[jws.signature]),
                into: UnsafeMutableRawBufferPointer(rebasing: scratch[signatureStart...]))
        else {
            prepared.stage = .rejected(Self.malformed(token, "signature segment is not strict base64url"))
            return
        }
        prepared.signatureRange = signatureStart..<(signatureStart + signatureLength)

        if readsCertificates, let certificateKeys = policy.rules.certificateChainKeys {
            if let chain = remembered?.chain {
                prepared.certificateKey = chain.key
                prepared.certificateValidity = chain.validity
            } else {
                chooseCertificateKey(&prepared, certificates: certificates, from: certificateKeys)
                if memoizesHeaders, let key = prepared.certificateKey, let validity = prepared.certificateValidity {
                    contexts.headers.remember(
                        headerSegment, verifier: identity, header: prepared.header, keyIndex: 0,
                        chain: HeaderMemo.Chain(key: key, validity: validity))
                }
            }
        } else if let remembered {
            prepared.keyIndex = remembered.keyIndex
        } else {
            switch keyIndex(for: prepared.header) {
            case .success(let found): prepared.keyIndex = found
            case .failure(let error):
                prepared.stage = .rejected(error)
                return
            }
            contexts.headers.remember(
                headerSegment, verifier: identity, header: prepared.header, keyIndex: prepared.keyIndex)
        }
    }

    /// Steps 7 and 8, key selection and key usability: the exact `kid`, or the only key; then
    /// whether it may verify this `alg`. The precomputed slot answers both without copying the
    /// entry; only a refusal reads the entry for its reason.
    func keyIndex(for header: JOSEHeader) -> Result<Int, VerificationError> {
        let index: Int
        if let kid = header.keyID {
            guard let found = keys.index(ofKeyID: kid) else {
                return .failure(VerificationError(.unknownKeyID, detail: "no key has kid \(Self.quoted(kid))"))
            }
            index = found
        } else {
            guard keys.slots.count == 1 else {
                return .failure(
                    VerificationError(
                        .unknownKeyID, detail: "token has no kid and the key set has \(keys.keys.count) keys"))
            }
            index = 0
        }
        guard keys.slots[index].allows(header.algorithm) else {
            let mismatch =
                keys.keys[index].mismatch(for: header.algorithm) ?? "the key may not verify \(header.algorithm.name)"
            return .failure(VerificationError(.keyAlgorithmMismatch, detail: mismatch))
        }
        return .success(index)
    }

    /// The key slot a verified token names: its `kid`'s, or the only key's.
    func slot(for verified: VerifiedToken) -> KeySlot? {
        if let kid = verified.keyID { return keys.index(ofKeyID: kid).map { keys.slots[$0] } }
        return keys.slots.count == 1 ? keys.slots[0] : nil
    }

    /// Whether the key that verified a cached token is still in the key set under its `kid`,
    /// unchanged, and still allowed this `alg`.
    private func keyStillVerifies(_ entry: VerifiedTokenCache.Entry) -> Bool {
        guard let slot = slot(for: entry.verified) else { return false }
        return slot.identity == entry.keyIdentity && slot.allows(entry.verified.algorithm)
    }

    /// A `malformed` rejection saying `what`, or, when the token has something around it that
    /// only a face takes away (``TokenInput``), naming that instead: the library takes the token alone.
    static func malformed(_ token: UnsafeRawBufferPointer, _ what: String) -> VerificationError {
        guard let around = TokenInput.surroundings(of: token) else {
            return VerificationError(.malformed, detail: what)
        }
        return VerificationError(.malformed, detail: "\(around) (pass the token alone: \(what))")
    }
}
