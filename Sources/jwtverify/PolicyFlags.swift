import JWTVerify
import JWTVerifyRemote

/// The flags that make a ``VerificationPolicy``, shared by `verify`, `audit` and `inspect`:
/// `--profile` and its companions, `--issuer`, `--audience`, `--nonce`, `--leeway`, `--now`,
/// `--algorithms` and `--max-token-bytes`. The policy is built in one place, ``policy(_:)``.
struct PolicyFlags {
    var profile: String?
    /// The profiles' own settings given, by the flags their declarations make
    /// (``ProviderRegistry/settings``); files are read when the policy is made.
    var settings = VerificationPolicy.ProfileSettings()
    /// The paths given to settings that take files, in order.
    var files: [(setting: ProfileSetting, path: String)] = []
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
    /// `--require-claim`: authorization rules, every one required.
    var claimRules: [ClaimRule] = []

    static var profileNames: [String] { VerificationPolicy.profileNames }

    /// `--profile`.
    static let profileOption: Option<PolicyFlags> = .value(
        "--profile", placeholder: "P",
        help: HelpText.wrapped(VerificationPolicy.profileNames, separator: " |")
            + ":\nfills in the issuer, algorithms and default key set (--jwks overrides it),\nadds the provider's rules, and a typed \"claims\" object to the output.\napp-store takes its keys from each token's x5c chain, never --jwks."
    ) { flags, value, name throws(CommandFailure) in
        guard profileNames.containsExactly(value) else {
            throw .usage("\(name) takes " + profileNames.joined(separator: ", "))
        }
        flags.profile = value
    }

    /// `--profile` and the flags of the profiles' settings that `face` takes, as the profiles
    /// declare them (``ProfileSetting``): adding a setting to a profile adds its flag here, and so
    /// to the help, the manual pages, the completions and `serve --config`.
    static func profileOptions(for face: ProfileSetting.Faces) -> [Option<PolicyFlags>] {
        [profileOption] + ProviderRegistry.settings.filter { $0.faces.contains(face) }.map(option(for:))
    }

    /// The flag of one setting.
    private static func option(for setting: ProfileSetting) -> Option<PolicyFlags> {
        Option(names: [setting.flag], placeholder: setting.placeholder, help: setting.help) {
            flags, value, name throws(CommandFailure) in
            if case .files = setting.kind {
                flags.files.append((setting, value))
                return
            }
            switch setting.parse(value) {
            case .success(let parsed): flags.settings[setting] = flags.settings[setting]?.adding(parsed) ?? parsed
            case .failure(let refusal): throw .usage("\(name) \(refusal.message)")
            }
        }
    }

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

    static let requireClaimOption: Option<PolicyFlags> = .value(
        "--require-claim", placeholder: "PATH=VALUE",
        help:
            "Authorization rule: claim PATH (a member, or a dotted path into nested\nobjects: realm_access.roles) must be the string VALUE, or an array holding\nit (true/false also match booleans). Repeatable: all must hold, else\n\"claim_mismatch\"."
    ) { flags, value, name throws(CommandFailure) in
        guard let rule = ClaimRule(parsing: value) else {
            throw .usage("\(name) takes PATH=VALUE (PATH a claim or a dotted path, \\. for a dot in a name)")
        }
        flags.claimRules.append(rule)
    }

    /// Every policy flag, in help order. `--skip-nonce` is taken everywhere, so one set of flags
    /// serves every face; `audit` and `inspect` never require a nonce anyway.
    static func all(optionalClaims: Bool, face: ProfileSetting.Faces) -> [Option<PolicyFlags>] {
        profileOptions(for: face) + claimOptions(optional: optionalClaims) + [
            nonceOption, skipNonceOption, leewayOption, nowOption, algorithmsOption, maxTokenBytesOption,
            requireClaimOption,
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
            for setting in ProfileSetting.generic + ProviderRegistry.settings
            where given.contains(setting) && !provider.settings.contains(setting) {
                throw .usage("\(setting.flag) does not go with --profile \(profile)" + Self.takers(setting))
            }
            for setting in provider.settings
            where provider.requiredSettings(forService: strict).contains(setting) && !given.contains(setting) {
                throw .usage(
                    "--profile \(profile) needs \(setting.flag)"
                        + (setting.kind == .texts ? " (repeat it to accept several)" : ""))
            }
            var settings = self.settings
            settings.audiences = audiences
            settings.issuer = issuer
            settings.ocspTransport = HTTPOCSPTransport()
            try readFiles(into: &settings)
            do {
                // Without an audience here, the checks below decide: required for a service, unchecked for an audit.
                policy = try VerificationPolicy.profile(named: profile, settings, audienceUnchecked: true)
            } catch {
                if let (setting, index) = error.refusedFile {
                    let path = files.filter { $0.setting == setting }[index].path
                    throw CommandFailure(status: .dataError, message: "\(setting.flag) \(path): \(error.description)")
                }
                throw .usage("--profile: \(error.description)")
            }
        } else {
            for setting in ProviderRegistry.settings where given.contains(setting) {
                throw .usage("\(setting.flag) needs --profile" + Self.takers(setting))
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
        policy.claimRules = claimRules
        return policy
    }

    /// The files given to settings that take them, read into `settings`.
    private func readFiles(into settings: inout VerificationPolicy.ProfileSettings) throws(CommandFailure) {
        for (setting, path) in files {
            guard let data = try? JWKSet.readFile(path) else {
                throw CommandFailure(status: .noInput, message: "\(setting.flag) \(path): cannot read the file")
            }
            settings[setting] = (settings[setting] ?? .files([])).adding(.files([data]))
        }
    }

    /// Whether the policy takes each token's key from the token's own certificate chain (App
    /// Store signed data) rather than from `--jwks`.
    var keysFromTokens: Bool { profile.flatMap(ProviderRegistry.profile(named:))?.keyOrigin == .certificateChain }

    /// The App Store bundle IDs given.
    var bundleIDs: [String] { settings.bundleIDs ?? [] }

    /// The profile settings these flags give, the generic ones included.
    private var givenSettings: Set<ProfileSetting> {
        var given = Set(ProviderRegistry.settings.filter { settings.isGiven($0) })
        for (setting, _) in files { given.insert(setting) }
        if !audiences.isEmpty { given.insert(.audiences) }
        if issuer != nil { given.insert(.issuer) }
        return given
    }

    /// The usage lines of a service's check with a profile, from the profiles' declarations: the
    /// profiles that need the same flags on one line (`--profile firebase|firebase-session --project ID`).
    static func profileUsage(_ command: String, operands: String) -> [String] {
        var groups: [(flags: String, names: [String])] = []
        for provider in ProviderRegistry.profiles {
            let required = provider.requiredSettings(forService: true)
            let needed = provider.settings.filter { required.contains($0) || $0 == .audiences }
            let flags = needed.map { $0.flag + ($0.placeholder.map { " " + $0 } ?? "") }.joined(separator: " ")
            if let index = groups.firstIndex(where: { $0.flags == flags }) {
                groups[index].names.append(provider.name)
            } else {
                groups.append((flags, [provider.name]))
            }
        }
        return groups.map { group in
            "jwtverify \(command) --profile " + group.names.joined(separator: "|") + " " + group.flags
                + " [options] " + operands
        }
    }

    /// " (it goes with --profile A, B)": the profiles that take `setting`.
    private static func takers(_ setting: ProfileSetting) -> String {
        let names = ProviderRegistry.takers(of: setting).map { $0.name }
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
