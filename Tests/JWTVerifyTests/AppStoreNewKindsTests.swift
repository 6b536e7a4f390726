import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// App Store signed data of the kinds the real corpus lacks, from `Vectors/appstore/`: the
/// `RESCIND_CONSENT` notification's nested AppTransaction, Retention Messaging realtime requests,
/// and the 2.17–2.19 notification types and fields.
@Suite("App Store signed data, nested and realtime kinds (Vectors/appstore)")
struct AppStoreNewKindsTests {
    typealias Vectors = AppStoreSyntheticVectors

    static let verifier = Verifier(policy: try! Vectors.policy())

    static func claims(_ id: String, _ verifier: Verifier = verifier) throws -> AppStoreClaims {
        try #require(try verifier.verify(Vectors.token(id)).provider(as: AppStoreClaims.self))
    }

    static func failure(_ id: String, _ verifier: Verifier = verifier) -> VerificationError? {
        do {
            _ = try verifier.verify(Vectors.token(id))
            return nil
        } catch {
            return error
        }
    }

    @Test("the generator's 17 lines are there")
    func corpus() {
        #expect(Vectors.all.count == 17)
        #expect(Vectors.all.filter { $0.expect == "valid" }.count == 10)
    }

    @Test("each line gets exactly its verdict, judged at its signedDate", arguments: Vectors.all)
    func verdict(_ vector: AppStoreSyntheticVectors.Vector) {
        let reason = Self.failure(vector.id)?.reason.rawValue ?? "valid"
        #expect(reason == vector.expect)
    }

