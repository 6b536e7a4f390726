import Foundation
import JWTVerifyTestSupport
import Testing

/// Every remote read is bounded in decoded octets, through the built binary against hostile
/// origins on loopback: a gzip bomb (1 MiB that decodes to 1 GiB), a plain 50 MB answer and a head
/// without end each end in the cap's error, and the process's peak resident set (the kernel's
/// high-water mark) stays within a few MiB of an ordinary fetch's.
@Suite("remote reads are bounded in decoded bytes", .serialized)
struct RemoteReadBoundTests {
    static let jwks =
        (try? String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json"), encoding: .utf8))
        ?? ""
    /// What a hostile answer may add to the peak of an ordinary fetch: the cap (1 MiB for key
    /// sets) and libcurl's buffers, with room for the allocator. Before the bound it was 1.2 GB.
    static let allowanceKiB = 8 * 1024

    @Test(
        "jwks fetch: a gzip bomb, a 50 MB answer and an endless head are refused at their caps, in bounded memory",
        arguments: [
            ("bomb", "body is over the 1048576-octet limit"), ("plain50", "body is over the 1048576-octet limit"),
            ("endless_head", "response head is over the 65536-octet limit"),
        ])
    func keySetFetch(_ mode: String, _ error: String) throws {
        let origin = try OriginServer()
        try origin.set(["mode": "ok", "document": Self.jwks])
        let ordinary = try CLIRunner.runMeasured(["jwks", "fetch", origin.keysURL])
        #expect(ordinary.outcome.status == 0, "\(ordinary.outcome.stderr)")
        try origin.set(["mode": mode])
        let hostile = try CLIRunner.runMeasured(["jwks", "fetch", origin.keysURL])
        #expect(hostile.outcome.status == 69)
        #expect(hostile.outcome.stderr.contains(error), "\(hostile.outcome.stderr)")
        #expect(
            hostile.peakKiB > 0 && hostile.peakKiB <= ordinary.peakKiB + Self.allowanceKiB,
            "peak \(hostile.peakKiB) KiB, ordinary \(ordinary.peakKiB) KiB")
    }

    @Test("a gzip-encoded key set within the cap is decoded and used")
    func gzipWithinCap() throws {
        let origin = try OriginServer()
        try origin.set(["mode": "gzip", "document": Self.jwks])
        let fetched = try CLIRunner.run(["jwks", "fetch", origin.keysURL])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdoutText == Self.jwks)
    }

    @Test("an origin that drips one octet a second is abandoned at the total time-out")
    func stall() throws {
        let origin = try OriginServer()
        try origin.set(["mode": "drip"])
        let outcome = try CLIRunner.run(["jwks", "fetch", origin.keysURL])
        #expect(outcome.status == 69)
        #expect(outcome.stderr.contains("timed out") || outcome.stderr.contains("stalled"), "\(outcome.stderr)")
    }

    @Test("serve: a key origin answering with a gzip bomb leaves serve's peak memory where an ordinary start leaves it")
    func serveBomb() throws {
        let origin = try OriginServer()
        try origin.set(["mode": "ok", "document": Self.jwks])
        let flags = ["--issuer", "https://appleid.apple.com", "--audience", "com.example.app"]
        let ordinary = try ServeProcess(["--jwks", origin.keysURL] + flags)
        #expect(try RawHTTP.request(ordinary.port, path: "/ready").status == 200)
        let ordinaryPeak = ordinary.peakResidentKiB
        try origin.set(["mode": "bomb"])
        let before = try origin.stats().requests
        let bombed = try ServeProcess(["--jwks", origin.keysURL] + flags)
        // The start-up fetch meets the bomb (serve then retries in the background).
        #expect(bombed.waitForStderr("1048576-octet limit", seconds: 20), "\(bombed.stderr)")
        #expect(try origin.stats().requests > before)
        #expect(try RawHTTP.request(bombed.port, path: "/ready").status == 503)
        let peak = bombed.peakResidentKiB
        #expect(
            peak > 0 && peak <= ordinaryPeak + Self.allowanceKiB, "peak \(peak) KiB, ordinary start \(ordinaryPeak) KiB"
        )
    }

    @Test("apple exchange: Apple's answer as a gzip bomb is response_too_large at the 256 KiB cap, in bounded memory")
    func appleBomb() throws {
        let standIn = try AppleStandIn()
        let code = try standIn.authorize(subject: "s", rawNonce: "raw")
        try standIn.mode("html")
        let ordinary = try CLIRunner.runMeasured(
            ["apple", "exchange"] + CLIAppleTests.credentials(standIn) + ["--code", code, "--nonce", "raw"])
        #expect(ordinary.outcome.stdoutText.contains("response_invalid"), "\(ordinary.outcome.stdoutText)")
        try standIn.mode("bomb")
        let bombed = try CLIRunner.runMeasured(
            ["apple", "exchange"] + CLIAppleTests.credentials(standIn) + ["--code", code, "--nonce", "raw"])
        #expect(bombed.outcome.status == 65)
        #expect(bombed.outcome.stdoutText.contains(#""error":"response_too_large""#), "\(bombed.outcome.stdoutText)")
        #expect(
            bombed.peakKiB > 0 && bombed.peakKiB <= ordinary.peakKiB + Self.allowanceKiB,
            "peak \(bombed.peakKiB) KiB, ordinary \(ordinary.peakKiB) KiB")
    }
}
