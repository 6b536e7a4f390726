/// The JOSE header parameters the verifier acts on, checked in the normative order.
///
/// Only `alg`, `crit`, `b64`, `kid` and `typ` matter. Key-carrying parameters (`jwk`, `jku`,
/// `x5u`, `x5c`, …) and unknown names are ignored: keys come only from the configured key set.
struct JOSEHeader {
    /// The header's algorithm, already known to be on the allow-list.
    let algorithm: SignatureAlgorithm
    /// `kid`, when present.
    let keyID: String?

    /// Header parameters a provider requires to be present.
    typealias Requirements = HeaderRequirements

    /// Validates a parsed header object against `allowList` and `requirements`.
    static func validate<Object: JSONObjectReading>(
        _ header: Object, allowList: AlgorithmAllowList, requirements: Requirements = Requirements()
    ) -> Result<JOSEHeader, VerificationError> {
        guard let alg = header.member("alg")?.stringBytes else {
            return .failure(VerificationError(.headerInvalid, detail: "alg is missing or not a string"))
        }
        if equalsIgnoringASCIICase(alg, "none") {
            return .failure(VerificationError(.algorithmNone, detail: "alg none is never accepted"))
        }
        guard let algorithm = allowList.match(alg) else {
            return .failure(
                VerificationError(
                    .unsupportedAlgorithm, detail: "alg \(printable(alg)) is not in the allowed list (\(allowList))"))
        }
        if header.member("crit") != nil {
            return .failure(
                VerificationError(.critUnsupported, detail: "crit is present; no JWS extension is supported"))
        }
        if let b64 = header.member("b64"), b64.kind != .true {
            return .failure(VerificationError(.headerInvalid, detail: "b64 is present and not true"))
        }
        var keyID: String? = nil
        if let kid = header.member("kid") {
            guard let value = kid.string else {
                return .failure(VerificationError(.headerInvalid, detail: "kid is not a string"))
            }
            keyID = value
        } else if requirements.keyID {
            return .failure(
                VerificationError(.headerInvalid, detail: "kid is missing, and this provider always sends one"))
        }
        if let typ = header.member("typ") {
            guard let value = typ.stringBytes, requirements.tokenType.matches(value) else {
                return .failure(requirements.tokenType.refusal(typ: typ.stringBytes, present: true))
            }
        } else if requirements.type {
            return .failure(requirements.tokenType.refusal(typ: nil, present: false))
        }
        return .success(JOSEHeader(algorithm: algorithm, keyID: keyID))
    }

    /// Whether `bytes` spell `word` (ASCII letters in any case).
    static func equalsIgnoringASCIICase(_ bytes: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { expected in
            for i in 0..<bytes.count {
                var byte = bytes[i]
                if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                var want = expected[i]
                if want >= 0x41 && want <= 0x5A { want |= 0x20 }
                if byte != want { return false }
            }
            return true
        }
    }

    /// A short quoted rendering of untrusted text for details (at most 40 characters).
    static func printable(_ bytes: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return "\"\(text)\(bytes.count > 40 ? "…" : "")\""
    }
}

/// The algorithms a verifier accepts, matched against header bytes without building strings.
struct AlgorithmAllowList: Sendable, CustomStringConvertible {
    private let entries: [([UInt8], SignatureAlgorithm)]

    init(_ algorithms: Set<SignatureAlgorithm>) {
        entries = SignatureAlgorithm.all.filter(algorithms.contains).map { (Array($0.name.utf8), $0) }
    }

    /// The allowed algorithm whose name is exactly `name`.
    func match(_ name: UnsafeRawBufferPointer) -> SignatureAlgorithm? {
        for (bytes, algorithm) in entries where bytes.count == name.count && bytes.elementsEqual(name) {
            return algorithm
        }
        return nil
    }

    var description: String { entries.map(\.1.name).joined(separator: ", ") }
}

/// What header reading found: the validation verdict, and for reports the `alg` and `kid` as
/// written (strings only), whether or not the header is acceptable.
struct HeaderRead {
    var header: Result<JOSEHeader, VerificationError>
    /// `x5c`'s three certificates (standard base64, as sent), when asked for.
    var certificates: Result<[String], VerificationError>? = nil
    var algorithm: String?
    var keyID: String?
}

/// Header validation as a ``JSONObjectConsumer``.
struct HeaderReading: JSONObjectConsumer {
    let allowList: AlgorithmAllowList
    /// Parameters the policy's provider requires.
    var requirements = JOSEHeader.Requirements()
    /// Whether to take `x5c` (App Store signed data).
    var readsCertificates = false
    /// Whether to copy `alg` and `kid` as written (for reports).
    var report = false

    func consume<Object: JSONObjectReading>(_ object: Object) -> HeaderRead {
        let header = JOSEHeader.validate(object, allowList: allowList, requirements: requirements)
        let certificates = readsCertificates ? Self.certificates(object) : nil
        guard report else { return HeaderRead(header: header, certificates: certificates) }
        let keyID: String? = if case .success(let valid) = header { valid.keyID } else { object.member("kid")?.string }
        let algorithm: String? =
            if case .success(let valid) = header { valid.algorithm.name } else { object.member("alg")?.string }
        return HeaderRead(header: header, certificates: certificates, algorithm: algorithm, keyID: keyID)
    }

    /// `x5c` as App Store signed data has it: exactly three strings (leaf, intermediate, root).
    private static func certificates<Object: JSONObjectReading>(_ object: Object) -> Result<[String], VerificationError>
    {
        guard let x5c = object.member("x5c") else {
            return .failure(VerificationError(.x5cInvalid, detail: "x5c is missing"))
        }
        guard x5c.kind == .array else { return .failure(VerificationError(.x5cInvalid, detail: "x5c is not an array")) }
        guard x5c.count == 3 else {
            return .failure(
                VerificationError(
                    .x5cInvalid, detail: "x5c holds \(x5c.count) certificates, not 3 (leaf, intermediate, root)"))
        }
        var chain: [String] = []
        for index in 0..<3 {
            guard let text = x5c[index]?.string else {
                return .failure(VerificationError(.x5cInvalid, detail: "x5c[\(index)] is not a string"))
            }
            chain.append(text)
        }
        return .success(chain)
    }
}
