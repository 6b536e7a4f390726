import FoundationEssentials
import JWTVerify

/// An issuer's metadata document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), as far as key
/// discovery reads it: checked, then reduced to the key set's URL.
///
/// Parsed with the package's JSON layer (jansson, strict: duplicate members, invalid UTF-8 and
/// trailing data are refused). Accepted only when it is an object whose `issuer` is a string of
/// exactly the configured issuer's bytes (OpenID Connect Discovery §4.3, RFC 8414 §3.3: never
/// Unicode equivalence) and whose `jwks_uri` is a string naming a URL every remote read may
/// fetch: `https://`, or `http://` to a loopback address, printable ASCII only (no byte a C
/// string or a request line would cut or change). Every other member is ignored.
package struct DiscoveryDocument: Sendable, Equatable {
    /// The key set's URL (`jwks_uri`).
    package let keySetURL: String

    /// `body` checked against `issuer`.
    package init(json body: [UInt8], issuer: String) throws(DiscoveryRefusal) {
        let document: JSONDocument
        switch JSONDocument.parse(body) {
        case .success(let parsed): document = parsed
        case .failure(let problem): throw .notJSON(problem.description)
        }
        let members = document.withRoot { root -> (isObject: Bool, issuer: [UInt8]?, keys: [UInt8]?) in
            (
                root.kind == .object, root.member("issuer")?.stringBytes.map { Array($0) },
                root.member("jwks_uri")?.stringBytes.map { Array($0) }
            )
        }
        guard members.isObject else { throw .notJSON("the top level is not an object") }
        guard let found = members.issuer, exactlyEquals(issuer, found) else {
            throw .issuerMismatch(found: members.issuer, expected: issuer)
        }
        guard let uri = members.keys, Self.isFetchable(uri) else { throw .keySetURLRefused(members.keys) }
        keySetURL = String(decoding: uri, as: UTF8.self)
    }

    /// Whether `uri` is printable ASCII and a URL the transfer rule allows, with a host.
    static func isFetchable(_ uri: [UInt8]) -> Bool {
        guard !uri.isEmpty, uri.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let url = URL(string: String(decoding: uri, as: UTF8.self)), let host = url.host, !host.isEmpty
        else { return false }
        return HTTPTransfer.isAllowed(url)
    }
}
