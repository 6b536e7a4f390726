import Foundation
import JWTVerify
import Testing

@testable import JWTVerifyRemote

/// `HTTPOCSPTransport`'s rules, without a socket: which URLs it speaks to, and which replies are
/// an OCSP answer.
@Suite("OCSP transport: URLs and replies")
struct OCSPTransportRulesTests {
    static func reply(_ status: Int, _ type: String?, _ body: [UInt8] = [0x30, 0x03, 0x0A, 0x01, 0x00]) -> Result<
        HTTPReply, HTTPTransferFailure
    > {
        .success(HTTPReply(status: status, headers: type.map { ["content-type": $0] } ?? [:], body: body))
    }

    @Test("plain http to any host (OCSP's) only when asked; other schemes never, and refused before any exchange")
    func urls() throws {
        let apple = try #require(URL(string: "http://ocsp.apple.com/ocsp03-wwdrg601"))
        #expect(HTTPTransfer.isAllowed(apple, plainHTTPAnywhere: true))
        #expect(!HTTPTransfer.isAllowed(apple))
        let ldap = HTTPOCSPTransport().exchange([0x30, 0x00], with: "ldap://ocsp.example/", timeout: 5)
        #expect(
            ldap == .failure(OCSPTransportFailure(HTTPTransferFailure.refusedURL("ldap://ocsp.example/").description)))
    }

    @Test("only a 200 application/ocsp-response is an answer; its body is handed back as it came")
    func replies() {
        #expect(
            HTTPOCSPTransport.body(of: Self.reply(200, "application/ocsp-response"))
                == .success([0x30, 0x03, 0x0A, 0x01, 0x00]))
        #expect(
            HTTPOCSPTransport.body(of: Self.reply(200, "Application/OCSP-Response; charset=binary")).map(\.count)
                == .success(5))
        #expect(
            HTTPOCSPTransport.body(of: Self.reply(200, "text/html"))
                == .failure(OCSPTransportFailure("the answer is text/html, not application/ocsp-response")))
        #expect(
            HTTPOCSPTransport.body(of: Self.reply(200, nil))
                == .failure(OCSPTransportFailure("the answer is untyped, not application/ocsp-response")))
        #expect(
            HTTPOCSPTransport.body(of: Self.reply(503, "application/ocsp-response"))
                == .failure(OCSPTransportFailure("HTTP status 503")))
        #expect(
            HTTPOCSPTransport.body(of: .failure(.tooLarge(1 << 20)))
                == .failure(OCSPTransportFailure("body is over the 1048576-octet limit")))
    }
}
