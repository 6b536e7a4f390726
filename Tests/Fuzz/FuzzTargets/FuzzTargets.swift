// libFuzzer targets, one binary; JWTFUZZ_TARGET picks one (make fuzz TARGET=... adds
// -sanitize=fuzzer,address and -D FUZZING):
//   json      the fast JSON scanner against jansson (any disagreement crashes)
//   token     arbitrary bytes as a token against a fixed key set and policy
//   jwks      arbitrary bytes as a key-set document (JWKS, single JWK, x509 certificate map)
//   input     arbitrary bytes as CLI input: JSON-lines requests, report records, audit extraction
//   mutation  mutations of valid tokens: a token that differs from a signed one must never verify
// A plain build replays files given as arguments through the chosen target.
import JWTVerify
import JWTVerifyTooling
import JWTVerifyTestSupport

#if canImport(Glibc)
import Glibc
#endif

enum FuzzTargets {
    static let target = getenv("JWTFUZZ_TARGET").map { String(cString: $0) } ?? "json"

    static let verifier = Verifier(
        keys: TokenFactory.keys, issuer: TokenFactory.issuer, audiences: [TokenFactory.audience],
        algorithms: Set(SignatureAlgorithm.all), clock: { TokenFactory.now })

    /// The same keys under each provider's rules, for the token target.
    static let profileVerifiers: [Verifier] = [
        VerificationPolicy.appleIdentityToken(audiences: [TokenFactory.audience], acceptMissingNonceWhenUnsupported: true),
        .appleNotification(audiences: [TokenFactory.audience]), .firebase(project: TokenFactory.audience),
        .google(audiences: [TokenFactory.audience], hostedDomain: "example.com"), .oidc(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience]),
    ].map { Verifier(keys: TokenFactory.keys, policy: $0.clock { TokenFactory.now }) }

    /// Tokens for the cache target: valid ones by each key (with and without a nonce, with nbf),
    /// one near expiry, and one for another audience.
    static let cacheTokens: [[UInt8]] = {
        let nonce = Nonce.expectedClaim(forRawNonce: "r")
        let payloads = [
            TokenFactory.claims(extra: #""nonce":"\#(nonce)""#), TokenFactory.claims(),
            TokenFactory.claims(exp: "1700001200", iat: "1700000900", extra: #""nbf":1700000950"#),
            #"{"iss":"https://appleid.apple.com","aud":"com.example.other","exp":1700003600,"iat":1700000000,"sub":"s"}"#,
        ]
        return payloads.flatMap { payload in
            [TokenFactory.rsa, TokenFactory.ec].map { Array(TokenFactory.token(payload: payload, signer: $0).utf8) }
        }
    }()

    /// Valid tokens by each key, for the mutation target.
    static let validTokens: [[UInt8]] = [TokenFactory.rsa, TokenFactory.ec].map { signer in
        Array(TokenFactory.token(payload: TokenFactory.claims(extra: #""nonce":"n""#), signer: signer).utf8)
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        switch target {
        case "token":
            _ = verifier.evaluate(bytes, nonce: "raw", at: .clock)
            _ = verifier.outcome(bytes, nonce: nil, at: .issuedAt)
            for profiled in profileVerifiers { _ = profiled.outcome(bytes, nonce: "raw", at: .clock) }
            _ = UnverifiedToken(peeking: bytes)
        case "jwks":
            if let keys = try? JWKSet(json: Array(bytes)) {
                for key in keys.keys { _ = SignatureAlgorithm.all.filter(key.mayVerify) }
            }
        case "input":
            // Through the line reader (small chunks and a small line limit, so lines cross chunk
            // boundaries and oversized lines are discarded), then each line as verify and audit see it.
            var offset = 0
            let reader = LineReader(lineLimit: 300, chunkSize: 17) { buffer in
                let n = min(buffer.count, bytes.count - offset)
                if n > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])) }
                offset += n
                return n
            }
            var text = JSONText()
            let lines = RequestLineEvaluator(verifier: verifier, defaultNonce: nil, time: .clock)
            while let batch = try? reader.nextBatch(maxLines: 7, maxBytes: 1000) {
                for case .text(let range) in batch.lines {
                    batch.storage.withUnsafeBytes { storage in
                        let line = UnsafeRawBufferPointer(rebasing: storage[range])
                        lines.evaluate(line, number: 1, file: nil, into: &text)
                        for found in TokenExtractor.scan(line).found {
                            found.token.withUnsafeBytes { _ = verifier.outcome($0, nonce: nil, at: .clock) }
                        }
                    }
                }
            }
        case "mutation":
            guard bytes.count >= 3 else { return }
            var token = validTokens[Int(bytes[0]) % validTokens.count]
            // Each following pair of bytes: a position (scaled to the token) and a replacement byte.
            var index = 1
            while index + 1 < bytes.count {
                let position = Int(bytes[index]) * token.count / 256
                switch bytes[index + 1] % 3 {
                case 0: token[position] = bytes[index + 1]
                case 1: token.insert(bytes[index + 1], at: position)
                default: if token.count > 1 { token.remove(at: position) }
                }
                index += 2
            }
            let original = validTokens.contains(token)
            let accepted = token.withUnsafeBytes { if case .success = verifier.evaluate($0, nonce: nil, at: .clock) { true } else { false } }
            if accepted && !original { fatalError("a modified token verified: \(String(decoding: token, as: UTF8.self))") }
        case "cache":
            // A stream of genuine, repeated and mutated tokens, evaluated at moving times with
            // varying nonces, through a cached and an uncached verifier side by side. Each pair of
            // bytes is one step: which token (and whether to mutate it), then time and nonce.
            let cached = Verifier(keys: TokenFactory.keys, policy: verifier.policy, cache: .init(capacity: 3))
            var index = 0
            while index + 1 < bytes.count {
                let choice = Int(bytes[index])
                let knobs = Int(bytes[index + 1])
                index += 2
                var token = cacheTokens[choice % cacheTokens.count]
                if choice >= 128, index < bytes.count {
                    let position = Int(bytes[index]) * token.count / 256
                    token[position] = token[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                    index += 1
                }
                let time = TokenFactory.now + Double((knobs & 0x1F) - 16) * 250
                let nonce: String? = [nil, "r", "x", nil][knobs >> 6]
                let plain = token.withUnsafeBytes { verifier.evaluate($0, nonce: nonce, at: .fixed(time)) }
                let fromCache = token.withUnsafeBytes { cached.evaluate($0, nonce: nonce, at: .fixed(time)) }
                switch (plain, fromCache) {
                case (.success(let a), .success(let b)) where a.claims == b.claims && a.payload == b.payload: break
                case (.failure(let a), .failure(let b)) where a.reason == b.reason: break
                default: fatalError("cached and uncached verdicts differ: \(plain) vs \(fromCache)")
                }
            }
        default:
            if let problem = JSONDifferential.disagreement(bytes) { fatalError("scanner and jansson disagree: \(problem)") }
        }
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTargets.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links executables through `<module>_main`; start libFuzzer's driver from it.
@_cdecl("jwtfuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}
#else
@main
enum FuzzReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let n = fread(&chunk, 1, chunk.count, file), n > 0 { bytes += chunk[..<n] }
            fclose(file)
            bytes.withUnsafeBytes(FuzzTargets.run)
        }
    }
}
#endif
