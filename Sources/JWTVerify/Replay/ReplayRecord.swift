/// What recording an ID once found (a DPoP proof's `jti`, a notification's ID): new and recorded
/// now, seen before within its window, or not recordable, and then refused.
public enum ReplayRecord: Sendable, Equatable {
    /// New: recorded now, until its expiry.
    case recorded
    /// Already recorded and not yet expired: a replay (or a retried delivery).
    case seen
    /// Not recorded: a bounded in-process record is full of IDs not yet expired. Refuse it
    /// (`dpop_replayed`), never let it through unrecorded.
    case full
    /// Not recorded: a shared store could not be reached or did not answer (the detail says
    /// why). Refuse it as retryable (`replay_store_unavailable`), never let it through unrecorded.
    case unavailable(String)
}
