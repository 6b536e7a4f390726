import CHiredis
package import JWTVerify
import Synchronization

/// A ``ReplayStore`` in Redis (serve's `--replay-store redis://HOST:PORT`), through hiredis:
/// each record is one `SET key 1 NX PX milliseconds`, so the check and the record are one atomic
/// step on the server, and the key expires with its window.
///
/// - **Connections**: a small pool behind a `Mutex` (at most ``poolLimit`` idle ones kept); a
///   serving thread takes one for one command and gives it back, or makes one when none is idle.
/// - **Timeouts**: connecting, and each command's write and read, wait at most ``timeout``
///   (0.5 s by default): a store that does not answer costs a request that long, never more.
/// - **Failure**: a connection whose command failed is closed and dropped, and the next command
///   connects again, so a restarted Redis is used again at once. A failure answers
///   ``ReplayRecord/unavailable(_:)``: serve refuses what it could not record (fail-closed).
///
/// The C side is the CHiredis shim: every `redisReply` is freed there before it returns, and
/// every `redisContext` by ``Connection``'s `deinit`, once.
package final class RedisReplayStore: ReplayStore {
    /// Where Redis listens.
    package let address: RedisAddress
    /// Longest wait for a connect, and for each command, in seconds.
    package let timeout: Double
    /// Most idle connections kept.
    package let poolLimit: Int
    private let idle = Mutex<[Connection]>([])
    private let up = Atomic<Bool>(true)
    private let failed = Atomic<Int>(0)

    /// A connection from `chiredis_connect`, closed once when it goes.
    private final class Connection: @unchecked Sendable {
        // Used by one thread at a time: taken from the pool, given back after one command.
        let context: UnsafeMutablePointer<redisContext>

        init(_ context: UnsafeMutablePointer<redisContext>) { self.context = context }

        deinit { chiredis_close(context) }
    }

    /// A store at `address`; nothing is connected until ``recordOnce(_:milliseconds:)`` or
    /// ``check()``.
    package init(address: RedisAddress, timeout: Double = 0.5, poolLimit: Int = 16) {
        self.address = address
        self.timeout = timeout
        self.poolLimit = poolLimit
    }

    /// Whether the last exchange succeeded (true before the first).
    package var isUp: Bool { up.load(ordering: .relaxed) }

    /// Exchanges that failed since the start.
    package var failures: Int { failed.load(ordering: .relaxed) }

    /// Connects once (kept in the pool when it works): `nil`, or why the store cannot be reached.
    package func check() -> RedisProblem? {
        switch connect() {
        case .success(let connection):
            up.store(true, ordering: .relaxed)
            giveBack(connection)
            return nil
        case .failure(let why):
            fail()
            return why
        }
    }

    /// `SET key 1 NX PX milliseconds` on a pooled connection (or a new one): recorded, seen, or
    /// unavailable when connecting or the command failed (that connection is then dropped).
    package func recordOnce(_ key: [UInt8], milliseconds: Int64) -> ReplayRecord {
        let connection: Connection
        if let pooled = idle.withLock({ $0.popLast() }) {
            connection = pooled
        } else {
            switch connect() {
            case .success(let made): connection = made
            case .failure(let why):
                fail()
                return .unavailable("redis at \(address.display): \(why)")
            }
        }
        var error = [CChar](repeating: 0, count: 256)
        let result = key.withUnsafeBufferPointer { key in
            key.withMemoryRebound(to: CChar.self) { key in
                chiredis_set_once(
                    connection.context, key.baseAddress, key.count, max(1, milliseconds), &error, error.count)
            }
        }
        switch result {
        case 1, 0:
            up.store(true, ordering: .relaxed)
            giveBack(connection)
            return result == 1 ? .recorded : .seen
        case -2:
            // An error reply: the connection is still in step with the server.
            giveBack(connection)
            fail()
            return .unavailable("redis at \(address.display) answered: \(Self.text(error))")
        default:
            // The connection failed: dropped here (closed by its deinit); the next command connects again.
            fail()
            return .unavailable("redis at \(address.display): \(Self.text(error))")
        }
    }

    private func connect() -> Result<Connection, RedisProblem> {
        var error = [CChar](repeating: 0, count: 256)
        let milliseconds = Int32(max(1, (timeout * 1000).rounded()))
        guard
            let context = chiredis_connect(address.host, Int32(address.port), milliseconds, &error, error.count)
        else {
            return .failure(RedisProblem(Self.text(error)))
        }
        return .success(Connection(context))
    }

    private func giveBack(_ connection: Connection) {
        let dropped: Connection? = idle.withLock { idle in
            guard idle.count < poolLimit else { return connection }
            idle.append(connection)
            return nil
        }
        _ = dropped  // closed here, outside the lock, when there was no room
    }

    private func fail() {
        up.store(false, ordering: .relaxed)
        failed.add(1, ordering: .relaxed)
    }

    private static func text(_ error: [CChar]) -> String {
        let bytes = error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
