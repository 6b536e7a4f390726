import JWTVerify

/// The App Store Server API's calls: each sends one request (or one per page), judges the answer,
/// verifies every signed item in it, and returns them typed.
extension AppStoreServerClient {
    /// Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`): one transaction.
    ///
    /// - Throws: ``AppStoreServerError``: `transaction_id_not_found` (4040010) for an ID Apple
    ///   does not know; the transaction's reason when it fails verification.
    public func transactionInfo(for transactionID: String) async throws(AppStoreServerError) -> AppStoreSignedItem {
        let answer = try await send("GET", "/inApps/v1/transactions/" + Self.escaped(transactionID))
        return try required(answer.members["signedTransactionInfo"], "signedTransactionInfo", kind: .transaction)
    }

    /// Get Transaction History, version 2 (`GET /inApps/v2/history/{transactionId}`): every page,
    /// each asked with the `revision` the one before gave, until `hasMore` is false.
    ///
    /// - Throws: ``AppStoreServerError``: `too_many_pages` past ``maximumPages``; `response_invalid`
    ///   when `hasMore` is true without a new revision; the first failing transaction's reason.
    public func transactionHistory(
        for transactionID: String, query: AppStoreTransactionHistoryQuery = AppStoreTransactionHistoryQuery()
    ) async throws(AppStoreServerError) -> AppStoreTransactionHistory {
        var revision = query.revision
        var transactions: [AppStoreSignedItem] = []
        var pages = 0
        var last: AppStoreServerAnswer
        repeat {
            guard pages < maximumPages else { throw Self.tooManyPages(maximumPages) }
            last = try await send(
                "GET", "/inApps/v2/history/" + Self.escaped(transactionID), query: query.parameters(revision: revision))
            pages += 1
            for (index, value) in try last.array("signedTransactions").enumerated() {
                transactions.append(
                    try required(value, "signedTransactions[\(index)] of page \(pages)", kind: .transaction))
            }
            let next = try last.optionalString("revision")
            if try last.hasMore() {
                guard let next, !next.isEmpty, Array(next.utf8) != revision.map({ Array($0.utf8) }) else {
                    throw AppStoreServerAnswer.invalid("Apple's page \(pages) has more, but no new revision")
                }
            }
            revision = next ?? revision
        } while try last.hasMore()
        return AppStoreTransactionHistory(
            transactions: transactions, revision: revision, bundleID: try last.optionalString("bundleId"),
            appAppleID: try last.optionalInteger("appAppleId"), environment: try last.optionalString("environment"),
            pages: pages)
    }

    /// Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`): every
    /// subscription group's latest transactions and renewal infos.
    ///
    /// - Parameters:
    ///   - transactionID: any transaction ID of the customer's subscriptions.
    ///   - statuses: only subscriptions in these states (1 active, 2 expired, 3 billing retry,
    ///     4 grace period, 5 revoked); all when empty.
    public func subscriptionStatuses(for transactionID: String, statuses: [Int] = []) async throws(AppStoreServerError)
        -> AppStoreSubscriptionStatuses
    {
        let answer = try await send(
            "GET", "/inApps/v1/subscriptions/" + Self.escaped(transactionID),
            query: statuses.map { ("status", "\($0)") })
        var groups: [AppStoreSubscriptionStatuses.Group] = []
        for (groupIndex, groupValue) in try answer.array("data").enumerated() {
            let name = "data[\(groupIndex)]"
            let group = try AppStoreServerAnswer.object(groupValue, name)
            var last: [AppStoreSubscriptionStatuses.LastTransaction] = []
            for (index, value) in try AppStoreServerAnswer.array(group["lastTransactions"], name + ".lastTransactions")
                .enumerated()
            {
                let itemName = "\(name).lastTransactions[\(index)]"
                let item = try AppStoreServerAnswer.object(value, itemName)
                guard let status = item["status"], status != .null else {
                    last.append(try lastTransaction(item, itemName, status: nil))
                    continue
                }
                guard let number = AppStoreServerAnswer.integer(status) else {
                    throw AppStoreServerAnswer.invalid("\(itemName).status in Apple's answer is not an integer")
                }
                last.append(try lastTransaction(item, itemName, status: number))
            }
            groups.append(
                AppStoreSubscriptionStatuses.Group(
                    subscriptionGroupIdentifier: try AppStoreServerAnswer.optionalString(
                        group["subscriptionGroupIdentifier"], name + ".subscriptionGroupIdentifier"),
                    lastTransactions: last))
        }
        return AppStoreSubscriptionStatuses(
            groups: groups, bundleID: try answer.optionalString("bundleId"),
            appAppleID: try answer.optionalInteger("appAppleId"), environment: try answer.optionalString("environment"))
    }

    private func lastTransaction(_ item: [String: JSONValue], _ name: String, status: Int64?)
        throws(AppStoreServerError) -> AppStoreSubscriptionStatuses.LastTransaction
    {
        AppStoreSubscriptionStatuses.LastTransaction(
            status: status,
            originalTransactionID: try AppStoreServerAnswer.optionalString(
                item["originalTransactionId"], name + ".originalTransactionId"),
            transaction: try verified(
                item["signedTransactionInfo"], name + ".signedTransactionInfo", kind: .transaction),
            renewalInfo: try verified(item["signedRenewalInfo"], name + ".signedRenewalInfo", kind: .renewalInfo))
    }

