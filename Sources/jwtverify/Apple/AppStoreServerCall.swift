import JWTVerify
import JWTVerifyRemote
import JWTVerifyTooling

/// One call of `jwtverify apple store CALL`: the client made from the options, the call, its one
/// JSON object on stdout (every signed item as verify's record of it) and its exit status.
struct AppStoreServerCall {
    let options: AppStoreServerOptions

    func run() throws(CommandFailure) -> ExitStatus {
        let client = try makeClient()
        let options = self.options
        return PrintedCall.run {
            do throws(AppStoreServerError) {
                return try await Self.call(options, client)
            } catch {
                return Self.failure(error)
            }
        }
    }

    /// The client: the key file read, the roots loaded (`--apple-root`, else Apple's).
    private func makeClient() throws(CommandFailure) -> AppStoreServerClient {
        let pem = try InputFile.readAll(options.key.keyFile, limit: 1 << 16)
        let trust = try AppStoreRootFiles.trust(options.roots)
        do {
            return try AppStoreServerClient(
                credentials: AppStoreServerCredentials(
                    issuerID: options.key.issuerID, keyID: options.key.keyID, bundleID: options.key.bundleID,
                    privateKeyPEM: pem),
                environment: options.environment, baseURL: options.endpoint, appAppleID: options.appAppleID,
                trust: trust, timeout: options.timeout)
        } catch {
            throw CommandFailure(status: .dataError, message: error.description)
        }
    }

    /// Runs the call; its JSON object and status.
    private static func call(_ options: AppStoreServerOptions, _ client: AppStoreServerClient)
        async throws(AppStoreServerError) -> PrintedCall
    {
        var out = OutputText()
        out.beginObject()
        let rules = ProviderRules.appStore(bundleIDs: [client.bundleID])
        let id = options.transactionID ?? ""
        switch options.call {
        case .transaction:
            out.key("transaction")
            appendItem(try await client.transactionInfo(for: id), rules, to: &out)
        case .history:
            var query = AppStoreTransactionHistoryQuery()
            query.revision = options.revision
            let history = try await client.transactionHistory(for: id, query: query)
            appendItems("transactions", history.transactions, rules, to: &out)
            out.optionalMember("revision", history.revision)
            out.optionalMember("bundle_id", history.bundleID)
            out.optionalMember("environment", history.environment)
            out.key("pages")
            out.integer(history.pages)
        case .statuses:
            let statuses = try await client.subscriptionStatuses(for: id, statuses: options.statuses)
            out.key("groups")
            out.beginArray()
            for group in statuses.groups {
                out.beginObject()
                out.optionalMember("subscription_group_identifier", group.subscriptionGroupIdentifier)
                out.key("last_transactions")
                out.beginArray()
                for last in group.lastTransactions {
                    out.beginObject()
                    out.optionalMember("status", last.status.map(Double.init))
                    out.optionalMember("original_transaction_id", last.originalTransactionID)
                    if let transaction = last.transaction {
                        out.key("transaction")
                        appendItem(transaction, rules, to: &out)
                    }
                    if let renewalInfo = last.renewalInfo {
                        out.key("renewal_info")
                        appendItem(renewalInfo, rules, to: &out)
                    }
                    out.endObject()
                }
                out.endArray()
                out.endObject()
            }
            out.endArray()
            out.optionalMember("environment", statuses.environment)
        case .notificationHistory:
            var query = AppStoreNotificationHistoryQuery(
                startDate: options.startDate ?? 0, endDate: options.endDate ?? 0)
            query.notificationType = options.notificationType
            query.transactionID = options.transactionID
            query.onlyFailures = options.onlyFailures ? true : nil
            let history = try await client.notificationHistory(query)
            out.key("notifications")
            out.beginArray()
            for entry in history.entries {
                out.beginObject()
                out.key("notification")
                appendItem(entry.notification, rules, to: &out)
                appendAttempts(entry.sendAttempts, to: &out)
                out.endObject()
            }
            out.endArray()
            out.key("pages")
            out.integer(history.pages)
        case .testNotification:
            if let token = options.testToken {
                let status = try await client.testNotificationStatus(token)
                out.key("notification")
                appendItem(status.notification, rules, to: &out)
                appendAttempts(status.sendAttempts, to: &out)
            } else {
                out.member("test_notification_token", try await client.requestTestNotification())
            }
        case .order:
            let order = try await client.lookUpOrder(options.orderID ?? "")
            out.key("status")
            out.integer(Int(order.status))
            out.key("valid")
            out.bool(order.isValid)
            appendItems("transactions", order.transactions, rules, to: &out)
        }
        out.endObject()
        return PrintedCall(json: out.string, status: .ok)
    }

    /// `name`: the items' records.
    private static func appendItems(
        _ name: String, _ items: [AppStoreSignedItem], _ rules: ProviderRules, to out: inout OutputText
    ) {
        out.key(name)
        out.beginArray()
        for item in items { appendItem(item, rules, to: &out) }
        out.endArray()
    }

    /// verify's record of one verified item: the verdict and its typed claims.
    private static func appendItem(_ item: AppStoreSignedItem, _ rules: ProviderRules, to out: inout OutputText) {
        out.beginObject()
        let outcome = VerificationOutcome(.success(item.token))
        TokenRecordWriter.appendVerdict(outcome, to: &out)
        TokenRecordWriter.appendProviderClaims(outcome, rules: rules, to: &out)
        out.endObject()
    }

    /// `send_attempts`: each attempt's date and result.
    private static func appendAttempts(_ attempts: [AppStoreSendAttempt], to out: inout OutputText) {
        out.key("send_attempts")
        out.beginArray()
        for attempt in attempts {
            out.beginObject()
            out.optionalMember("attempt_date", attempt.attemptDate.map(Double.init))
            out.optionalMember("result", attempt.result)
            out.endObject()
        }
        out.endArray()
    }

    /// A failed call's object (`error`, `kind`, `detail`, `retryable`, and what Apple said) and status.
    private static func failure(_ error: AppStoreServerError) -> PrintedCall {
        var out = OutputText()
        out.beginObject()
        out.member("error", error.code.rawValue)
        out.member("kind", error.kind.rawValue)
        out.member("detail", error.detail)
        out.key("retryable")
        out.bool(error.isRetryable)
        out.optionalMember("status", error.status.map(Double.init))
        out.optionalMember("retry_after", error.retryAfter)
        out.optionalMember("apple_error_code", error.appleErrorCode.map { Double($0.rawValue) })
        out.optionalMember("apple_error_message", error.appleErrorMessage)
        out.optionalMember("item", error.item)
        out.endObject()
        return PrintedCall(json: out.string, status: exitStatus(error))
    }

    /// 69 retryable; 78 our bearer token refused (401); 1 Apple's documented error about what was
    /// asked (an unknown ID, a bad filter); 65 the rest (a signed item or answer not acceptable).
    static func exitStatus(_ error: AppStoreServerError) -> ExitStatus {
        if error.isRetryable { return .unavailable }
        switch error.kind {
        case .unauthorized: return .configuration
        case .apple: return .rejected
        case .signedData, .response, .configuration, .unavailable: return .dataError
        }
    }
}
