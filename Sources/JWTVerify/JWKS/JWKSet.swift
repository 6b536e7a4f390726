#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An immutable set of verification keys, parsed from a JWKS document once.
///
/// Each usable JWK becomes one OpenSSL key at load time; nothing is built per token. Keys are found
/// by exact `kid`, byte for byte (never Unicode equivalence: `"K1"` and `"\u{212A}1"` are two kids).
/// A `kid` that appears twice with the same key is merged; with different keys it becomes unusable
/// (the verifier never guesses which was meant).
public struct JWKSet: Sendable {
    /// Largest document accepted, in octets.
    public static let maximumDocumentBytes = 4 << 20
    /// Most entries accepted in one document.
    public static let maximumKeys = 10_000

    /// Every entry, usable or not, in document order (conflicting duplicates replaced by one
    /// unusable entry).
    public let keys: [JWK]
    /// Each `kid`'s entry, by its exact bytes: `"K1"` and `"\u{212A}1"` are two kids.
    private let indexByKeyID: [ExactBytes: Int]

    /// Parses a JWKS document: `{"keys": [ … ]}`. A single JWK object (with `kty`) is accepted as a
    /// set of one key.
    public init(json: some Collection<UInt8>) throws(JWKSetError) {
        let bytes = Array(json)
        guard bytes.count <= Self.maximumDocumentBytes else {
            throw JWKSetError("key set document is \(bytes.count) octets; the limit is \(Self.maximumDocumentBytes)")
        }
        let document: JSONDocument
        switch JSONDocument.parse(bytes) {
        case .success(let parsed): document = parsed
        case .failure(let failure): throw JWKSetError("key set is not valid JSON: \(failure)")
        }
        let entries = try document.withRoot { (root) throws(JWKSetError) -> [JWK] in
            guard root.kind == .object else { throw JWKSetError("key set is not a JSON object") }
            if let list = root.member("keys") {
                guard list.kind == .array else { throw JWKSetError("\"keys\" is not an array") }
                guard list.count <= Self.maximumKeys else {
                    throw JWKSetError("key set has \(list.count) keys; the limit is \(Self.maximumKeys)")
                }
                return try (0..<list.count).map { (index) throws(JWKSetError) -> JWK in
                    guard let node = list[index], node.kind == .object else {
                        throw JWKSetError("keys[\(index)] is not a JSON object")
                    }
                    return JWK(parsing: node)
                }
            }
            if root.member("kty") != nil { return [JWK(parsing: root)] }
            if let certificates = Self.certificateMap(root) { return certificates }
            throw JWKSetError("not a key set: no \"keys\" array (and not a single JWK or a kid-to-certificate map)")
        }
        self.init(keys: entries)
    }

    /// Parses a JWKS document given as text, as the byte form does.
    public init(json: String) throws(JWKSetError) {
        try self.init(json: Array(json.utf8))
    }

    /// Reads and parses a JWKS file.
    public init(contentsOfFile path: String) throws(JWKSetError) {
        try self.init(json: try Self.readFile(path))
    }

    /// Google's x509 format: a JSON object mapping each `kid` to a PEM certificate. Each
    /// certificate's public key becomes a JWK with that kid (`use: sig`); `nil` when `root` is not
    /// of that shape.
    private static func certificateMap(_ root: JSONNode) -> [JWK]? {
        var entries: [(String, [UInt8])] = []
        var shaped = true
        root.forEachMember { name, value in
            guard let pem = value.stringBytes, pem.starts(with: "-----BEGIN CERTIFICATE-----".utf8) else {
                shaped = false
                return
            }
            entries.append((String(decoding: name, as: UTF8.self), Array(pem)))
        }
        guard shaped, !entries.isEmpty, entries.count <= maximumKeys else { return nil }
        return entries.map { kid, pem in
            var text = OutputText()
            text.beginObject()
            text.key("kid")
            text.string(kid)
            text.key("use")
            text.string("sig")
            if let key = try? EVPPublicKey.certificate(pem: pem) {
                for (name, value) in key.jwkMembers() {
                    text.key(name)
                    text.string(value)
                }
            } else {
                text.key("kty")
                text.string("certificate")
            }
            text.endObject()
            guard case .success(let document) = JSONDocument.parse(text.bytes) else { return JWK(unusableKeyID: kid) }
            let entry = document.withRoot { JWK(parsing: $0) }
            return exactlyEquals(entry.keyType, "certificate") ? JWK(unusableKeyID: kid) : entry
        }
    }

