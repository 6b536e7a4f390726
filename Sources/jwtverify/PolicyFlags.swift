import JWTVerify
import JWTVerifyRemote

/// The flags that make a ``VerificationPolicy``, shared by `verify`, `audit` and `inspect`:
/// `--profile` and its companions, `--issuer`, `--audience`, `--nonce`, `--leeway`, `--now`,
/// `--algorithms` and `--max-token-bytes`. The policy is built in one place, ``policy(_:)``.
struct PolicyFlags {
    var profile: String?
    var project: String?
    var projectNumber: String?
    var hostedDomain: String?
    var authorizedParty: String?
    var acceptMissingNonceWhenUnsupported = false
    var issuer: String?
    var audiences: [String] = []
    var nonce: String?
    /// `--skip-nonce`: this service uses no nonces (the Apple profile requires one otherwise).
    var skipNonce = false
    var leeway = VerificationPolicy.defaultLeeway
    var now: Double?
    /// `nil`: not given (the profile's or the default allow-list applies).
    var algorithms: Set<SignatureAlgorithm>?
    var maxTokenBytes = VerificationPolicy.defaultMaxTokenBytes
    /// App Store: `--bundle-id`, `--environment`, `--app-apple-id`, `--apple-root`.
    var bundleIDs: [String] = []
    var environment: AppStoreEnvironment?
    var appAppleID: Int64?
    var appleRoots: [String] = []
    var onlineChecks = false

    static var profileNames: [String] { VerificationPolicy.profileNames }

    /// `--profile` and the flags that go with it.
    static let profileOptions: [Option<PolicyFlags>] = [
        .value(
            "--profile", placeholder: "P",
            help: HelpText.wrapped(VerificationPolicy.profileNames, separator: " |")
                + ":\nfills in the issuer, algorithms and default key set (--jwks overrides it),\nadds the provider's rules, and a typed \"claims\" object to the output.\napp-store takes its keys from each token's x5c chain, never --jwks."
        ) { flags, value, name throws(CommandFailure) in
            guard profileNames.containsExactly(value) else {
                throw .usage("\(name) takes " + profileNames.joined(separator: ", "))
            }
            flags.profile = value
        },
        .value("--project", placeholder: "ID", help: "Firebase project ID (instead of --issuer/--audience).") {
            $0.project = $1
        },
        .value("--project-number", placeholder: "N", help: "Firebase project number (firebase-app-check).") {
            $0.projectNumber = $1
        },
        .value("--hosted-domain", placeholder: "D", help: "Google: required \"hd\".") { $0.hostedDomain = $1 },
        .value("--authorized-party", placeholder: "A", help: "Google: required \"azp\", when the token has one.") {
            $0.authorizedParty = $1
        },
        .value("--bundle-id", placeholder: "ID", help: "App Store: an accepted bundle ID (repeatable).") {
            flags, value, name throws(CommandFailure) in
            guard !value.isEmpty else {
                throw .usage("\(name) takes a non-empty bundle ID (an empty one accepts no token)")
            }
            flags.bundleIDs.append(value)
        },
        .value("--environment", placeholder: "E", help: "App Store: Production or Sandbox, when one is required.") {
            flags, value, name throws(CommandFailure) in
            guard
                let environment = AppStoreEnvironment.allCases.first(where: {
                    $0.rawValue.lowercased() == value.lowercased()
                })
            else {
                throw .usage("\(name) takes Production or Sandbox")
            }
            flags.environment = environment
        },
        .value("--app-apple-id", placeholder: "N", help: "App Store: the app's Apple ID (production notifications).") {
            flags, value, name throws(CommandFailure) in
            guard let number = Int64(value), number > 0 else { throw .usage("\(name) takes a positive integer") }
            flags.appAppleID = number
        },
        .value(
            "--apple-root", placeholder: "FILE",
            help: "App Store: a trusted root, PEM or DER (repeatable; replaces the\nbundled Apple Root CA - G3)."
        ) { $0.appleRoots.append($1) },
        .flag(
            "--online-checks",
            help:
                "App Store: ask the chain's OCSP responders (answers kept 15 min) and judge\nthe chain now; certificate_revoked, or revocation_unavailable (retry)."
        ) { $0.onlineChecks = true },
        .flag(
            "--accept-missing-nonce-when-unsupported",
            help: "Apple: accept a token without nonce if it says nonce_supported false."
        ) { $0.acceptMissingNonceWhenUnsupported = true },
    ]

    /// `--issuer` and `--audience`; `optional`: wording for faces where they may be left out.
    static func claimOptions(optional: Bool) -> [Option<PolicyFlags>] {
        [
            .value(
                "--issuer", placeholder: "ISS",
                help: optional
                    ? "Required \"iss\" (optional here: without it, issuers are reported)."
                    : "Required \"iss\", compared exactly."
            ) {
                flags, value, name throws(CommandFailure) in
                guard !value.isEmpty else {
                    throw .usage("\(name) takes a non-empty issuer (an empty one accepts no token)")
                }
                flags.issuer = value
            },
            .value(
                "--audience", placeholder: "AUD",
                help: optional
                    ? "Accepted \"aud\", repeatable (optional here, as --issuer)."
                    : "Accepted \"aud\". Repeatable: any of them is accepted."
            ) {
                flags, value, name throws(CommandFailure) in
                guard !value.isEmpty else {
                    throw .usage("\(name) takes a non-empty audience (an empty one accepts no token)")
                }
                flags.audiences.append(value)
            },
        ]
    }

