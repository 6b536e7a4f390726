extension ProfileSetting {
    /// Access tokens: a scope the token's `scope` must list (repeatable: all required).
    package static let scope = ProfileSetting(
        "scope", placeholder: "S", kind: .texts, described: "a scope",
        help: "access-token: a scope \"scope\" must list. Repeatable: all are required.")
}

extension VerificationPolicy.ProfileSettings {
    /// Access tokens: the scopes the token's `scope` must list, every one.
    public var scopes: [String] {
        get { self[.scope]?.texts ?? [] }
        set { self[.scope] = newValue.isEmpty ? nil : .texts(newValue) }
    }
}
