import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

@Suite("nonce")
struct NonceTests {
    @Test("the expected claim is the lowercase hex SHA-256 of the raw nonce")
    func expectedClaim() {
        #expect(
            Nonce.expectedClaim(forRawNonce: "raw-nonce-123")
                == "8197cb768cfbf77048a764c35b565b71128226c4813a4f9c0d663e9bd76a88cb")
        #expect(
            Nonce.expectedClaim(forRawNonce: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    private func reason(claim: String?, raw: String?) -> String? {
        let extra = claim.map { #""nonce":"\#($0)""# } ?? ""
        return TokenFactory.reason(TokenFactory.token(payload: TokenFactory.claims(extra: extra)), nonce: raw)
    }

    @Test("nonce checks")
    func checks() {
        let good = Nonce.expectedClaim(forRawNonce: "raw-nonce-123")
        #expect(reason(claim: good, raw: "raw-nonce-123") == nil)
        #expect(reason(claim: good, raw: nil) == nil)
        #expect(reason(claim: nil, raw: nil) == nil)
        #expect(reason(claim: nil, raw: "raw-nonce-123") == "nonce_missing")
        #expect(reason(claim: good.uppercased(), raw: "raw-nonce-123") == "nonce_mismatch")
        #expect(reason(claim: "raw-nonce-123", raw: "raw-nonce-123") == "nonce_mismatch")
        #expect(reason(claim: String(good.dropLast()), raw: "raw-nonce-123") == "nonce_mismatch")
        #expect(reason(claim: "", raw: "raw-nonce-123") == "nonce_mismatch")
        #expect(reason(claim: good, raw: "raw-nonce-124") == "nonce_mismatch")
    }

    @Test("constant-time comparison")
    func constantTime() {
        func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
            a.withUnsafeBytes { x in b.withUnsafeBytes { y in ConstantTime.equals(x, y) } }
        }
        #expect(equal([1, 2, 3], [1, 2, 3]))
        #expect(!equal([1, 2, 3], [1, 2, 4]))
        #expect(!equal([1, 2, 3], [1, 2]))
        #expect(equal([], []))
    }
}
