import JWTVerify
import JWTVerifyTooling

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `jwtverify inspect`: decodes one token for people; verifies it only when given keys.
struct InspectCommand {
    var subject: String?
    var keySets = KeySetOptions()
    var flags = PolicyFlags()
    var helpRequested = false

    static let table = OptionTable<InspectCommand>(
        KeySetOptions.options().map { $0.lifted(\.keySets) },
        PolicyFlags.all(optionalClaims: true, face: .inspect).map { $0.lifted(\.flags) })

    static let help = """
        USAGE: jwtverify inspect TOKEN|REQUEST|-|FILE [--jwks SRC [--issuer ISS] [--audience AUD] [--nonce RAW]]
                                                      [--now T] [--dpop required|allowed]

        Decodes a token (given as an argument, on stdin with -, or the first token in FILE) and shows
        its header and claims as JSON, with times in UTC and relative to now. Without --jwks or
        --profile nothing is verified, and the output says so. Otherwise it gives 'verify's verdict:
        the same keys (--jwks, else the profile's key set; App Store data its own chain), the same
        time (--now, else the clock; App Store data its signedDate) and the same checks (issuer and
        audience optional here), and says which check failed and why.

        A REQUEST is one JSON object, as a verify input line holds it: {"token": …, "nonce": …,
        "dpop": PROOF, "method": M, "uri": U}. Its DPoP proof is checked as verify checks it (with
        --dpop; a proof of its own run, so never a replay) and shown decoded beside the token.

        OPTIONS:
        \(table.help)

        EXIT STATUS: 0 decoded (and, with --jwks, valid), 1 rejected, 64 usage, 65 no token found
        (or an unusable key set), 66 file missing or unreadable, 69 remote key set unavailable,
        74 I/O error.
        """

    init(parsing words: ArraySlice<String>) throws(CommandFailure) {
        helpRequested = try Self.table.parse(words, into: &self) { options, text throws(CommandFailure) in
            guard options.subject == nil else { throw .usage("inspect takes one token, '-' or one file") }
            options.subject = text
        }
        if helpRequested { return }
        guard subject != nil else { throw .usage("inspect needs a token, '-' or a file") }
        _ = try flags.policy(.inspection)
    }

    func run() throws(CommandFailure) -> ExitStatus {
        let input = try readSubject()
        let request: InspectedRequest
        switch Self.request(in: input) {
        case .failure(let problem)?:
            // verify's verdict for such a line, with the same words.
            let sink = OutputSink()
            sink.write("REJECTED: \(VerificationError.Reason.malformed.rawValue): \(problem.description)\n")
            sink.flush()
            return .rejected
        case .success(let asked)?: request = asked
        case nil:
            guard let token = Self.token(in: input) else {
                throw CommandFailure(status: .dataError, message: "no token found")
            }
            request = InspectedRequest(token: token)
        }
        let token = request.token
        let at = flags.now ?? VerificationPolicy.systemClock()
        var out = ""
        var status = ExitStatus.ok
        // Keys and time by verify's own rules: --jwks, else the profile's key set (App Store data:
        // each token's chain), evaluated at --now, else by the clock (App Store data: at signedDate).
        let policy = try flags.policy(.inspection)
        var keySets = self.keySets
        let verifying = try keySets.resolve(for: flags, policy: policy)
        // Without keys (or past the verdict's size limit), decoded by the pipeline over no keys,
        // as far as a token of up to 1 MiB goes.
        var decoding = policy
        decoding.maxTokenBytes = 1 << 20
        let time = flags.evaluationTime
        let shown = Self.traced(
            token, verifier: verifying ? Verifier(keys: try keySets.keys(for: flags), policy: policy) : nil,
            decoding: decoding, nonce: request.nonce ?? flags.nonce, dpop: request.dpop, time: time)
        if !verifying {
            out +=
                "UNVERIFIED: decoded only. The signature and the claims were NOT checked (give --jwks or --profile to verify).\n\n"
        } else {
            switch shown.outcome.result {
            case .success(let verified):
                out +=
                    "VERIFIED: signature by \(flags.keysFromTokens ? "the x5c chain's leaf" : "kid \(verified.keyID ?? "(none)")") (\(verified.algorithm))"
                out +=
                    ", claims checked" + (policy.issuers == nil && !flags.keysFromTokens ? " (issuer not checked)" : "")
                    + (policy.audiences == nil && !flags.keysFromTokens ? " (audience not checked)" : "")
                // At the instant the provider judges its tokens at (App Store data: signedDate), unless --now.
                if flags.now == nil, let instant = policy.rules.evaluationInstant(verified.provider),
                    let claim = policy.rules.profileType?.evaluationClaim
                {
                    out += " at its \(claim) \(Timestamp.format(instant)).\n\n"
                } else {
                    out += " at \(Timestamp.format(at)).\n\n"
                }
                if request.dpop != nil {
                    out +=
                        policy.dpop.mode == .off
                        ? "DPoP proof NOT checked (give --dpop allowed or --dpop required).\n\n"
                        : "DPoP proof checked: signed by its jwk, for this request, and the token is bound to it.\n\n"
                }
            case .failure(let error):
                out += "REJECTED: \(error.reason.rawValue): \(error.detail)\n(everything below is UNVERIFIED)\n\n"
                status = .rejected
            }
        }
        let claims = shown.outcome.claims
        out += "header:\n" + PrettyJSON.render(shown.header ?? .null) + "\n"
        out += "claims:\n" + PrettyJSON.render(shown.payload ?? .null) + "\n"
        if let dpop = request.dpop {
            let (header, claims) = Self.decodedSegments(Array(dpop.proof.utf8))
            out += "DPoP proof header:\n" + PrettyJSON.render(header ?? .null) + "\n"
            out += "DPoP proof claims:\n" + PrettyJSON.render(claims ?? .null) + "\n"
            out += "DPoP request: \(dpop.method) \(dpop.uri)\n"
        }
        out += "summary:\n"
        out += "  alg        \(shown.outcome.algorithm ?? "(none)"), kid \(shown.outcome.keyID ?? "(none)")\n"
        out += "  issuer     \(claims.issuer ?? "(none)")\n"
        out += "  audience   \(claims.audience?.joined(separator: ", ") ?? "(none)")\n"
        out += "  subject    \(claims.subject ?? "(none)")\n"
        for (label, value) in [
            ("issued", claims.issuedAt), ("not before", claims.notBefore), ("expires", claims.expiresAt),
        ] {
            guard let value else { continue }
            out += "  \(label.padding(10)) \(Timestamp.format(value)) (\(Self.relative(value - at)))\n"
        }
        if let exp = claims.expiresAt, let iat = claims.issuedAt {
            out += "  lifetime   \(Self.duration(exp - iat))\n"
        }
        let sink = OutputSink()
        sink.write(out)
        sink.flush()
        return status
    }

