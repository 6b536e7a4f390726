import JWTVerify

extension SignInWithAppleClient {
    /// The transferring team's step of an app transfer (TN3159): the transfer identifier of one of
    /// your users for the recipient team (`POST /auth/usermigrationinfo` with `sub` and `target`).
    /// Hand the recipient only transfer identifiers, never your team-scoped `sub` or private emails.
    ///
    /// - Parameters:
    ///   - subject: the user's `sub` in your team.
    ///   - recipientTeamID: the team the app moves to.
    public func transferIdentifier(forUser subject: String, toTeam recipientTeamID: String)
        async throws(SignInWithAppleError) -> String
    {
        let access = try await migrationAccessToken()
        let answer = try await post(
            "/auth/usermigrationinfo", [("sub", subject), ("target", recipientTeamID)], bearer: access,
            secrets: [access])
        return try answer.string("transfer_sub")
    }

    /// The recipient team's step of an app transfer (TN3159): the user a transfer identifier stands
    /// for, as your team sees them (`POST /auth/usermigrationinfo` with `transfer_sub`).
    public func exchangeTransferIdentifier(_ transferSubject: String) async throws(SignInWithAppleError)
        -> TransferredUser
    {
        let access = try await migrationAccessToken()
        let answer = try await post(
            "/auth/usermigrationinfo", [("transfer_sub", transferSubject)], bearer: access, secrets: [access])
        return TransferredUser(
            subject: try answer.string("sub"), email: answer.members["email"]?.stringValue,
            isPrivateEmail: answer.lenientBool("is_private_email"))
    }
}
