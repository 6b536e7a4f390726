package import JWTVerify

/// The keys serve writes in a ``ReplayStore``: `jwtverify:<kind>:<route>:<hex>`, where the route
/// name is percent-encoded outside `A–Z a–z 0–9 . _ - #` and the last part is hex of a SHA-256,
/// so that no untrusted byte reaches a key as it was sent.
package enum ReplayStoreKey {
    /// A DPoP proof of `route`: its ``DPoPReplayKey`` (thumbprint and `jti` hashed).
    package static func dpop(route: String, proof: DPoPReplayKey) -> [UInt8] {
        Array("jwtverify:dpop:".utf8) + routePart(route) + [UInt8(ascii: ":")] + Array(proof.hex.utf8)
    }

    /// A notification of `route`: the SHA-256 of its ID's bytes.
    package static func notification(route: String, id: String) -> [UInt8] {
        let digest = Array(id.utf8).withUnsafeBytes { SHA256Digest(hashing: $0) }
        return Array("jwtverify:notification:".utf8) + routePart(route) + [UInt8(ascii: ":")] + Array(digest.hex.utf8)
    }

    /// The route name's bytes, each outside the plain set as `%XX`.
    static func routePart(_ route: String) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in route.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"),
                UInt8(ascii: "#"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return out
    }
}
