import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// The multi-buffer engine under the CLI: with it and with `JWTVERIFY_CRYPTO_MB=off`, `verify` and
/// `audit` write byte-identical output; `--version` and `bench --json` name the engine in use.
@Suite("jwtverify with and without the multi-buffer engine")
struct CLISignatureEngineTests {
    static let off: [String: String?] = ["JWTVERIFY_CRYPTO_MB": "off"]

    @Test(
        "verify and audit: byte-identical records and summaries with the engine and without, on RS256 and ES256 corpora with forgeries"
    )
    func sameOutput() throws {
        let workspace = try TestWorkspace("engine", withKeys: false)
        let directory = workspace.directory
        // 600 Apple-shaped RS256 tokens with nonces, every eleventh signature flipped.
        let corpus = try CLIRunner.run(["bench", "--count", "600", "--write-corpus", directory.path, "--repeat", "1"])
        #expect(corpus.status == 0, "\(corpus.stderr)")
        let tokensURL = directory.appendingPathComponent("tokens.txt")
        var lines = try String(contentsOf: tokensURL, encoding: .utf8).split(separator: "\n").map(String.init)
        for index in lines.indices where index % 11 == 4 {
            var bytes = Array(lines[index].utf8)
            bytes[bytes.count - 5] = bytes[bytes.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            lines[index] = String(decoding: bytes, as: UTF8.self)
        }
        // 4,000 ES256 tokens (u1*G in crypto_mb's lanes once the key has its table), every seventh
        // signature flipped.
        let es256Directory = directory.appendingPathComponent("es256")
        let es256Corpus = try CLIRunner.run([
            "bench", "--algorithm", "ES256", "--count", "4000", "--write-corpus", es256Directory.path, "--repeat", "1",
        ])
        #expect(es256Corpus.status == 0, "\(es256Corpus.stderr)")
        let es256URL = es256Directory.appendingPathComponent("tokens.txt")
        let es256Lines = try String(contentsOf: es256URL, encoding: .utf8).split(separator: "\n").enumerated().map {
            index, line -> String in
            guard index % 7 == 3 else { return String(line) }
            var bytes = Array(line.utf8)
            bytes[bytes.count - 9] = bytes[bytes.count - 9] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            return String(decoding: bytes, as: UTF8.self)
        }
        try Data(es256Lines.joined(separator: "\n").utf8).write(to: es256URL)
        // And the test factory's tokens: two 2,048-bit keys and a P-256 key, mixed.
        let keys = directory.appendingPathComponent("mixed-jwks.json")
        try Data(TokenFactory.jwksJSON.utf8).write(to: keys)
        let mixed = (0..<60).map { n in
            TokenFactory.token(
                payload: TokenFactory.claims(extra: #""n":\#(n)"#),
                signer: [TokenFactory.rsa, TokenFactory.rsaB, TokenFactory.ec][n % 3])
        }
        let mixedURL = directory.appendingPathComponent("mixed.txt")
        try Data(mixed.joined(separator: "\n").utf8).write(to: mixedURL)
        try Data(lines.joined(separator: "\n").utf8).write(to: tokensURL)
        let runs: [[String]] = [
            [
                "verify", "--jwks", directory.appendingPathComponent("jwks.json").path, "--issuer",
                "https://appleid.apple.com",
                "--audience", "com.example.app", "--now", "1767225600", tokensURL.path,
            ],
            [
                "audit", "--format", "jsonl", "--jwks", directory.appendingPathComponent("jwks.json").path, "--now",
                "1767225600", tokensURL.path,
            ],
            [
                "verify", "--jwks", keys.path, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience,
                "--now", "1700001000", mixedURL.path,
            ],
            ["audit", "--format", "json", "--jwks", keys.path, "--now", "1700001000", mixedURL.path],
            [
                "verify", "--jwks", es256Directory.appendingPathComponent("jwks.json").path, "--issuer",
                "https://appleid.apple.com", "--audience", "com.example.app", "--now", "1767225600", es256URL.path,
            ],
            [
                "audit", "--format", "jsonl", "--jwks", es256Directory.appendingPathComponent("jwks.json").path,
                "--now", "1767225600", es256URL.path,
            ],
        ]
        for arguments in runs {
            let with = try CLIRunner.run(arguments)
            let without = try CLIRunner.run(arguments, environment: Self.off)
            #expect(with.status == 1 || arguments.contains("mixed.txt") == false || with.status == 0)
            #expect(with.status == without.status, "\(arguments[0]): status")
            // Compared as one Bool: a failing comparison of megabytes would have Swift Testing diff them.
            let sameStdout = with.stdout == without.stdout
            let sameStderr = with.stderr == without.stderr
            #expect(sameStdout, "\(arguments[0]) \(arguments.last ?? ""): output differs with the engine")
            #expect(sameStderr, "\(arguments[0]) \(arguments.last ?? ""): summary differs with the engine")
        }
    }

    @Test(
        "--version names the engine and whether RSA keys keep their constants, or why none: off, or a path that holds none (bench --json's signature_engine: BenchmarkTests)"
    )
    func engineNamed() throws {
        let version = try CLIRunner.run(["--version"])
        #expect(version.stdoutText.contains("signature engine: "))
        #expect(
            version.stdoutText.contains("crypto_mb") == MultiBufferEngine.isLoaded
                || version.stdoutText.contains("openssl"))
        // Whether RSA keys keep their constants for the lanes (crypto_mb 2.3 on AVX-512 IFMA).
        #expect(version.stdoutText.contains("; RSA keys' constants kept") == MultiBufferEngine.keepsKeyConstants)
        let off = try CLIRunner.run(["--version"], environment: Self.off)
        #expect(off.stdoutText.contains("signature engine: openssl; crypto_mb off (JWTVERIFY_CRYPTO_MB=off)"))
        let missing = try CLIRunner.run(
            ["--version"], environment: ["JWTVERIFY_CRYPTO_MB": "/nonexistent/libcrypto_mb.so.13"])
        #expect(
            missing.stdoutText.contains(
                "signature engine: openssl; crypto_mb not loaded: JWTVERIFY_CRYPTO_MB=/nonexistent/libcrypto_mb.so.13"))
        if !MultiBufferEngine.isLoaded {
            print("multi-buffer engine: not loaded here (\(MultiBufferEngine.description)); only its absence is tested")
        }
    }
}
