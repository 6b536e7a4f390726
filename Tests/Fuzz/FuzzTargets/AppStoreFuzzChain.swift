import Foundation
import JWTVerify
import JWTVerifyTestSupport

extension FuzzTargets {
    /// The App Store targets' synthetic Apple-shaped chain (made with the openssl command, once),
    /// the trust in its root, and the items signed by its leaf now: a genuine transaction, a renewal
    /// info, the transaction with one signature byte changed, and another bundle's transaction.
    static let appStoreChain:
        (
            chains: AppStoreChainFactory, trust: AppStoreTrust, transaction: String, renewal: String,
            tampered: String, foreign: String
        ) = {
            do {
                let chains = try AppStoreChainFactory()
                try chains.root("root")
                try chains.issue("intermediate", by: "root", section: "ca")
                try chains.issue("leaf", by: "intermediate", section: "leaf")
                let now = Date().timeIntervalSince1970
                let transaction = try appStoreSigned(AppStoreChainFactory.transaction(signedDate: now), by: chains)
                let renewal = try appStoreSigned(
                    #"{"originalTransactionId":"1","autoRenewProductId":"p","autoRenewStatus":1,"environment":"Sandbox","signedDate":\#(Int64(now * 1000))}"#,
                    by: chains)
                var tampered = Array(transaction.utf8)
                tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? 66 : 65
                let foreign = try appStoreSigned(
                    AppStoreChainFactory.transaction(signedDate: now, bundleID: "com.example.other"), by: chains)
                return (
                    chains, try chains.trust("root"), transaction, renewal, String(decoding: tampered, as: UTF8.self),
                    foreign
                )
            } catch {
                fatalError("the App Store targets' chain cannot be made: \(error)")
            }
        }()

    /// `payload` signed by the chain's leaf, the whole chain in its `x5c`.
    static func appStoreSigned(_ payload: String, by chains: AppStoreChainFactory) throws -> String {
        try chains.token(payload: payload, chain: ["leaf", "intermediate", "root"], signer: "leaf")
    }
}
