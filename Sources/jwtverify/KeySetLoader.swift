import Dispatch
import JWTVerify
import JWTVerifyRemote

/// The `--jwks` sources of a command and how remote ones are cached.
struct KeySetOptions {
    /// Files, `http(s)://` URLs, or presets (`apple`, `google`, `firebase`).
    var sources: [String] = []
    /// Where snapshots of remote key sets are kept between runs (`--jwks-cache`).
    var cacheDirectory: String?
    /// The max-age clamp (`--jwks-min-ttl`, `--jwks-max-ttl`).
    var policy = KeyCachePolicy()
    /// `--discover`: the keys come from `--issuer`'s discovery document, not from `--jwks`.
    var discover = false
    /// The issuer whose discovery document names the keys, once ``resolve(for:policy:context:)``
    /// has checked `--discover`.
    var discoveryIssuer: String?

    /// What the keys come from, for messages: the sources, or the issuer discovered.
    var sourceNames: [String] { discoveryIssuer.map { ["--discover \($0)"] } ?? sources }

    /// Makes sure `--jwks-cache` names a folder snapshots can be written to: an existing writable
    /// folder, or one created here (mode 0700, parents too); otherwise exit 73 with the reason,
    /// rather than a run that keeps no snapshot and says nothing.
    func prepareCacheDirectory() throws(CommandFailure) {
        guard let path = cacheDirectory else { return }
        try Folder.prepare(path, mode: 0o700, option: "--jwks-cache")
    }

    /// The one rule every command takes keys by: App Store signed data carries its own (each
    /// token's chain to a pinned root), so `--jwks` and `--discover` are refused; otherwise
    /// `--discover` (with `--issuer`, and never with `--jwks`), `--jwks`, or else the profile's own
    /// key set. Whether any key source is there (`inspect` decodes only without one). `context`
    /// names the route for `serve`'s messages.
    mutating func resolve(for flags: PolicyFlags, policy: VerificationPolicy, context: String = "")
        throws(CommandFailure) -> Bool
    {
        if flags.keysFromTokens {
            if !sources.isEmpty || discover {
                throw .usage(
                    context + "--profile app-store takes each token's keys from its x5c chain; drop "
                        + (discover ? "--discover" : "--jwks"))
            }
            return true
        }
        if discover {
            guard sources.isEmpty else {
                throw .usage(
                    context + "--discover and --jwks exclude each other: the keys come from the issuer's "
                        + "discovery document, or from --jwks")
            }
            guard let issuer = flags.issuer else {
                throw .usage(context + "--discover needs --issuer (the issuer whose discovery document names the keys)")
            }
            if let refusal = DiscoveryLocations.refusal(of: issuer) {
                throw .usage(context + "--discover: \(refusal)")
            }
            discoveryIssuer = issuer
            return true
        }
        if sources.isEmpty, let source = policy.keySource { sources = [source.description] }
        return !sources.isEmpty
    }

    /// The keys of the resolved sources: none under `--profile app-store` (each token brings its
    /// own), else every source loaded and merged.
    func keys(for flags: PolicyFlags) throws(CommandFailure) -> JWKSet {
        flags.keysFromTokens ? JWKSet(keys: []) : try KeySetLoader.load(self)
    }

    /// `--jwks` (unless `sourceOption` is false: `jwks show` takes sources as operands),
    /// `--jwks-cache`, `--jwks-min-ttl` and `--jwks-max-ttl`.
    static func options(sourceOption: Bool = true) -> [Option<KeySetOptions>] {
        let source: Option<KeySetOptions> = .value(
            "--jwks", placeholder: "SRC",
            help:
                "Key set: a file (JWKS, single JWK, or kid-to-certificate map), an\nhttps:// URL, or a preset. Repeatable: merged. Presets:\n"
                + HelpText.wrapped(KeySetSource.presetNames, width: 68) + "."
        ) { $0.sources.append($1) }
        let discover: Option<KeySetOptions> = .flag(
            "--discover",
            help:
                "Take the keys from --issuer's discovery document:\nISS/.well-known/openid-configuration, or only if that answers 404 or\n410, RFC 8414's /.well-known/oauth-authorization-server. Its \"issuer\"\nmust be --issuer byte for byte, its jwks_uri https. Not with --jwks."
        ) { $0.discover = true }
        let rest: [Option<KeySetOptions>] = [
            .value(
                "--jwks-cache", placeholder: "DIR",
                help:
                    "Keep snapshots of remote key sets in DIR: used while fresh, revalidated\n(ETag) when due, and served (stale) if the origin then fails."
            ) { $0.cacheDirectory = $1 },
            .value(
                "--jwks-min-ttl", placeholder: "SECONDS",
                help: "Lower clamp for the origin's Cache-Control max-age (default 60)."
            ) {
                options, value, name throws(CommandFailure) in
                options.policy.minimumTTL = try OptionValue.seconds(name, value)
                guard options.policy.minimumTTL <= options.policy.maximumTTL else {
                    throw .usage("--jwks-min-ttl is above --jwks-max-ttl")
                }
            },
            .value("--jwks-max-ttl", placeholder: "SECONDS", help: "Upper clamp (default 86400).") {
                options, value, name throws(CommandFailure) in
                options.policy.maximumTTL = try OptionValue.seconds(name, value)
                guard options.policy.minimumTTL <= options.policy.maximumTTL else {
                    throw .usage("--jwks-min-ttl is above --jwks-max-ttl")
                }
            },
        ]
        return (sourceOption ? [source, discover] : []) + rest
    }
}

