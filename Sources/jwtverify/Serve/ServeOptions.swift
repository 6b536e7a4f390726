import JWTVerify
import JWTVerifyServer
import JWTVerifyTooling

/// What one `serve` route checks and how it finds the token: keys, policy, token cache and the
/// gateway's headers. The command line describes the default route; `--config` adds named ones,
/// written as the same options in JSON.
struct RouteOptions: Sendable {
    var keySets = KeySetOptions()
    var flags = PolicyFlags()
    /// Verified tokens kept (`--cache`; 0: off).
    var cacheCapacity = 10_000
    var claimHeaders: [GatewayAnswer.ClaimHeader] = []
    var tokenHeader: String?
    var tokenCookie: String?
    var realm: String?
    /// Longest wait of a request for the key refresh its unknown `kid` started (`--refresh-wait`).
    var refreshWait = 0.25
    /// How long a gateway may keep a 200 `/auth` answer (`--cache-control-max-age`; nil: no-store).
    var cacheControlMaxAge: Int?
    /// The policy, once the options are read (``finish()``).
    var policy = VerificationPolicy(issuers: nil, audiences: nil)
    /// A `--config` route with several issuers: each entry's options, complete (its own keys
    /// and policy); the route's own options then say only how `/auth` answers.
    var issuers: [RouteOptions] = []

    static let options: [Option<RouteOptions>] =
        KeySetOptions.options().map { $0.lifted(\.keySets) }
        + PolicyFlags.all(optionalClaims: false, face: .serve).map { $0.lifted(\.flags) } + [
            .value(
                "--cache", placeholder: "N",
                help: "Keep up to N verified tokens (default 10000; 0: off); see 'verify --help'."
            ) {
                options, value, name throws(CommandFailure) in
                options.cacheCapacity = try OptionValue.count(name, value, in: 0...10_000_000)
            },
            .value(
                "--claim-header", placeholder: "PATH=NAME",
                help:
                    "On /auth success, also send claim PATH as header NAME: a member, or a dotted\npath into nested objects (realm_access.roles; \\. for a dot in a name);\narrays joined with commas. Repeatable."
            ) { options, value, name throws(CommandFailure) in
                guard let mapping = GatewayAnswer.ClaimHeader(parsing: value) else {
                    throw .usage("\(name) takes PATH=Header-Name (PATH a claim or a dotted path)")
                }
                options.claimHeaders.append(mapping)
            },
            .value("--token-header", placeholder: "NAME", help: "Also take the token from request header NAME.") {
                $0.tokenHeader = $1
            },
            .value("--token-cookie", placeholder: "NAME", help: "Also take the token from cookie NAME.") {
                $0.tokenCookie = $1
            },
            .value("--realm", placeholder: "R", help: "The realm in WWW-Authenticate challenges.") { $0.realm = $1 },
            .value(
                "--refresh-wait", placeholder: "SECONDS",
                help:
                    "Longest wait of a request whose kid the remote keys lack for the one key\nrefresh it starts (default 0.25; 0 to 10); then 503 jwks_unavailable while\nthe fetch goes on. No serving thread waits on key I/O."
            ) { options, value, name throws(CommandFailure) in
                options.refreshWait = try OptionValue.seconds(name, value, in: 0...10)
            },
            .value(
                "--cache-control-max-age", placeholder: "SECONDS",
                help: "Let a gateway keep a 200 /auth answer: Cache-Control: private, max-age=M,\n"
                    + "M = SECONDS or the seconds to the token's exp, whichever is less. Without it\n"
                    + "every /auth and /verify answer is no-store; a refusal always is."
            ) { options, value, name throws(CommandFailure) in
                options.cacheControlMaxAge = try OptionValue.count(name, value, in: 1...31_536_000)
            },
        ]

    /// Whether any key source or policy was given (a default route exists).
    var isGiven: Bool { !keySets.sources.isEmpty || keySets.discover || flags.profile != nil || flags.issuer != nil }

    /// Builds the policy and fills in the profile's key set; checks the key sources' shape.
    mutating func finish(route: String) throws(CommandFailure) {
        do {
            policy = try flags.policy(.service)
        } catch {
            throw CommandFailure(
                status: error.status,
                message: route == ServeRoute.defaultName ? error.message : "route \"\(route)\": \(error.message)")
        }
        guard try keySets.resolve(for: flags, policy: policy, context: "route \"\(route)\": ") else {
            throw .usage("route \"\(route)\": --jwks is required (or --profile)")
        }
        if flags.keysFromTokens { return }
        let remote = keySets.sources.filter { if case .url = KeySetSource(parsing: $0) { true } else { false } }
        if !remote.isEmpty && keySets.sources.count > 1 {
            throw .usage(
                "route \"\(route)\": serve takes key files, or one remote key set, per route (got \(keySets.sources.joined(separator: ", ")))"
            )
        }
    }
}

