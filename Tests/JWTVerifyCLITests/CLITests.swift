import Foundation
import JWTVerifyTestSupport
import Testing

/// End-to-end runs of the built `jwtverify` binary: stdout, stderr and exit status.
@Suite("jwtverify CLI")
struct CLITests {
    static let sample = "Vectors/samples/apple-identity-tokens.jsonl"
    static let baseFlags = [
        "verify", "--jwks", "Vectors/jwks.json", "--issuer", "https://appleid.apple.com", "--audience",
        "com.example.app",
        "--now", "1767225600",
    ]

    /// The sample rows: id → expected verdict.
    static let expectations: [String: String] = {
        let data = (try? Data(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(sample))) ?? Data()
        var map: [String: String] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            if let row = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let id = row["id"] as? String, let expect = row["expect"] as? String
            {
                map[id] = expect
            }
        }
        return map
    }()

    static var validTokens: [String] {
        let data = (try? Data(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(sample))) ?? Data()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let row = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                row["expect"] as? String == "valid", row["nonce"] == nil || true
            else { return nil }
            return row["token"] as? String
        }
    }

    @Test("the sample file: every line in order with its expected verdict, summary on stderr, exit 1")
    func sampleFile() throws {
        let outcome = try CLIRunner.run(Self.baseFlags + [Self.sample])
        #expect(outcome.status == 1)
        let records = outcome.records
        #expect(records.count == 27)
        for (index, record) in records.enumerated() {
            #expect(record["line"] as? Int == index + 1)
            let id = record["id"] as? String ?? ""
            let verdict = (record["valid"] as? Bool == true) ? "valid" : (record["reason"] as? String ?? "?")
            #expect(verdict == Self.expectations[id], "\(id)")
            #expect(record["claims_verified"] as? Bool == (verdict == "valid"))
            for key in ["detail", "alg", "kid", "iss", "sub", "aud", "exp", "iat"] {
                #expect(record.keys.contains(key))
            }
        }
        let first = try #require(records.first)
        #expect(first["alg"] as? String == "RS256")
        #expect(first["iss"] as? String == "https://appleid.apple.com")
        #expect(first["exp"] as? Int == 1_767_225_900)
        let expired = try #require(records.first { $0["id"] as? String == "expired" })
        #expect(expired["sub"] as? String == "001234.5f0a2b9c8d7e4f61a3b2c1d0e9f8a7b6.1234")
        #expect(outcome.stderr.contains("27 tokens, 7 valid, 20 rejected"))
        #expect(outcome.stderr.contains("nonce_mismatch     2"))
    }

    @Test("all valid: exit 0; threads 1 and 2 give identical output")
    func allValidAndThreads() throws {
        let lines = Self.validTokens.filter { _ in true }
        let input = Data(
            lines.map { #"{"token":"\#($0)","nonce":"demo-raw-nonce-0f4e2a","id":7}"# }.joined(separator: "\n").utf8)
        let one = try CLIRunner.run(Self.baseFlags + ["--threads", "1"], input: input)
        let two = try CLIRunner.run(Self.baseFlags + ["--threads", "2"], input: input)
        // One valid sample has no nonce claim and is meant to be checked without a nonce.
        #expect(one.records.count == lines.count)
        #expect(one.stdout == two.stdout)
        #expect(one.records.allSatisfy { $0["id"] as? Int == 7 })
        let withoutNonce = try CLIRunner.run(
            Self.baseFlags, input: Data((lines.prefix(5).joined(separator: "\n") + "\n").utf8))
        #expect(withoutNonce.status == 0)
        #expect(withoutNonce.records.count == 5)
        #expect(withoutNonce.stderr.contains("5 tokens, 5 valid, 0 rejected"))
    }

    @Test("a large input in many batches keeps input order on two threads")
    func order() throws {
        let tokens = Self.validTokens.prefix(5)
        var lines: [String] = []
        for i in 0..<9000 { lines.append(i % 3 == 0 ? "garbage-\(i)" : tokens[tokens.startIndex + i % 5]) }
        let outcome = try CLIRunner.run(
            Self.baseFlags + ["--threads", "2"], input: Data(lines.joined(separator: "\n").utf8))
        let records = outcome.records
        #expect(records.count == 9000)
        #expect(records.enumerated().allSatisfy { $0.element["line"] as? Int == $0.offset + 1 })
        #expect(records.enumerated().allSatisfy { ($0.element["valid"] as? Bool) == ($0.offset % 3 != 0) })
        #expect(outcome.status == 1)
    }

    @Test("odd lines: empty, CRLF, invalid UTF-8, JSON problems, 1 MiB and a line beyond the line limit")
    func oddLines() throws {
        let valid = Self.validTokens[0]
        var input = Data()
        input.append(Data("\n".utf8))  // 1: empty
        input.append(Data((valid + "\r\n").utf8))  // 2: CRLF
        input.append(Data([0xFF, 0xFE, 0x2E, 0x80, 0x0A]))  // 3: invalid UTF-8
        input.append(Data("{\"token\": 5, \"id\": [1]}\n".utf8))  // 4: token not a string
        input.append(Data("{not json\n".utf8))  // 5
        input.append(Data((String(repeating: "a", count: 1 << 20) + "\n").utf8))  // 6: 1 MiB
        input.append(Data(String(repeating: "b.", count: 1_500_000).utf8))  // 7: 3 MB, no newline at the end
        let outcome = try CLIRunner.run(Self.baseFlags, input: input)
        let reasons = outcome.records.map { $0["reason"] as? String ?? "valid" }
        // The empty line is blank: no record, counted apart from the tokens.
        #expect(reasons == ["valid", "malformed", "malformed", "malformed", "too_large", "too_large"])
        #expect(outcome.records.map { $0["line"] as? Int } == [2, 3, 4, 5, 6, 7])
        #expect(outcome.records[2]["id"] as? [Int] == [1])
        #expect(
            outcome.stderr.contains("jwtverify: 6 tokens, 1 valid, 5 rejected, 1 blank line skipped"),
            "\(outcome.stderr)")
        #expect(outcome.status == 1)
    }

    @Test(
        "one input rule: whitespace, a trailing newline and a Bearer scheme around a token are taken away in lines and JSON fields; blank lines are skipped"
    )
    func inputRule() throws {
        let valid = Self.validTokens[0]
        let lines = [
            "Bearer \(valid)", "  \(valid)\t", "bearer\t\(valid)", #"{"token":"Bearer \#(valid)","id":4}"#,
            #"  {"token":" \#(valid)\n"}"#, "", "   \t",
            #"{"token":"  "}"#, "Basic \(valid)",
        ]
        let outcome = try CLIRunner.run(Self.baseFlags, input: Data((lines.joined(separator: "\n") + "\n").utf8))
        let reasons = outcome.records.map { $0["reason"] as? String ?? "valid" }
        #expect(
            reasons == ["valid", "valid", "valid", "valid", "valid", "malformed", "malformed"], "\(outcome.stdoutText)")
        #expect(outcome.records.map { $0["line"] as? Int } == [1, 2, 3, 4, 5, 8, 9])
        #expect((outcome.records[5]["detail"] as? String)?.contains("holds no token") == true)
        #expect(outcome.stderr.contains("7 tokens, 5 valid, 2 rejected, 2 blank lines skipped"), "\(outcome.stderr)")
    }

    @Test("--now accepts Unix seconds and RFC 3339 alike")
    func nowFormats() throws {
        let token = Data((Self.validTokens[0] + "\n").utf8)
        for now in [
            "1767225600", "1767225600.5", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00",
            "2025-12-31T23:59:59.999Z",
        ] {
            var flags = Self.baseFlags
            flags[flags.count - 1] = now
            #expect(try CLIRunner.run(flags, input: token).status == 0, "\(now)")
        }
        var late = Self.baseFlags
        late[late.count - 1] = "2026-01-02T00:00:00Z"
        let expired = try CLIRunner.run(late, input: token)
        #expect(expired.records.first?["reason"] as? String == "expired")
    }

    @Test(
        "usage errors exit 64 with a hint on stderr",
        arguments: [
            [], ["frobnicate"], ["verify"], ["verify", "--jwks", "Vectors/jwks.json", "--audience", "a"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--bogus"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--algorithms", "HS256"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--algorithms", "none"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--leeway", "-1"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--now", "yesterday"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--threads", "0"],
            ["verify", "--jwks", "Vectors/jwks.json", "--issuer", "i", "--audience", "a", "--max-token-bytes", "x"],
            ["verify", "--jwks"],
        ])
    func usage(arguments: [String]) throws {
        let outcome = try CLIRunner.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(!outcome.stderr.isEmpty)
    }

    @Test("--help prints usage on stdout and exits 0")
    func help() throws {
        let top = try CLIRunner.run(["--help"])
        #expect(top.status == 0)
        #expect(top.stdoutText.contains("USAGE: jwtverify"))
        let verify = try CLIRunner.run(["verify", "--help"])
        #expect(verify.status == 0)
        #expect(verify.stdoutText.contains("EXIT STATUS"))
    }

    @Test("a missing key set or input file exits 66; an unusable key set exits 65")
    func files() throws {
        let workspace = try TestWorkspace("cli", withKeys: false)
        let directory = workspace.directory
        let garbage = directory.appendingPathComponent("garbage.json")
        try Data("not json".utf8).write(to: garbage)
        let encOnly = directory.appendingPathComponent("enc.json")
        try Data(#"{"keys":[{"kty":"RSA","kid":"x","use":"enc","n":"AQAB","e":"AQAB"}]}"#.utf8).write(to: encOnly)
        let base = ["verify", "--issuer", "i", "--audience", "a"]
        let missingKeys = try CLIRunner.run(base + ["--jwks", "/nonexistent.json"])
        #expect(missingKeys.status == 66)
        #expect(try CLIRunner.run(base + ["--jwks", garbage.path]).status == 65)
        let unusable = try CLIRunner.run(base + ["--jwks", encOnly.path])
        #expect(unusable.status == 65)
        #expect(unusable.stderr.contains("unusable"))
        let missingInput = try CLIRunner.run(base + ["--jwks", "Vectors/jwks.json", "/nonexistent-input.txt"])
        #expect(missingInput.status == 66)
        #expect(missingInput.stdout.isEmpty)
        #expect(try CLIRunner.run(base + ["--jwks", "Vectors/jwks.json", directory.path]).status == 66)
    }

    @Test("several input files: records carry the file name and restart line numbers")
    func severalFiles() throws {
        let outcome = try CLIRunner.run(Self.baseFlags + [Self.sample, "Vectors/samples/tokens.txt"])
        let records = outcome.records
        #expect(records.count == 27 + 26)
        #expect(records[27]["file"] as? String == "Vectors/samples/tokens.txt")
        #expect(records[27]["line"] as? Int == 1)
    }

    @Test("a failed write (a full disk) exits 74")
    func writeFailure() throws {
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = Self.baseFlags + [Self.sample]
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 74)
        #expect(message.contains("cannot write output"))
    }

    @Test("progress goes to stderr only when it is a terminal")
    func progress() throws {
        let workspace = try TestWorkspace("progress", withKeys: false)
        let directory = workspace.directory
        let input = directory.appendingPathComponent("tokens.txt")
        try Data(String(repeating: Self.validTokens[0] + "\n", count: 9000).utf8).write(to: input)
        let command = ([CLIRunner.binary.path] + Self.baseFlags + [input.path]).joined(separator: " ") + " > /dev/null"

        // Not a terminal: the summary only.
        let plain = try CLIRunner.run(Self.baseFlags + [input.path])
        #expect(!plain.stderr.contains("\r"))
        #expect(plain.stderr.contains("9000 tokens, 9000 valid"))

        // A terminal (script(1) provides one): progress lines, erased before the summary.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", command, "/dev/null"]
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment["JWTVERIFY_PROGRESS_INTERVAL"] = "0"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let terminal = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(terminal.contains("\rjwtverify: 4,096 tokens"))
        #expect(terminal.contains("ETA"))
        #expect(terminal.contains("\r\u{1B}[Kjwtverify: 9000 tokens, 9000 valid"))
    }

    @Test("bench: help, usage errors, and a debug build refuses to measure")
    func bench() throws {
        let help = try CLIRunner.run(["bench", "--help"])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("raw_limit_tokens_per_sec"))
        #expect(try CLIRunner.run(["bench", "--threads", "0"]).status == 64)
        #expect(try CLIRunner.run(["bench", "--tokens", "x.txt"]).status == 64)
        #expect(try CLIRunner.run(["bench", "--algorithm", "HS256"]).status == 64)
        let accessAlone = try CLIRunner.run(["bench", "--access-token"])
        #expect(
            accessAlone.status == 64 && accessAlone.stderr.contains("--access-token measures --tokens FILE"),
            "\(accessAlone.stderr)")
        #expect(help.stdoutText.contains("--raw-check CHECK"))
        let badCheck = try CLIRunner.run(["bench", "--raw-check", "evp"])
        #expect(badCheck.status == 64 && badCheck.stderr.contains("openssl, library or multibuffer"))
        let run = try CLIRunner.run(["bench", "--count", "3", "--reps", "1", "--json"])
        var isDebugBuild = false
        assert(
            {
                isDebugBuild = true
                return true
            }())
        if isDebugBuild {  // the binary beside this test bundle was built the same way
            #expect(run.status == 78)
            #expect(run.stderr.contains("debug build"))
        } else {
            #expect(run.status == 0)
            #expect(run.records.first?["valid"] as? Int == 3)
        }
    }

    @Test(
        "bench --profile: the tokens under the profile's checks, as verify --profile makes them; --skip-nonce as audit checks nonces"
    )
    func benchProfile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try CLIRunner.run(["bench", "--count", "12", "--write-corpus", directory.path, "--repeat", "1"])
        try #require(written.status == 0, "\(written.stderr)")
        let files = [
            "--jwks", directory.appendingPathComponent("jwks.json").path, "--tokens",
            directory.appendingPathComponent("tokens.txt").path,
        ]
        // The written corpus is made for this instant.
        let now = ["--now", "1767225600"]
        let apple = files + now + ["--profile", "apple", "--audience", "com.example.app", "--reps", "1", "--json"]
        // Usage: the profile measures a file's tokens, is no App Store or access-token corpus, and
        // --skip-nonce goes with it.
        for words in [
            ["--profile", "apple"], ["--skip-nonce"], files + ["--profile", "nope"],
            files + ["--profile", "app-store"],
            apple + ["--access-token"], ["--app-store", "--profile", "apple"], files + ["--skip-nonce"],
        ] {
            #expect(try CLIRunner.run(["bench"] + words).status == 64, "\(words)")
        }
        // Without their nonces, the Apple profile rejects every token, as verify --profile apple does:
        // the same reason, counted; nothing is measured.
        let bare = try CLIRunner.run(["bench"] + apple)
        let verified = try CLIRunner.run(
            ["verify", "--jwks", files[1], "--profile", "apple", "--audience", "com.example.app", files[3]] + now)
        let reasons = Set(verified.records.compactMap { $0["reason"] as? String })
        #expect(reasons == ["nonce_missing"] && verified.records.count == 12, "\(verified.stdoutText)")
        #expect(bare.status == 1, "\(bare.stderr)")
        #expect(bare.stderr.contains("12 of 12 tokens are rejected (\(reasons.first ?? "?") 12"), "\(bare.stderr)")
        // With their nonces, or with --skip-nonce: accepted for measuring (a debug build then refuses).
        for extra in [["--nonces", directory.appendingPathComponent("nonces.txt").path], ["--skip-nonce"]] {
            let run = try CLIRunner.run(["bench"] + apple + extra)
            #expect(run.status == 0 || (run.status == 78 && run.stderr.contains("debug build")), "\(run.stderr)")
            if run.status == 0 { #expect(run.records.first?["valid"] as? Int == 12) }
        }
    }

    @Test(
        "bench --app-store --tokens: App Store data from a file, under --bundle-id, --app-apple-id and --apple-root; rejected tokens counted by reason"
    )
    func benchAppStoreTokens() throws {
        let vectors = AppStoreSyntheticVectors.all
        try #require(vectors.count >= 10, "Vectors/appstore/tokens.jsonl is missing")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-appstore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try vectors.map(\.token).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let flags = [
            "--app-store", "--tokens", file.path, "--bundle-id", AppStoreSyntheticVectors.bundleID, "--app-apple-id",
            String(AppStoreSyntheticVectors.appAppleID), "--apple-root", AppStoreSyntheticVectors.rootFile.path,
            "--reps", "1",
        ]
        // Usage: a bundle ID is needed, no key set or time is taken, and the App Store flags need the mode.
        for words in [
            ["--app-store", "--tokens", file.path], flags + ["--jwks", "Vectors/jwks.json"], flags + ["--now", "0"],
            ["--bundle-id", "x"], ["--app-store", "--apple-root", "x"], ["--app-apple-id", "7"],
        ] {
            #expect(try CLIRunner.run(["bench"] + words).status == 64, "\(words)")
        }
        // Every line as a corpus: the rejected ones are counted by reason, and nothing is measured.
        let mixed = try CLIRunner.run(["bench"] + flags)
        let expectedRejections = vectors.filter { $0.expect != "valid" }.count
        #expect(mixed.status == 1, "\(mixed.stderr)")
        #expect(
            mixed.stderr.contains("\(expectedRejections) of \(vectors.count) tokens are rejected (")
                && mixed.stderr.contains("bad_signature 2") && mixed.stderr.contains("untrusted_chain 1"),
            "\(mixed.stderr)")
        // Only the valid ones: accepted for measuring (a debug build then refuses, as it should).
        try vectors.filter { $0.expect == "valid" }.map(\.token).joined(separator: "\n").write(
            to: file, atomically: true, encoding: .utf8)
        let good = try CLIRunner.run(["bench"] + flags + ["--json"])
        var isDebugBuild = false
        assert(
            {
                isDebugBuild = true
                return true
            }())
        #expect(good.status == (isDebugBuild ? 78 : 0), "\(good.stderr)")
        if !isDebugBuild { #expect(good.records.first?["label"] as? String == "AppStore file") }
        // Under Apple's root the test chain is untrusted: every token rejected.
        let apples = flags.filter { $0 != AppStoreSyntheticVectors.rootFile.path && $0 != "--apple-root" }
        let foreign = try CLIRunner.run(["bench"] + apples)
        #expect(foreign.status == 1 && foreign.stderr.contains("untrusted_chain"), "\(foreign.stderr)")
    }

    @Test(
        "bench refuses nonsense: rejected tokens are counted by reason and exit 1; a raw limit it cannot measure exits 65"
    )
    func benchRefusals() throws {
        let sample = "Vectors/samples/apple-identity-tokens.jsonl"
        let flags = [
            "--jwks", "Vectors/jwks.json", "--issuer", "https://appleid.apple.com", "--audience", "com.example.app",
            "--now", "2026-01-01T00:00:00Z",
        ]
        // JSON lines, as verify reads them (7 valid, 20 rejected with their reasons).
        let mixed = try CLIRunner.run(["bench", "--tokens", sample] + flags)
        #expect(mixed.status == 1 && mixed.stdout.isEmpty, "\(mixed.stderr)")
        #expect(
            mixed.stderr.contains("20 of 27 tokens are rejected (") && mixed.stderr.contains("bad_signature")
                && mixed.stderr.contains("--allow-rejected"))
        // The wrong key set: every token rejected; measured anyway, no signature can be checked.
        let wrongKeys = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-keys-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: wrongKeys) }
        try TokenFactory.jwksJSON.write(to: wrongKeys, atomically: true, encoding: .utf8)
        var other = flags
        other[1] = wrongKeys.path
        let wrong = try CLIRunner.run(["bench", "--tokens", sample] + other)
        #expect(
            wrong.status == 1
                && wrong.stderr.contains(
                    "27 of 27 tokens are rejected (too_large 1, malformed 2, unsupported_alg 1, alg_none 1, header_invalid 1, crit_unsupported 1, unknown_kid 20)"
                ), "\(wrong.stderr)")
        let forced = try CLIRunner.run(["bench", "--tokens", sample, "--allow-rejected"] + other)
        #expect(
            forced.status == 65 && forced.stderr.contains("no token of the corpus has a signature the raw limit"),
            "\(forced.stderr)")
        // Only the valid lines: accepted for measuring (a debug build then refuses, as it should).
        let lines = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(sample), encoding: .utf8)
            .split(separator: "\n")
        let valid = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-valid-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: valid) }
        try (lines.filter { $0.contains(#""expect":"valid""#) }.joined(separator: "\n") + "\n\n").write(
            to: valid, atomically: true, encoding: .utf8)
        let good = try CLIRunner.run(["bench", "--tokens", valid.path, "--reps", "1"] + flags)
        var isDebugBuild = false
        assert(
            {
                isDebugBuild = true
                return true
            }())
        #expect(good.status == (isDebugBuild ? 78 : 0), "\(good.stderr)")
        if !isDebugBuild {
            #expect(good.stdoutText.contains("signature engine:") && good.stdoutText.contains("ratio: tokens/s over"))
        }
    }

    @Test("jwks show: a table or JSON lines describing every key, with what it may verify")
    func jwksShow() throws {
        let table = try CLIRunner.run(["jwks", "show", "Vectors/jwks.json"])
        #expect(table.status == 0)
        #expect(table.stdoutText.contains("W6WcOKB6X1   RSA  2048 bits   RS256"))
        #expect(table.stdoutText.split(separator: "\n").count == 5)
        let json = try CLIRunner.run(["jwks", "show", "--json", "Vectors/jwks.json"])
        #expect(json.records.count == 4)
        #expect(
            json.records.allSatisfy { ($0["thumbprint"] as? String)?.utf8.count == 43 && $0["usable"] as? Bool == true }
        )
        #expect(json.records.last?["algorithms"] as? [String] == ["ES256"])
        #expect(try CLIRunner.run(["jwks", "show", "/nonexistent.json"]).status == 66)
        #expect(try CLIRunner.run(["jwks", "frobnicate"]).status == 64)
        #expect(try CLIRunner.run(["jwks", "show"]).status == 64)
        #expect(try CLIRunner.run(["jwks", "--help"]).status == 0)
    }

    @Test("jwks show describes RSA, P-521 and Ed25519 keys from the RFC examples; an enc-only set exits 65")
    func jwksShowKeyTypes() throws {
        let shared = CLIRunner.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors/rfc")
        guard FileManager.default.fileExists(atPath: shared.path) else {
            print("shared vectors absent: jwks show key-type test SKIPPED")
            return
        }
        var keys: [Any] = []
        for (file, kid) in [
            ("rfc7520_4_3_ES512.json", "p521"), ("rfc8037_A4_EdDSA.json", "ed"), ("rfc7520_4_2_PS384.json", "rsa"),
        ] {
            let vector =
                try JSONSerialization.jsonObject(with: Data(contentsOf: shared.appendingPathComponent(file)))
                as? [String: Any]
            var jwk = try #require(vector?["jwk"] as? [String: Any])
            jwk["kid"] = kid
            jwk.removeValue(forKey: "alg")
            keys.append(jwk)
        }
        let workspace = try TestWorkspace("jwks", withKeys: false)
        let directory = workspace.directory
        let file = directory.appendingPathComponent("keys.json")
        try JSONSerialization.data(withJSONObject: ["keys": keys]).write(to: file)
        let outcome = try CLIRunner.run(["jwks", "show", "--json", file.path])
        let byKid = Dictionary(uniqueKeysWithValues: outcome.records.map { ($0["kid"] as? String ?? "", $0) })
        #expect(byKid["p521"]?["algorithms"] as? [String] == ["ES512"])
        #expect(byKid["p521"]?["bits"] as? Int == 521)
        #expect(byKid["ed"]?["algorithms"] as? [String] == ["EdDSA"])
        #expect(byKid["ed"]?["thumbprint"] as? String == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        #expect(byKid["rsa"]?["algorithms"] as? [String] == ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"])
        let encOnly = directory.appendingPathComponent("enc.json")
        let a1 =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: shared.appendingPathComponent("rfc7517_A1_public_jwks.json"))) as? [String: Any]
        let ecKey = try #require(((a1?["jwks"] as? [String: Any])?["keys"] as? [[String: Any]])?.first)
        try JSONSerialization.data(withJSONObject: ["keys": [ecKey]]).write(to: encOnly)
        let unusable = try CLIRunner.run(["jwks", "show", encOnly.path])
        #expect(unusable.status == 65)
        #expect(unusable.stdoutText.contains("unusable: use is \"enc\""))
    }

    @Test("256 MB with no newline streams through as one too_large record in bounded memory")
    func hugeLine() throws {
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = Self.baseFlags
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let chunk = Data(repeating: 0x61, count: 1 << 20)
        for _ in 0..<256 { try stdin.fileHandleForWriting.write(contentsOf: chunk) }
        // Still running, all but the last pipe-buffer of input consumed: its own peak RSS so far.
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let peak =
            status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? -1
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(peak > 0 && peak < 64 * 1024, "peak RSS \(peak) KiB")
        let record =
            try JSONSerialization.jsonObject(with: output.split(separator: UInt8(ascii: "\n"))[0]) as? [String: Any]
        #expect(record?["reason"] as? String == "too_large")
    }
}