/// Loads the `--jwks` sources: files are read; remote sources come from the snapshot cache when
/// fresh, or are fetched (stale keys are used, with a warning, when the origin fails).
enum KeySetLoader {
    /// One source's keys.
    struct Loaded {
        let source: String
        let keys: JWKSet
        /// When remote keys were fetched and expire.
        let validity: (fetchedAt: Double, expiresAt: Double)?
        let stale: Bool
    }

    static func loadEach(_ options: KeySetOptions) throws(CommandFailure) -> [Loaded] {
        try options.prepareCacheDirectory()
        if let issuer = options.discoveryIssuer {
            let keySet = RemoteKeySet.discovering(
                issuer: issuer, policy: options.policy, snapshotDirectory: options.cacheDirectory)
            return [try remote(keySet, named: "--discover \(issuer)")]
        }
        var loaded: [Loaded] = []
        for text in options.sources {
            switch KeySetSource(parsing: text) {
            case .file(let path):
                do {
                    loaded.append(
                        Loaded(source: path, keys: try JWKSet(contentsOfFile: path), validity: nil, stale: false))
                } catch {
                    throw CommandFailure(
                        status: error.isMissingFile ? .noInput : .dataError, message: "--jwks \(path): \(error)")
                }
            case .url(let url):
                let keySet = RemoteKeySet(
                    url: url, fetcher: HTTPKeySetFetcher(), policy: options.policy,
                    snapshotDirectory: options.cacheDirectory)
                loaded.append(try remote(keySet, named: "--jwks \(url)"))
            }
        }
        return loaded
    }

    /// A remote set's keys, fetched unless a snapshot is fresh (stale ones with a warning); exit 69
    /// without any. `name` is how messages call the source (`--jwks URL`, `--discover ISSUER`).
    private static func remote(_ keySet: RemoteKeySet, named name: String) throws(CommandFailure) -> Loaded {
        Blocking.run { await keySet.refreshIfDue() }
        guard let keys = keySet.currentKeys() else {
            throw CommandFailure(
                status: .unavailable, message: "\(name): no keys (\(keySet.lastFailure ?? "not fetched"))")
        }
        let stale = keySet.isStale
        if stale {
            StandardError.write(
                "jwtverify: warning: \(keySet.url) could not be refreshed (\(keySet.lastFailure ?? "?")); using stale cached keys\n"
            )
        }
        return Loaded(source: keySet.url, keys: keys, validity: keySet.validity, stale: stale)
    }

    /// All sources merged, with unusable entries reported; fails when no key is usable.
    static func load(_ options: KeySetOptions) throws(CommandFailure) -> JWKSet {
        guard !options.sources.isEmpty || options.discoveryIssuer != nil else { throw .usage("--jwks is required") }
        return try merge(try loadEach(options), sources: options.sourceNames)
    }

    /// Already loaded sources merged, with unusable entries reported; fails when no key is usable.
    static func merge(_ loaded: [Loaded], sources: [String]) throws(CommandFailure) -> JWKSet {
        var merged = loaded[0].keys
        for next in loaded.dropFirst() { merged = merged.merging(next.keys) }
        for key in merged.keys {
            if let reason = key.unusableReason {
                StandardError.write(
                    "jwtverify: warning: key \(key.keyID.map { "\"\($0)\"" } ?? "(no kid)") is unusable: \(reason)\n")
            }
        }
        guard merged.keys.contains(where: { $0.unusableReason == nil }) else {
            throw CommandFailure(status: .dataError, message: "no usable key in \(sources.joined(separator: ", "))")
        }
        return merged
    }
}
