import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// App Store signed data: Apple's real tokens from the shared vectors.
@Suite(
    "App Store signed data, real tokens",
    .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
struct AppStoreRealTokenTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let token: String
        let kind: String
        let environment: String?
        let signedDateMilliseconds: Double?
        let nested: Bool
        var testDescription: String {
            "\(kind) \(environment ?? "-") \(signedDateMilliseconds.map { String(Int64($0)) } ?? "no signedDate")"
        }
    }

    static let vectors: [Vector] = {
        guard let data = try? SharedVectors.data("appstore/tokens.jsonl") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return Vector(
                token: object["token"] as! String, kind: object["kind"] as! String,
                environment: object["environment"] as? String,
                signedDateMilliseconds: (object["signed_date_ms"] as? NSNumber)?.doubleValue,
                nested: !(object["nested"] is NSNull))
        }
    }()

    /// Every bundle ID is accepted: the vectors come from many apps.
    static let verifier = Verifier(
        policy: VerificationPolicy(issuers: nil, audiences: nil, algorithms: [.es256], rules: .appStore(bundleIDs: nil))
    )

    /// The time a vector is judged at: its signedDate, or (the notification without one) its
    /// nested transaction's.
    static func time(_ vector: Vector) -> Double? {
        vector.signedDateMilliseconds == nil ? 1_646_387_008.254 : nil
    }

    @Test("the 43 vectors are there: 22 notifications, 11 transactions, 10 renewal infos")
    func corpus() {
        #expect(Self.vectors.count == 43)
        #expect(Self.vectors.filter { $0.kind == "notification" }.count == 22)
        #expect(Self.vectors.filter { $0.kind == "transaction" }.count == 11)
        #expect(Self.vectors.filter { $0.kind == "renewal" }.count == 10)
    }

    @Test("each real token verifies at its signedDate, typed as its kind, nested data verified too", arguments: vectors)
    func verifies(_ vector: Vector) throws {
        let token = try Self.verifier.verify(vector.token, at: Self.time(vector))
        let claims = try #require(token.provider(as: AppStoreClaims.self))
        let kind: AppStoreClaims.Kind =
            switch vector.kind {
            case "notification": .notification
            case "transaction": .transaction
            default: .renewalInfo
            }
        #expect(claims.kind == kind)
        #expect(claims.environment == vector.environment)
        #expect(claims.signedDate == vector.signedDateMilliseconds)
        if kind == .notification, let data = token.allClaims["data"], case .object(let members) = data {
            #expect((members["signedTransactionInfo"] != nil) == (claims.transaction != nil))
            #expect((members["signedRenewalInfo"] != nil) == (claims.renewalInfo != nil))
            #expect(claims.transaction.map { $0.kind == .transaction } ?? true)
        }
    }

    @Test(
        "each real token with one payload byte changed is bad_signature, at its signedDate as at a given time: no payload byte is read before the signature holds",
        arguments: vectors)
    func tampered(_ vector: Vector) throws {
        var bytes = Array(vector.token.utf8)
        let firstDot = bytes.firstIndex(of: UInt8(ascii: "."))!
        // A character in the middle of the payload segment, swapped for another base64url digit.
        let position = firstDot + 40
        bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "Q") : UInt8(ascii: "A")
        #expect(throws: VerificationError(.badSignature)) { try Self.verifier.verify(bytes) }
        #expect(throws: VerificationError(.badSignature)) {
            try Self.verifier.verify(bytes, at: Self.time(vector) ?? vector.signedDateMilliseconds! / 1000)
        }
    }
}

