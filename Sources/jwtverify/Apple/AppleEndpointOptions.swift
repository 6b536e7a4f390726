import JWTVerifyRemote

/// What the REST subcommands of `jwtverify apple` share: Apple's base URL, the identity tokens'
/// keys and the time-out.
struct AppleEndpointOptions: Sendable {
    var endpoint = SignInWithAppleClient.appleBaseURL
    var jwks: String?
    var timeout = 15.0

    /// `--endpoint`, `--jwks`, `--timeout`.
    static let options: [Option<AppleEndpointOptions>] = [
        .value(
            "--endpoint", placeholder: "URL",
            help:
                "Apple's base URL (default https://appleid.apple.com; store: the\n--environment's; http:// only to loopback)."
        ) { options, value, name throws(CommandFailure) in
            options.endpoint = try checkedEndpoint(value, name)
        },
        .value(
            "--jwks", placeholder: "SRC",
            help: "The identity tokens' keys: a file, an https:// URL, or a preset\n"
                + "(default: the endpoint's /auth/keys, Apple's own)."
        ) { $0.jwks = $1 },
        .value("--timeout", placeholder: "SECONDS", help: "Longest wait for each answer (default 15).") {
            options, value, name throws(CommandFailure) in
            guard let seconds = Double(value), seconds > 0, seconds <= 300 else {
                throw .usage("\(name) takes 0 to 300 seconds")
            }
            options.timeout = seconds
        },
    ]

    /// `value` when it is an https URL, or http to a loopback address.
    static func checkedEndpoint(_ value: String, _ name: String) throws(CommandFailure) -> String {
        let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        guard value.hasPrefix("https://") || loopback.contains(where: value.hasPrefix) else {
            throw .usage("\(name) takes an https:// URL, or http:// to a loopback address")
        }
        return value
    }
}