    /// A set of `keys`; repeated `kid`s are merged as described on the type.
    public init(keys: [JWK]) {
        var merged: [JWK] = []
        var index: [ExactBytes: Int] = [:]
        for key in keys {
            guard let kid = key.keyID else {
                merged.append(key)
                continue
            }
            if let existing = index[ExactBytes(kid)] {
                if !merged[existing].isSameKey(as: key) {
                    merged[existing] = JWK(unusable: "kid \"\(kid)\" names more than one different key", like: key)
                }
            } else {
                index[ExactBytes(kid)] = merged.count
                merged.append(key)
            }
        }
        self.keys = merged
        self.indexByKeyID = index
        self.slots = merged.map(KeySlot.init)
    }

    /// The union of two sets (as if their entries were in one document).
    public func merging(_ other: JWKSet) -> JWKSet { JWKSet(keys: keys + other.keys) }

    /// The entry with exactly this `kid`: the same bytes, never a Unicode-equivalent spelling.
    public func key(withID keyID: String) -> JWK? { indexByKeyID[ExactBytes(keyID)].map { keys[$0] } }

    /// The position of the entry with exactly this `kid` (its bytes), for ``slots``.
    func index(ofKeyID keyID: String) -> Int? { indexByKeyID[ExactBytes(keyID)] }

    /// What the signature step needs of each entry, in ``keys`` order: precomputed so that
    /// verification copies no `JWK` and touches no reference count the threads share.
    let slots: [KeySlot]

    /// Reads a whole file, refusing anything over the document size limit.
    package static func readFile(_ path: String) throws(JWKSetError) -> [UInt8] {
        switch LocalFile.read(path, limit: maximumDocumentBytes) {
        case .success(let bytes): return bytes
        case .failure(let failure): throw JWKSetError(failure.description, isMissingFile: failure.isUnreadable)
        }
    }
}

/// A key-set document that could not be used at all (as opposed to single unusable entries).
public struct JWKSetError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String
    /// Whether the error is that the file could not be opened or read (it does not exist, is a
    /// folder, or may not be read), rather than that its contents are not a usable key set.
    public let isMissingFile: Bool

    package init(_ description: String, isMissingFile: Bool = false) {
        self.description = description
        self.isMissingFile = isMissingFile
    }
}

/// One key set entry as the hot path sees it: the algorithms it may verify as a bit mask, and its
/// OpenSSL key unretained. The key set's own `JWK` owns the key, and outlives every use (a
/// verifier holds its key set while it verifies).
struct KeySlot: @unchecked Sendable {
    /// Bit `n` set: ``SignatureAlgorithm`` with backing raw value `n` may be verified.
    let allowed: UInt32
    /// The key, when the entry has usable material.
    let key: Unmanaged<EVPPublicKey>?
    /// The entry's identity across re-imports: the first 64 bits of SHA-256 over its key
    /// material, mixed with ``allowed``. The same key fetched again has the same identity; a
    /// changed key, or a key now allowed other algorithms, has another (verified-token cache).
    let identity: UInt64

    init(_ entry: JWK) {
        var allowed: UInt32 = 0
        for algorithm in SignatureAlgorithm.all where entry.mismatch(for: algorithm) == nil {
            allowed |= 1 << UInt32(algorithm.backing.rawValue)
        }
        self.allowed = allowed
        self.key = entry.key.map { Unmanaged.passUnretained($0) }
        let digest = MessageDigest.sha256.hash(entry.material)
        var identity: UInt64 = 0
        for byte in digest.prefix(8) { identity = identity << 8 | UInt64(byte) }
        self.identity = identity ^ (UInt64(allowed) << 32)
    }

    /// Whether this entry may verify `algorithm` (else the entry's `mismatch(for:)` says why).
    func allows(_ algorithm: SignatureAlgorithm) -> Bool { allowed & (1 << UInt32(algorithm.backing.rawValue)) != 0 }
}
