import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

@testable import JWTVerifyTooling

/// Request lines as `verify` and `serve`'s `/verify` read them: the token and nonce borrowed from
/// the line when the scanner reads it, copied when jansson had to unescape them, and the same
/// request either way.
@Suite("request lines")
struct TokenRequestTests {
    /// What one line gave: the token and nonce bytes, the id's JSON, or the problem.
    static func read(_ line: String) -> (token: [UInt8], nonce: [UInt8]?, id: String?)? {
        Array(line.utf8).withUnsafeBytes { line in
            TokenRequest.withLine(line) { content -> (token: [UInt8], nonce: [UInt8]?, id: String?)? in
                guard case .request(let request) = content else { return nil }
                return (Array(request.token), request.nonce.map { Array($0) }, request.idJSON)
            }
        }
    }

    static func problem(_ line: String) -> String? {
        Array(line.utf8).withUnsafeBytes { line in
            TokenRequest.withLine(line) { content -> String? in
                guard case .problem(let problem) = content else { return nil }
                return problem.description
            }
        }
    }

    @Test("escaped members read as their plain spelling: token, nonce and Apple's envelope member")
    func escapedMembers() throws {
        let token = "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"
        let plain = try #require(Self.read(#"{"token":"\#(token)","nonce":"raw-1","id":7}"#))
        #expect(plain.token == Array(token.utf8))
        #expect(plain.nonce == Array("raw-1".utf8))
        #expect(plain.id == "7")
        // \u0065 is "e", \/ is "/": jansson reads these lines and unescapes into copies.
        let escapedToken = token.replacingOccurrences(of: "e", with: #"\u0065"#)
        let escaped = try #require(
            Self.read(#"{"id":{"b":[1,2],"a":"x"},"nonce":"raw\/1","token":"\#(escapedToken)"}"#))
        #expect(escaped.token == Array(token.utf8))
        #expect(escaped.nonce == Array("raw/1".utf8))
        #expect(escaped.id == #"{"a":"x","b":[1,2]}"#)
        let envelope = try #require(Self.read(#"{"signedPayload":"\#(escapedToken)"}"#))
        #expect(envelope.token == Array(token.utf8))
        #expect(envelope.nonce == nil && envelope.id == nil)
    }

    @Test("members of the wrong type are the line's problem, by name")
    func wrongTypes() {
        #expect(Self.problem(#"{"token":7}"#)?.hasPrefix("input object has no string \"token\"") == true)
        #expect(Self.problem(#"{"token":"a.b.c","nonce":3}"#) == "\"nonce\" is not a string")
        #expect(
            Self.problem(#"{"token":"a.b.c","nonce":"\u0033","dpop":1,"method":"GET","uri":"u"}"#)
                == "\"dpop\" is not a string")
        #expect(Self.read(#"{"token":"a.b.c","nonce":null}"#)?.nonce == nil)
    }
}
