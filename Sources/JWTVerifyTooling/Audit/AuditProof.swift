package import JWTVerify

/// One DPoP proof found by `audit` (header `typ` `dpop+jwt`, ``AuditTokenKind``), judged by
/// ``DPoPProofForm``: its form and its signature by the `jwk` of its own header, never by the
/// audit's keys. Its record says `"kind":"dpop_proof"`.
package struct AuditProof: Sendable {
    private(set) var origin: AuditOrigin
    let column: Int
    /// What the text before the proof says it was (`found_in`).
    let place: TokenExtractor.Place
    /// SHA-256 of the proof's bytes.
    let fingerprint: SHA256Digest
    /// The verdict and the claims as written.
    package let form: DPoPProofForm
    /// The proof itself, kept only when its record is to show it (`--show-tokens`).
    let token: [UInt8]?

    /// The proof `bytes` found at `origin` and `column`, judged under `policy`.
    package init(
        origin: AuditOrigin, column: Int, place: TokenExtractor.Place, bytes: UnsafeRawBufferPointer,
        keepingToken: Bool, policy: VerificationPolicy
    ) {
        self.origin = origin
        self.column = column
        self.place = place
        fingerprint = SHA256Digest(hashing: bytes)
        form = DPoPProofForm(bytes, policy: policy)
        token = keepingToken ? Array(bytes) : nil
    }

    /// The proof with its tag named by `listing`, as ``AuditRecord/named(by:)`` names a token's.
    package func named(by listing: AuditListing) -> AuditProof {
        guard case .tag = origin else { return self }
        var named = self
        named.origin = listing.named(origin)
        return named
    }

    /// Whether the form and the signature hold.
    package var valid: Bool { form.error == nil }

    /// What a replay is judged by, for a valid proof: the SHA-256 of its key's thumbprint, a
    /// zero octet and its `jti` (the library's replay key).
    var replayKey: SHA256Digest? {
        guard valid, let thumbprint = form.thumbprint, let jti = form.jti else { return nil }
        let keyed = Array(thumbprint.utf8) + [0] + Array(jti.utf8)
        return keyed.withUnsafeBytes { SHA256Digest(hashing: $0) }
    }

    /// Appends the JSON Lines record: where, `kind`, the verdict, `alg`, the claims `jti`, `htm`,
    /// `htu`, `iat`, the key's thumbprint `jkt`, the fingerprint, and the proof when kept.
    package func appendJSON(to text: inout OutputText) {
        text.beginObject()
        origin.appendJSON(to: &text)
        text.key("column")
        text.integer(column)
        text.member("found_in", place.description)
        text.member("kind", AuditTokenKind.dpopProof.rawValue)
        text.key("valid")
        text.bool(valid)
        text.member("reason", form.error?.reason.rawValue)
        text.member("detail", form.error?.detail)
        text.member("alg", form.algorithm)
        text.member("jti", form.jti)
        text.member("htm", form.htm)
        text.member("htu", form.htu)
        text.member("iat", form.issuedAt)
        text.member("jkt", form.thumbprint)
        text.key("fingerprint")
        text.hexString(fingerprint)
        if let token {
            text.key("token")
            text.string(token)
        }
        text.endObject()
        text.newline()
    }
}
