import Dispatch
package import JWTVerify
import Synchronization

/// Raw HTTP answers played to an ``AppStoreServerClient`` as its pages, through the same head and
/// body handling as a real exchange and without a socket: for the fuzz target of the App Store
/// Server API's answers (`make fuzz TARGET=storeapi`).
package enum AppStoreServerReplay {
    /// The bearer token the replayed client sends: no error may repeat it.
    package static let bearerToken = "bearer-secret-1"
    /// Most pages a replayed paged call fetches.
    package static let maximumPages = 8

    /// `pages` (each a status line, header lines, a blank line and a body) as the answers to call
    /// `call` (0 transaction info, 1 history, 2 statuses, 3 notification history, 4 test
    /// notification status, 5 order look-up) of a sandbox client for `com.example.app` trusting
    /// `trust`; past the last page, every request is answered 404. The signed texts of every
    /// item returned, or the error.
    package static func run(_ call: Int, pages: [[UInt8]], trust: AppStoreTrust, chunk: Int) -> Result<
        [String], AppStoreServerError
    > {
        let served = Atomic<Int>(0)
        let transport: AppStoreServerClient.Transport = { _, _ in
            let index = served.add(1, ordering: .relaxed).oldValue
            guard index < pages.count else { return .success(HTTPReply(status: 404, headers: [:], body: [])) }
            return TransportReplay.replay(pages[index], chunk: chunk, maximumBytes: 64 * 1024, maximumHeaderBytes: 2048)
        }
        let client: AppStoreServerClient
        do {
            client = try AppStoreServerClient(
                credentials: AppStoreServerCredentials(
                    issuerID: "issuer", keyID: "KEY", bundleID: "com.example.app", privateKeyPEM: []),
                environment: .sandbox, baseURL: "http://127.0.0.1:9", trust: trust, maximumPages: maximumPages,
                bearerToken: { _, _ in bearerToken }, transport: transport)
        } catch {
            return .failure(error)
        }
        let outcome = Mutex<Result<[String], AppStoreServerError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<[String], AppStoreServerError>
            do throws(AppStoreServerError) {
                result = .success(try await items(of: call, client))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        if served.load(ordering: .relaxed) > maximumPages + 1 {
            preconditionFailure("a replayed call asked for \(served.load(ordering: .relaxed)) pages")
        }
        return outcome.withLock { $0! }
    }

    private static func items(of call: Int, _ client: AppStoreServerClient) async throws(AppStoreServerError)
        -> [String]
    {
        switch call % 6 {
        case 0: return [try await client.transactionInfo(for: "1").signed]
        case 1: return try await client.transactionHistory(for: "1").transactions.map(\.signed)
        case 2:
            return try await client.subscriptionStatuses(for: "1").groups.flatMap(\.lastTransactions).flatMap {
                [$0.transaction?.signed, $0.renewalInfo?.signed].compactMap { $0 }
            }
        case 3:
            return try await client.notificationHistory(.init(startDate: 0, endDate: 1)).entries.map(
                \.notification.signed)
        case 4: return [try await client.testNotificationStatus("t").notification.signed]
        default: return try await client.lookUpOrder("o").transactions.map(\.signed)
        }
    }
}
