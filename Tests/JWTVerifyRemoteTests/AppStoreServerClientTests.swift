import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyRemote

/// The App Store Server API through the library, against the strict stand-in on 127.0.0.1: every
/// call's verified, typed answer, Apple's documented errors, and every signed item checked.
@Suite("App Store Server API client against the stand-in")
struct AppStoreServerClientTests {
    static func credentials(_ standIn: AppStoreServerStandIn, _ key: String) throws -> AppStoreServerCredentials {
        AppStoreServerCredentials(
            issuerID: AppStoreServerStandIn.issuerID, keyID: AppStoreServerStandIn.keyID,
            bundleID: AppStoreServerStandIn.bundleID, privateKeyPEM: try standIn.keyPEM(key))
    }

    /// A client of the stand-in whose bearer tokens come from `bearer` (by default the stand-in's
    /// own, well-formed ones).
    static func client(
        _ standIn: AppStoreServerStandIn, environment: AppStoreEnvironment = .sandbox, timeout: Double = 20,
        maximumPages: Int = 1000,
        bearer: (@Sendable (Double, Double) throws -> String)? = nil
    ) throws -> AppStoreServerClient {
        try AppStoreServerClient(
            credentials: try credentials(standIn, "registered"), environment: environment, baseURL: standIn.baseURL,
            trust: standIn.trust, timeout: timeout, maximumPages: maximumPages,
            bearerToken: bearer ?? { now, lifetime in try standIn.bearer(issuedAt: now, lifetime: lifetime) },
            transport: HTTPTransfer.perform)
    }

    /// The ``AppStoreServerError`` `call` throws, or nil when it succeeds.
    static func failure<T>(_ call: () async throws -> T) async -> AppStoreServerError? {
        do {
            _ = try await call()
            return nil
        } catch let error as AppStoreServerError {
            return error
        } catch {
            Issue.record("not an AppStoreServerError: \(error)")
            return nil
        }
    }

