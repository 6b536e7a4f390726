import JWTVerify

/// The raw OpenSSL cost of checking a corpus's signatures, and nothing else: per token, the
/// digest of its signing input plus one `EVP_PKEY_verify` with a prepared, reused context.
///
/// Everything else (splitting, base64url, JSON, key lookup, R‖S→DER, claims) is done once while
/// preparing, so the timed loop is the ceiling full verification is measured against. Contexts
/// are prepared, and signatures checked, by the very calls the core makes (``ThreadContexts``).
package final class RawVerificationLimit {
    private struct Entry {
        let tokenIndex: Int
        let signingInputLength: Int
        let signature: [UInt8]
        let key: EVPPublicKey
        /// `nil` for EdDSA (one-shot verification over the message).
        let digest: MessageDigest?
        /// Index into `prepared` (`-1` for EdDSA).
        let context: Int
    }

    private let tokens: [[UInt8]]
    private var entries: [Entry] = []
    private var prepared: [PreparedVerifyContext] = []
    private let contexts = ThreadContexts()

    /// Prepares every token of `corpus` that has a usable key (others are left out).
    package init(corpus: BenchmarkCorpus) {
        tokens = corpus.tokens
        var contextIndex: [String: Int] = [:]
        for (index, token) in tokens.enumerated() {
            let peek = UnverifiedToken(peeking: token)
            guard let name = peek.algorithm, let algorithm = SignatureAlgorithm(name: name),
                let entry = peek.keyID.flatMap(corpus.keys.key(withID:)) ?? (corpus.keys.keys.count == 1 ? corpus.keys.keys[0] : nil),
                let key = entry.key, let dot = token.lastIndex(of: UInt8(ascii: ".")),
                var signature = Base64URL.decode(token[(dot + 1)...])
            else { continue }
            guard let digest = algorithm.digest else {
                entries.append(Entry(tokenIndex: index, signingInputLength: dot, signature: signature, key: key, digest: nil, context: -1))
                continue
            }
            if case .ecdsa = algorithm.family {
                guard let der = EVPPublicKey.ecdsaDER(fromJWS: signature) else { continue }
                signature = der
            }
            let slot = "\(entry.keyID ?? "")/\(algorithm.name)"
            if contextIndex[slot] == nil {
                guard let context = ThreadContexts.prepared(key: key, algorithm: algorithm) else { continue }
                contextIndex[slot] = prepared.count
                prepared.append(context)
            }
            entries.append(
                Entry(tokenIndex: index, signingInputLength: dot, signature: signature, key: key, digest: digest, context: contextIndex[slot]!))
        }
    }

    /// How many tokens are timed.
    package var count: Int { entries.count }

    /// Checks every prepared signature once; returns how many verified (so the work is not dead).
    package func runOnce() -> Int { run(entries.indices) }

    /// Checks the prepared signatures in `slice` (indices below ``count``) once.
    package func run(_ slice: Range<Int>) -> Int {
        var valid = 0
        for entry in entries[slice] {
            let ok = tokens[entry.tokenIndex].withUnsafeBytes { token in
                entry.signature.withUnsafeBytes { signature in
                    let message = UnsafeRawBufferPointer(rebasing: token[..<entry.signingInputLength])
                    guard let digest = entry.digest else { return contexts.verifyOneShot(signature, over: message, key: entry.key) }
                    return contexts.verify(prehashed: prepared[entry.context], signature: signature, over: message, digest: digest)
                }
            }
            if ok { valid += 1 }
        }
        return valid
    }
}
