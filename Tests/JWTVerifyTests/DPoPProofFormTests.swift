import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// ``DPoPProofForm``: a proof's form and signature judged without a request (how `audit` judges
/// the proofs it finds), and its claims read for the record whatever the verdict.
@Suite("DPoP proof form")
struct DPoPProofFormTests {
    typealias F = DPoPProofFactory

    static func form(_ proof: String) -> DPoPProofForm {
        var proof = proof
        return proof.withUTF8 { DPoPProofForm(UnsafeRawBufferPointer($0), policy: F.verifier(.off).policy) }
    }

    @Test("RFC 9449 §4.1's example: valid long after its iat and without its request; its claims and thumbprint")
    func rfcExample() {
        let form = Self.form(DPoPProofTests.rfcProof)
        #expect(form.error == nil)
        #expect(form.algorithm == "ES256")
        #expect(form.jti == "-BwC3ESc6acc2lTc" && form.htm == "POST" && form.htu == "https://server.example.com/token")
        #expect(form.issuedAt == 1_562_262_616)
        let key = try! JWKSet(
            json: Array(
                #"{"keys":[{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","#.utf8)
                + Array(#""y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"}]}"#.utf8))
        #expect(form.thumbprint == key.keys[0].thumbprint)
    }

    @Test("each failure of form or signature, with the claims still read")
    func refusals() {
        let good = F.proof(claims: F.claims(jti: "p-1"))
        let other = F.proof(claims: F.claims(jti: "p-2"))
        let forged = good.split(separator: ".").prefix(2).joined(separator: ".") + "." + other.split(separator: ".")[2]
        let cases: [(String, String)] = [
            (forged, "the proof's signature does not verify with the jwk of its header"),
            (
                F.proof(header: F.header(F.ec, typ: "DPoP+JWT"), claims: F.claims()),
                #"the proof's typ is "DPoP+JWT", not "dpop+jwt""#
            ),
            (
                F.proof(claims: #"{"htm":"GET","htu":"https://a.example/","iat":1}"#),
                "the proof's jti is missing, empty or not a string"
            ),
            (
                F.proof(claims: #"{"jti":"x","htu":"https://a.example/","iat":1}"#),
                "the proof's htm is missing or not a string"
            ),
            (F.proof(claims: #"{"jti":"x","htm":"GET","iat":1}"#), "the proof's htu is missing or not a string"),
            (
                F.proof(claims: #"{"jti":"x","htm":"GET","htu":"https://a.example/"}"#),
                "the proof's iat is missing or not a number"
            ),
            ("a.b", "the proof is not a compact JWS of 3 segments"),
        ]
        for (proof, detail) in cases {
            let form = Self.form(proof)
            #expect(form.error?.reason == .dpopInvalid, "\(detail)")
            #expect(form.error?.detail == detail)
        }
        let forgedForm = Self.form(forged)
        #expect(forgedForm.jti == "p-1" && forgedForm.thumbprint == F.thumbprint(F.ec))
        #expect(Self.form(good).error == nil)
    }
}
