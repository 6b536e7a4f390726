import JWTVerify

/// `serve --state-dir DIR`: the folder where state that must survive a restart is kept. Today that
/// is each notification route's seen-notification window, one file per route
/// (``NotificationReplayWindow/init(persistingTo:capacity:retention:)`` says the format).
package enum ServeStateDirectory {
    /// The longest route name written into a file name as it is (hex doubles it; file names stop
    /// at 255 octets).
    static let longestNameInFileName = 100

    /// The window file of route `route` in `directory`: `notifications-<hex of the name's
    /// UTF-8>.window`, so any name makes a safe file name and two names two files; a name over 100
    /// octets is written as `notifications-sha256-<hex of its SHA-256>.window`.
    package static func notificationWindowPath(route: String, in directory: String) -> String {
        let name = Array(route.utf8)
        let stem =
            name.count <= longestNameInFileName
            ? HexDigits.string(name) : "sha256-" + HexDigits.string(MessageDigest.sha256.hash(name))
        return (directory.hasSuffix("/") ? directory : directory + "/") + "notifications-" + stem + ".window"
    }
}
