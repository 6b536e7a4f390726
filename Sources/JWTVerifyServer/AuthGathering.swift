import JWTVerify

/// The `/auth` requests one event loop holds while it reads what else is ready: at most
/// ``limit``, verified together by ``ServeService/flush(_:deliver:)`` through the pipeline's batch
/// stages, so that RS256 tokens arriving at the same moment share the multi-buffer engine's lanes.
///
/// A gathering belongs to one loop thread. It is flushed when the loop has nothing more ready or
/// when it is full, never on a timer: a lone request waits for no company.
package final class AuthGathering {
    /// The most requests held: the multi-buffer engine's lane count.
    package static let limit = 8

    /// One held request: what its answer needs, and the transport's handle for it.
    struct Entry {
        var route: ServeRoute
        var ticket: UnsafeMutableRawPointer
        /// Its access-log record so far (when it came in, its fingerprint).
        var log: AccessRecord
        /// Its DPoP proof and the request it names, when it presented its token as `DPoP`.
        var dpop: DPoPRequest? = nil
        /// Its verdict's reason once flushed (`nil`: valid).
        var reason: VerificationError.Reason? = nil
        /// Once flushed, when its token named a `kid` the keys lack: the refresh it waits for,
        /// and its token and nonce to verify again.
        var wait: (refresh: KeyRefresh, token: [UInt8], nonce: [UInt8]?, dpop: DPoPRequest?)? = nil

        /// How a refusal of this request is challenged: as `DPoP` when it came as `DPoP`.
        func scheme(_ judge: ServeRoute) -> GatewayAnswer.Scheme {
            guard let algs = judge.dpopAlgorithms else { return .bearer }
            return dpop != nil ? .dpop(algs: algs) : .bearer(proofAlgorithms: algs)
        }
    }

    /// The held requests, in arrival order; the token of entry `i` is token `i` of ``tokens``.
    var entries: [Entry] = []
    /// The held tokens with the route's nonce, copied out of the request (its header buffer is
    /// the transport's).
    var tokens = TokenBatch(minimumCapacity: AuthGathering.limit, bytes: 16 * 1024)
    /// Tokens of one route when a flush holds several routes' requests.
    var routeTokens = TokenBatch(minimumCapacity: AuthGathering.limit, bytes: 16 * 1024)
    /// The token of a request verified at once (a route that does not gather).
    var alone = TokenBatch(minimumCapacity: 1, bytes: 4 * 1024)
    /// Per entry, its answer, filled by a flush.
    var answers: [GatewayAnswer?] = []
    /// Per position in a route's batch, the entry it came from.
    var positions: [Int] = []

    /// An empty gathering.
    package init() {
        entries.reserveCapacity(Self.limit)
        answers.reserveCapacity(Self.limit)
        positions.reserveCapacity(Self.limit)
    }

    /// Whether no request is held.
    package var isEmpty: Bool { entries.isEmpty }

    /// How many requests are held.
    package var count: Int { entries.count }

    /// Holds a request whose token is `token` (with its DPoP proof, if it came as `DPoP`).
    func hold(
        _ token: UnsafeRawBufferPointer, route: ServeRoute, ticket: UnsafeMutableRawPointer, log: AccessRecord,
        dpop: DPoPRequest? = nil
    ) {
        Self.append(token, nonce: route.configuration.nonce, to: &tokens)
        entries.append(Entry(route: route, ticket: ticket, log: log, dpop: dpop))
    }

    /// `token` with `nonce`, appended to `batch`.
    static func append(_ token: UnsafeRawBufferPointer, nonce: String?, to batch: inout TokenBatch) {
        if var nonce {
            nonce.withUTF8 { batch.append(bytes: token, nonce: UnsafeRawBufferPointer($0)) }
        } else {
            batch.append(bytes: token, nonce: nil)
        }
    }

    /// Forgets every held request, keeping the capacity.
    func removeAll() {
        entries.removeAll(keepingCapacity: true)
        tokens.removeAll()
        answers.removeAll(keepingCapacity: true)
    }
}
