package import JWTVerify

/// What a request gets from ``ServeService``: an answer now, a place in the loop's gathering
/// (answered by the next flush), or a wait for the key refresh its unknown `kid` started.
package enum ServeReply {
    case answer(HTTPResponse)
    case held
    case waiting(KeyWait)
}

/// A request held, off every serving thread's critical path, while the key refresh it started
/// runs: answered by ``retry`` once the refresh has ended, or by ``expired`` at ``deadline``
/// (monotonic seconds, ``ThroughputClock``), whichever comes first. The transport keeps the
/// connection suspended meanwhile and goes on serving every other request.
package struct KeyWait {
    /// The refresh waited for.
    package let refresh: KeyRefresh
    /// When the request stops waiting.
    package let deadline: Double
    /// The answer once the refresh has ended: the request evaluated again, over whatever keys
    /// there are then (it starts no refresh of its own).
    package let retry: () -> HTTPResponse
    /// The answer at the deadline: `jwks_unavailable`, 503 with `Retry-After`.
    package let expired: () -> HTTPResponse

    /// A wait for `refresh` until `deadline`.
    package init(
        refresh: KeyRefresh, deadline: Double, retry: @escaping () -> HTTPResponse,
        expired: @escaping () -> HTTPResponse
    ) {
        self.refresh = refresh
        self.deadline = deadline
        self.retry = retry
        self.expired = expired
    }

    /// The answer now, for a caller that may block (in-process callers and tests): waits for the
    /// refresh until the deadline.
    package func answerBlocking() -> HTTPResponse {
        refresh.outcomeBlocking(within: deadline - ThroughputClock.now()) == nil ? expired() : retry()
    }
}

/// Where an evaluation leaves the key refresh an unknown `kid` started: only a first attempt
/// (``mayWait``) starts one; a retry after a wait is answered over the keys it finds.
package final class KeyWaitProbe {
    /// Whether the evaluation may start a refresh and be held for it.
    package let mayWait: Bool
    /// The refresh started (or joined), if any.
    package var refresh: KeyRefresh?
    /// The route whose key set it refreshes.
    package var route: ServeRoute?

    /// A probe for a first attempt (`mayWait`) or a retry.
    package init(mayWait: Bool) { self.mayWait = mayWait }
}