    @Test("records write each valid line's claims straight from the table as they are listed, sub among them")
    func writtenAsListed() throws {
        var compared = 0
        for vector in Vectors.all where vector.expect == "valid" {
            let claims = try Self.claims(vector.id)
            // The reference: every listed member and the added `sub`, sorted by name, as JSON.
            var members: [(String, String)] = [("sub", #""user""#)]
            claims.forEachMember { name, value in
                var text = OutputText()
                text.append(value)
                members.append((String(describing: name), text.string))
            }
            members.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            let expected = "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
            var text = OutputText()
            text.beginObject()
            var subject = RegisteredClaims()
            subject.subject = "user"
            var added = AddedClaimMembers(subject, ("sub", .subject), nil, nil)
            withUnsafeMutablePointer(to: &text) { claims.writeMembers(to: $0, adding: &added) }
            text.endObject()
            #expect(text.string == expected, "\(vector.id)")
            compared += 1
        }
        #expect(compared == 10)
    }

    @Test(
        "RESCIND_CONSENT: appData.signedAppTransactionInfo verified at its own signedDate and typed as an AppTransaction"
    )
    func rescindConsent() throws {
        let claims = try Self.claims("rescind-consent")
        #expect(claims.kind == .notification && claims.knownNotificationType == .rescindConsent)
        #expect(claims.bundleID == Vectors.bundleID && claims.appAppleID == Vectors.appAppleID)
        #expect(claims.environment == "Production" && claims.signedDate == Vectors.signedDate)
        let app = try #require(claims.appTransaction)
        #expect(app.kind == .appTransaction && app.environment == "Production" && app.appAppleID == Vectors.appAppleID)
        #expect(app.bundleID == Vectors.bundleID && app.appTransactionID == "704289572311245678")
        #expect(app.applicationVersion == "1.4" && app.originalApplicationVersion == "1.0")
        #expect(app.originalPlatform == "iOS" && app.originalPurchaseDate == 1_700_000_000_000)
        #expect(app.receiptCreationDate == Vectors.signedDate - 86_400_000)
        // Its own signedDate, an hour before the notification's.
        #expect(app.signedDate == Vectors.signedDate - 3_600_000)
        #expect(claims.transaction == nil && claims.renewalInfo == nil)
        // In the records: the nested AppTransaction as an object, without its signed text.
        let members = ProviderClaims(claims).members
        guard case .object(let nested)? = members["appTransaction"] else {
            Issue.record("no appTransaction member: \(members.keys.sorted())")
            return
        }
        #expect(
            nested["kind"] == .string("app_transaction") && nested["appTransactionId"] == .string("704289572311245678"))
        #expect(nested["signedDate"] == .integer(Int64(Vectors.signedDate) - 3_600_000))
    }

    @Test(
        "a RESCIND_CONSENT whose nested AppTransaction fails is refused with the nested reason, named by its field"
    )
    func rescindConsentNestedFailures() {
        for (id, reason, detail) in [
            (
                "rescind-consent-nested-tampered", VerificationError.Reason.badSignature,
                "appData.signedAppTransactionInfo: ES256 signature does not verify with the x5c leaf's key"
            ),
            (
                "rescind-consent-nested-other-app", .appAppleIDMismatch,
                "appData.signedAppTransactionInfo: appAppleId 999 is not 1234567890"
            ),
            (
                "rescind-consent-nested-outside-chain", .untrustedChain,
                "appData.signedAppTransactionInfo: the x5c chain is valid from 1735689600 to 2366841600, not at 2400000000"
            ),
            (
                "rescind-consent-nested-not-app-transaction", .claimType,
                "appData.signedAppTransactionInfo is not a signed app_transaction"
            ),
        ] {
            let error = Self.failure(id)
            #expect(error?.reason == reason, "\(id)")
            #expect(error?.detail == detail, "\(id)")
        }
        // The tampered nested token alone is bad_signature too: the notification reports its verdict.
        let nested = Self.nestedToken(of: Vectors.token("rescind-consent-nested-tampered"))
        #expect(throws: VerificationError(.badSignature)) { try Self.verifier.verify(nested) }
    }

    /// The `appData.signedAppTransactionInfo` text inside a notification token (read unverified).
    static func nestedToken(of token: String) -> String {
        let payload = token.split(separator: ".")[1]
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let object = try? JSONSerialization.jsonObject(with: Data(base64Encoded: base64) ?? Data()) as? [String: Any]
        return (object?["appData"] as? [String: Any])?["signedAppTransactionInfo"] as? String ?? ""
    }

    @Test("a realtime request is typed, accepted without a bundle ID, and bound to its app by appAppleId")
    func realtimeRequest() throws {
        let claims = try Self.claims("realtime-request")
        #expect(claims.kind == .realtimeRequest && claims.bundleID == nil)
        #expect(claims.originalTransactionID == "2000000100" && claims.appAppleID == Vectors.appAppleID)
        #expect(claims.productID == "pro.monthly" && claims.userLocale == "en-US")
        #expect(claims.requestIdentifier == "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9")
        #expect(claims.signedDate == Vectors.signedDate && claims.environment == "Production")
        #expect(ProviderClaims(claims).members["kind"] == .string("realtime_request"))
        // Whatever bundle IDs the policy lists: the request carries none.
        #expect(
            try Self.claims("realtime-request", Verifier(policy: try Vectors.policy(bundleIDs: ["com.other.app"]))).kind
                == .realtimeRequest)
        let wrong = Self.failure("realtime-request-wrong-app")
        #expect(wrong?.reason == .appAppleIDMismatch && wrong?.detail == "appAppleId 9876543210 is not 1234567890")
    }

    @Test(
        "realtime requests: a production one needs the app Apple ID configured; the environment is checked as configured"
    )
    func realtimeRequestSettings() throws {
        let unbound = Verifier(policy: try Vectors.policy(appAppleID: nil))
        #expect(Self.failure("realtime-request", unbound)?.reason == .appAppleIDMismatch)
        #expect(Self.failure("realtime-request-wrong-app", unbound)?.reason == .appAppleIDMismatch)
        #expect(Self.failure("realtime-request-sandbox", unbound) == nil)
        let sandbox = Verifier(policy: try Vectors.policy(environment: .sandbox))
        #expect(Self.failure("realtime-request", sandbox)?.reason == .environmentMismatch)
        #expect(Self.failure("realtime-request-sandbox", sandbox) == nil)
        let production = Verifier(policy: try Vectors.policy(environment: .production))
        #expect(Self.failure("realtime-request", production) == nil)
        #expect(Self.failure("realtime-request-sandbox", production)?.reason == .environmentMismatch)
        // Another app's Apple ID configured: every request of this app is refused, Sandbox too.
        let other = Verifier(policy: try Vectors.policy(appAppleID: 42))
        #expect(Self.failure("realtime-request", other)?.reason == .appAppleIDMismatch)
        #expect(Self.failure("realtime-request-sandbox", other)?.reason == .appAppleIDMismatch)
    }

