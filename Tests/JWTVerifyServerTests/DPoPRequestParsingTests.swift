import JWTVerifyServer
import Testing

/// What serve reads of a DPoP request: `Authorization: DPoP <token>`, and the client's request
/// from the forward-auth headers.
@Suite("serve DPoP request parsing")
struct DPoPRequestParsingTests {
    static func dpop(_ text: String) -> BearerCredential.Parsed {
        Array(text.utf8).withUnsafeBytes { BearerCredential.parse(dpopAuthorization: $0) }
    }

    static func token(_ text: String) -> String? {
        guard case .token(let range) = dpop(text) else { return nil }
        return String(decoding: Array(text.utf8)[range], as: UTF8.self)
    }

    @Test("DPoP in any letter case, then spaces; a token68; other schemes absent; nothing usable malformed")
    func authorization() {
        #expect(Self.token("DPoP eyJ.a-b_c.d~+/==") == "eyJ.a-b_c.d~+/==")
        #expect(Self.token(" dpop \t abc.def.ghi  ") == "abc.def.ghi")
        #expect(Self.token("DPOP x") == "x")
        for other in ["Bearer abc", "DPoPabc", "DPo abc", "Basic DPoP", "", "   "] {
            #expect(Self.dpop(other) == .absent, "\(other)")
        }
        for bad in ["DPoP", "DPoP   ", "DPoP a b", "DPoP a=b", "DPoP a\u{e9}", "DPoP a,b"] {
            #expect(Self.dpop(bad) == .malformed, "\(bad)")
        }
        #expect(Array("abc.d-e_f.g".utf8).withUnsafeBytes { BearerCredential.isToken68($0) })
        #expect(!Array("abc def".utf8).withUnsafeBytes { BearerCredential.isToken68($0) })
        #expect(!Array("".utf8).withUnsafeBytes { BearerCredential.isToken68($0) })
    }

    static let forwarded = [
        "X-Forwarded-Method": "POST", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.com:8443",
        "X-Forwarded-Uri": "/orders/7?page=2",
    ]

    static func read(_ headers: [String: String], repeated: [(String, String)] = []) -> String {
        switch ForwardedRequest.read(InMemoryRequest(path: "/auth", headers: headers, repeated: repeated)) {
        case .success(let request): return request.method + " " + request.uri
        case .failure(let refusal): return "refused: " + refusal.description
        }
    }

    @Test("the client's request from the four forward-auth headers, each exactly once, or a refusal naming one")
    func forwardedRequest() {
        #expect(Self.read(Self.forwarded) == "POST https://api.example.com:8443/orders/7?page=2")
        var http = Self.forwarded
        http["X-Forwarded-Proto"] = "HTTP"
        #expect(Self.read(http) == "POST HTTP://api.example.com:8443/orders/7?page=2")
        for name in ForwardedRequest.headers {
            var missing = Self.forwarded
            missing[name] = nil
            #expect(Self.read(missing) == "refused: \(name) missing")
            #expect(
                Self.read(Self.forwarded, repeated: [(name, Self.forwarded[name]!)]) == "refused: \(name) repeated")
            var empty = Self.forwarded
            empty[name] = ""
            #expect(Self.read(empty) == "refused: \(name) empty or not printable ASCII without spaces")
        }
        let wrong: [(String, String, String)] = [
            ("X-Forwarded-Proto", "ftp", "not http or https"),
            ("X-Forwarded-Host", "evil.example/x", "not a host[:port]"),
            ("X-Forwarded-Host", "user@api.example.com", "not a host[:port]"),
            ("X-Forwarded-Uri", "https://evil.example/", "not a path starting with /"),
            ("X-Forwarded-Uri", "/a b", "empty or not printable ASCII without spaces"),
            ("X-Forwarded-Method", "GE T", "empty or not printable ASCII without spaces"),
        ]
        for (name, value, problem) in wrong {
            var headers = Self.forwarded
            headers[name] = value
            #expect(Self.read(headers) == "refused: \(name) \(problem)", "\(name): \(value)")
        }
    }
}