    /// What inspect shows of a token, all from the pipeline's trace: the verdict with what was read
    /// on the way, and the decoded header and payload as JSON (when they are JSON objects).
    struct Shown {
        var outcome = VerificationOutcome(.failure(VerificationError(.malformed)))
        var header: JSONValue?
        var payload: JSONValue?
    }

    /// `token` through `verifier`'s pipeline with its trace; without a verifier, or when its
    /// verdict is `too_large`, what is shown is traced over no keys under `decoding` (whose
    /// verdict is not shown).
    static func traced(
        _ token: [UInt8], verifier: Verifier?, decoding: VerificationPolicy, nonce: String?, dpop: DPoPRequest? = nil,
        time: EvaluationTime
    ) -> Shown {
        let decoder = Verifier(keys: JWKSet(keys: []), policy: decoding)
        guard let verifier else { return traced(token, verifier: decoder, nonce: nonce, time: time) }
        var shown = traced(token, verifier: verifier, nonce: nonce, dpop: dpop, time: time)
        if shown.outcome.error?.reason == .tooLarge {
            let decoded = traced(token, verifier: decoder, nonce: nonce, time: time)
            (shown.header, shown.payload) = (decoded.header, decoded.payload)
            shown.outcome.algorithm = decoded.outcome.algorithm
            shown.outcome.keyID = decoded.outcome.keyID
            shown.outcome.claims = decoded.outcome.claims
        }
        return shown
    }

    /// `token` through `verifier`'s pipeline with its trace, and its request's DPoP proof.
    private static func traced(
        _ token: [UInt8], verifier: Verifier, nonce: String?, dpop: DPoPRequest? = nil, time: EvaluationTime
    ) -> Shown {
        var batch = TokenBatch()
        batch.append(token, nonce: nonce.map { Array($0.utf8) })
        var shown = Shown()
        let proofs: ((Int) -> DPoPRequest?)? = dpop.map { dpop in { _ in dpop } }
        verifier.evaluate(batch, at: time, tracing: true, proofs: proofs) { _, token, result, trace in
            shown.outcome = VerificationOutcome(result, trace: trace, token: token, verifier: verifier, time: time)
            shown.header = trace.header.flatMap(Self.object)
            if case .success(let verified) = result {
                shown.payload = verified.payload.withUnsafeBytes { Self.object($0) }
            } else {
                shown.payload = (trace.payload ?? trace.unverifiedPayload).flatMap(Self.object)
            }
        }
        return shown
    }

    /// `bytes` as a JSON value, when they are a JSON object.
    private static func object(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        guard case .success(let document) = JSONDocument.parse(bytes) else { return nil }
        return document.withRoot { root in root.kind == .object ? root.value : nil }
    }

    /// What inspect was asked about: a token, and from a JSON request its nonce and DPoP proof.
    struct InspectedRequest {
        var token: [UInt8]
        var nonce: String? = nil
        var dpop: DPoPRequest? = nil
    }

