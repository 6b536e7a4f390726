/// Process exit statuses (sysexits-style where one applies).
enum ExitStatus: Int32 {
    /// Every token was valid (or the command succeeded).
    case ok = 0
    /// At least one token was rejected.
    case rejected = 1
    /// Bad flags or arguments (EX_USAGE).
    case usage = 64
    /// A key set that cannot be used (EX_DATAERR).
    case dataError = 65
    /// An input file is missing or unreadable (EX_NOINPUT).
    case noInput = 66
    /// A remote key set could not be fetched and no snapshot was at hand (EX_UNAVAILABLE).
    case unavailable = 69
    /// `serve` cannot listen on its address (EX_OSERR).
    case osError = 71
    /// A bug (EX_SOFTWARE).
    case internalError = 70
    /// A file or folder to write cannot be created: `--jwks-cache DIR` (EX_CANTCREAT).
    case cannotCreate = 73
    /// The build cannot do what was asked: `bench` in a debug build (EX_CONFIG).
    case configuration = 78
    /// Reading input or writing output failed (EX_IOERR).
    case ioError = 74
}

/// A failure that ends the command with a specific status and message.
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> CommandFailure { CommandFailure(status: .usage, message: message) }
}
