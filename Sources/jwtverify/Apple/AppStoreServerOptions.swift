import JWTVerify
import JWTVerifyRemote

/// `jwtverify apple store CALL`'s options: the In-App Purchase key, the environment and endpoint,
/// and what the call asks about.
struct AppStoreServerOptions: Sendable {
    /// The App Store Server API calls, by their command-line names.
    enum Call: String, CaseIterable, Sendable {
        case transaction, history, statuses, order
        case notificationHistory = "notification-history"
        case testNotification = "test-notification"
    }

    static let name = "store"
    var call = Call.transaction
    var key = AppStoreKeyOptions()
    var environment = AppStoreEnvironment.production
    var endpoint: String?
    var timeout = 15.0
    var roots: [String] = []
    var appAppleID: Int64?
    var transactionID: String?
    var orderID: String?
    var revision: String?
    var statuses: [Int] = []
    var startDate: Int64?
    var endDate: Int64?
    var notificationType: String?
    var onlyFailures = false
    var testToken: String?

    static let table = OptionTable<AppStoreServerOptions>(
        AppStoreKeyOptions.options.map { $0.lifted(\.key) },
        [
            .value(
                "--environment", placeholder: "E",
                help:
                    "store: Production (default) or Sandbox: the base URL, and the\nenvironment every signed item must name."
            ) { options, value, name throws(CommandFailure) in
                guard let environment = AppStoreEnvironment(rawValue: value) else {
                    throw .usage("\(name) takes Production or Sandbox")
                }
                options.environment = environment
            },
            .value("--endpoint", placeholder: "URL", help: "") { options, value, name throws(CommandFailure) in
                options.endpoint = try AppleEndpointOptions.checkedEndpoint(value, name)
            },
            .value("--timeout", placeholder: "SECONDS", help: "") { options, value, name throws(CommandFailure) in
                guard let seconds = Double(value), seconds > 0, seconds <= 300 else {
                    throw .usage("\(name) takes 0 to 300 seconds")
                }
                options.timeout = seconds
            },
            .value(
                "--apple-root", placeholder: "FILE",
                help: "store: a trusted root, PEM or DER (repeatable; replaces the\nbundled Apple Root CA - G3)."
            ) { $0.roots.append($1) },
            .value(
                "--app-apple-id", placeholder: "N",
                help: "store: the app's Apple ID (checked on production notifications)."
            ) { options, value, name throws(CommandFailure) in
                guard let number = Int64(value), number > 0 else { throw .usage("\(name) takes a positive integer") }
                options.appAppleID = number
            },
            .value(
                "--transaction-id", placeholder: "ID",
                help: "store transaction|history|statuses: any transaction ID of the\ncustomer; notification-history: "
                    + "only that customer's."
            ) { $0.transactionID = $1 },
            .value("--order-id", placeholder: "ID", help: "store order: the order ID from the receipt email.") {
                $0.orderID = $1
            },
            .value("--revision", placeholder: "REV", help: "store history: start from this revision.") {
                $0.revision = $1
            },
            .value("--status", placeholder: "N", help: "store statuses: only subscriptions in state N (repeatable).") {
                options, value, name throws(CommandFailure) in
                guard let status = Int(value), (1...5).contains(status) else { throw .usage("\(name) takes 1 to 5") }
                options.statuses.append(status)
            },
            .value(
                "--start-date", placeholder: "MS", help: "store notification-history: the period's start, in ms."
            ) { options, value, name throws(CommandFailure) in
                guard let date = Int64(value), date >= 0 else { throw .usage("\(name) takes milliseconds") }
                options.startDate = date
            },
            .value("--end-date", placeholder: "MS", help: "store notification-history: the period's end, in ms.") {
                options, value, name throws(CommandFailure) in
                guard let date = Int64(value), date >= 0 else { throw .usage("\(name) takes milliseconds") }
                options.endDate = date
            },
            .value(
                "--notification-type", placeholder: "TYPE", help: "store notification-history: only this type."
            ) { $0.notificationType = $1 },
            .flag("--only-failures", help: "store notification-history: only those your server did not take.") {
                $0.onlyFailures = true
            },
            .value(
                "--test-token", placeholder: "TOKEN",
                help: "store test-notification: the status of this test notification\n(without: request one)."
            ) { $0.testToken = $1 },
        ])

    /// Parses `CALL options…`.
    init(parsing words: ArraySlice<String>, siblings: [OptionDescription]) throws(CommandFailure) {
        let calls = Call.allCases.map(\.rawValue).joined(separator: ", ")
        guard let first = words.first,
            let call = Call.allCases.first(where: { Array($0.rawValue.utf8) == Array(first.utf8) })
        else {
            throw .usage(
                (words.first.map { "unknown apple store call \"\($0)\"" } ?? "apple store needs a call") + ": \(calls)")
        }
        self.call = call
        let unknown = { (name: String) -> CommandFailure in
            siblings.contains { $0.names.contains(name) }
                ? .usage("apple store takes no \(name)") : .usage("unknown option \(name)")
        }
        _ = try Self.table.parse(words.dropFirst(), into: &self, unknown: unknown) {
            _, operand throws(CommandFailure) in
            throw .usage("unexpected argument \"\(operand)\"")
        }
        try key.validate()
        try validate()
    }

    private init() {}

    /// Refuses what the call needs and was not given.
    func validate() throws(CommandFailure) {
        switch call {
        case .transaction, .history, .statuses:
            if transactionID?.isEmpty != false { throw .usage("apple store \(call.rawValue) needs --transaction-id") }
        case .order:
            if orderID?.isEmpty != false { throw .usage("apple store order needs --order-id") }
        case .notificationHistory:
            guard startDate != nil, endDate != nil else {
                throw .usage("apple store notification-history needs --start-date and --end-date")
            }
        case .testNotification:
            break
        }
    }
}
