extension JWK {
    /// Smallest RSA modulus accepted (RFC 7518 §3.3).
    static let minimumRSABits = 2048
    /// Largest RSA modulus accepted (OpenSSL's own verification limit).
    static let maximumRSABits = 16384

    /// Reads one key-set entry. Never fails: problems make the entry unusable, with the reason.
    /// With `keyCache` (a DPoP proof's `jwk`), a key whose material was imported before is taken
    /// from it instead of being imported again.
    init(parsing node: JSONNode, keyCache: DPoPKeyCache? = nil) {
        var problems: [String] = []
        func optionalString(_ name: StaticString) -> String? {
            guard let value = node.member(name) else { return nil }
            guard let string = value.string else {
                problems.append("\(name) is not a string")
                return nil
            }
            return string
        }
        let keyID = optionalString("kid")
        let keyType = optionalString("kty")
        let curve = optionalString("crv")
        let algorithm = optionalString("alg")
        let use = optionalString("use")
        var keyOperations: [String]? = nil
        if let ops = node.member("key_ops") {
            let names = (0..<ops.count).compactMap { ops[$0]?.string }
            if ops.kind != .array || names.count != ops.count {
                problems.append("key_ops is not an array of strings")
            } else {
                keyOperations = names
            }
        }
        if keyType == nil && problems.isEmpty { problems.append("kty is missing") }
        if let use, !exactlyEquals(use, "sig") { problems.append("use is \"\(use)\", not \"sig\"") }
        if let keyOperations, !keyOperations.containsExactly("verify") {
            problems.append("key_ops does not include \"verify\"")
        }

        var material: [UInt8] = []
        var key: EVPPublicKey? = nil
        var thumbprint: String? = nil
        if problems.isEmpty, let keyType {
            switch Self.importKey(node, keyType: keyType, curve: curve, cache: keyCache) {
            case .success(let imported):
                key = imported.key
                material = imported.material
                thumbprint = imported.thumbprint
            case .failure(let problem):
                problems.append(problem.description)
            }
        }
        if let key, exactlyEquals(keyType, "RSA"), key.bits < Self.minimumRSABits || key.bits > Self.maximumRSABits {
            problems.append("RSA modulus of \(key.bits) bits is outside \(Self.minimumRSABits)…\(Self.maximumRSABits)")
        }
        self.init(
            keyID: keyID, keyType: keyType, curve: curve, algorithm: algorithm, use: use,
            keyOperations: keyOperations, bits: key?.bits, unusableReason: problems.first,
            thumbprint: thumbprint, key: problems.isEmpty ? key : nil, material: material)
    }

    private struct ImportProblem: Error, CustomStringConvertible {
        let description: String
    }

    private struct Imported {
        let key: EVPPublicKey
        let material: [UInt8]
        let thumbprint: String
    }

    /// Decodes a required base64url member, optionally of an exact length.
    private static func octets(_ node: JSONNode, _ name: StaticString, length: Int? = nil) -> Result<
        [UInt8], ImportProblem
    > {
        guard let text = node.member(name)?.stringBytes else {
            return .failure(ImportProblem(description: "\(name) is missing or not a string"))
        }
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            return .failure(ImportProblem(description: "\(name) is not base64url"))
        }
        if let length, bytes.count != length {
            return .failure(ImportProblem(description: "\(name) is \(bytes.count) octets, not \(length)"))
        }
        return .success(bytes)
    }

    private static func importKey(
        _ node: JSONNode, keyType: String, curve: String?, cache: DPoPKeyCache?
    ) -> Result<Imported, ImportProblem> {
        /// The key of `material` with its thumbprint: from `cache` when it holds it, else made by `make`.
        func key(_ tag: UInt8, _ material: [UInt8], _ make: () throws -> DPoPKeyCache.Entry) throws
            -> DPoPKeyCache.Entry
        {
            guard let cache else { return try make() }
            return try cache.key([tag] + material, make: make)
        }
        // A key a client chose (a DPoP proof's, the only ones read with a cache) earns its
        // fixed-base table from the proof keys' pool, never from the issuers' keys'.
        let pool: FixedBaseSlot.Pool = cache == nil ? .keySets : .proofKeys
        do {
            // Over the bytes: a `switch` over the `String` would take "O\u{212A}P" for "OKP".
            switch ExactBytes(keyType) {
            case "RSA":
                let n = Array(try octets(node, "n").get().drop(while: { $0 == 0 }))
                let e = Array(try octets(node, "e").get().drop(while: { $0 == 0 }))
                guard !n.isEmpty, n.count * 8 <= maximumRSABits + 8 else {
                    throw ImportProblem(description: "n is out of range")
                }
                guard !e.isEmpty, e.count <= 32, e.last! & 1 == 1, e != [1] else {
                    throw ImportProblem(description: "e is not an odd exponent greater than 1")
                }
                // n's length first: n + e alone could be read at another split.
                let entry = try key(1, [UInt8(n.count >> 8), UInt8(n.count & 0xFF)] + n + e) {
                    DPoPKeyCache.Entry(
                        key: try EVPPublicKey.rsa(modulus: n, exponent: e),
                        thumbprint: JWKThumbprint.rsa(modulus: n, exponent: e))
                }
                return .success(Imported(key: entry.key, material: n + [0] + e, thumbprint: entry.thumbprint))
            case "EC":
                let size: Int
                switch curve.map({ ExactBytes($0) }) {
                case "P-256": size = 32
                case "P-384": size = 48
                case "P-521": size = 66
                default:
                    throw ImportProblem(
                        description: "EC curve \(curve.map { "\"\($0)\"" } ?? "(missing)") is not supported")
                }
                let x = try octets(node, "x", length: size).get()
                let y = try octets(node, "y", length: size).get()
                let entry = try key(UInt8(size), x + y) {
                    DPoPKeyCache.Entry(
                        key: try EVPPublicKey.ec(
                            group: curve!, uncompressedPoint: [4] + x + y, fixedBasePool: pool),
                        thumbprint: JWKThumbprint.ec(curve: curve!, x: x, y: y))
                }
                return .success(Imported(key: entry.key, material: x + y, thumbprint: entry.thumbprint))
            case "OKP":
                guard exactlyEquals(curve, "Ed25519") else {
                    throw ImportProblem(
                        description: "OKP curve \(curve.map { "\"\($0)\"" } ?? "(missing)") is not supported")
                }
                let x = try octets(node, "x", length: 32).get()
                let entry = try key(2, x) {
                    DPoPKeyCache.Entry(
                        key: try EVPPublicKey.ed25519(x), thumbprint: JWKThumbprint.okp(curve: "Ed25519", x: x))
                }
                return .success(Imported(key: entry.key, material: x, thumbprint: entry.thumbprint))
            default:
                throw ImportProblem(description: "kty \"\(keyType)\" is not supported")
            }
        } catch let problem as ImportProblem {
            return .failure(problem)
        } catch {
            return .failure(ImportProblem(description: "key material does not import (\(error))"))
        }
    }
}
