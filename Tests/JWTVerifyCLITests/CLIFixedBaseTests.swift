import Foundation
import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

/// ES256 through the batch faces, whose signatures the batch signature stage checks 128 at a time on the fixed-base
/// path: 1,000 valid tokens over two P-256 keys with 16 bad ones among them; each gets its own
/// verdict and exact reason, on 1 and 2 threads, bare and as JSON lines, in `verify` and `audit`.
@Suite("ES256 batches through the CLI")
struct CLIFixedBaseTests {
    static let ecB = TokenFactory.Signer(
        kid: "ec-b", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))
    static let stranger = TokenFactory.Signer(
        kid: "ec-a", algorithm: .es256, key: try! EVPPrivateKey.generateEC(curve: "P-256"))
    static let n = Base64URL.decode("_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE".utf8)!

    /// Replaces the signature segment of `token` with `signature`.
    static func resigned(_ token: String, _ signature: [UInt8]) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
    }

    static func signature(of token: String) -> [UInt8] {
        Base64URL.decode(token.split(separator: ".", omittingEmptySubsequences: false)[2].utf8)!
    }

    /// The 16 bad tokens and the reason each must get.
    static let negatives: [(String, String)] = {
        let base = TokenFactory.token(payload: TokenFactory.claims(extra: #""n":-1"#), signer: TokenFactory.ec)
        let other = TokenFactory.token(payload: TokenFactory.claims(extra: #""n":-2"#), signer: TokenFactory.ec)
        let sig = signature(of: base)
        let r = Array(sig[..<32])
        let s = Array(sig[32...])
        let zero = [UInt8](repeating: 0, count: 32)
        var flipped = sig
        flipped[63] ^= 1
        let parts = base.split(separator: ".")
        let der = EVPPublicKey.ecdsaDER(fromJWS: sig)!
        return [
            (resigned(base, flipped), "bad_signature"),
            (resigned(base, zero + s), "bad_signature"),
            (resigned(base, r + zero), "bad_signature"),
            (resigned(base, n + s), "bad_signature"),
            (resigned(base, r + n), "bad_signature"),
            (resigned(base, [UInt8](repeating: 0xff, count: 64)), "bad_signature"),
            (resigned(base, s + r), "bad_signature"),
            (resigned(base, Array(sig.dropLast())), "bad_signature"),
            (resigned(base, der), "bad_signature"),
            (resigned(base, signature(of: other)), "bad_signature"),
            (TokenFactory.token(payload: TokenFactory.claims(), signer: stranger), "bad_signature"),
            (
                parts[0] + "." + Base64URL.encode(Array(TokenFactory.claims(extra: #""n":-3"#).utf8)) + "." + parts[2],
                "bad_signature"
            ),
            (
                TokenFactory.token(
                    header: #"{"kid":"rsa-a","alg":"ES256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.ec),
                "key_alg_mismatch"
            ),
            (
                TokenFactory.token(
                    header: #"{"kid":"ec-c","alg":"ES256"}"#, payload: TokenFactory.claims(), signer: TokenFactory.ec),
                "unknown_kid"
            ),
            (TokenFactory.token(payload: TokenFactory.claims(exp: "1700000500"), signer: ecB), "expired"),
            (
                TokenFactory.token(
                    payload: #"{"iss":"https://appleid.apple.com","aud":"other","exp":1700003600,"iat":1700000000}"#,
                    signer: ecB),
                "audience_mismatch"
            ),
        ]
    }()

    /// 1,000 valid tokens alternating between two keys, with the negatives spread among them; each
    /// line's expected reason (`nil`: valid).
    static let corpus: [(token: String, reason: String?)] = {
        var lines: [(String, String?)] = (0..<1000).map { i in
            (
                TokenFactory.token(
                    payload: TokenFactory.claims(extra: #""n":\#(i)"#), signer: i % 2 == 0 ? TokenFactory.ec : ecB), nil
            )
        }
        for (k, negative) in negatives.enumerated() { lines.insert((negative.0, negative.1), at: 13 + k * 61) }
        return lines
    }()

    static func flags(_ directory: URL) throws -> [String] {
        let jwks = directory.appendingPathComponent("jwks.json")
        try "{\"keys\":[\(TokenFactory.rsa.jwkJSON),\(TokenFactory.ec.jwkJSON),\(ecB.jwkJSON)]}".write(
            to: jwks, atomically: true, encoding: .utf8)
        return [
            "--jwks", jwks.path, "--issuer", TokenFactory.issuer, "--audience", TokenFactory.audience, "--now",
            "1700001000",
        ]
    }

    static func expectVerdicts(_ records: [[String: Any]], _ label: String) {
        #expect(records.count == corpus.count, "\(label)")
        var wrong: [String] = []
        for (record, expected) in zip(records, corpus) {
            let reason = record["valid"] as? Bool == true ? nil : record["reason"] as? String
            if reason != expected.reason {
                wrong.append(
                    "line \(record["line"] ?? "?"): \(reason ?? "valid"), expected \(expected.reason ?? "valid")")
            }
        }
        #expect(wrong.isEmpty, "\(label): \(wrong.prefix(10))")
    }

    @Test("verify: 1,000 valid and the 16 bad ES256 tokens, each its own verdict, 1 and 2 threads, bare and JSON lines")
    func verify() throws {
        #expect(Self.negatives.count == 16)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwtverify-es256-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let flags = try Self.flags(directory)
        let bare = Data(Self.corpus.map { $0.token + "\n" }.joined().utf8)
        let jsonLines = Data(
            Self.corpus.enumerated().map { #"{"id":\#($0.offset),"token":"\#($0.element.token)"}"# + "\n" }.joined()
                .utf8)
        for threads in ["1", "2"] {
            for (label, input) in [("bare", bare), ("json", jsonLines)] {
                let run = try CLIRunner.run(["verify", "--threads", threads] + flags, input: input)
                #expect(run.status == 1)
                #expect(run.stderr.contains("\(Self.corpus.count) tokens, 1000 valid, 16 rejected"), "\(run.stderr)")
                Self.expectVerdicts(run.records, "verify \(label) threads \(threads)")
            }
        }
        let audit = try CLIRunner.run(["audit", "--format", "jsonl", "-q", "--threads", "2"] + flags, input: bare)
        #expect(audit.status == 1)
        Self.expectVerdicts(audit.records, "audit")
    }
}
