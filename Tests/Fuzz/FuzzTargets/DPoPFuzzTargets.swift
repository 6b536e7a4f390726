import JWTVerify
import JWTVerifyTestSupport

// The DPoP targets (RFC 9449):
//   dpop  a proof with its request against a token bound to a fixed key. The first byte picks
//         the form: even, the rest is `header\npayload\nmethod\nuri` JSON text in which `@jwk` is
//         replaced by the key's public JWK and `@ath` by the token's hash, signed here with that
//         key (so the claims checks are reached); odd, `proof\nmethod\nuri` as they are. Any
//         refusal must be a dpop_ reason (the token is valid); an accepted proof must be refused
//         as dpop_replayed the second time, and its request's URI must normalise.
//   htu   arbitrary bytes through the htu normaliser: its output normalises to itself, is
//         printable ASCII without query, fragment or dot segments, and starts with its scheme.
extension FuzzTargets {
    /// The proof key, the token bound to it, and a verifier that takes proofs.
    static let dpopSigner = DPoPProofFactory.ec
    static let dpopToken = DPoPProofFactory.accessToken(boundTo: DPoPProofFactory.thumbprint(dpopSigner))
    static let dpopVerifier = DPoPProofFactory.verifier(.allowed, leeway: 60)

    static func dpop(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let parts = bytes.dropFirst().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let proof: String
        let method: String
        let uri: String
        if first & 1 == 0 {
            guard parts.count >= 4 else { return }
            let jwk = DPoPProofFactory.jwk(dpopSigner)
            let ath = DPoPProofFactory.ath(dpopToken)
            func fill(_ text: String) -> String {
                text.replacing("@jwk", with: jwk).replacing("@ath", with: ath)
            }
            proof = DPoPProofFactory.proof(dpopSigner, header: fill(parts[0]), claims: fill(parts[1]))
            (method, uri) = (parts[2], parts[3])
        } else {
            guard parts.count >= 3 else { return }
            (proof, method, uri) = (parts[0], parts[1], parts[2])
        }
        let request = DPoPRequest(proof: proof, method: method, uri: uri)
        do {
            _ = try dpopVerifier.verify(dpopToken, dpop: request)
        } catch {
            guard error.reason.rawValue.hasPrefix("dpop_") else { fatalError("a valid token refused: \(error)") }
            return
        }
        guard DPoPTargetURI(uri) != nil else { fatalError("a proof accepted for a URI that does not normalise") }
        do {
            _ = try dpopVerifier.verify(dpopToken, dpop: request)
            fatalError("a proof accepted twice: \(proof)")
        } catch {
            guard error.reason == .dpopReplayed else { fatalError("a replayed proof refused as \(error)") }
        }
    }

    static func htu(_ bytes: UnsafeRawBufferPointer) {
        guard let target = DPoPTargetURI(bytes: bytes) else { return }
        let out = target.bytes
        guard let again = DPoPTargetURI(bytes: out), again.bytes == out else {
            fatalError("normalising \(target) again gives \(String(describing: DPoPTargetURI(bytes: out)))")
        }
        for byte in out where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
            fatalError("byte \(byte) in \(target)")
        }
        let text = target.description
        guard let schemeEnd = text.firstRange(of: "://") else { fatalError("no scheme in \(target)") }
        let afterAuthority = text[schemeEnd.upperBound...].drop(while: { $0 != "/" })
        guard afterAuthority.hasPrefix("/") else { fatalError("no path in \(target)") }
        for segment in afterAuthority.split(separator: "/", omittingEmptySubsequences: false)
        where segment == "." || segment == ".." {
            fatalError("a dot segment left in \(target)")
        }
    }
}
