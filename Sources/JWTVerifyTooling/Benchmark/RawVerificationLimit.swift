import JWTVerify

/// The raw OpenSSL cost of checking a corpus's signatures, and nothing else: per token, the
/// digest of its signing input plus one `EVP_PKEY_verify` with a prepared, reused context.
///
/// Everything else (splitting, base64url, JSON, key lookup, R‖S→DER, claims) is done once while
/// preparing, so the timed loop is the ceiling full verification is measured against. Contexts
/// are prepared, and signatures checked, by the very calls the core makes (``ThreadContexts``).
///
/// With ``Check/library``, RS256/RS384/RS512 signatures are checked by the key's Montgomery chain
/// instead, as the library checks them: full verification's ratio to that limit is the share of a
/// token's time that the signature check itself takes.
package final class RawVerificationLimit {
    /// What checks a signature in the timed loop.
    package enum Check: String, Sendable {
        /// OpenSSL's own `EVP_PKEY_verify`: the limit the project's ratios are stated against.
        case openSSL = "openssl"
        /// The check the library itself makes: the Montgomery chain for RS256, RS384 and RS512
        /// (``RSAMontgomeryKey``); every other algorithm as ``openSSL``.
        case library
        /// The multi-buffer engine alone (``MultiBufferEngine``): per eight RS256/RS384/RS512
        /// tokens of one modulus size, their digests, one eight-lane public operation and the
        /// encoding compares; every other token as ``library``. Needs the engine loaded.
        case multiBuffer = "multibuffer"
    }

    /// Eight (or fewer, at the end) entries the engine checks in one call.
    private struct LaneGroup {
        var lanes: MultiBufferEngine.Lanes
        /// Entry indices.
        let members: [Int]
        let digest: MessageDigest
        /// The members' signatures one after the other, each of the modulus's length.
        let signatures: [UInt8]
    }

    private struct Entry {
        let tokenIndex: Int
        let signingInputLength: Int
        let signature: [UInt8]
        let key: EVPPublicKey
        /// `nil` for EdDSA (one-shot verification over the message).
        let digest: MessageDigest?
        /// Index into `prepared` (`-1` for EdDSA).
        let context: Int
        /// With ``Check/library``, the RSA key's chain and the algorithm it checks.
        var chain: RSAMontgomeryKey? = nil
        var algorithm: SignatureAlgorithm = .rs256
    }

    /// The signed messages the entries check: the corpus's tokens, or with carried signatures
    /// every JWS each token carries.
    private var tokens: [[UInt8]] = []
    private var entries: [Entry] = []
    /// With carried signatures (``BenchmarkCorpus/carriedSignatures``): each timed token's
    /// entries, consecutive; `nil`: one entry per timed token.
    private var tokenEntries: [Range<Int>]? = nil
    /// With ``Check/multiBuffer``: the entries the engine takes, in groups of consecutive
    /// entries, by the group's first entry.
    private var laneGroups: [LaneGroup] = []
    private var laneGroupAt: [Int: Int] = [:]
    private var prepared: [PreparedVerifyContext] = []
    private var contextIndex: [String: Int] = [:]
    private let contexts = ThreadContexts()

    /// Prepares every token of `corpus` that has a usable key (others are left out), to be checked
    /// the way `check` says. A token that carries several signatures (``BenchmarkCorpus/carriedSignatures``)
    /// is timed with all of them, or left out when any cannot be checked.
    package init(corpus: BenchmarkCorpus, check: Check = .openSSL) {
        guard let carried = corpus.carriedSignatures else {
            tokens = corpus.tokens
            for (index, token) in tokens.enumerated() {
                let peek = UnverifiedToken(peeking: token)
                guard
                    let entry = peek.keyID.flatMap(corpus.keys.key(withID:))
                        ?? (corpus.keys.keys.count == 1 ? corpus.keys.keys[0] : nil),
                    let key = entry.key,
                    let timed = prepareEntry(index, token, algorithm: peek.algorithm, key: key, slot: entry.keyID ?? "")
                else { continue }
                entries.append(timed)
            }
            if check != .openSSL { attachChains() }
            if check == .multiBuffer { groupLanes() }
            return
        }
        var messages: [[UInt8]] = []
        var ranges: [Range<Int>] = []
        for signatures in carried where !signatures.isEmpty {
            var own: [Entry] = []
            for signature in signatures {
                let peek = UnverifiedToken(peeking: signature.jws)
                guard
                    let timed = prepareEntry(
                        messages.count + own.count, signature.jws, algorithm: peek.algorithm, key: signature.key,
                        slot: "\(ObjectIdentifier(signature.key))")
                else { break }
                own.append(timed)
            }
            guard own.count == signatures.count else { continue }
            ranges.append(entries.count..<(entries.count + own.count))
            entries += own
            messages += signatures.map(\.jws)
        }
        tokens = messages
        tokenEntries = ranges
        if check != .openSSL { attachChains() }
    }

    /// The entry that checks `token` (message `index`) with `key`, its context prepared once per
    /// `slot` and algorithm; `nil` when it cannot be checked.
    private func prepareEntry(_ index: Int, _ token: [UInt8], algorithm name: String?, key: EVPPublicKey, slot: String)
        -> Entry?
    {
        guard let name, let algorithm = SignatureAlgorithm(name: name),
            let dot = token.lastIndex(of: UInt8(ascii: ".")),
            var signature = Base64URL.decode(token[(dot + 1)...])
        else { return nil }
        guard let digest = algorithm.digest else {
            return Entry(
                tokenIndex: index, signingInputLength: dot, signature: signature, key: key, digest: nil, context: -1)
        }
        if case .ecdsa = algorithm.family {
            guard let der = EVPPublicKey.ecdsaDER(fromJWS: signature) else { return nil }
            signature = der
        }
        let slot = "\(slot)/\(algorithm.name)"
        if contextIndex[slot] == nil {
            guard let context = ThreadContexts.prepared(key: key, algorithm: algorithm) else { return nil }
            contextIndex[slot] = prepared.count
            prepared.append(context)
        }
        var timed = Entry(
            tokenIndex: index, signingInputLength: dot, signature: signature, key: key, digest: digest,
            context: contextIndex[slot]!)
        timed.algorithm = algorithm
        return timed
    }

    /// With ``Check/library`` or ``Check/multiBuffer``: RS256/RS384/RS512 entries checked by their
    /// key's Montgomery chain.
    private func attachChains() {
        for index in entries.indices where entries[index].algorithm.family == .rsaPKCS1 {
            entries[index].chain = entries[index].key.rsaChain
        }
    }

    /// How many tokens are timed.
    package var count: Int { tokenEntries?.count ?? entries.count }

    /// Checks every prepared signature once; returns how many verified (so the work is not dead).
    package func runOnce() -> Int { run(0..<count) }

    /// Groups the entries the engine takes: runs of consecutive entries of one algorithm and
    /// modulus size, eight to a group; a group of fewer than ``MultiBufferEngine/minimumLanes``
    /// stays with the chain.
    private func groupLanes() {
        var run: [Int] = []
        var runName = ""
        func close() {
            for start in stride(from: 0, to: run.count, by: 8) {
                let group = Array(run[start..<min(start + 8, run.count)])
                let first = entries[group[0]]
                guard group.count >= MultiBufferEngine.minimumLanes,
                    let lanes = MultiBufferEngine.Lanes(
                        keys: group.map { entries[$0].key }, algorithm: first.algorithm), let digest = first.digest
                else { continue }
                laneGroupAt[group[0]] = laneGroups.count
                laneGroups.append(
                    LaneGroup(
                        lanes: lanes, members: group, digest: digest,
                        signatures: group.flatMap { entries[$0].signature }))
            }
            run.removeAll()
        }
        for (index, entry) in entries.enumerated() {
            guard entry.chain != nil, let bits = MultiBufferEngine.takes(entry.key), entry.signature.count == bits / 8
            else {
                close()
                continue
            }
            let name = "\(entry.algorithm.name)/\(bits)"
            if name != runName { close() }
            runName = name
            run.append(index)
        }
        close()
    }

    /// One lane group through the engine; the number of valid signatures.
    private func runLanes(
        _ group: Int, digests: UnsafeMutableRawBufferPointer, pointers: UnsafeMutablePointer<UnsafeRawPointer?>,
        verdicts: UnsafeMutablePointer<UInt8>
    ) -> Int {
        for lane in 0..<16 { pointers[lane] = nil }
        for (lane, index) in laneGroups[group].members.enumerated() {
            let entry = entries[index]
            let digest = UnsafeMutableRawBufferPointer(rebasing: digests[(lane * 64)..<(lane * 64 + 64)])
            tokens[entry.tokenIndex].withUnsafeBytes { token in
                _ = contexts.hash(
                    UnsafeRawBufferPointer(rebasing: token[..<entry.signingInputLength]),
                    with: laneGroups[group].digest, into: digest)
            }
            pointers[8 + lane] = UnsafeRawPointer(digest.baseAddress!)
        }
        let width = laneGroups[group].lanes.bits / 8
        let signatures = laneGroups[group].signatures  // read apart from the lanes' mutating call
        signatures.withUnsafeBytes { signatures in
            for lane in laneGroups[group].members.indices { pointers[lane] = signatures.baseAddress! + lane * width }
            laneGroups[group].lanes.verify(signatures: pointers, digests: pointers + 8, valid: verdicts)
        }
        var valid = 0
        for lane in 0..<laneGroups[group].members.count where verdicts[lane] == 1 { valid += 1 }
        return valid
    }

    /// Checks the prepared signatures of the timed tokens in `slice` (indices below ``count``)
    /// once; returns how many signatures verified.
    package func run(_ slice: Range<Int>) -> Int {
        if let tokenEntries {
            guard !slice.isEmpty else { return 0 }
            return run(
                entries: tokenEntries[slice.lowerBound].lowerBound..<tokenEntries[slice.upperBound - 1].upperBound)
        }
        guard !laneGroups.isEmpty else { return run(entries: slice) }
        // Lane groups that lie wholly inside the slice through the engine, the rest one by one.
        var valid = 0
        withUnsafeTemporaryAllocation(byteCount: 8 * 64, alignment: 8) { digests in
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: 16) { pointers in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { verdicts in
                    var index = slice.lowerBound
                    while index < slice.upperBound {
                        if let group = laneGroupAt[index], let last = laneGroups[group].members.last,
                            last < slice.upperBound
                        {
                            valid += runLanes(
                                group, digests: digests, pointers: pointers.baseAddress!,
                                verdicts: verdicts.baseAddress!)
                            index = last + 1
                        } else {
                            valid += run(entries: index..<(index + 1))
                            index += 1
                        }
                    }
                }
            }
        }
        return valid
    }

    private func run(entries slice: Range<Int>) -> Int {
        var valid = 0
        for entry in entries[slice] {
            let ok = tokens[entry.tokenIndex].withUnsafeBytes { token in
                entry.signature.withUnsafeBytes { signature in
                    let message = UnsafeRawBufferPointer(rebasing: token[..<entry.signingInputLength])
                    guard let digest = entry.digest else {
                        return contexts.verifyOneShot(signature, over: message, key: entry.key)
                    }
                    if let chain = entry.chain {
                        return withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { hash in
                            let length = contexts.hash(message, with: digest, into: hash)
                            return chain.isValidSignature(
                                signature, digest: UnsafeRawBufferPointer(rebasing: hash[..<length]),
                                algorithm: entry.algorithm)
                        }
                    }
                    return contexts.verify(
                        prehashed: prepared[entry.context], signature: signature, over: message, digest: digest)
                }
            }
            if ok { valid += 1 }
        }
        return valid
    }
}
