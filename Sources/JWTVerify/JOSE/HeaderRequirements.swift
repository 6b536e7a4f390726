/// Header parameters a provider requires to be present (both are optional in RFC 7515/7519).
package struct HeaderRequirements: Sendable, Hashable {
    /// `typ` must be there (and, as always when present, be `JWT` or `application/jwt`).
    package var type = false
    /// `kid` must be there, even with a single key.
    package var keyID = false

    /// Requirements, none by default.
    package init(type: Bool = false, keyID: Bool = false) {
        self.type = type
        self.keyID = keyID
    }
}
