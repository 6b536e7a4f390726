extension ProfileSetting {
    /// App Store: an accepted bundle ID (repeatable).
    package static let bundleIDs = ProfileSetting(
        "bundle-id", placeholder: "ID", kind: .texts, described: "a bundle ID",
        help: "App Store: an accepted bundle ID (repeatable).")
    /// App Store: the required environment.
    package static let environment = ProfileSetting(
        "environment", placeholder: "E", kind: .choice(AppStoreEnvironment.allCases.map(\.rawValue)),
        described: "an environment", help: "App Store: Production or Sandbox, when one is required.")
    /// App Store: the app's Apple ID.
    package static let appAppleID = ProfileSetting(
        "app-apple-id", placeholder: "N", kind: .positiveInteger, described: "an app Apple ID",
        help: "App Store: the app's Apple ID (production notifications and AppTransactions;\nrealtime requests, "
            + "where production ones need it).")
    /// App Store: the roots chains must lead to, PEM or DER files.
    package static let appStoreTrust = ProfileSetting(
        "apple-root", placeholder: "FILE", kind: .files, described: "roots of its own",
        help: "App Store: a trusted root, PEM or DER (repeatable; replaces the\nbundled Apple Root CA - G3).")
    /// App Store: OCSP checks, and the chain judged now.
    package static let onlineChecks = ProfileSetting(
        "online-checks", placeholder: nil, kind: .flag, described: "online checks",
        help:
            "App Store: ask the chain's OCSP responders (answers kept 15 min) and judge\nthe chain now; "
            + "certificate_revoked, or revocation_unavailable (retry).")
}

extension ProfileSetting {
    /// App Store: the OCSP transport online checks use. Set by the caller, never a flag: no face
    /// lists it (``ProfileSetting/Faces`` empty).
    package static let ocspTransport = ProfileSetting(
        "ocsp-transport", placeholder: nil, kind: .flag, described: "an OCSP transport",
        help: "", faces: [])
}

extension VerificationPolicy.ProfileSettings {
    /// App Store: the accepted bundle IDs; `nil` checks none (audits of captured data only).
    public var bundleIDs: [String]? {
        get { self[.bundleIDs]?.texts }
        set { self[.bundleIDs] = newValue.map(ProfileSettingValue.texts) }
    }
    /// App Store: the required environment, if any.
    public var environment: AppStoreEnvironment? {
        get { text(.environment).flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { set(.environment, text: newValue?.rawValue) }
    }
    /// App Store: the app's Apple ID, checked on production notifications and AppTransactions, and
    /// on realtime requests (required for production ones).
    public var appAppleID: Int64? {
        get { self[.appAppleID]?.integer }
        set { self[.appAppleID] = newValue.map(ProfileSettingValue.integer) }
    }
    /// App Store: the roots chains must lead to (Apple Root CA - G3 unless set).
    public var appStoreTrust: AppStoreTrust {
        get {
            if case .value(let trust as AppStoreTrust)? = self[.appStoreTrust] { return trust }
            return (try? resolvedAppStoreTrust()) ?? .appleRootCAG3
        }
        set { self[.appStoreTrust] = newValue == .appleRootCAG3 ? nil : .value(newValue) }
    }
    /// App Store: OCSP checks of the chain, judged at the current time.
    public var onlineChecks: Bool {
        get { flag(.onlineChecks) }
        set { set(.onlineChecks, flag: newValue) }
    }

    /// App Store: what carries online checks' OCSP exchanges (`JWTVerifyRemote`'s
    /// `HTTPOCSPTransport`, which the command line gives), when ``onlineChecks`` is on and
    /// ``appStoreTrust`` has none of its own. Without one, every online check is
    /// `revocation_unavailable`.
    public var ocspTransport: (any OCSPTransport)? {
        get {
            guard case .value(let transport as any OCSPTransport)? = self[.ocspTransport] else { return nil }
            return transport
        }
        set { self[.ocspTransport] = newValue.map { .value($0) } }
    }

    /// The roots: set through the API, or read from the files given (`--apple-root`), or Apple's;
    /// with online checks, carried by ``ocspTransport`` when given.
    func resolvedAppStoreTrust() throws(VerificationPolicy.ProfileError) -> AppStoreTrust {
        var trust: AppStoreTrust
        switch self[.appStoreTrust] {
        case .value(let given as AppStoreTrust)?: trust = given
        case .files(let files)?:
            do {
                trust = try AppStoreTrust(rootCertificates: files)
            } catch {
                throw VerificationPolicy.ProfileError(
                    description: "not a PEM or DER certificate", refusedFile: (.appStoreTrust, error.index))
            }
        default: trust = .appleRootCAG3
        }
        if onlineChecks, let ocspTransport { trust = trust.checkingRevocation(through: ocspTransport) }
        return trust
    }
}
