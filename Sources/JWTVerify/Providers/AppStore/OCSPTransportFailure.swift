/// Why an ``OCSPTransport`` brought no answer back: the check it served then ends
/// `revocation_unavailable` (retryable), with these words in its detail.
public struct OCSPTransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened, for people (never what was sent).
    public let description: String

    /// A failure described by `description`.
    public init(_ description: String) { self.description = description }
}
