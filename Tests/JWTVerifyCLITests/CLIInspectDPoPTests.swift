import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `inspect --profile access-token --dpop`: a JSON request (verify's input line) with its proof,
/// judged by the pipeline as verify judges it, and the proof shown decoded.
@Suite("jwtverify inspect --dpop")
struct CLIInspectDPoPTests {
    typealias F = DPoPProofFactory

    static func flags(_ workspace: TestWorkspace, _ mode: String?) -> [String] {
        [
            "inspect", "-", "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
            workspace.jwks.path, "--now", "1700001000",
        ] + (mode.map { ["--dpop", $0] } ?? [])
    }

    static func request(_ members: [String: String]) -> Data {
        try! JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
    }

    @Test("a valid proof: verified, the proof decoded and its request named; the same proof again is its own run")
    func valid() throws {
        let workspace = try TestWorkspace("inspect-dpop", keysFile: "keys.json")
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        let proof = F.proof(claims: F.claims(token: token))
        let input = Self.request(["token": token, "dpop": proof, "method": "GET", "uri": F.uri + "?page=2"])
        for _ in 0..<2 {
            let run = try CLIRunner.run(Self.flags(workspace, "allowed"), input: input)
            #expect(run.status == 0, "\(run.stdoutText) \(run.stderr)")
            #expect(run.stdoutText.hasPrefix("VERIFIED: "), "\(run.stdoutText)")
            #expect(
                run.stdoutText.contains(
                    "DPoP proof checked: signed by its jwk, for this request, and the token is bound to it."))
            #expect(run.stdoutText.contains("DPoP proof header:\n{\n  \"alg\": \"ES256\""), "\(run.stdoutText)")
            #expect(run.stdoutText.contains("\"typ\": \"dpop+jwt\""))
            #expect(
                run.stdoutText.contains("DPoP proof claims:\n{\n  \"ath\": \"\(F.ath(token))\""), "\(run.stdoutText)")
            #expect(run.stdoutText.contains("DPoP request: GET \(F.uri)?page=2\n"))
        }
    }

    @Test("refusals in verify's words: another method, no proof for a bound token, a proof without its method")
    func refusals() throws {
        let workspace = try TestWorkspace("inspect-dpop-refusals", keysFile: "keys.json")
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        let post = F.proof(claims: F.claims(htm: "POST", jti: "proof-2", token: token))
        let other = try CLIRunner.run(
            Self.flags(workspace, "required"),
            input: Self.request(["token": token, "dpop": post, "method": "GET", "uri": F.uri]))
        #expect(other.status == 1)
        #expect(
            other.stdoutText.hasPrefix(
                #"REJECTED: dpop_mismatch: the proof's htm is "POST"; the request's method is "GET""# + "\n"),
            "\(other.stdoutText)")
        #expect(other.stdoutText.contains("DPoP request: GET \(F.uri)\n"))
        let missing = try CLIRunner.run(Self.flags(workspace, "allowed"), input: Data(token.utf8))
        #expect(missing.status == 1)
        #expect(
            missing.stdoutText.hasPrefix(
                "REJECTED: dpop_missing: the token is bound to a key (cnf.jkt) and the request has no DPoP proof\n"),
            "\(missing.stdoutText)")
        let incomplete = try CLIRunner.run(
            Self.flags(workspace, "allowed"), input: Self.request(["token": token, "dpop": post, "uri": F.uri]))
        #expect(incomplete.status == 1)
        #expect(
            incomplete.stdoutText
                == #"REJECTED: malformed: "dpop" is given without "method": a proof is checked against the request's method and URI"#
                + "\n")
        // Without --dpop the proof is not taken, and the bound token is refused as verify refuses it.
        let off = try CLIRunner.run(
            Self.flags(workspace, nil),
            input: Self.request(["token": token, "dpop": post, "method": "POST", "uri": F.uri])
        )
        #expect(off.status == 1)
        #expect(
            off.stdoutText.hasPrefix(
                "REJECTED: dpop_missing: the token is bound to a key (cnf.jkt) and this policy takes no DPoP proofs\n"),
            "\(off.stdoutText)")
    }
}
