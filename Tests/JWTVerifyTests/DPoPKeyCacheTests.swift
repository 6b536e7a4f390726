import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify

/// The proof keys a verifier keeps (``DPoPKeyCache``): a client's key is imported once, and a
/// kept key never lets a proof skip a check of its own `jwk`.
@Suite("DPoP key cache")
struct DPoPKeyCacheTests {
    typealias F = DPoPProofFactory

    static func verdict(_ verifier: Verifier, _ token: String, _ proof: String) -> String {
        do {
            _ = try verifier.verify(token, dpop: DPoPRequest(proof: proof, method: "GET", uri: F.uri))
            return ""
        } catch { return error.reason.rawValue + ": " + error.detail }
    }

    @Test("one key for a client's proofs, whatever their jti; one per key; every proof still checked")
    func oneImportPerKey() throws {
        let verifier = F.verifier(.allowed)
        let keys = try #require(verifier.proofReplay?.keys)
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        for jti in ["a", "b", "c"] {
            #expect(Self.verdict(verifier, token, F.proof(claims: F.claims(jti: jti, token: token))) == "")
        }
        #expect(keys.count == 1)
        let rsaToken = F.accessToken(boundTo: F.thumbprint(F.rsa), jti: "at-r")
        #expect(Self.verdict(verifier, rsaToken, F.proof(F.rsa, claims: F.claims(jti: "r", token: rsaToken))) == "")
        let edToken = F.accessToken(boundTo: F.thumbprint(F.ed), jti: "at-e")
        #expect(Self.verdict(verifier, edToken, F.proof(F.ed, claims: F.claims(jti: "e", token: edToken))) == "")
        #expect(keys.count == 3)
        // The kept key's jwk, now with an alg of its own that does not fit the proof's: refused.
        let jwk = F.jwk(F.ec).dropLast() + #","alg":"ES384"}"#
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk)}"#
        let refused = Self.verdict(
            verifier, token, F.proof(header: header, claims: F.claims(jti: "d", token: token)))
        #expect(refused.hasPrefix("dpop_invalid: the proof's jwk cannot verify it"), "\(refused)")
        // A forged signature under the kept key: still refused.
        var parts = F.proof(claims: F.claims(jti: "f", token: token)).split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(F.claims(jti: "g", token: token).utf8))
        #expect(
            Self.verdict(verifier, token, parts.joined(separator: "."))
                == "dpop_invalid: the proof's signature does not verify with the jwk of its header")
        #expect(keys.count == 3)
    }

    @Test("bounded: the oldest key is forgotten when full; material with another split is another key")
    func bounded() throws {
        let cache = DPoPKeyCache(capacity: 2)
        let keys = TokenFactory.keys.keys.compactMap(\.key)
        try #require(keys.count == 3)
        let (a, b, c) = (keys[0], keys[1], keys[2])
        func entry(_ key: EVPPublicKey) -> DPoPKeyCache.Entry { DPoPKeyCache.Entry(key: key, thumbprint: "t") }
        #expect(cache.key([1, 2, 3]) { entry(a) }.key === a)
        #expect(cache.key([1, 2, 3]) { entry(b) }.key === a)
        #expect(cache.key([4]) { entry(b) }.key === b)
        #expect(cache.key([5]) { entry(c) }.key === c)
        #expect(cache.count == 2)
        #expect(cache.key([1, 2, 3]) { entry(c) }.key === c)  // forgotten, so made again
        #expect(cache.key([5]) { entry(a) }.key === c && cache.key([4]) { entry(a) }.key === a)
    }

    @Test("a client's P-256 key is kept with its thumbprint, and its fixed-base table comes from the proof keys' pool")
    func noFixedBaseForClients() throws {
        let verifier = F.verifier(.allowed)
        let keys = try #require(verifier.proofReplay?.keys)
        let token = F.accessToken(boundTo: F.thumbprint(F.ec))
        // Past the threshold at which a key set's P-256 key starts building its table.
        for index in 0..<(FixedBaseSlot.threshold * 2) {
            #expect(Self.verdict(verifier, token, F.proof(claims: F.claims(jti: "t-\(index)", token: token))) == "")
        }
        let parsed = try JSONSerialization.jsonObject(with: Data(F.jwk(F.ec).utf8)) as? [String: String]
        let jwk = try #require(parsed)
        let xText = try #require(jwk["x"])
        let yText = try #require(jwk["y"])
        let x = try #require(Base64URL.decode(Array(xText.utf8)))
        let y = try #require(Base64URL.decode(Array(yText.utf8)))
        var made = false
        let kept = keys.key([32] + x + y) {
            made = true
            return DPoPKeyCache.Entry(
                key: try! EVPPublicKey.ec(group: "P-256", uncompressedPoint: [4] + x + y), thumbprint: "")
        }
        #expect(!made)
        #expect(kept.thumbprint == F.thumbprint(F.ec))
        let issuers = try EVPPublicKey.ec(group: "P-256", uncompressedPoint: [4] + x + y)
        guard FixedBaseP256Key.isAvailable else {
            #expect(kept.key.fixedBaseSlot == nil && issuers.fixedBaseSlot == nil)
            return
        }
        #expect(kept.key.fixedBaseSlot?.pool == .proofKeys)
        #expect(issuers.fixedBaseSlot?.pool == .keySets)
        // Past its threshold, the client's key gets its table in its own pool.
        #expect(FixedBaseP256Tests.eventually { kept.key.hasFixedBaseTable })
        #expect(FixedBaseSlot.proofKeyTablesLive >= 1)
        #expect(FixedBaseSlot.proofKeyTablesLive <= FixedBaseSlot.proofKeyTableCap)
    }
}
