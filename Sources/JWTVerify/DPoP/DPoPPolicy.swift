/// How a policy treats DPoP (RFC 9449) proofs: ``VerificationPolicy/dpop``.
///
/// - ``Mode-swift.enum/off`` (the default): proofs are not taken (one handed to
///   ``Verifier/verify(_:dpop:nonce:at:)`` is ignored), and an access token bound to a key (`cnf.jkt`)
///   is refused as `dpop_missing`: it cannot be checked as a plain Bearer token.
/// - ``Mode-swift.enum/allowed``: a proof, when given, is checked; a token bound to a key
///   needs one (else `dpop_missing`).
/// - ``Mode-swift.enum/required``: every token needs a proof and a `cnf.jkt`.
///
/// A proof is checked after the token verified, in a fixed order (see <doc:DPoP>): its JWS
/// form, `typ` `dpop+jwt`, `alg` on ``algorithms``, the header's `jwk` (public members only)
/// and the signature by it, `htm`, `htu`, `iat` within ``proofWindow`` (plus the policy's
/// leeway), `jti`, `ath`, the token's `cnf.jkt`, and last the replay check.
public struct DPoPPolicy: Sendable, Hashable {
    /// Whether proofs are taken, and whether they are required.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Proofs are not taken; a token bound to a key (`cnf.jkt`) is refused.
        case off
        /// A proof, when given, is checked; a token bound to a key needs one.
        case allowed
        /// Every token needs a proof and a `cnf.jkt`.
        case required
    }

    /// Whether proofs are taken, and whether they are required.
    public var mode: Mode
    /// How old a proof's `iat` may be, in seconds (finite, > 0; 60 by default); the policy's
    /// leeway is added, to both sides. A proof's `jti` is remembered this long, plus the leeway.
    public var proofWindow: Double {
        get { checkedWindow }
        set {
            precondition(newValue > 0 && newValue.isFinite, "proofWindow must be a finite number of seconds > 0")
            checkedWindow = newValue
        }
    }
    private var checkedWindow: Double
    /// The proof `alg` values accepted (every asymmetric algorithm this library knows by default).
    /// `none` and the symmetric `HS*` are never accepted: they are not ``SignatureAlgorithm``s.
    public var algorithms: Set<SignatureAlgorithm>
    /// Most proofs remembered at once by a verifier's replay cache (at least 1; 65,536 by
    /// default). When it is full of proofs still within their window, a new proof is refused
    /// (`dpop_replayed`), never let through unrecorded: see ``DPoPReplayCache``.
    public var replayCapacity: Int {
        get { checkedCapacity }
        set {
            precondition(newValue >= 1, "replayCapacity must be at least 1")
            checkedCapacity = newValue
        }
    }
    private var checkedCapacity: Int

    /// The default proof window: 60 seconds.
    public static let defaultProofWindow = 60.0
    /// The default replay capacity: 65,536 proofs.
    public static let defaultReplayCapacity = 65536

    /// A DPoP policy from its parts.
    public init(
        mode: Mode, proofWindow: Double = DPoPPolicy.defaultProofWindow,
        algorithms: Set<SignatureAlgorithm> = Set(SignatureAlgorithm.all),
        replayCapacity: Int = DPoPPolicy.defaultReplayCapacity
    ) {
        precondition(proofWindow > 0 && proofWindow.isFinite, "proofWindow must be a finite number of seconds > 0")
        precondition(replayCapacity >= 1, "replayCapacity must be at least 1")
        precondition(!algorithms.isEmpty, "DPoPPolicy: algorithms is empty, so no proof could be accepted")
        self.mode = mode
        self.checkedWindow = proofWindow
        self.algorithms = algorithms
        self.checkedCapacity = replayCapacity
    }

    /// Proofs not taken (the default).
    public static let off = DPoPPolicy(mode: .off)
    /// Proofs checked when given; bound tokens need one.
    public static let allowed = DPoPPolicy(mode: .allowed)
    /// Every token needs a proof and a `cnf.jkt`.
    public static let required = DPoPPolicy(mode: .required)

    /// Whether proofs are taken at all.
    var takesProofs: Bool { mode != .off }
}

extension VerificationPolicy {
    /// This policy with DPoP `dpop` (``DPoPPolicy``).
    public func dpop(_ dpop: DPoPPolicy) -> VerificationPolicy {
        var copy = self
        copy.dpop = dpop
        return copy
    }
}
