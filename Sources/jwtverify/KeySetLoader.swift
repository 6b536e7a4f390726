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

    /// Consumes `--jwks`, `--jwks-cache`, `--jwks-min-ttl` and `--jwks-max-ttl`; false for other options.
    mutating func parse(_ name: String, inline: String?, _ arguments: inout Arguments) throws(CommandFailure) -> Bool {
        switch name {
        case "--jwks": sources.append(try arguments.value(for: name, inline: inline))
        case "--jwks-cache": cacheDirectory = try arguments.value(for: name, inline: inline)
        case "--jwks-min-ttl", "--jwks-max-ttl":
            let text = try arguments.value(for: name, inline: inline)
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw .usage("\(name) needs a number of seconds, not \"\(text)\"")
            }
            if name == "--jwks-min-ttl" { policy.minimumTTL = seconds } else { policy.maximumTTL = seconds }
            guard policy.minimumTTL <= policy.maximumTTL else { throw .usage("--jwks-min-ttl is above --jwks-max-ttl") }
        default: return false
        }
        return true
    }

    /// Help lines for these options.
    static let help = """
          --jwks SRC               Key set: a file (JWKS, single JWK, or kid-to-certificate map), an
                                   https:// URL, or a preset: apple, google, firebase. Repeatable: merged.
          --jwks-cache DIR         Keep snapshots of remote key sets in DIR: used while fresh, revalidated
                                   (ETag) when due, and served (stale) if the origin then fails.
          --jwks-min-ttl SECONDS   Lower clamp for the origin's Cache-Control max-age (default 60).
          --jwks-max-ttl SECONDS   Upper clamp (default 86400).
        """
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
        var loaded: [Loaded] = []
        for text in options.sources {
            switch KeySetSource(parsing: text) {
            case .file(let path):
                do {
                    loaded.append(Loaded(source: path, keys: try JWKSet(contentsOfFile: path), validity: nil, stale: false))
                } catch {
                    throw CommandFailure(status: error.isMissingFile ? .noInput : .dataError, message: "--jwks \(path): \(error)")
                }
            case .url(let url):
                let keySet = RemoteKeySet(
                    url: url, fetcher: HTTPKeySetFetcher(), policy: options.policy, snapshotDirectory: options.cacheDirectory)
                Blocking.run { await keySet.refreshIfDue() }
                guard let keys = keySet.currentKeys() else {
                    throw CommandFailure(
                        status: .unavailable, message: "--jwks \(url): no keys (\(keySet.lastFailure ?? "not fetched"))")
                }
                let stale = keySet.isStale
                if stale {
                    StandardError.write(
                        "jwtverify: warning: \(url) could not be refreshed (\(keySet.lastFailure ?? "?")); using stale cached keys\n")
                }
                loaded.append(Loaded(source: url, keys: keys, validity: keySet.validity, stale: stale))
            }
        }
        return loaded
    }

    /// All sources merged, with unusable entries reported; fails when no key is usable.
    static func load(_ options: KeySetOptions) throws(CommandFailure) -> JWKSet {
        guard !options.sources.isEmpty else { throw .usage("--jwks is required") }
        let loaded = try loadEach(options)
        var merged = loaded[0].keys
        for next in loaded.dropFirst() { merged = merged.merging(next.keys) }
        for key in merged.keys {
            if let reason = key.unusableReason {
                StandardError.write("jwtverify: warning: key \(key.keyID.map { "\"\($0)\"" } ?? "(no kid)") is unusable: \(reason)\n")
            }
        }
        guard merged.keys.contains(where: { $0.unusableReason == nil }) else {
            throw CommandFailure(status: .dataError, message: "no usable key in \(options.sources.joined(separator: ", "))")
        }
        return merged
    }
}

/// Runs async work to completion from synchronous command code.
enum Blocking {
    static func run(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}
