import Foundation
import JWTVerify
import JWTVerifyTestSupport

// The App Store batch target:
//   appstorebatch  a batch of App Store tokens whose notifications carry signed data of the input's
//                  choosing, against each token alone. The input is split at "\n" into up to 48
//                  lines. In a line, `@T` becomes a genuine transaction, `@R` a renewal info, `@X` a
//                  tampered transaction and `@F` another bundle's transaction; a line that starts
//                  with `N` becomes a genuine notification (signed now) whose
//                  `data.signedTransactionInfo` is the rest of the line up to a `|`, built the same
//                  way (so notifications nest), and whose `data.signedRenewalInfo` is what follows
//                  the `|`. Byte 0 picks the verifier (chain memory on or off, a verified-token cache
//                  or none). The batch must give every token, in order, the verdict, reason and
//                  detail it gets alone, and a success must carry verified nested data only.
extension FuzzTargets {
    /// The chain, its trust, and the signed items the placeholders stand for.
    static let appStoreBatch: (chains: AppStoreChainFactory, trust: AppStoreTrust, fills: [(String, String)]) = {
        let chain = appStoreChain
        return (
            chain.chains, chain.trust,
            [("@T", chain.transaction), ("@R", chain.renewal), ("@X", chain.tampered), ("@F", chain.foreign)]
        )
    }()

    /// The token a line stands for: placeholders filled, a leading `N` a signed notification.
    static func appStoreBatchToken(_ line: Substring, depth: Int = 0) -> String {
        let (chains, _, fills) = appStoreBatch
        guard line.first == "N", depth < 4 else {
            var text = String(line)
            for (placeholder, token) in fills { text = text.replacingOccurrences(of: placeholder, with: token) }
            return text
        }
        let parts = line.dropFirst().split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        var data = #"{"bundleId":"com.example.app","environment":"Sandbox""#
        for (name, part) in zip(["signedTransactionInfo", "signedRenewalInfo"], parts) where !part.isEmpty {
            var escaped = OutputText()
            escaped.string(appStoreBatchToken(part, depth: depth + 1))
            data += #","\#(name)":\#(escaped.string)"#
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let payload =
            #"{"notificationType":"DID_RENEW","notificationUUID":"u","version":"2.0","signedDate":\#(now),"data":\#(data)}}"#
        do {
            return try appStoreSigned(payload, by: chains)
        } catch {
            fatalError("cannot sign a notification: \(error)")
        }
    }

    static func appStoreBatchCase(_ bytes: UnsafeRawBufferPointer) {
        guard let knob = bytes.first else { return }
        let (_, trust, _) = appStoreBatch
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let tokens = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(48).map {
            appStoreBatchToken($0)
        }
        let policy = VerificationPolicy.appStore(
            bundleIDs: ["com.example.app"], trust: knob & 1 == 0 ? trust : trust.withoutChainMemory())
        let verifier =
            knob & 2 == 0
            ? Verifier(policy: policy) : Verifier(keys: JWKSet(keys: []), policy: policy, cache: .init(capacity: 8))
        func verdict(_ result: Result<VerifiedToken, VerificationError>) -> String {
            switch result {
            case .success(let token):
                guard let claims = token.provider.claims(as: AppStoreClaims.self) else {
                    fatalError("an App Store token verified without App Store claims")
                }
                return "valid \(claims.kind) \(claims.transaction != nil) \(claims.renewalInfo != nil)"
            case .failure(let error): return "\(error.reason.rawValue): \(error.detail)"
            }
        }
        var batch = TokenBatch()
        for token in tokens { batch.append(token) }
        let together = verifier.verify(batch).map(verdict)
        let alone = tokens.map { token in verdict(Result { () throws(VerificationError) in try verifier.verify(token) })
        }
        guard together == alone else {
            for (index, (a, b)) in zip(together, alone).enumerated() where a != b {
                print("token \(index): in the batch \(a), alone \(b)")
            }
            fatalError("a batch and its tokens alone disagree")
        }
    }
}
