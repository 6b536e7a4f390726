import JWTVerify
import JWTVerifyRemote
import Testing

/// Raw answers through the transport's head and body handling (``TransportReplay``), as libcurl
/// hands them over: the caps, a 1xx before the answer, and what an error may repeat.
@Suite("transport: raw answers")
struct TransportReplayTests {
    static func raw(_ head: String, _ body: String = "") -> [UInt8] { Array((head + "\r\n\r\n" + body).utf8) }

    @Test("a body over the cap is refused whatever the chunk size; one at the cap is kept")
    func bodyCap() {
        let document = "{\"keys\":[" + String(repeating: " ", count: 16 * 1024 - 11) + "]}"
        for chunk in [1, 7, 4096, 1 << 20] {
            let (atCap, _) = TransportReplay.keySetAnswer(Self.raw("HTTP/1.1 200 OK", document), chunk: chunk)
            guard case .document(let body, _, _, _) = atCap else {
                Issue.record("chunk \(chunk): \(atCap)")
                continue
            }
            #expect(body.count == 16 * 1024)
            let (over, keys) = TransportReplay.keySetAnswer(Self.raw("HTTP/1.1 200 OK", document + " "), chunk: chunk)
            guard case .failed(let why) = over else {
                Issue.record("chunk \(chunk): \(over)")
                continue
            }
            #expect(why == "body is over the 16384-octet limit" && keys == nil)
        }
    }

    @Test("a head over its cap is refused; a 1xx head is replaced by the answer's own")
    func headCap() {
        let long = (0..<40).map { "X-Filler-\($0): " + String(repeating: "a", count: 60) }.joined(separator: "\r\n")
        let (over, _) = TransportReplay.keySetAnswer(Self.raw("HTTP/1.1 200 OK\r\n" + long, "{}"), chunk: 64)
        guard case .failed(let why) = over else {
            Issue.record("\(over)")
            return
        }
        #expect(why == "response head is over the 2048-octet limit")
        let continued = "HTTP/1.1 100 Continue\r\nCache-Control: max-age=5\r\n\r\nHTTP/1.1 200 OK\r\nETag: \"v9\""
        let (answer, _) = TransportReplay.keySetAnswer(Self.raw(continued, "{\"keys\":[]}"), chunk: 3)
        guard case .document(_, let maxAge, let etag, _) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(maxAge == nil && etag == "\"v9\"")
    }

    @Test("Apple's answer: an error never repeats a secret from the body or from a header")
    func appleSecrets() {
        for answer in [
            Self.raw("HTTP/1.1 200 OK\r\nContent-Type: text/html; secret-1", "<html>secret-1</html>"),
            Self.raw("HTTP/1.1 200 OK\r\nContent-Type: secret-1/x", "<html>"),
            Self.raw(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json",
                #"{"error":"invalid_grant","error_description":"secret-1 used"}"#),
            Self.raw("HTTP/1.1 418 Teapot\r\nContent-Type: secret-1", "secret-1"),
            Self.raw("HTTP/1.1 400 Bad Request", #"{"error":"insecret-1 was used"}"#),
        ] {
            guard case .failure(let error) = TransportReplay.appleAnswer(answer, chunk: 5, expectsObject: true) else {
                Issue.record("accepted")
                continue
            }
            #expect(!error.detail.contains("secret-1"), "\(error.detail)")
            #expect(!"\(error)".contains("secret-1") && !error.code.rawValue.contains("secret-1"))
        }
    }
}
