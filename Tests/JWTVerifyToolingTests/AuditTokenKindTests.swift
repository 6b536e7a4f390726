import JWTVerifyTestSupport
import Testing

@testable import JWTVerify
@testable import JWTVerifyTooling

/// What `audit` takes a found token for, by its header: the `+jwt` search that decides whether a
/// header is parsed at all, and the `typ` rules after it.
@Suite("audit: the kind of a token by its header")
struct AuditTokenKindTests {
    static func kind(header: String) -> AuditTokenKind {
        let token = Base64URL.encode(Array(header.utf8)) + ".e30.c2ln"
        return Array(token.utf8).withUnsafeBytes { AuditTokenKind.of($0) }
    }

    @Test("typ values: access tokens as a media type in any case, proofs byte for byte with a jwk")
    func typValues() {
        let jwk = #","jwk":{"kty":"EC"}"#
        let cases: [(String, AuditTokenKind)] = [
            (#"{"alg":"RS256","typ":"at+jwt"}"#, .accessToken),
            (#"{"alg":"RS256","typ":"AT+JWT"}"#, .accessToken),
            (#"{"alg":"RS256","typ":"application/At+jWt"}"#, .accessToken),
            (#"{"typ":"at+jwt"}"#, .accessToken),
            (#"{"alg":"RS256","typ":"JWT"}"#, .token),
            (#"{"alg":"RS256","typ":"at+jwx"}"#, .token),
            (#"{"alg":"RS256","typ":"at+jw"}"#, .token),
            (#"{"alg":"RS256","typ":"at+"}"#, .token),
            (#"{"alg":"RS256","typ":"+"}"#, .token),
            (#"{"alg":"ES256","typ":"dpop+jwt""# + jwk + "}", .dpopProof),
            (#"{"alg":"ES256","typ":"DPoP+JWT""# + jwk + "}", .token),
            (#"{"alg":"ES256","typ":"dpop+jwt"}"#, .token),
            // A `+jwt` elsewhere than `typ` only makes the header parsed.
            (#"{"alg":"RS256","kid":"a+JWT","typ":"x"}"#, .token),
            (#"{"alg":"RS256","kid":"++++","typ":"at+jwt"}"#, .accessToken),
            (#"{"kid":"+jw+jwt+j","typ":"at+jwt"}"#, .accessToken),
        ]
        for (header, expected) in cases {
            #expect(Self.kind(header: header) == expected, "\(header)")
        }
    }

    @Test("the +jwt search: at every position, in any case, and not past the end")
    func search() {
        func contains(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { AuditTokenKind.contains($0, "+jwt") }
        }
        for prefix in ["", "a", "+", "++", "+jw", "0123456789abcdef+j"] {
            for suffix in ["", "x", "+", "+jw"] {
                for spelling in ["+jwt", "+JWT", "+jWt", "+JwT"] {
                    #expect(contains(prefix + spelling + suffix), "\(prefix)\(spelling)\(suffix)")
                }
                for miss in ["+jw", "+jwx", "+ jwt", "-jwt", "+jwu"] {
                    #expect(!contains(prefix + miss + suffix), "\(prefix)\(miss)\(suffix)")
                }
            }
        }
        #expect(!contains(""))
        #expect(!contains("+"))
        // Only the first four bytes of a longer buffer are the text: the search stops at its end.
        let bytes = Array("ab+j".utf8) + Array("wt".utf8)
        #expect(!bytes.withUnsafeBytes { AuditTokenKind.contains(UnsafeRawBufferPointer(rebasing: $0[..<4]), "+jwt") })
        #expect(bytes.withUnsafeBytes { AuditTokenKind.contains($0, "+jwt") })
    }
}
