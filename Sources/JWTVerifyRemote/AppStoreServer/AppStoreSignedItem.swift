public import JWTVerify

/// One signed item of an App Store Server API answer (a transaction, a renewal info, a
/// notification), verified under the client's App Store policy before it was handed out.
public struct AppStoreSignedItem: Sendable {
    /// The JWS exactly as Apple sent it.
    public let signed: String
    /// The verified token: header, payload, and every claim in `VerifiedToken/allClaims`.
    public let token: VerifiedToken
    /// Its App Store claims, typed (a notification's nested transaction and renewal info verified too).
    public let claims: AppStoreClaims
}