    /// `input` as a JSON request, by verify's rule for an input line (``TokenRequest``), when
    /// the whole input is one JSON object; `nil` when it is not one (a log, a token).
    ///
    /// An object that holds no usable request is its problem, in verify's words.
    static func request(in input: [UInt8]) -> Result<InspectedRequest, RequestProblem>? {
        let start = input.firstIndex { !" \t\r\n".utf8.contains($0) } ?? input.count
        guard start < input.count, input[start] == UInt8(ascii: "{") else { return nil }
        let isObject = input.withUnsafeBytes { bytes in
            guard case .success(let document) = JSONDocument.parse(UnsafeRawBufferPointer(rebasing: bytes[start...]))
            else { return false }
            return document.withRoot { $0.kind == .object }
        }
        guard isObject else { return nil }
        let parsed = input.withUnsafeBytes { bytes -> (InspectedRequest?, problem: String?) in
            TokenRequest.withParsed(jsonLine: UnsafeRawBufferPointer(rebasing: bytes[start...])) { parsed in
                switch parsed {
                case .failure(let problem): return (nil, problem.description)
                case .success(let request):
                    guard case .token(let range) = TokenInput.locate(request.token) else {
                        return (nil, "\"token\" holds no token")
                    }
                    return (
                        InspectedRequest(
                            token: Array(request.token[range]),
                            nonce: request.nonce.map { String(decoding: $0, as: UTF8.self) }, dpop: request.dpop),
                        nil
                    )
                }
            }
        }
        guard let request = parsed.0 else { return .failure(RequestProblem(description: parsed.problem ?? "")) }
        return .success(request)
    }

    /// Why a JSON request holds no usable request (verify's record for such a line: `malformed`).
    struct RequestProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// A compact JWS's header and payload as JSON objects, decoded without any check.
    static func decodedSegments(_ jws: [UInt8]) -> (header: JSONValue?, payload: JSONValue?) {
        let parts = jws.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        func decoded(_ index: Int) -> JSONValue? {
            guard parts.count == 3, let bytes = Base64URL.decode(parts[index]) else { return nil }
            return bytes.withUnsafeBytes { object($0) }
        }
        return (decoded(0), decoded(1))
    }

    /// The token of `input`: the whole input when it is one token by the input rule (``TokenInput``:
    /// whitespace and a `Bearer` scheme around it; a malformed token is judged, not skipped),
    /// else the first token found in its text, as `audit` finds them.
    static func token(in input: [UInt8]) -> [UInt8]? {
        let whole = input.withUnsafeBytes { bytes -> [UInt8]? in
            guard case .token(let range)? = TokenInput.locate(bytes),
                !bytes[range].contains(where: {
                    $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\t")
                }),
                bytes[range].contains(UInt8(ascii: "."))
            else { return nil }
            return Array(bytes[range])
        }
        if let whole { return whole }
        return input.split(separator: UInt8(ascii: "\n")).lazy
            .compactMap({ line in
                line.withUnsafeBytes { line in TokenExtractor.scan(line).found.first?.token.bytes(in: line) }
            }).first
    }

    private func readSubject() throws(CommandFailure) -> [UInt8] {
        guard let subject else { return [] }
        if subject != "-" && access(subject, F_OK) != 0 {
            // Not a file: a token given as the argument, or else a file that is missing.
            let text = Array(subject.utf8)
            // A word with no token in it names a file that is missing; text with spaces is text.
            let isToken = text.withUnsafeBytes { !TokenExtractor.scan($0).found.isEmpty }
            guard isToken || subject.contains(" ") else {
                throw CommandFailure(status: .noInput, message: "cannot open \(subject): no such file, and not a token")
            }
            return text
        }
        return try InputFile.readAll(subject == "-" ? "/dev/stdin" : subject)
    }

    static func duration(_ seconds: Double) -> String {
        let s = abs(seconds)
        if s < 120 { return "\(Int(s)) s" }
        if s < 7200 { return "\(Int(s / 60)) min" }
        if s < 172_800 { return "\(Int(s / 3600)) h" }
        return "\(Int(s / 86_400)) d"
    }

    static func relative(_ seconds: Double) -> String {
        seconds >= 0 ? "in \(duration(seconds))" : "\(duration(seconds)) ago"
    }
}

/// Indented JSON for people (object members sorted by name).
enum PrettyJSON {
    static func render(_ value: JSONValue, indent: String = "") -> String {
        switch value {
        case .object(let members) where !members.isEmpty:
            let inner = indent + "  "
            let lines = members.keys.sorted().map { key -> String in
                var name = OutputText()
                name.string(key)
                return inner + name.string + ": " + render(members[key]!, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let elements) where !elements.isEmpty:
            let inner = indent + "  "
            return "[\n" + elements.map { inner + render($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        default:
            return value.description
        }
    }
}
