import JWTVerify
import JWTVerifyRemote
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify jwks show|fetch`: describe key sets, or fetch and save one.
struct JWKSCommand {
    static let help = """
        USAGE: jwtverify jwks show [--json] [--jwks-cache DIR] SRC...
               jwtverify jwks fetch SRC [-o FILE]

        show   Describes each key: kid, key type, size or curve, the algorithms it may verify, "use",
               the RFC 7638 thumbprint, and whether it is usable (and why not). For remote sources,
               also when the keys were fetched and when they expire. Several sources are merged as
               'verify --jwks' merges them.
        fetch  Fetches a key set (URL or preset), checks that it holds a usable key, and writes the
               document as served to FILE (atomically) or stdout: a snapshot for offline use.

        SRC is a file, an https:// URL, or a preset: \(KeySetSource.presetNames.joined(separator: ", ")).

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 at least one usable key, 65 no usable key or not a key set, 66 file missing,
        69 a remote key set cannot be fetched, 73 --jwks-cache folder cannot be created, 74 cannot
        write.
        """

    enum Action { case show, fetch }

    static let table = OptionTable<JWKSCommand>(
        [
            .flag("--json", help: "One JSON object per key instead of a table.") { $0.json = true },
            .value("-o", "--output", placeholder: "FILE", help: "Where 'fetch' writes the document.") {
                $0.output = $1
            },
        ],
        KeySetOptions.options(sourceOption: false).map { $0.lifted(\.keySets) })

    let action: Action
    var keySets = KeySetOptions()
    var json = false
    var output: String?

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        switch words.first {
        case "show"?: action = .show
        case "fetch"?: action = .fetch
        default:
            let what = words.first.map { "unknown jwks subcommand \"\($0)\"" } ?? "jwks needs a subcommand"
            throw .usage(what + ": show, fetch")
        }
        _ = try Self.table.parse(words.dropFirst(), into: &self) { options, source throws(CommandFailure) in
            options.keySets.sources.append(source)
        }
        guard !keySets.sources.isEmpty else {
            throw .usage("jwks \(action == .show ? "show" : "fetch") needs a key set source")
        }
        if action == .fetch && keySets.sources.count != 1 { throw .usage("jwks fetch takes exactly one source") }
    }

    func run() throws(CommandFailure) -> ExitStatus {
        action == .show ? try show() : try fetch()
    }

    private func fetch() throws(CommandFailure) -> ExitStatus {
        guard case .url(let url) = KeySetSource(parsing: keySets.sources[0]) else {
            throw .usage("jwks fetch needs a URL or a preset, not a file")
        }
        let box = FetchBox()
        Blocking.run { box.result = await HTTPKeySetFetcher().fetch(url, etag: nil, lastModified: nil) }
        guard case .document(let body, _, _, _)? = box.result else {
            var reason = "no response"
            if case .failed(let description)? = box.result { reason = description }
            throw CommandFailure(status: .unavailable, message: "cannot fetch \(url): \(reason)")
        }
        let keys: JWKSet
        do { keys = try JWKSet(json: body) } catch {
            throw CommandFailure(status: .dataError, message: "\(url): \(error)")
        }
        guard keys.keys.contains(where: { $0.unusableReason == nil }) else {
            throw CommandFailure(status: .dataError, message: "\(url): no usable key")
        }
        if let output {
            guard LocalFile.writeAtomically(body, to: output) else {
                throw CommandFailure(status: .ioError, message: "cannot write \(output)")
            }
            StandardError.write("jwtverify: wrote \(keys.keys.count) key(s) from \(url) to \(output)\n")
        } else {
            let sink = OutputSink()
            sink.write(body)
            sink.flush()
            if sink.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
        }
        return .ok
    }

    private func show() throws(CommandFailure) -> ExitStatus {
        let loaded = try KeySetLoader.loadEach(keySets)
        var merged = loaded[0].keys
        for next in loaded.dropFirst() { merged = merged.merging(next.keys) }
        var text = OutputText()
        var table = ""
        for source in loaded {
            if let validity = source.validity {
                table +=
                    "# \(source.source): fetched \(Timestamp.format(validity.fetchedAt)), expires "
                    + "\(Timestamp.format(validity.expiresAt))\(source.stale ? " (STALE: the origin could not be reached)" : "")\n"
            }
        }
        table +=
            "kid          kty  size/curve  algorithms                         use  thumbprint (RFC 7638)                        status\n"
        for key in merged.keys {
            let algorithms = SignatureAlgorithm.all.filter { key.mayVerify($0) }.map(\.name)
            let origin = loaded.first { $0.keys.key(withID: key.keyID ?? "\u{0}")?.thumbprint == key.thumbprint }
            if json {
                text.beginObject()
                text.member("kid", key.keyID)
                text.member("kty", key.keyType)
                text.member("crv", key.curve)
                text.key("bits")
                if let bits = key.bits { text.integer(bits) } else { text.null() }
                text.member("alg", key.algorithm)
                text.member("use", key.use)
                text.key("algorithms")
                text.beginArray()
                for name in algorithms { text.string(name) }
                text.endArray()
                text.member("thumbprint", key.thumbprint)
                text.key("usable")
                text.bool(key.unusableReason == nil)
                text.member("unusable_reason", key.unusableReason)
                text.member("source", origin?.source)
                text.member("fetched_at", origin?.validity.map { Timestamp.format($0.fetchedAt) })
                text.member("expires_at", origin?.validity.map { Timestamp.format($0.expiresAt) })
                text.endObject()
                text.newline()
            } else {
                let size = key.curve ?? key.bits.map { "\($0) bits" } ?? "-"
                table +=
                    (key.keyID ?? "(none)").padding(12) + " " + (key.keyType ?? "?").padding(4) + " "
                    + size.padding(11) + " "
                    + (algorithms.isEmpty ? "-" : algorithms.joined(separator: ",")).padding(34) + " "
                    + (key.use ?? "-").padding(4) + " " + (key.thumbprint ?? "-").padding(44) + " "
                    + (key.unusableReason.map { "unusable: \($0)" } ?? "usable") + "\n"
            }
        }
        let sink = OutputSink()
        if json { sink.write(text.bytes) } else { sink.write(table) }
        sink.flush()
        if sink.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
        guard merged.keys.contains(where: { $0.unusableReason == nil }) else {
            let what = merged.keys.isEmpty ? "no key at all" : "no usable key"
            throw CommandFailure(status: .dataError, message: "\(what) in \(keySets.sources.joined(separator: ", "))")
        }
        return .ok
    }
}

/// Hands a fetch result from the async task to the command.
private final class FetchBox: @unchecked Sendable {
    // Safety: written once by the task, read after `Blocking.run` returned.
    var result: KeySetFetchResult?
}
