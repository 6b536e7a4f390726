extension ProfileSetting {
    /// Access tokens: whether DPoP proofs (RFC 9449) are taken, `required` or `allowed`
    /// (``DPoPPolicy``); off when not given.
    package static let dpop = ProfileSetting(
        "dpop", placeholder: "MODE", kind: .choice(["required", "allowed"]), described: "a DPoP mode",
        help:
            "access-token: DPoP proofs (RFC 9449), required or allowed (default: off,\n"
            + "and a token bound by cnf.jkt is refused, dpop_missing). verify reads a\n"
            + "line's \"dpop\", \"method\" and \"uri\", in input order on one thread (the\n"
            + "first of two equal proofs is the one accepted); inspect a JSON request's.",
        faces: [.verify, .inspect, .serve])
}

extension VerificationPolicy.ProfileSettings {
    /// Access tokens: whether DPoP proofs are taken (``DPoPPolicy/Mode-swift.enum``); `nil`: off.
    public var dpop: DPoPPolicy.Mode? {
        get { text(.dpop).flatMap(DPoPPolicy.Mode.init(rawValue:)) }
        set { set(.dpop, text: newValue == .off ? nil : newValue?.rawValue) }
    }
}
