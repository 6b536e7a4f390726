import JWTVerify

/// `jwtverify jwks show FILE…`: describes every key of one or more key sets.
struct JWKSCommand {
    static let help = """
        USAGE: jwtverify jwks show [--json] FILE...

        Describes each key of the key sets (JWKS documents or single JWKs): kid, key type, size or
        curve, the algorithms it may verify, "use", the RFC 7638 thumbprint, and whether it is usable
        (and why not). Several files are merged as 'verify --jwks' merges them.

        OPTIONS:
          --json       One JSON object per key instead of a table.
          -h, --help   Show this help.

        EXIT STATUS: 0 at least one usable key, 65 no usable key or not a key set, 66 file missing.
        """

    let files: [String]
    let json: Bool

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        var arguments = Arguments(words)
        guard case .operand("show")? = arguments.next() else {
            throw .usage("jwks needs a subcommand: show")
        }
        var files: [String] = []
        var json = false
        while let word = arguments.next() {
            switch word {
            case .operand(let path): files.append(path)
            case .option("--json", nil): json = true
            case .option(let name, _): throw .usage("unknown option \(name)")
            }
        }
        guard !files.isEmpty else { throw .usage("jwks show needs at least one key set file") }
        self.files = files
        self.json = json
    }

    func run() throws(CommandFailure) -> ExitStatus {
        var merged: JWKSet? = nil
        for path in files {
            do {
                let set = try JWKSet(contentsOfFile: path)
                merged = merged?.merging(set) ?? set
            } catch {
                throw CommandFailure(status: error.isMissingFile ? .noInput : .dataError, message: "\(path): \(error)")
            }
        }
        let keys = merged?.keys ?? []
        var text = JSONText()
        var table = "kid          kty  size/curve  algorithms                         use  thumbprint (RFC 7638)                        status\n"
        for key in keys {
            let algorithms = SignatureAlgorithm.all.filter { key.mayVerify($0) }.map(\.name)
            let size = key.curve ?? key.bits.map { "\($0) bits" } ?? "-"
            if json {
                text.beginObject()
                text.key("kid")
                if let kid = key.keyID { text.string(kid) } else { text.null() }
                text.key("kty")
                if let kty = key.keyType { text.string(kty) } else { text.null() }
                text.key("crv")
                if let crv = key.curve { text.string(crv) } else { text.null() }
                text.key("bits")
                if let bits = key.bits { text.integer(bits) } else { text.null() }
                text.key("alg")
                if let alg = key.algorithm { text.string(alg) } else { text.null() }
                text.key("use")
                if let use = key.use { text.string(use) } else { text.null() }
                text.key("algorithms")
                text.beginArray()
                for name in algorithms { text.string(name) }
                text.endArray()
                text.key("thumbprint")
                if let thumbprint = key.thumbprint { text.string(thumbprint) } else { text.null() }
                text.key("usable")
                text.bool(key.unusableReason == nil)
                text.key("unusable_reason")
                if let reason = key.unusableReason { text.string(reason) } else { text.null() }
                text.endObject()
                text.appendRaw([UInt8(ascii: "\n")])
            } else {
                table += (key.keyID ?? "(none)").padding(12) + " " + (key.keyType ?? "?").padding(4) + " "
                    + size.padding(11) + " " + (algorithms.isEmpty ? "-" : algorithms.joined(separator: ",")).padding(34) + " "
                    + (key.use ?? "-").padding(4) + " " + (key.thumbprint ?? "-").padding(44) + " "
                    + (key.unusableReason.map { "unusable: \($0)" } ?? "usable") + "\n"
            }
        }
        let output = OutputSink()
        if json { output.write(text.bytes) } else { output.write(table) }
        output.flush()
        if output.failure != nil { throw CommandFailure(status: .ioError, message: "cannot write output") }
        return keys.contains { $0.unusableReason == nil } ? .ok : .dataError
    }
}
