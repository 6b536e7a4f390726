import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// The same DPoP requests, in the same order, through every face that takes proofs: the library
/// (with and without its token cache), `verify`'s input lines, `serve`'s `/verify` body,
/// `serve`'s `/auth` with `Authorization: DPoP` and `inspect`'s JSON request. Each face starts with
/// an empty replay window, so the repeats are refused the same way everywhere (inspect runs once
/// per request, so there a repeat is a first sighting).
@Suite("faces agree on DPoP")
struct DPoPFaceAgreementTests {
    typealias F = DPoPProofFactory

    struct Case {
        let id: String
        let token: String
        let proof: String?
        let method: String
        let path: String
    }

    static var uri: String { "https://api.example.com" }

    static let cases: [Case] = {
        let bound = F.accessToken(boundTo: F.thumbprint(F.ec))
        let other = F.accessToken(boundTo: F.thumbprint(F.rsa), jti: "at-2")
        let unbound = F.accessToken(boundTo: nil, jti: "at-3")
        func proof(_ jti: String, htm: String = "GET", htu: String = F.uri, token: String? = bound) -> String {
            F.proof(claims: F.claims(htm: htm, htu: htu, jti: jti, token: token))
        }
        var tampered = proof("p-9").split(separator: ".").map(String.init)
        tampered[1] = Base64URL.encode(Array(F.claims(jti: "p-9b", token: bound).utf8))
        return [
            Case(id: "valid", token: bound, proof: proof("p-1"), method: "GET", path: "/orders"),
            Case(id: "replayed", token: bound, proof: proof("p-1"), method: "GET", path: "/orders"),
            Case(id: "query-ignored", token: bound, proof: proof("p-2"), method: "GET", path: "/orders?page=3"),
            Case(id: "other-uri", token: bound, proof: proof("p-3"), method: "GET", path: "/admin"),
            Case(id: "other-method", token: bound, proof: proof("p-4"), method: "POST", path: "/orders"),
            // Bound to the RSA proof key, proved with the EC one: cnf.jkt is not the proof key's.
            Case(id: "other-key", token: other, proof: proof("p-5", token: other), method: "GET", path: "/orders"),
            Case(id: "other-token", token: bound, proof: proof("p-6", token: unbound), method: "GET", path: "/orders"),
            Case(id: "no-ath", token: bound, proof: proof("p-7", token: nil), method: "GET", path: "/orders"),
            Case(id: "tampered", token: bound, proof: tampered.joined(separator: "."), method: "GET", path: "/orders"),
            Case(id: "bound-no-proof", token: bound, proof: nil, method: "GET", path: "/orders"),
            Case(id: "unbound-no-proof", token: unbound, proof: nil, method: "GET", path: "/orders"),
            Case(
                id: "unbound-with-proof", token: unbound, proof: proof("p-8", token: unbound), method: "GET",
                path: "/orders"),
            Case(id: "valid-again-new-proof", token: bound, proof: proof("p-10"), method: "GET", path: "/orders"),
        ]
    }()

    static func library(cache: Bool) -> [String] {
        let verifier = F.verifier(.allowed, cache: cache ? .init(capacity: 16) : nil)
        return cases.map { item in
            do throws(VerificationError) {
                _ = try verifier.verify(
                    item.token,
                    dpop: item.proof.map { DPoPRequest(proof: $0, method: item.method, uri: uri + item.path) })
                return ""
            } catch { return error.reason.rawValue }
        }
    }

    static var lines: String {
        cases.map { item -> String in
            var members = ["token": item.token]
            if let proof = item.proof {
                members["dpop"] = proof
                members["method"] = item.method
                members["uri"] = uri + item.path
            }
            return String(
                decoding: try! JSONSerialization.data(withJSONObject: members, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }

    static func verdicts(_ records: [[String: Any]]) -> [String] {
        records.map { ($0["valid"] as? Bool) == true ? "" : ($0["reason"] as? String ?? "?") }
    }

    @Test("library, cached library, verify, serve /verify, serve /auth and inspect give every case the same verdict")
    func agree() throws {
        let workspace = try TestWorkspace("dpop-faces", keysFile: "keys.json")
        let policy = [
            "--profile", "access-token", "--issuer", F.issuer, "--audience", F.audience, "--jwks", workspace.jwks.path,
            "--now", "1700001000", "--dpop", "allowed",
        ]
        let expected = [
            "", "dpop_replayed", "", "dpop_mismatch", "dpop_mismatch", "dpop_mismatch", "dpop_mismatch", "dpop_invalid",
            "dpop_invalid", "dpop_missing", "", "dpop_mismatch", "",
        ]
        #expect(Self.library(cache: false) == expected)
        #expect(Self.library(cache: true) == expected)
        let verify = try CLIRunner.run(["verify"] + policy, input: Data(Self.lines.utf8))
        #expect(Self.verdicts(verify.records) == expected, "\(verify.stderr)")
        let serveVerify = try ServeProcess(policy + ["--threads", "1"])
        let body = try RawHTTP.request(
            serveVerify.port, method: "POST", path: "/verify", body: Array(Self.lines.utf8))
        let records = String(decoding: body.body, as: UTF8.self).split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(Self.verdicts(records) == expected)
        let serveAuth = try ServeProcess(policy + ["--threads", "1"])
        let auth = try Self.cases.map { item -> String in
            let credential: [(String, String)] =
                item.proof.map { [("Authorization", "DPoP \(item.token)"), ("DPoP", $0)] }
                ?? [("Authorization", "Bearer \(item.token)")]
            let forwarded = [
                ("X-Forwarded-Method", item.method), ("X-Forwarded-Proto", "https"),
                ("X-Forwarded-Host", "api.example.com"), ("X-Forwarded-Uri", item.path),
            ]
            let answer = try RawHTTP.request(serveAuth.port, path: "/auth", headers: credential + forwarded)
            return answer.status == 200 ? "" : answer.header("X-JWT-Reason") ?? "?"
        }
        #expect(auth == expected)
        // inspect: one run per case, each with a window of its own, so there the repeat is accepted.
        var once = expected
        once[1] = ""
        let inspected = try Self.lines.split(separator: "\n").map { line -> String in
            let run = try CLIRunner.run(["inspect", "-"] + policy, input: Data(line.utf8))
            if run.stdoutText.hasPrefix("VERIFIED: ") { return "" }
            guard run.stdoutText.hasPrefix("REJECTED: ") else { return "(inspect exited \(run.status))" }
            return String(run.stdoutText.dropFirst(10).prefix { $0 != ":" })
        }
        #expect(inspected == once)
    }
}
