/// Why a notification window's file (``NotificationReplayWindow/init(persistingTo:capacity:retention:)``)
/// could not be used: one stable ``Reason`` and a detail that names the file.
///
/// A file that cannot be read or is not a window file is refused when the window is opened, never
/// ignored or replaced: the IDs in it would be forgotten and their notifications acted on again.
/// A write that fails later (a full disk) fails the sighting it was for, which is then not
/// recorded: answer `503` so that Apple delivers the notification again.
public struct NotificationWindowFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable code; the same words in serve's answers and the README.
    public struct Reason: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code, e.g. `"state_malformed"`.
        public let rawValue: String

        /// A reason from its code.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file exists but cannot be opened or read (permissions, a folder in its place).
        public static let unreadable = Reason(rawValue: "state_unreadable")
        /// The file is larger than a window of this capacity ever writes.
        public static let tooLarge = Reason(rawValue: "state_too_large")
        /// The file is not a notification window file (another format, or a damaged line).
        public static let malformed = Reason(rawValue: "state_malformed")
        /// The file could not be written, flushed to disk or renamed into place.
        public static let unwritable = Reason(rawValue: "state_unwritable")

        /// The code.
        public var description: String { rawValue }
    }

    /// The code.
    public let reason: Reason
    /// The file concerned.
    public let path: String
    /// What was wrong, for people (it names the file).
    public let detail: String

    /// An error of `reason` about `path`; `detail` should name the file.
    public init(_ reason: Reason, path: String, detail: String) {
        self.reason = reason
        self.path = path
        self.detail = detail
    }

    /// `code: detail`.
    public var description: String { "\(reason.rawValue): \(detail)" }

    /// Equal when the reasons and files are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason && lhs.path == rhs.path }

    /// Hashes the reason and the file.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(path)
    }
}