/// The options of `jwtverify serve`.
struct ServeOptions {
    var route = RouteOptions()
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    var threads = VerifyOptions.defaultThreads
    var maxConnections = 1024
    var configFile: String?
    var accessLog = false
    var timeoutSeconds = 10
    var requestTimeoutSeconds = 10.0
    var maxHeaderBytes = 16 << 10
    var maxBodyBytes = 1 << 20
    var drainSeconds = 10.0
    /// Where state that must survive a restart is kept (`--state-dir`); `nil`: in memory.
    var stateDirectory: String?
    /// The Redis server several replicas share their replay windows in (`--replay-store`).
    var replayStore: RedisAddress?
    var helpRequested = false

    static let table = OptionTable<ServeOptions>(
        [
            .value(
                "--listen", placeholder: "HOST:PORT",
                help:
                    "Address to listen on: an IPv4 address, [IPv6] or localhost, and a port\n(default 127.0.0.1:8080; port 0: any free one; [::]:PORT every address)."
            ) {
                options, value, name throws(CommandFailure) in
                (options.host, options.port) = try ListenAddress.parse(value, option: name)
            },
            .value("--threads", placeholder: "N", help: "Event loops, one thread each (default: the number of CPUs).") {
                options, value, name throws(CommandFailure) in
                options.threads = try OptionValue.count(name, value, in: 1...256)
            },
            .value("--max-connections", placeholder: "N", help: "Most connections open at once (default 1024).") {
                options, value, name throws(CommandFailure) in
                options.maxConnections = try OptionValue.count(name, value, in: 1...1_000_000)
            },
            .value(
                "--timeout", placeholder: "SECONDS",
                help: "Close idle or stalled connections after SECONDS (default 10)."
            ) {
                options, value, name throws(CommandFailure) in
                options.timeoutSeconds = try OptionValue.count(name, value, in: 1...3600)
            },
            .value(
                "--request-timeout", placeholder: "SECONDS",
                help:
                    "Close a connection whose request line and headers are not all in within\nSECONDS of its opening or of its previous answer, however busy its client\nkeeps it (default 10)."
            ) { options, value, name throws(CommandFailure) in
                options.requestTimeoutSeconds = try OptionValue.seconds(name, value, in: 0.5...3600)
            },
            .value(
                "--max-header-bytes", placeholder: "N",
                help:
                    "Request line and headers cap; larger requests get 431 (default 16384).\nRaise it for tokens over about 15 KB in a header."
            ) {
                options, value, name throws(CommandFailure) in
                options.maxHeaderBytes = try OptionValue.count(name, value, in: 4096...(16 << 20))
            },
            .value(
                "--max-body-bytes", placeholder: "N",
                help:
                    "/verify and /notifications body cap; larger bodies get 413, before they are\nread when Content-Length says so (default 1048576)."
            ) {
                options, value, name throws(CommandFailure) in
                options.maxBodyBytes = try OptionValue.count(name, value, in: 1...(256 << 20))
            },
            .value(
                "--config", placeholder: "FILE",
                help:
                    "Named routes, each /auth/NAME and /verify/NAME, with keys and policy of\ntheir own (JSON; see the README); a route's \"issuers\" list puts several\nissuers behind it, each token judged by the one whose issuer is its iss.\nReloaded on SIGHUP."
            ) { $0.configFile = $1 },
            .value(
                "--state-dir", placeholder: "DIR",
                help: "Keep each notification route's seen-notification window in DIR\n"
                    + "(created if missing): a delivery Apple retries after a restart is\n"
                    + "still a duplicate. Without it, windows are in memory (lost at exit)."
            ) { $0.stateDirectory = $1 },
            .value(
                "--replay-store", placeholder: "redis://HOST:PORT",
                help: "Record DPoP proofs' jti and notifications' IDs in this Redis server, once\n"
                    + "each with its expiry (SET NX PX), so replicas sharing it refuse a replay\n"
                    + "any of them saw. Unreachable (0.5 s timeout): 503 with Retry-After."
            ) { options, value, name throws(CommandFailure) in
                switch RedisAddress.parse(value) {
                case .success(let address): options.replayStore = address
                case .failure(let problem): throw .usage("\(name): \(problem.description) (got \(value))")
                }
            },
            .flag("--access-log", help: "One JSON line per request on stderr (never the token: its fingerprint).") {
                $0.accessLog = true
            },
        ],
        RouteOptions.options.map { $0.lifted(\.route) })