/// App Store signed data over synthetic chains shaped like Apple's, made with `openssl`: every
/// chain and payload rule.
@Suite("App Store signed data, synthetic chains")
struct AppStoreChainTests {
    /// One PKI for the suite: a root, an intermediate and a leaf as Apple shapes them, and the
    /// variants the rules refuse.
    static let pki: AppStoreChainFactory = {
        let pki = try! AppStoreChainFactory()
        try! pki.root("root")
        try! pki.issue("ca", by: "root", section: "ca")
        try! pki.issue("leaf", by: "ca", section: "leaf")
        // Same names as the real root and intermediate, other keys.
        try! pki.root("impostor")
        try! pki.issue("impostor-ca", by: "impostor", section: "ca", subject: "/CN=ca/O=Test Inc./C=US")
        try! pki.issue("impostor-leaf", by: "impostor-ca", section: "leaf", subject: "/CN=leaf/O=Test Inc./C=US")
        try! pki.issue("leaf-plain", by: "ca", section: "leaf_plain")
        try! pki.issue("ca-plain", by: "root", section: "ca_plain")
        try! pki.issue("leaf-under-plain", by: "ca-plain", section: "leaf")
        try! pki.issue("leaf-short", by: "ca", section: "leaf", days: 1)
        return pki
    }()

    /// A little after the PKI was made (its certificates are valid from the moment they were).
    static let now: Double = {
        _ = pki
        return Date().timeIntervalSince1970 + 5
    }()
    static let trust = try! pki.trust("root")

    static func verifier(
        bundleIDs: [String] = ["com.example.app"], environment: AppStoreEnvironment? = nil, appAppleID: Int64? = nil,
        trust: AppStoreTrust = AppStoreChainTests.trust
    ) -> Verifier {
        Verifier(
            policy: .appStore(bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID, trust: trust))
    }

    static func reason(_ token: String, _ verifier: Verifier = verifier(), at time: Double? = nil) -> String? {
        TokenFactory.reason(token, verifier: verifier, at: time)
    }

    static func token(
        _ payload: String = AppStoreChainFactory.transaction(signedDate: now),
        chain: [String] = ["leaf", "ca", "root"], signer: String = "leaf"
    ) -> String {
        try! pki.token(payload: payload, chain: chain, signer: signer)
    }