    static let nonceOption: Option<PolicyFlags> = .value(
        "--nonce", placeholder: "RAW",
        help: "Raw nonce for tokens without their own; the token's \"nonce\" must be\nthe lowercase hex SHA-256 of it."
    ) { $0.nonce = $1 }

    static let skipNonceOption: Option<PolicyFlags> = .flag(
        "--skip-nonce",
        help:
            "This service uses no nonces: a token is not rejected as nonce_missing for\nwant of a raw nonce, which --profile apple otherwise requires (from\n--nonce or the input line). A raw nonce that is given is still checked."
    ) { $0.skipNonce = true }

    static let leewayOption: Option<PolicyFlags> = .value(
        "--leeway", placeholder: "SECONDS", help: "Clock-skew allowance for exp/nbf/iat (default 60)."
    ) { flags, value, name throws(CommandFailure) in flags.leeway = try OptionValue.seconds(name, value) }

    static let nowOption: Option<PolicyFlags> = .value(
        "--now", placeholder: "T",
        help:
            "Evaluate at T: Unix seconds (fractions allowed) or RFC 3339\n(e.g. 2023-11-14T22:30:00Z). Default: the current time."
    ) { flags, value, name throws(CommandFailure) in flags.now = try OptionValue.time(name, value) }

    static let algorithmsOption: Option<PolicyFlags> = .value(
        "--algorithms", placeholder: "LIST",
        help:
            "Comma-separated allow-list (default RS256,ES256; repeats add up). Known:\nRS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512,EdDSA."
    ) { flags, value, name throws(CommandFailure) in
        let parsed = try OptionValue.algorithms(name, value)
        flags.algorithms = (flags.algorithms ?? []).union(parsed)
    }

    static let maxTokenBytesOption: Option<PolicyFlags> = .value(
        "--max-token-bytes", placeholder: "N",
        help: "Longest token accepted (default 65536); longer ones are \"too_large\"."
    ) { flags, value, name throws(CommandFailure) in
        flags.maxTokenBytes = try OptionValue.count(name, value, in: 1...(1 << 30))
    }

    /// Every policy flag, in help order. `--skip-nonce` is taken everywhere, so one set of flags
    /// serves every face; `audit` and `inspect` never require a nonce anyway.
    static func all(optionalClaims: Bool) -> [Option<PolicyFlags>] {
        profileOptions + claimOptions(optional: optionalClaims) + [
            nonceOption, skipNonceOption, leewayOption, nowOption, algorithmsOption, maxTokenBytesOption,
        ]
    }

    /// What a command's policy is for.
    enum Use {
        /// A service's check (verify, serve): an issuer and an audience are required, as a
        /// sign-in check needs, and the Apple profile requires a raw nonce unless `--skip-nonce`.
        case service
        /// One token looked at by a person (inspect): issuer and audience may be left unchecked;
        /// otherwise verify's rules, the Apple profile's raw nonce included.
        case inspection
        /// Captured tokens, which come without their raw nonces (audit): issuer and audience may
        /// be left unchecked, and a nonce is checked only when `--nonce` gives one.
        case audit
    }

    /// The policy these flags describe, for `use`.
    func policy(_ use: Use) throws(CommandFailure) -> VerificationPolicy {
        let strict = use == .service
        var policy: VerificationPolicy
        let given = givenSettings
        if let profile {
            guard let provider = ProviderRegistry.profile(named: profile) else {
                throw .usage("--profile takes " + Self.profileNames.joined(separator: ", "))
            }
            // The provider's own settings, and only those (``ProviderProfile/settings``).
            for setting in ProfileSetting.allCases where given.contains(setting) && !provider.settings.contains(setting)
            {
                throw .usage("\(Self.flag(setting)) does not go with --profile \(profile)" + Self.takers(setting))
            }
            for setting in ProfileSetting.allCases
            where provider.requiredSettings(forService: strict).contains(setting) && !given.contains(setting) {
                throw .usage(
                    "--profile \(profile) needs \(Self.flag(setting))"
                        + (setting == .bundleIDs ? " (repeat it to accept several)" : ""))
            }
            let trust = try appStoreTrust()
            do {
                // Without an audience here, the checks below decide: required for a service, unchecked for an audit.
                policy = try VerificationPolicy.profile(
                    named: profile,
                    .init(
                        audiences: audiences, issuer: issuer, project: project, projectNumber: projectNumber,
                        hostedDomain: hostedDomain,
                        authorizedParty: authorizedParty,
                        acceptMissingNonceWhenUnsupported: acceptMissingNonceWhenUnsupported,
                        bundleIDs: bundleIDs.isEmpty ? nil : bundleIDs, environment: environment,
                        appAppleID: appAppleID,
                        appStoreTrust: onlineChecks ? trust.checkingRevocation(through: HTTPOCSPTransport()) : trust,
                        onlineChecks: onlineChecks),
                    audienceUnchecked: true)
            } catch {
                throw .usage("--profile: \(error.description)")
            }
        } else {
            for setting in ProfileSetting.allCases
            where given.contains(setting) && setting != .audiences && setting != .issuer {
                throw .usage("\(Self.flag(setting)) needs --profile" + Self.takers(setting))
            }
            if strict && issuer == nil { throw .usage("--issuer is required (or --profile)") }
            policy = VerificationPolicy(issuers: issuer.map { [$0] }, audiences: audiences.isEmpty ? nil : audiences)
        }
        if (policy.audiences?.isEmpty ?? true) && !keysFromTokens {
            if strict { throw .usage("--audience is required (repeat it to accept several)") }
            policy.audiences = nil
        }
        if let algorithms { policy.algorithms = algorithms }
        if skipNonce || use == .audit { policy.nonceRequirement = .checkedWhenGiven }
        policy.leeway = leeway
        policy.maxTokenBytes = maxTokenBytes
        return policy
    }