    static let help = """
        USAGE: jwtverify serve --jwks SRC --issuer ISS --audience AUD [options]
               jwtverify serve --profile \(VerificationPolicy.profileNames.joined(separator: "|")) ... [options]
               jwtverify serve --config ROUTES.json [options]

        Answers token checks over HTTP, for gateways (nginx auth_request, Caddy forward_auth,
        Traefik ForwardAuth, Envoy ext_authz) and for backends in any language. The same
        verifier, checks and reason codes as 'jwtverify verify'.

        ENDPOINTS:
          /auth              GET, HEAD or POST. The token comes from Authorization: Bearer, or
                             --token-header, or --token-cookie. 200 with every one of X-JWT-Sub,
                             -Iss, -Aud, -Exp, -Kid, -Alg and each --claim-header, empty where the
                             token lacks the claim; 401 with WWW-Authenticate (RFC 6750) and
                             X-JWT-Reason; 400 invalid_request for two Authorization headers or a
                             token in more than one place (never one picked); 403 for a genuine
                             token meant for another audience or hosted domain; 503 while no keys
                             are loaded. Cache-Control: no-store (see --cache-control-max-age).
          /auth/NAME         the same through route NAME of --config, compared as bytes; the
                             command line's route answers the bare paths only. A NAME no route
                             has is 404; a path with %-encoding, a dot or empty segment, or a
                             segment after NAME is 400 (on every endpoint). The query is ignored.
          /ext-authz/NAME/...
                             the /auth check for Envoy's ext_authz (path_prefix /ext-authz/NAME,
                             default for the command line's route); the client's path after
                             NAME is never read as a route.
          /verify[/NAME]     POST a JSON request {"token", "nonce"?, "id"?} or JSON Lines of them:
                             200 with verify's output record for each, in order; 400 when a line
                             is not JSON, 413 over --max-body-bytes.
          /notifications[/NAME]
                             POST Apple's server-to-server notification body as Apple sends it
                             ({"payload"} for Sign in with Apple on an apple-notification route,
                             {"signedPayload"} for the App Store on an app-store route; /appstore
                             is an alias): 200 with the verified, typed event and "duplicate"
                             (the same jti or notificationUUID seen before: acknowledge, do not
                             act again); 401 with the reason; 503 with Retry-After while keys are
                             unavailable (Apple retries); 400 for a body that is not Apple's.
                             Each route remembers the IDs seen for 7 days (at most 100000): in
                             memory, or in --state-dir, where an ID is on the disk before its
                             notification is answered 200 (503 state_unwritable if it cannot be),
                             or in --replay-store, shared by every replica.
          /retention[/NAME]  POST a Retention Messaging realtime request as Apple sends it
                             ({"signedPayload"}) on an app-store route: 200 with the verified,
                             typed request (which message to answer stays the backend's choice);
                             401 with the reason (app_apple_id_mismatch for another app, claim_type
                             for other App Store data); 400 body_not_realtime_request for a body
                             that is not Apple's. /verify takes the same JWS.
          /metrics           Prometheus text: verdicts by reason, latency, cache, key fetches.
          /healthz, /ready   200 while running; 200 once every route has usable keys, else 503.

        TRUST BOUNDARY:
          The gateway is the boundary: the backend may trust X-JWT-* and the claim headers only
          when the gateway removes every client-sent header of those names, in hyphen and
          underscore spellings, and sets them from serve's 200 answer. The README's nginx,
          Caddy, Traefik and Envoy recipes do; a backend reachable around the gateway trusts
          nothing.

        OPTIONS:
        \(table.help)

        SIGNALS: SIGHUP reloads --config and the key files (a failure keeps the old ones);
        SIGTERM and SIGINT stop accepting, let open requests finish, close idle kept-alive
        connections at once, and exit 0. Under systemd (Type=notify, NOTIFY_SOCKET) serve sends
        READY=1 once every route has keys, RELOADING=1 and READY=1 around a reload, STOPPING=1.

        EXIT STATUS:
          0 stopped by a signal, 64 usage error, 65 unusable key set, config or --state-dir
          file, 66 file missing or unreadable, 71 cannot listen, 73 --jwks-cache or --state-dir
          folder cannot be created or written to. A remote key set that cannot be fetched at
          start does not stop serve: it is retried in the background, and /ready and the
          routes that need it answer 503 until its keys arrive.
        """

    /// Parses the words after `serve`.
    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { _, word throws(CommandFailure) in
            throw .usage("serve takes no operands (got \(word))")
        }
        if helpRequested { return }
        guard route.isGiven || configFile != nil else { throw .usage("--jwks is required (or --profile, or --config)") }
        if route.isGiven { try route.finish(route: ServeRoute.defaultName) }
    }
}
