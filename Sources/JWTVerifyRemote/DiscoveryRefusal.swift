/// Why discovery gave no key set URL. Each surfaces as the remote key set's failure (its
/// `lastFailure`), so tokens are refused `jwks_unavailable` with this in the detail.
package enum DiscoveryRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configured issuer cannot be discovered (the issuer, and what is wrong with it).
    case issuerRefused(String, String)
    /// Neither well-known URL gave a document (what each answered).
    case noDocument(String)
    /// The document is not a JSON object (jansson's word on it).
    case notJSON(String)
    /// The document's `issuer` is missing, not a string, or not the configured issuer's bytes.
    case issuerMismatch(found: [UInt8]?, expected: String)
    /// The document's `jwks_uri` is missing, not a string, or not a URL we fetch (its bytes).
    case keySetURLRefused([UInt8]?)

    package var description: String {
        switch self {
        case .issuerRefused(let issuer, let why):
            "issuer \(Self.shown(Array(issuer.utf8))) \(why)"
        case .noDocument(let what):
            "no discovery document: \(what)"
        case .notJSON(let why):
            "discovery document is not a JSON object: \(why)"
        case .issuerMismatch(nil, let expected):
            "discovery document has no \"issuer\" string (expected \(Self.shown(Array(expected.utf8))))"
        case .issuerMismatch(let found?, let expected):
            "discovery document's issuer \(Self.shown(found)) is not the configured issuer "
                + "\(Self.shown(Array(expected.utf8))) (compared byte for byte)"
        case .keySetURLRefused(nil):
            "discovery document has no \"jwks_uri\" string"
        case .keySetURLRefused(let uri?):
            "discovery document's jwks_uri \(Self.shown(uri)) refused: only https, or http to a loopback address"
        }
    }

    /// `bytes` quoted for a message: printable ASCII as it is, every other byte as `\xHH` (so
    /// two spellings that look alike read differently), at most 200 bytes.
    static func shown(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes.prefix(200) {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        out += bytes.count > 200 ? Array("…\"".utf8) : [UInt8(ascii: "\"")]
        return String(decoding: out, as: UTF8.self)
    }
}