    /// The roots of `--apple-root`, or Apple's bundled one.
    private func appStoreTrust() throws(CommandFailure) -> AppStoreTrust {
        guard !appleRoots.isEmpty else { return .appleRootCAG3 }
        var certificates: [[UInt8]] = []
        for path in appleRoots {
            guard let data = try? JWKSet.readFile(path) else {
                throw CommandFailure(status: .noInput, message: "--apple-root \(path): cannot read the file")
            }
            certificates.append(data)
        }
        do {
            return try AppStoreTrust(rootCertificates: certificates)
        } catch {
            throw CommandFailure(
                status: .dataError, message: "--apple-root \(appleRoots[error.index]): not a PEM or DER certificate")
        }
    }

    /// Whether the policy takes each token's key from the token's own certificate chain (App
    /// Store signed data) rather than from `--jwks`.
    var keysFromTokens: Bool { profile.flatMap(ProviderRegistry.profile(named:))?.keyOrigin == .certificateChain }

    /// The profile settings these flags give.
    private var givenSettings: Set<ProfileSetting> {
        var given: Set<ProfileSetting> = []
        if !audiences.isEmpty { given.insert(.audiences) }
        if issuer != nil { given.insert(.issuer) }
        if project != nil { given.insert(.project) }
        if projectNumber != nil { given.insert(.projectNumber) }
        if hostedDomain != nil { given.insert(.hostedDomain) }
        if authorizedParty != nil { given.insert(.authorizedParty) }
        if acceptMissingNonceWhenUnsupported { given.insert(.acceptMissingNonceWhenUnsupported) }
        if !bundleIDs.isEmpty { given.insert(.bundleIDs) }
        if environment != nil { given.insert(.environment) }
        if appAppleID != nil { given.insert(.appAppleID) }
        if !appleRoots.isEmpty { given.insert(.appStoreTrust) }
        if onlineChecks { given.insert(.onlineChecks) }
        return given
    }

    /// The flag that gives a profile setting.
    static func flag(_ setting: ProfileSetting) -> String {
        switch setting {
        case .audiences: "--audience"
        case .issuer: "--issuer"
        case .project: "--project"
        case .projectNumber: "--project-number"
        case .hostedDomain: "--hosted-domain"
        case .authorizedParty: "--authorized-party"
        case .acceptMissingNonceWhenUnsupported: "--accept-missing-nonce-when-unsupported"
        case .bundleIDs: "--bundle-id"
        case .environment: "--environment"
        case .appAppleID: "--app-apple-id"
        case .appStoreTrust: "--apple-root"
        case .onlineChecks: "--online-checks"
        }
    }

    /// " (it goes with --profile A, B)": the profiles that take `setting`.
    private static func takers(_ setting: ProfileSetting) -> String {
        let names = ProviderRegistry.profiles.filter { $0.settings.contains(setting) }.map { $0.name }
        return names.isEmpty ? "" : " (it goes with --profile " + names.joined(separator: ", ") + ")"
    }

    /// When tokens are evaluated: `--now`, or the clock.
    var evaluationTime: EvaluationTime { now.map(EvaluationTime.fixed) ?? .clock }
}

/// `--cache N`, shared by `verify` and `audit`: the verified-token cache's size (0: off).
struct CacheFlags {
    var capacity = 0

    static let options: [Option<CacheFlags>] = [
        .value(
            "--cache", placeholder: "N",
            help:
                "Keep up to N verified tokens (0, the default: off). A repeat of a kept token\nskips only the signature and what its bytes alone decide; exp/nbf/iat, the\nnonce and the provider's time rules are checked on every use, and a token\nwhose key rotated away or changed is verified again."
        ) { flags, value, name throws(CommandFailure) in
            flags.capacity = try OptionValue.count(name, value, in: 0...10_000_000)
        }
    ]

    /// The cache to build, if any.
    var configuration: VerifiedTokenCache.Configuration? { capacity > 0 ? .init(capacity: capacity) : nil }
}
