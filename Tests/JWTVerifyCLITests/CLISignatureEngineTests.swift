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
        "verify and audit: byte-identical records and summaries with the engine and without, on RS256 corpora of two key sizes with forgeries"
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
        ]
        for arguments in runs {
            let with = try CLIRunner.run(arguments)
            let without = try CLIRunner.run(arguments, environment: Self.off)
            #expect(with.status == 1 || arguments.contains("mixed.txt") == false || with.status == 0)
            #expect(with.status == without.status, "\(arguments[0]): status")
            #expect(
                with.stdout == without.stdout, "\(arguments[0]) \(arguments.last ?? ""): output differs with the engine"
            )
            #expect(with.stderr == without.stderr)
        }
    }

    @Test(
        "--version names the engine, or why none: off, or a path that holds none (bench --json's signature_engine: BenchmarkTests)"
    )
    func engineNamed() throws {
        let version = try CLIRunner.run(["--version"])
        #expect(version.stdoutText.contains("signature engine: "))
        #expect(
            version.stdoutText.contains("crypto_mb") == MultiBufferEngine.isLoaded
                || version.stdoutText.contains("openssl"))
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