    @Test("Get Transaction Info: the transaction verified and typed; an unknown ID is Apple's 4040010, typed")
    func transactionInfo() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let item = try await store.transactionInfo(for: "2000000105")
        #expect(item.claims.kind == .transaction && item.claims.transactionID == "2000000105")
        #expect(item.claims.bundleID == "com.example.app" && item.claims.environment == "Sandbox")
        #expect(item.claims.originalTransactionID == "2000000100" && item.token.algorithm == .es256)
        let missing = try #require(await Self.failure { try await store.transactionInfo(for: "1999999999") })
        #expect(missing.kind == .apple && missing.code.rawValue == "transaction_id_not_found" && missing.status == 404)
        #expect(missing.appleErrorCode == .transactionIDNotFound && missing.appleErrorCode?.rawValue == 4_040_010)
        #expect(missing.appleErrorMessage == "Transaction id not found." && !missing.isRetryable)
    }

    @Test("Get Transaction History: 45 transactions over 3 pages, each page asked with the revision before it")
    func history() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        var query = AppStoreTransactionHistoryQuery()
        query.productIDs = ["pro.monthly"]
        query.sort = "ASCENDING"
        let history = try await store.transactionHistory(for: "2000000100", query: query)
        #expect(history.pages == 3 && history.transactions.count == 45)
        #expect(history.transactions.map(\.claims.transactionID) == (0..<45).map { "\(2_000_000_100 + $0)" })
        #expect(history.bundleID == "com.example.app" && history.appAppleID == 1_234_567_890)
        #expect(history.environment == "Sandbox" && history.revision != nil)
        let queries = try standIn.stats().historyQueries
        #expect(queries.count == 3)
        #expect(queries.first == "productId=pro.monthly&sort=ASCENDING")
        // Later pages: the revision first, the same filters after it.
        #expect(
            queries.dropFirst().allSatisfy {
                $0.hasPrefix("revision=") && $0.hasSuffix("&productId=pro.monthly&sort=ASCENDING")
            })
        #expect(Set(queries.dropFirst()).count == 2)
        // One bearer token for every call.
        #expect(try standIn.stats().tokens == 1 && store.bearerTokensMade == 1)
    }

    @Test("Get All Subscription Statuses: each group's last transactions and renewal infos, verified; ?status filters")
    func statuses() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let all = try await store.subscriptionStatuses(for: "2000000100")
        let group = try #require(all.groups.first)
        #expect(all.groups.count == 1 && group.subscriptionGroupIdentifier == "21000001")
        #expect(group.lastTransactions.map(\.status) == [1, 2])
        let active = group.lastTransactions[0]
        #expect(
            active.transaction?.claims.transactionID == "2000000144" && active.originalTransactionID == "2000000100")
        #expect(active.renewalInfo?.claims.kind == .renewalInfo && active.renewalInfo?.claims.autoRenewStatus == 1)
        #expect(group.lastTransactions[1].renewalInfo?.claims.autoRenewStatus == 0)
        let onlyActive = try await store.subscriptionStatuses(for: "2000000100", statuses: [1])
        #expect(onlyActive.groups.first?.lastTransactions.map(\.status) == [1])
        let invalid = try #require(
            await Self.failure { try await store.subscriptionStatuses(for: "2000000100", statuses: [9]) })
        #expect(invalid.code.rawValue == "invalid_status" && invalid.appleErrorCode?.rawValue == 4_000_031)
    }

    @Test("Get Notification History: 25 notifications over 2 pages by paginationToken, nested items verified")
    func notificationHistory() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let history = try await store.notificationHistory(
            AppStoreNotificationHistoryQuery(startDate: now - 86_400_000, endDate: now))
        #expect(history.pages == 2 && history.entries.count == 25)
        let first = try #require(history.entries.first)
        #expect(
            first.notification.claims.kind == .notification && first.notification.claims.notificationType == "DID_RENEW"
        )
        #expect(first.notification.claims.transaction?.transactionID == "2000000100")
        #expect(first.notification.claims.renewalInfo?.autoRenewProductID == "pro.monthly")
        #expect(
            first.sendAttempts.map(\.result) == ["TIMED_OUT", "SUCCESS"] && first.sendAttempts[0].attemptDate != nil)
        #expect(Set(history.entries.map(\.notification.claims.notificationUUID)).count == 25)
        // Apple's checks of the body, typed.
        var backwards = AppStoreNotificationHistoryQuery(startDate: now, endDate: now - 1)
        let reversed = try #require(await Self.failure { try await store.notificationHistory(backwards) })
        #expect(reversed.code.rawValue == "start_date_after_end_date" && reversed.appleErrorCode?.rawValue == 4_000_013)
        backwards = AppStoreNotificationHistoryQuery(startDate: now - 1000, endDate: now)
        backwards.notificationType = "DID_RENEW"
        backwards.transactionID = "2000000100"
        #expect(
            await Self.failure { try await store.notificationHistory(backwards) }?.code.rawValue
                == "multiple_filters_supplied")
    }

    @Test("test notifications: the token, then the TEST notification verified; an unknown token is 4040008")
    func testNotification() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let token = try await store.requestTestNotification()
        #expect(!token.isEmpty)
        let status = try await store.testNotificationStatus(token)
        #expect(
            status.notification.claims.notificationType == "TEST" && status.sendAttempts.map(\.result) == ["SUCCESS"])
        #expect(status.notification.claims.bundleID == "com.example.app")
        let unknown = try #require(await Self.failure { try await store.testNotificationStatus("unknown_1") })
        #expect(
            unknown.appleErrorCode == .testNotificationNotFound
                && unknown.code.rawValue == "test_notification_not_found")
    }

    @Test("Look Up Order ID: a valid order's transactions verified; an unknown one is status 1 with none")
    func order() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let order = try await store.lookUpOrder("MQ12345678")
        #expect(order.isValid && order.transactions.map(\.claims.transactionID) == ["2000000100", "2000000101"])
        let unknown = try await store.lookUpOrder("MQ00000000")
        #expect(!unknown.isValid && unknown.status == 1 && unknown.transactions.isEmpty)
    }

    @Test("one tampered, foreign or misplaced item fails the whole answer with that item's reason and name")
    func signedItemsDecide() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try standIn.mode("tamper")
        let cases: [(String, () async throws -> Any)] = [
            ("signedTransactionInfo", { try await store.transactionInfo(for: "2000000101") }),
            ("signedTransactions[3] of page 2", { try await store.transactionHistory(for: "2000000100") }),
            (
                "data[0].lastTransactions[0].signedRenewalInfo",
                { try await store.subscriptionStatuses(for: "2000000100") }
            ),
            (
                "notificationHistory[4] of page 2.signedPayload",
                { try await store.notificationHistory(.init(startDate: now - 1000, endDate: now)) }
            ),
            ("signedTransactions[0]", { try await store.lookUpOrder("MQ12345678") }),
        ]
        for (item, call) in cases {
            let error = try #require(await Self.failure(call), "\(item)")
            #expect(
                error.kind == .signedData && error.code.rawValue == "bad_signature" && error.item == item, "\(error)")
            #expect(error.verificationError?.reason == .badSignature && !error.isRetryable)
        }
        try standIn.mode("wrong_bundle")
        let foreign = try #require(await Self.failure { try await store.transactionInfo(for: "2000000101") })
        #expect(foreign.code.rawValue == "bundle_mismatch" && foreign.item == "signedTransactionInfo")
        try standIn.mode("wrong_kind")
        let misplaced = try #require(await Self.failure { try await store.transactionInfo(for: "2000000101") })
        #expect(
            misplaced.code.rawValue == "claim_type" && misplaced.detail.contains("a renewal_info, not a transaction"))
        // A production client takes no sandbox data.
        try standIn.mode("ok")
        let production = try Self.client(standIn, environment: .production)
        let sandbox = try #require(await Self.failure { try await production.transactionInfo(for: "2000000101") })
        #expect(sandbox.code.rawValue == "environment_mismatch")
        // A client that trusts Apple's real root takes none of the stand-in's synthetic chain.
        let appleRooted = try AppStoreServerClient(
            credentials: try Self.credentials(standIn, "registered"), environment: .sandbox, baseURL: standIn.baseURL,
            bearerToken: { now, lifetime in try standIn.bearer(issuedAt: now, lifetime: lifetime) },
            transport: HTTPTransfer.perform)
        #expect(
            await Self.failure { try await appleRooted.transactionInfo(for: "2000000101") }?.code.rawValue
                == "untrusted_chain")
    }

    @Test(
        "Apple's bearer-token checks: wrong key, kid, issuer, bundle ID, audience, a lifetime over 60 min, expired: 401"
    )
    func bearerTokenRefused() async throws {
        let standIn = try AppStoreServerStandIn()
        let refusals: [(String, @Sendable (Double, Double) throws -> String)] = [
            ("stranger key", { now, _ in try standIn.bearer(key: "stranger", issuedAt: now, lifetime: 600) }),
            ("kid", { now, _ in try standIn.bearer(keyID: "OTHERKEY01", issuedAt: now, lifetime: 600) }),
            ("issuer", { now, _ in try standIn.bearer(issuer: "another-issuer", issuedAt: now, lifetime: 600) }),
            ("bundle", { now, _ in try standIn.bearer(bundleID: "com.example.other", issuedAt: now, lifetime: 600) }),
            (
                "audience",
                { now, _ in try standIn.bearer(audience: "appstoreconnect-v2", issuedAt: now, lifetime: 600) }
            ),
            ("61 minutes", { now, _ in try standIn.bearer(issuedAt: now, lifetime: 3660) }),
            ("expired", { now, _ in try standIn.bearer(issuedAt: now - 700, lifetime: 600) }),
        ]
        for (what, bearer) in refusals {
            let store = try Self.client(standIn, bearer: bearer)
            let error = try #require(
                await Self.failure { try await store.transactionInfo(for: "2000000101") }, "\(what)")
            #expect(error.kind == .unauthorized && error.code == .unauthorized && error.status == 401, "\(what)")
            #expect(error.isTokenRefused && !error.isRetryable, "\(what)")
        }
        #expect(try standIn.stats().refused == refusals.count)
        // Exactly 60 minutes is Apple's limit, and accepted.
        let sixty = try Self.client(standIn, bearer: { now, _ in try standIn.bearer(issuedAt: now, lifetime: 3600) })
        #expect(try await sixty.transactionInfo(for: "2000000101").claims.transactionID == "2000000101")
    }

    @Test("429 with Retry-After, 500 with 5000001, no answer, HTML, a body over the cap, a redirect, endless paging")
    func unavailableAndUnacceptable() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try Self.client(standIn)
        try standIn.mode("rate_limit")
        let limited = try #require(await Self.failure { try await store.transactionInfo(for: "2000000101") })
        #expect(limited.kind == .unavailable && limited.code == .rateLimited && limited.status == 429)
        #expect(limited.retryAfter == 7 && limited.isRetryable && limited.appleErrorCode == .rateLimitExceeded)
        let expectations: [(String, AppStoreServerError.Code, AppStoreServerError.Kind, Bool)] = [
            ("error500", .serverError, .unavailable, true), ("html", .responseInvalid, .response, false),
            ("huge", .responseTooLarge, .response, false), ("redirect", .unexpectedStatus, .response, false),
            ("stale_revision", .responseInvalid, .response, false),
        ]
        for (mode, code, kind, retryable) in expectations {
            try standIn.mode(mode)
            let error = try #require(
                await Self.failure { try await store.transactionHistory(for: "2000000100") }, "\(mode)")
            #expect(error.code == code && error.kind == kind && error.isRetryable == retryable, "\(mode): \(error)")
            if mode == "error500" { #expect(error.appleErrorCode?.rawValue == 5_000_001 && error.status == 500) }
        }
        try standIn.mode("endless")
        let before = try standIn.stats().requests
        let capped = try Self.client(standIn, maximumPages: 5)
        let endless = try #require(await Self.failure { try await capped.transactionHistory(for: "2000000100") })
        #expect(endless.code == .tooManyPages && endless.kind == .response)
        #expect(try standIn.stats().requests - before == 5)
        try standIn.mode("hang")
        let impatient = try Self.client(standIn, timeout: 1)
        #expect(await Self.failure { try await impatient.transactionInfo(for: "2000000101") }?.code == .timeout)
    }

    @Test("the public client's own bearer tokens (AppStoreServerAPIToken) pass Apple's checks; one per lifetime")
    func ownBearerTokens() async throws {
        let standIn = try AppStoreServerStandIn()
        let store = try AppStoreServerClient(
            credentials: try Self.credentials(standIn, "registered"), environment: .sandbox, baseURL: standIn.baseURL,
            trust: standIn.trust, tokenLifetime: 3600)
        #expect(try await store.transactionInfo(for: "2000000101").claims.transactionID == "2000000101")
        #expect(try await store.lookUpOrder("MQ12345678").transactions.count == 2)
        #expect(store.bearerTokensMade == 1)
        let stats = try standIn.stats()
        #expect(stats.tokens == 1 && stats.refused == 0)
        // A key the stand-in does not know is refused, though our token is well made.
        let stranger = try AppStoreServerClient(
            credentials: try Self.credentials(standIn, "stranger"), environment: .sandbox, baseURL: standIn.baseURL,
            trust: standIn.trust)
        #expect(await Self.failure { try await stranger.lookUpOrder("MQ12345678") }?.isTokenRefused == true)
    }

    @Test("an unusable configuration is refused when the client is made; the client prints without its key")
    func configuration() throws {
        let standIn = try AppStoreServerStandIn()
        func make(baseURL: String? = nil, lifetime: Double = 1200, bundleID: String = "com.example.app") throws
            -> AppStoreServerError?
        {
            do {
                _ = try AppStoreServerClient(
                    credentials: AppStoreServerCredentials(
                        issuerID: AppStoreServerStandIn.issuerID, keyID: AppStoreServerStandIn.keyID,
                        bundleID: bundleID, privateKeyPEM: try standIn.keyPEM("registered")),
                    environment: .sandbox, baseURL: baseURL, tokenLifetime: lifetime,
                    bearerToken: { _, _ in "t" }, transport: HTTPTransfer.perform)
                return nil
            } catch let error as AppStoreServerError {
                return error
            }
        }
        #expect(try make(baseURL: "http://api.storekit.apple.com")?.kind == .configuration)
        #expect(try make(lifetime: 3601)?.code == .invalidConfiguration)
        #expect(try make(bundleID: "")?.code == .invalidConfiguration)
        #expect(try make() == nil)
        let store = try Self.client(standIn)
        let pem = String(decoding: try standIn.keyPEM("registered"), as: UTF8.self)
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "unset"
        #expect(!store.description.contains(body) && store.description.contains("<redacted>"))
        #expect(AppStoreServerClient.productionBaseURL == "https://api.storekit.apple.com")
        #expect(AppStoreServerClient.sandboxBaseURL == "https://api.storekit-sandbox.apple.com")
    }
}
