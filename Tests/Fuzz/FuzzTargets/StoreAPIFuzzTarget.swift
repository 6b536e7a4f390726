import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport

// The App Store Server API target:
//   storeapi  arbitrary raw HTTP answers as the pages of one App Store Server API call. Byte 0
//             picks the call (transaction info, history, statuses, notification history, test
//             notification status, order look-up: its low 3 bits % 6) and the chunk size (the
//             rest of it); the rest is split at
//             "\n--page--\n" into answers, in whose text `@T` becomes a genuine signed transaction,
//             `@R` a renewal info, `@N` a notification, `@X` a tampered transaction and `@F`
//             another bundle's transaction (all of a synthetic Apple-shaped chain). A call that
//             succeeds must hand out genuine items only, and no error may repeat the bearer token;
//             a paged call never asks for more than its page cap.
extension FuzzTargets {
    /// The chain, the trust in its root, and the signed items the placeholders stand for.
    static let storeAPI: (trust: AppStoreTrust, genuine: Set<String>, fills: [(String, String)]) = {
        let chain = appStoreChain
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        do {
            let notification = try appStoreSigned(
                #"{"notificationType":"TEST","notificationUUID":"u","version":"2.0","signedDate":\#(now),"data":{"bundleId":"com.example.app","environment":"Sandbox","signedTransactionInfo":"\#(chain.transaction)"}}"#,
                by: chain.chains)
            return (
                chain.trust, [chain.transaction, chain.renewal, notification],
                [
                    ("@T", chain.transaction), ("@R", chain.renewal), ("@N", notification), ("@X", chain.tampered),
                    ("@F", chain.foreign),
                ]
            )
        } catch {
            fatalError("the storeapi target's notification cannot be signed: \(error)")
        }
    }()

    static func storeAPIAnswers(_ bytes: UnsafeRawBufferPointer) {
        guard let knob = bytes.first else { return }
        let (trust, genuine, fills) = storeAPI
        var text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        for (placeholder, token) in fills { text = text.replacingOccurrences(of: placeholder, with: token) }
        let pages = text.components(separatedBy: "\n--page--\n").prefix(12).map { Array($0.utf8) }
        switch AppStoreServerReplay.run(Int(knob & 7) % 6, pages: pages, trust: trust, chunk: 1 + Int(knob >> 3)) {
        case .success(let items):
            for item in items where !genuine.contains(item) {
                fatalError("an item that is not genuine was handed out: \(item.prefix(80))")
            }
        case .failure(let error):
            if error.description.contains(AppStoreServerReplay.bearerToken) {
                fatalError("the bearer token repeated in an error: \(error.description)")
            }
        }
    }
}
