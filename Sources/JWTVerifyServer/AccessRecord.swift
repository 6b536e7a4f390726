import JWTVerify

/// One `--access-log` line: never the token, only its SHA-256 fingerprint.
struct AccessRecord {
    /// When the request came in (``ThroughputClock``).
    var started: Double
    var method = ""
    var path = ""
    var route: String?
    var status = 0
    var reason: String?
    var latency = 0.0
    var fingerprint: SHA256Digest?

    func line() -> String {
        var text = OutputText()
        text.beginObject()
        text.key("time")
        text.number((VerificationPolicy.systemClock() * 1000).rounded() / 1000)
        text.key("method")
        text.string(method)
        text.key("path")
        text.string(path)
        text.key("route")
        if let route { text.string(route) } else { text.null() }
        text.key("status")
        text.integer(status)
        text.key("reason")
        if let reason { text.string(reason) } else { text.null() }
        text.key("latency_us")
        text.number((latency * 1e7).rounded() / 10)
        text.key("fingerprint")
        if let fingerprint { text.hexString(fingerprint) } else { text.null() }
        text.endObject()
        text.newline()
        return text.string
    }
}
