import JWTVerify

/// What identifies a Sign in with Apple client to Apple: the team, the client (bundle ID or
/// Services ID), and the Sign in with Apple key that signs its client secrets.
public struct SignInWithAppleCredentials: Sendable {
    /// Your Apple Developer team ID (the client secret's `iss`).
    public var teamID: String
    /// Your app's bundle ID or Services ID (the client secret's `sub`, the identity tokens' `aud`).
    public var clientID: String
    /// The key's ID (the client secret's `kid`).
    public var keyID: String
    /// The contents of the key's `AuthKey_<keyID>.p8` file (PKCS#8, P-256).
    public var privateKeyPEM: [UInt8]

    /// Credentials from their parts.
    public init(teamID: String, clientID: String, keyID: String, privateKeyPEM: [UInt8]) {
        self.teamID = teamID
        self.clientID = clientID
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
    }
}

/// Credentials print without their key: the team, client and key IDs, and `<redacted>` for the `.p8`.
extension SignInWithAppleCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        Redacted.describe(
            "SignInWithAppleCredentials",
            ["teamID": teamID, "clientID": clientID, "keyID": keyID, "privateKeyPEM": Redacted.marker])
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self, children: ["teamID": teamID, "clientID": clientID, "keyID": keyID, "privateKeyPEM": Redacted.marker],
            displayStyle: .struct)
    }
}