    /// Get Notification History (`POST /inApps/v1/notifications/history`): every page, each
    /// asked with the `paginationToken` the one before gave, until `hasMore` is false.
    ///
    /// - Throws: ``AppStoreServerError``: Apple's `start_date_too_far_in_past`,
    ///   `multiple_filters_supplied`, …; `too_many_pages`; the first failing notification's reason.
    public func notificationHistory(_ query: AppStoreNotificationHistoryQuery) async throws(AppStoreServerError)
        -> AppStoreNotificationHistory
    {
        var token: String? = nil
        var entries: [AppStoreNotificationHistory.Entry] = []
        var pages = 0
        var more = false
        repeat {
            guard pages < maximumPages else { throw Self.tooManyPages(maximumPages) }
            let answer = try await send(
                "POST", "/inApps/v1/notifications/history", query: token.map { [("paginationToken", $0)] } ?? [],
                body: query.body)
            pages += 1
            for (index, value) in try answer.array("notificationHistory").enumerated() {
                let name = "notificationHistory[\(index)] of page \(pages)"
                let item = try AppStoreServerAnswer.object(value, name)
                entries.append(
                    AppStoreNotificationHistory.Entry(
                        notification: try required(item["signedPayload"], name + ".signedPayload", kind: .notification),
                        sendAttempts: try Self.sendAttempts(item["sendAttempts"], name + ".sendAttempts")))
            }
            more = try answer.hasMore()
            if more {
                guard let next = try answer.optionalString("paginationToken"), !next.isEmpty,
                    Array(next.utf8) != token.map({ Array($0.utf8) })
                else {
                    throw AppStoreServerAnswer.invalid("Apple's page \(pages) has more, but no new paginationToken")
                }
                token = next
            }
        } while more
        return AppStoreNotificationHistory(entries: entries, pages: pages)
    }

    /// Request a Test Notification (`POST /inApps/v1/notifications/test`): Apple sends a `TEST`
    /// notification to your server; the token names it for ``testNotificationStatus(_:)``.
    public func requestTestNotification() async throws(AppStoreServerError) -> String {
        try await send("POST", "/inApps/v1/notifications/test").string("testNotificationToken")
    }

    /// Get Test Notification Status (`GET /inApps/v1/notifications/test/{token}`): the `TEST`
    /// notification, verified, and Apple's attempts to send it.
    ///
    /// - Throws: ``AppStoreServerError``: `test_notification_not_found` (4040008) for an expired
    ///   token or a status not yet available.
    public func testNotificationStatus(_ testNotificationToken: String) async throws(AppStoreServerError)
        -> AppStoreTestNotificationStatus
    {
        let answer = try await send("GET", "/inApps/v1/notifications/test/" + Self.escaped(testNotificationToken))
        return AppStoreTestNotificationStatus(
            notification: try required(answer.members["signedPayload"], "signedPayload", kind: .notification),
            sendAttempts: try Self.sendAttempts(answer.members["sendAttempts"], "sendAttempts"))
    }

    /// Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`): the transactions of the order ID a
    /// customer's receipt email shows, or status 1 when it is not valid.
    public func lookUpOrder(_ orderID: String) async throws(AppStoreServerError) -> AppStoreOrderLookup {
        let answer = try await send("GET", "/inApps/v1/lookup/" + Self.escaped(orderID))
        guard let status = try answer.optionalInteger("status") else {
            throw AppStoreServerAnswer.invalid("Apple's answer has no status integer")
        }
        var transactions: [AppStoreSignedItem] = []
        for (index, value) in try answer.array("signedTransactions").enumerated() {
            transactions.append(try required(value, "signedTransactions[\(index)]", kind: .transaction))
        }
        return AppStoreOrderLookup(status: status, transactions: transactions)
    }

    /// `sendAttempts[]`.
    private static func sendAttempts(_ value: JSONValue?, _ name: String) throws(AppStoreServerError)
        -> [AppStoreSendAttempt]
    {
        var attempts: [AppStoreSendAttempt] = []
        for (index, item) in try AppStoreServerAnswer.array(value, name).enumerated() {
            let members = try AppStoreServerAnswer.object(item, "\(name)[\(index)]")
            let date: Int64?
            switch members["attemptDate"] {
            case nil, .null?: date = nil
            case let value?:
                guard let number = AppStoreServerAnswer.integer(value) else {
                    throw AppStoreServerAnswer.invalid("\(name)[\(index)].attemptDate is not an integer")
                }
                date = number
            }
            attempts.append(
                AppStoreSendAttempt(
                    attemptDate: date,
                    result: try AppStoreServerAnswer.optionalString(
                        members["sendAttemptResult"], "\(name)[\(index)].sendAttemptResult")))
        }
        return attempts
    }

    private static func tooManyPages(_ limit: Int) -> AppStoreServerError {
        AppStoreServerError(.response, .tooManyPages, detail: "Apple's answer went on past \(limit) pages")
    }
}