    @Test("2.17–2.19 types and fields are typed: one-time charges, Advanced Commerce, commitments, external tokens")
    func newerTypes() throws {
        let charge = try Self.claims("one-time-charge")
        #expect(charge.knownNotificationType == .oneTimeCharge && charge.transaction?.type == "Consumable")
        for (id, type) in [
            ("metadata-update", AppStoreNotificationType.metadataUpdate), ("migration", .migration),
            ("price-change", .priceChange),
        ] {
            #expect(try Self.claims(id).knownNotificationType == type, "\(id)")
        }
        #expect(try Self.claims("price-change").renewalInfo?.autoRenewStatus == 1)
        let subscribed = try Self.claims("subscribed-monthly-commitment")
        #expect(subscribed.knownNotificationType == .subscribed && subscribed.knownSubtype == .initialBuy)
        let transaction = try #require(subscribed.transaction)
        #expect(transaction.billingPlanType == "MONTHLY" && transaction.appTransactionID == "704289572311245678")
        #expect(
            transaction.commitmentInfo?.billingPeriodNumber == 2
                && transaction.commitmentInfo?.totalBillingPeriods == 12
                && transaction.commitmentInfo?.commitmentPrice == 99990
                && transaction.commitmentInfo?.commitmentExpiresDate == Vectors.signedDate + 300 * 86_400_000)
        let renewal = try #require(subscribed.renewalInfo)
        #expect(renewal.renewalBillingPlanType == "MONTHLY")
        #expect(
            renewal.commitmentInfo?.commitmentAutoRenewProductID == "pro.yearly.monthly"
                && renewal.commitmentInfo?.commitmentAutoRenewStatus == 1
                && renewal.commitmentInfo?.commitmentRenewalBillingPlanType == "MONTHLY"
                && renewal.commitmentInfo?.commitmentRenewalPrice == 99990)
        let renewalMembers = ProviderClaims(renewal).members
        guard case .object(let commitment)? = renewalMembers["commitmentInfo"] else {
            Issue.record("no commitmentInfo member")
            return
        }
        #expect(commitment["commitmentRenewalPrice"] == .integer(99990) && commitment.count == 5)
        let external = try Self.claims("external-purchase-token")
        #expect(external.knownNotificationType == .externalPurchaseToken && external.knownSubtype == .unreported)
        #expect(external.externalPurchaseID == "b2a1c3d4-0000-4e5f-9a8b-7c6d5e4f3a2b")
        #expect(external.tokenCreationDate == Vectors.signedDate - 7_200_000 && external.environment == "Production")
        #expect(Self.failure("commitment-info-not-object")?.detail == "commitmentInfo is not an object")
    }

    @Test("a type or subtype Apple has not published passes as sent, untyped")
    func unknownTypes() throws {
        let claims = try Self.claims("unknown-type")
        #expect(claims.notificationType == "SOMETHING_NEW" && claims.knownNotificationType == nil)
        #expect(claims.subtype == "NEWER_STILL" && claims.knownSubtype == nil)
        #expect(claims.transaction?.transactionID == "2000000123")
        #expect(ProviderClaims(claims).members["notificationType"] == .string("SOMETHING_NEW"))
    }

    @Test("known types are matched as bytes: a canonically equivalent spelling is not the type")
    func typesAsBytes() {
        // U+212A KELVIN SIGN is canonically equivalent to K: Swift's == says equal, bytes do not.
        let kelvin = "EXTERNAL_PURCHASE_TO\u{212A}EN"
        #expect(kelvin == "EXTERNAL_PURCHASE_TOKEN")
        #expect(AppStoreNotificationType(exactly: kelvin) == nil)
        #expect(AppStoreNotificationType(exactly: "EXTERNAL_PURCHASE_TOKEN") == .externalPurchaseToken)
        #expect(AppStoreNotificationSubtype(exactly: "UNRKNOWN") == nil)
        for type in AppStoreNotificationType.allCases {
            #expect(AppStoreNotificationType(exactly: type.rawValue) == type)
        }
        #expect(AppStoreNotificationType.allCases.count == 23)
        #expect(AppStoreNotificationSubtype.allCases.count == 17)
    }
}