    @Test(
        "a chain to the configured root verifies; typed transaction claims; the root the token sends is never trusted")
    func valid() throws {
        let verified = try Self.verifier().verify(Self.token())
        let claims = try #require(verified.provider(as: AppStoreClaims.self))
        #expect(
            claims.kind == .transaction && claims.bundleID == "com.example.app" && claims.productID == "pro.monthly")
        #expect(
            claims.transactionID == "2000000123" && claims.environment == "Sandbox"
                && claims.type == "Auto-Renewable Subscription")
        #expect(claims.signedDate == (Self.now * 1000).rounded(.down))
        #expect(verified.algorithm == .es256 && verified.keyID == nil)
        // Under Apple's root, the same token is refused: x5c[2] is not an anchor.
        let apple = Verifier(policy: .appStore(bundleIDs: ["com.example.app"]))
        #expect(Self.reason(Self.token(), apple) == "untrusted_chain")
    }

    @Test("a root with the same names but another key is refused, whichever root the token sends")
    func impostorRoot() {
        #expect(
            Self.reason(Self.token(chain: ["impostor-leaf", "impostor-ca", "impostor"], signer: "impostor-leaf"))
                == "untrusted_chain")
        #expect(
            Self.reason(Self.token(chain: ["impostor-leaf", "impostor-ca", "root"], signer: "impostor-leaf"))
                == "untrusted_chain")
        // An intermediate of the impostor with a real leaf's name does not help either.
        #expect(Self.reason(Self.token(chain: ["leaf", "impostor-ca", "root"])) == "untrusted_chain")
    }

    @Test(
        "Apple's extensions: a leaf without 1.2.840.113635.100.6.11.1 or an intermediate without 1.2.840.113635.100.6.2.1 is refused"
    )
    func extensions() throws {
        #expect(
            Self.reason(Self.token(chain: ["leaf-plain", "ca", "root"], signer: "leaf-plain")) == "untrusted_chain")
        #expect(
            Self.reason(Self.token(chain: ["leaf-under-plain", "ca-plain", "root"], signer: "leaf-under-plain"))
                == "untrusted_chain")
        do {
            _ = try Self.verifier().verify(Self.token(chain: ["leaf-plain", "ca", "root"], signer: "leaf-plain"))
        } catch {
            #expect(error.detail.contains("1.2.840.113635.100.6.11.1"), "\(error.detail)")
        }
    }

    @Test(
        "x5c: two or four certificates, missing, not an array, broken base64, not DER: x5c_invalid; swapped order: untrusted_chain"
    )
    func x5cShape() throws {
        let payload = AppStoreChainFactory.transaction(signedDate: Self.now)
        let signer = TokenFactory.Signer(kid: "", algorithm: .es256, key: try Self.pki.privateKey("leaf"))
        func signed(_ header: String) -> String { TokenFactory.token(header: header, payload: payload, signer: signer) }
        let leaf = try Self.pki.x5c("leaf")
        let ca = try Self.pki.x5c("ca")
        let root = try Self.pki.x5c("root")
        #expect(Self.reason(signed(#"{"alg":"ES256","x5c":["\#(leaf)","\#(ca)"]}"#)) == "x5c_invalid")
        #expect(
            Self.reason(signed(#"{"alg":"ES256","x5c":["\#(leaf)","\#(ca)","\#(root)","\#(root)"]}"#)) == "x5c_invalid")
        #expect(Self.reason(signed(#"{"alg":"ES256"}"#)) == "x5c_invalid")
        #expect(Self.reason(signed(#"{"alg":"ES256","x5c":"\#(leaf)"}"#)) == "x5c_invalid")
        #expect(Self.reason(signed(#"{"alg":"ES256","x5c":["\#(leaf)",7,"\#(root)"]}"#)) == "x5c_invalid")
        #expect(
            Self.reason(signed(#"{"alg":"ES256","x5c":["\#(leaf.dropLast(3))","\#(ca)","\#(root)"]}"#)) == "x5c_invalid"
        )
        let urlSafe = leaf.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
        if urlSafe != leaf {
            #expect(Self.reason(signed(#"{"alg":"ES256","x5c":["\#(urlSafe)","\#(ca)","\#(root)"]}"#)) == "x5c_invalid")
        }
        #expect(Self.reason(signed(#"{"alg":"ES256","x5c":["AAAA","\#(ca)","\#(root)"]}"#)) == "x5c_invalid")
        #expect(Self.reason(signed(#"{"alg":"ES256","x5c":["\#(ca)","\#(leaf)","\#(root)"]}"#)) == "untrusted_chain")
    }

    @Test(
        "the chain is judged at signedDate: a leaf not yet valid or expired then is refused; a given time overrides signedDate"
    )
    func validityAtSignedDate() {
        let day = 86_400.0
        #expect(
            Self.reason(
                Self.token(
                    AppStoreChainFactory.transaction(signedDate: Self.now + 60), chain: ["leaf-short", "ca", "root"],
                    signer: "leaf-short")) == nil)
        let early = Self.token(
            AppStoreChainFactory.transaction(signedDate: Self.now - 2 * day), chain: ["leaf-short", "ca", "root"],
            signer: "leaf-short")
        let late = Self.token(
            AppStoreChainFactory.transaction(signedDate: Self.now + 2 * day), chain: ["leaf-short", "ca", "root"],
            signer: "leaf-short")
        #expect(Self.reason(early) == "untrusted_chain")
        #expect(Self.reason(late) == "untrusted_chain")
        // The same tokens at a time inside the leaf's validity.
        #expect(Self.reason(early, at: Self.now + 60) == nil)
        #expect(Self.reason(late, at: Self.now + 60) == nil)
        // Judged from the cache the second time, with the same verdicts.
        #expect(Self.reason(early) == "untrusted_chain")
        #expect(Self.reason(late, at: Self.now + 2 * day) == "untrusted_chain")
    }

    @Test("alg other than ES256 is unsupported_alg; a missing signedDate is claim_type unless a time is given")
    func algorithmAndSignedDate() {
        let rs256 = try! Self.pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: Self.now), chain: ["leaf", "ca", "root"],
            signer: "leaf", algorithm: "RS256")
        #expect(Self.reason(rs256) == "unsupported_alg")
        let none = try! Self.pki.token(
            payload: AppStoreChainFactory.transaction(signedDate: Self.now), chain: ["leaf", "ca", "root"],
            signer: "leaf", algorithm: "none")
        #expect(Self.reason(none) == "alg_none")
        let undated = Self.token(AppStoreChainFactory.transaction(signedDate: nil))
        #expect(Self.reason(undated) == "claim_type")
        #expect(Self.reason(undated, at: Self.now) == nil)
        // Signed by another key than the leaf's.
        #expect(Self.reason(Self.token(signer: "ca")) == "bad_signature")
    }

    @Test(
        "bundle ID, environment (Xcode and LocalTesting never), app Apple ID of production notifications, in Apple's order"
    )
    func payloadRules() {
        #expect(
            Self.reason(Self.token(AppStoreChainFactory.transaction(signedDate: Self.now, bundleID: "com.other.app")))
                == "bundle_mismatch")
        #expect(Self.reason(Self.token(), Self.verifier(environment: .production)) == "environment_mismatch")
        #expect(Self.reason(Self.token(), Self.verifier(environment: .sandbox)) == nil)
        for local in ["Xcode", "LocalTesting"] {
            #expect(
                Self.reason(Self.token(AppStoreChainFactory.transaction(signedDate: Self.now, environment: local)))
                    == "environment_mismatch")
        }
        #expect(
            Self.reason(
                Self.token(
                    AppStoreChainFactory.transaction(
                        signedDate: Self.now, bundleID: "com.other.app", environment: "Xcode"))) == "bundle_mismatch")
        // Production notifications carry the app's Apple ID; sandbox ones need not.
        func notification(environment: String, appAppleID: Int64?) -> String {
            let id = appAppleID.map { #","appAppleId":\#($0)"# } ?? ""
            return
                #"{"notificationType":"DID_RENEW","subtype":"BILLING_RECOVERY","notificationUUID":"u-1","version":"2.0","signedDate":\#(Int64(Self.now * 1000)),"data":{"bundleId":"com.example.app","environment":"\#(environment)"\#(id)}}"#
        }
        let configured = Self.verifier(appAppleID: 1234)
        #expect(Self.reason(Self.token(notification(environment: "Production", appAppleID: 1234)), configured) == nil)
        #expect(
            Self.reason(Self.token(notification(environment: "Production", appAppleID: 999)), configured)
                == "app_apple_id_mismatch")
        #expect(
            Self.reason(Self.token(notification(environment: "Production", appAppleID: nil)), configured)
                == "app_apple_id_mismatch")
        #expect(Self.reason(Self.token(notification(environment: "Sandbox", appAppleID: nil)), configured) == nil)
        // Renewal infos carry no bundle ID, and are not asked for one.
        let renewal =
            #"{"originalTransactionId":"2000000100","autoRenewProductId":"pro.monthly","productId":"pro.monthly","autoRenewStatus":1,"environment":"Sandbox","signedDate":\#(Int64(Self.now * 1000))}"#
        let renewalClaims = try? Self.verifier().verify(Self.token(renewal)).provider(as: AppStoreClaims.self)
        #expect(renewalClaims?.kind == .renewalInfo && renewalClaims?.autoRenewStatus == 1)
        // Something else signed by the chain is not App Store data.
        #expect(Self.reason(Self.token(#"{"signedDate":\#(Int64(Self.now * 1000)),"hello":1}"#)) == "claim_type")
    }

    @Test("other shapes: a summary notification, an external purchase token notification, an AppTransaction")
    func shapes() throws {
        let date = Int64(Self.now * 1000)
        let summary =
            #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"s-1","signedDate":\#(date),"summary":{"requestIdentifier":"r-1","environment":"Production","appAppleId":1234,"bundleId":"com.example.app","productId":"pro.monthly","storefrontCountryCodes":["USA"],"succeededCount":5,"failedCount":0}}"#
        let claims = try #require(
            try Self.verifier(environment: .production, appAppleID: 1234).verify(Self.token(summary)).provider(
                as: AppStoreClaims.self))
        #expect(
            claims.kind == .notification && claims.environment == "Production" && claims.productID == "pro.monthly"
                && claims.appAppleID == 1234)
        #expect(
            Self.reason(Self.token(summary), Self.verifier(environment: .production, appAppleID: 99))
                == "app_apple_id_mismatch")
        func external(_ id: String) -> String {
            #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","notificationUUID":"e-1","signedDate":\#(date),"externalPurchaseToken":{"externalPurchaseId":"\#(id)","tokenCreationDate":\#(date),"appAppleId":1234,"bundleId":"com.example.app"}}"#
        }
        #expect(
            try Self.verifier().verify(Self.token(external("SANDBOX_abc"))).provider(as: AppStoreClaims.self)?
                .environment == "Sandbox")
        #expect(
            try Self.verifier().verify(Self.token(external("abc"))).provider(as: AppStoreClaims.self)?.environment
                == "Production")
        #expect(
            Self.reason(Self.token(external("SANDBOX_abc")), Self.verifier(environment: .production))
                == "environment_mismatch")
        let appTransaction =
            #"{"receiptType":"Sandbox","appAppleId":1234,"bundleId":"com.example.app","applicationVersion":"1","originalApplicationVersion":"1","receiptCreationDate":\#(date),"originalPurchaseDate":\#(date),"signedDate":\#(date)}"#
        let app = try #require(
            try Self.verifier(appAppleID: 1234).verify(Self.token(appTransaction)).provider(as: AppStoreClaims.self))
        #expect(app.kind == .appTransaction && app.environment == "Sandbox" && app.appAppleID == 1234)
        // A wrong type where a typed member goes is claim_type.
        #expect(
            Self.reason(Self.token(#"{"transactionId":7,"bundleId":"com.example.app","signedDate":\#(date)}"#))
                == "claim_type")
        #expect(
            Self.reason(Self.token(#"{"notificationType":"TEST","signedDate":\#(date),"data":"x"}"#)) == "claim_type")
    }

    @Test("a notification's nested transaction and renewal info are verified under the same policy and typed")
    func nested() throws {
        let date = Int64(Self.now * 1000)
        let transaction = Self.token()
        let renewal = Self.token(
            #"{"originalTransactionId":"2000000100","autoRenewProductId":"pro.monthly","autoRenewStatus":0,"environment":"Sandbox","signedDate":\#(date)}"#
        )
        func notification(_ transaction: String, _ renewal: String) -> String {
            Self.token(
                #"{"notificationType":"DID_CHANGE_RENEWAL_STATUS","subtype":"AUTO_RENEW_DISABLED","notificationUUID":"u-2","signedDate":\#(date),"data":{"bundleId":"com.example.app","environment":"Sandbox","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}}"#
            )
        }
        let claims = try #require(
            try Self.verifier().verify(notification(transaction, renewal)).provider(as: AppStoreClaims.self))
        #expect(
            claims.kind == .notification && claims.notificationType == "DID_CHANGE_RENEWAL_STATUS"
                && claims.subtype == "AUTO_RENEW_DISABLED")
        #expect(claims.transaction?.transactionID == "2000000123" && claims.renewalInfo?.autoRenewStatus == 0)
        // A nested token that fails fails the notification, with its reason and where it was.
        var tampered = Array(transaction.utf8)
        tampered[tampered.count - 10] =
            tampered[tampered.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        do {
            _ = try Self.verifier().verify(notification(String(decoding: tampered, as: UTF8.self), renewal))
            Issue.record("a tampered nested transaction was accepted")
        } catch {
            #expect(error.reason == .badSignature && error.detail.hasPrefix("data.signedTransactionInfo"))
        }
        let otherBundle = Self.token(AppStoreChainFactory.transaction(signedDate: Self.now, bundleID: "com.other.app"))
        #expect(Self.reason(notification(otherBundle, renewal)) == "bundle_mismatch")
        // A renewal info where the transaction goes is not a transaction.
        #expect(Self.reason(notification(renewal, renewal)) == "claim_type")
    }

    @Test(
        "nested tokens read where the fast scanner declines the payload (escapes): from jansson's text, the same claims alone and in a batch"
    )
    func nestedThroughJansson() throws {
        let date = Int64(Self.now * 1000)
        let transaction = Self.token()
        let renewal = Self.token(
            #"{"originalTransactionId":"2000000100","autoRenewProductId":"pro.monthly","autoRenewStatus":1,"environment":"Sandbox","signedDate":\#(date)}"#
        )
        func notification(uuid: String, transaction: String) -> String {
            Self.token(
                #"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","signedDate":\#(date),"data":{"bundleId":"com.example.app","environment":"Sandbox","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}}"#
            )
        }
        // The same notification three ways: plain (the fast scanner: the nested tokens are byte
        // ranges of the payload), with an escape elsewhere in the payload, and with the nested
        // transaction's first dot escaped (both: jansson, and the nested tokens are its text).
        let escapedDot = transaction.replacingOccurrences(of: ".", with: #"\u002e"#, options: [], range: nil)
        let tokens = [
            notification(uuid: "u-3", transaction: transaction),
            notification(uuid: #"u\u002d3"#, transaction: transaction),
            notification(uuid: "u-3", transaction: escapedDot),
        ]
        let verifier = Self.verifier()
        let alone = try tokens.map { try #require(try verifier.verify($0).provider(as: AppStoreClaims.self)) }
        #expect(alone[0].transaction?.transactionID == "2000000123" && alone[0].renewalInfo?.autoRenewStatus == 1)
        #expect(alone[1] == alone[0] && alone[2] == alone[0])
        var batch = TokenBatch()
        for _ in 0..<3 { for token in tokens { batch.append(token) } }
        let batched = verifier.verify(batch).map { try? $0.get().provider(as: AppStoreClaims.self) }
        #expect(batched.count == 9 && batched.allSatisfy { $0 == alone[0] })
        // Tampered behind an escape, it still fails as the nested transaction.
        var tampered = Array(escapedDot.utf8)
        tampered[tampered.count - 10] =
            tampered[tampered.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let failing = notification(uuid: "u-3", transaction: String(decoding: tampered, as: UTF8.self))
        var failingBatch = TokenBatch()
        failingBatch.append(failing)
        failingBatch.append(tokens[0])
        let verdicts = verifier.verify(failingBatch)
        guard case .failure(let error) = verdicts[0] else {
            Issue.record("a tampered nested transaction was accepted")
            return
        }
        #expect(error.reason == .badSignature && error.detail.hasPrefix("data.signedTransactionInfo"))
        #expect((try? verdicts[1].get().provider(as: AppStoreClaims.self)) == alone[0])
    }

    @Test("thousands of tokens signed by one leaf pay for one chain validation")
    func chainCache() throws {
        let trust = try Self.pki.trust("root")
        let verifier = Self.verifier(trust: trust)
        var batch = TokenBatch()
        for index in 0..<200 {
            batch.append(Self.token(AppStoreChainFactory.transaction(signedDate: Self.now + Double(index))))
        }
        let results = verifier.verify(batch)
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(trust.cachedChains == 1)
        _ = Self.reason(Self.token(chain: ["leaf-short", "ca", "root"], signer: "leaf-short"), verifier)
        #expect(trust.cachedChains == 2)
    }

    @Test(
        "roots: PEM or DER; anything else is refused at configuration; Apple's bundled root matches its published fingerprint"
    )
    func roots() throws {
        let der = try Self.pki.openssl(["x509", "-in", "root.pem", "-outform", "DER"])
        #expect(try AppStoreTrust(rootCertificates: [Array(der)]).description == "1 configured root")
        #expect(throws: AppStoreTrust.InvalidRoot.self) {
            try AppStoreTrust(rootCertificates: [Array("not a certificate".utf8)])
        }
        #expect(AppStoreTrust.appleRootCAG3.description == "Apple Root CA - G3")
        #expect(
            MessageDigest.sha256.hash(AppleRootCertificate.der()).map { String(format: "%02x", $0) }.joined()
                == AppleRootCertificate.sha256)
    }
}
