import JWTVerifyServer
import Testing

/// Where `--state-dir` keeps a route's window: a file name made of the route name's bytes, safe
/// whatever the name holds.
@Suite("serve's state folder")
struct ServeStateDirectoryTests {
    @Test("a route's window file: the hex of its name's bytes (a long name's SHA-256), never a path of its own")
    func fileNames() {
        #expect(
            ServeStateDirectory.notificationWindowPath(route: "default", in: "/var/lib/jwtverify")
                == "/var/lib/jwtverify/notifications-64656661756c74.window")
        #expect(ServeStateDirectory.notificationWindowPath(route: "a", in: "state/") == "state/notifications-61.window")
        // Slashes and dots are digits in the name, so no route writes outside the folder.
        #expect(
            ServeStateDirectory.notificationWindowPath(route: "../x/", in: "d") == "d/notifications-2e2e2f782f.window")
        // Canonically equivalent names (equal as Swift Strings) are two routes, two files.
        let kelvin = ServeStateDirectory.notificationWindowPath(route: "\u{212A}", in: "d")
        #expect(
            kelvin == "d/notifications-e284aa.window"
                && kelvin != ServeStateDirectory.notificationWindowPath(route: "K", in: "d"))
        let long = ServeStateDirectory.notificationWindowPath(route: String(repeating: "r", count: 101), in: "d")
        let name = long.dropFirst(2)
        #expect(
            name.hasPrefix("notifications-sha256-") && name.hasSuffix(".window") && name.utf8.count == 14 + 7 + 64 + 7,
            "\(long)")
        #expect(long != ServeStateDirectory.notificationWindowPath(route: String(repeating: "r", count: 102), in: "d"))
        #expect(
            ServeStateDirectory.notificationWindowPath(route: String(repeating: "r", count: 100), in: "d").utf8.count
                == 2 + 14 + 200 + 7)
    }
}
