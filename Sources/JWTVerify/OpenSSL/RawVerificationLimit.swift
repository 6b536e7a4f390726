internal import COpenSSL

/// The raw OpenSSL cost of checking a corpus's signatures, and nothing else: per token, the
/// digest of its signing input plus one `EVP_PKEY_verify` with a prepared, reused context.
///
/// Everything else (splitting, base64url, JSON, key lookup, R‖S→DER, claims) is done once while
/// preparing, so the timed loop is the ceiling full verification is measured against.
package final class RawVerificationLimit {
    private struct Entry {
        /// The prepared `EVP_PKEY_CTX`, or `nil` for EdDSA (one-shot `EVP_DigestVerify`).
        let context: OpaquePointer?
        let digest: MessageDigest?
        let key: EVPPublicKey
        let signingInput: Range<Int>
        let tokenIndex: Int
        let signature: [UInt8]
    }

    private let tokens: [[UInt8]]
    private var entries: [Entry] = []
    /// Whether any entry is EdDSA (the shared context then needs a reset between uses).
    private lazy var hasOneShot: Bool = entries.contains { $0.context == nil }
    private let digestContext: OpaquePointer
    private var contexts: [OpaquePointer] = []

    /// Prepares every token of `corpus` that has a usable key (others are left out).
    package init(corpus: BenchmarkCorpus) {
        tokens = corpus.tokens
        guard let md = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        digestContext = md
        var contextByKey: [UInt64: OpaquePointer] = [:]
        for (index, token) in tokens.enumerated() {
            let peek = UnverifiedToken(peeking: token)
            guard let name = peek.algorithm, let algorithm = SignatureAlgorithm(name: name),
                let entry = peek.keyID.flatMap(corpus.keys.key(withID:)) ?? (corpus.keys.keys.count == 1 ? corpus.keys.keys[0] : nil),
                let key = entry.key, let dots = Self.dots(token), let rawSignature = Base64URL.decode(token[(dots.1 + 1)...])
            else { continue }
            var signature = rawSignature
            guard let digest = algorithm.digest else {
                entries.append(Entry(context: nil, digest: nil, key: key, signingInput: 0..<dots.1, tokenIndex: index, signature: signature))
                continue
            }
            if case .ecdsa = algorithm.family {
                var der = [UInt8](repeating: 0, count: rawSignature.count + 16)
                let n = copenssl_ecdsa_raw_to_der(rawSignature, rawSignature.count, &der, der.count)
                signature = Array(der[..<n])
            }
            let slot = key.id << 8 | UInt64(algorithm.backing.rawValue)
            let context: OpaquePointer
            if let existing = contextByKey[slot] {
                context = existing
            } else {
                guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil), EVP_PKEY_verify_init(ctx) == 1,
                    EVP_PKEY_CTX_set_signature_md(ctx, digest.pointer) == 1
                else { continue }
                if algorithm.family == .rsaPKCS1 { _ = copenssl_set_rsa_padding(ctx, RSA_PKCS1_PADDING) }
                if algorithm.family == .rsaPSS {
                    _ = copenssl_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING)
                    _ = copenssl_set_rsa_pss_saltlen(ctx, Int32(digest.size))
                }
                contextByKey[slot] = ctx
                contexts.append(ctx)
                context = ctx
            }
            entries.append(
                Entry(context: context, digest: digest, key: key, signingInput: 0..<dots.1, tokenIndex: index, signature: signature))
        }
    }

    deinit {
        EVP_MD_CTX_free(digestContext)
        for context in contexts { EVP_PKEY_CTX_free(context) }
    }

    /// How many tokens are timed.
    package var count: Int { entries.count }

    /// Checks every prepared signature once; returns how many verified (so the work is not dead).
    package func runOnce() -> Int {
        var valid = 0
        var hash = [UInt8](repeating: 0, count: 64)
        for entry in entries {
            guard let context = entry.context, let digest = entry.digest else {
                // EdDSA: one-shot verification over the message, re-initialised per token.
                let ok = tokens[entry.tokenIndex].withUnsafeBufferPointer { token in
                    EVP_MD_CTX_reset(digestContext) == 1
                        && EVP_DigestVerifyInit_ex(digestContext, nil, nil, nil, nil, entry.key.pointer, nil) == 1
                        && EVP_DigestVerify(
                            digestContext, entry.signature, entry.signature.count, token.baseAddress, entry.signingInput.count) == 1
                }
                if ok { valid += 1 }
                continue
            }
            var length: UInt32 = 0
            tokens[entry.tokenIndex].withUnsafeBufferPointer { token in
                if hasOneShot { _ = EVP_MD_CTX_reset(digestContext) }
                _ = EVP_DigestInit_ex(digestContext, digest.pointer, nil)
                _ = EVP_DigestUpdate(digestContext, token.baseAddress, entry.signingInput.count)
                _ = EVP_DigestFinal_ex(digestContext, &hash, &length)
            }
            if EVP_PKEY_verify(context, entry.signature, entry.signature.count, hash, Int(length)) == 1 { valid += 1 }
        }
        ERR_clear_error()
        return valid
    }

    private static func dots(_ token: [UInt8]) -> (Int, Int)? {
        guard let first = token.firstIndex(of: UInt8(ascii: ".")),
            let second = token[(first + 1)...].firstIndex(of: UInt8(ascii: "."))
        else { return nil }
        return (first, second)
    }
}
