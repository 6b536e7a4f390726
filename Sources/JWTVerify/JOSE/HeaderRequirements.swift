/// Header parameters a provider requires to be present (both are optional in RFC 7515/7519), and
/// the type its tokens declare.
package struct HeaderRequirements: Sendable, Hashable {
    /// `typ` must be there (and, as always when present, be ``tokenType``).
    package var type = false
    /// `kid` must be there, even with a single key.
    package var keyID = false
    /// The `typ` a present one must declare: `JWT` unless the provider's tokens are typed otherwise
    /// (RFC 9068's `at+jwt`).
    package var tokenType = TokenType.jwt

    /// Requirements, none by default.
    package init(type: Bool = false, keyID: Bool = false, tokenType: TokenType = .jwt) {
        self.type = type
        self.keyID = keyID
        self.tokenType = tokenType
    }
}
