import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// `verify --profile access-token --dpop`: a JSON line's `"dpop"`, `"method"` and `"uri"` through
/// the built binary, each verdict a record with its reason and detail.
@Suite("jwtverify verify --dpop")
struct CLIDPoPTests {
    typealias F = DPoPProofFactory

    static func flags(_ workspace: TestWorkspace, _ mode: String?) -> [String] {
        [
            "verify", "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks",
            workspace.jwks.path, "--now", "1700001000",
        ] + (mode.map { ["--dpop", $0] } ?? [])
    }

    /// One JSON input line of `members`.
    static func line(_ members: [String: String]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    @Test(
        "proofs from the input lines: accepted, replayed, for another method, missing, and a line without its request")
    func lines() throws {
        let workspace = try TestWorkspace("dpop", keysFile: "keys.json")
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        let proof = F.proof(claims: F.claims(token: token))
        let post = F.proof(claims: F.claims(htm: "POST", jti: "proof-2", token: token))
        let input =
            [
                Self.line(["token": token, "dpop": proof, "method": "GET", "uri": F.uri + "?page=1"]),
                Self.line(["token": token, "dpop": proof, "method": "GET", "uri": F.uri]),
                Self.line(["token": token, "dpop": post, "method": "GET", "uri": F.uri]),
                Self.line(["token": token]),
                Self.line(["token": token, "dpop": post, "uri": F.uri]),
                Self.line(["token": F.accessToken(boundTo: nil)]),
            ].joined(separator: "\n") + "\n"
        let outcome = try CLIRunner.run(Self.flags(workspace, "allowed"), input: Data(input.utf8))
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let records = outcome.records
        #expect(records.count == 6)
        #expect(records[0]["valid"] as? Bool == true, "\(records[0])")
        #expect(records[1]["reason"] as? String == "dpop_replayed")
        #expect(records[1]["detail"] as? String == "the proof's jti was already accepted within its window")
        #expect(records[2]["reason"] as? String == "dpop_mismatch")
        #expect(records[2]["detail"] as? String == #"the proof's htm is "POST"; the request's method is "GET""#)
        #expect(records[3]["reason"] as? String == "dpop_missing")
        #expect(
            records[3]["detail"] as? String
                == "the token is bound to a key (cnf.jkt) and the request has no DPoP proof")
        #expect(records[4]["reason"] as? String == "malformed")
        #expect(
            records[4]["detail"] as? String
                == #""dpop" is given without "method": a proof is checked against the request's method and URI"#)
        #expect(records[5]["valid"] as? Bool == true)
        // Required: the unbound token without a proof is refused too.
        let required = try CLIRunner.run(
            Self.flags(workspace, "required"),
            input: Data((Self.line(["token": F.accessToken(boundTo: nil)]) + "\n").utf8))
        #expect(required.records.first?["reason"] as? String == "dpop_missing")
        // Off (the default): the bound token is refused, its proof not taken.
        let off = try CLIRunner.run(
            Self.flags(workspace, nil),
            input: Data((Self.line(["token": token, "dpop": proof, "method": "GET", "uri": F.uri]) + "\n").utf8))
        #expect(off.records.first?["reason"] as? String == "dpop_missing")
        #expect(
            off.records.first?["detail"] as? String
                == "the token is bound to a key (cnf.jkt) and this policy takes no DPoP proofs")
        // The flag takes the two modes only, and the access-token profile.
        let bad = try CLIRunner.run(Self.flags(workspace, "sometimes"), input: Data())
        #expect(bad.status == 64 && bad.stderr.contains("--dpop takes required or allowed"), "\(bad.stderr)")
        let alone = try CLIRunner.run(
            ["verify", "--issuer", F.issuer, "--audience", F.audience, "--dpop", "allowed"], input: Data())
        #expect(alone.status == 64 && alone.stderr.contains("--dpop needs --profile"), "\(alone.stderr)")
    }
}
