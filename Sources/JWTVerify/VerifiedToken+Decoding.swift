#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension RegisteredClaims {
    /// `exp` as a `Date`.
    public var expiresAtDate: Date? { expiresAt.map(Date.init(timeIntervalSince1970:)) }
    /// `nbf` as a `Date`.
    public var notBeforeDate: Date? { notBefore.map(Date.init(timeIntervalSince1970:)) }
    /// `iat` as a `Date`.
    public var issuedAtDate: Date? { issuedAt.map(Date.init(timeIntervalSince1970:)) }
}

extension VerifiedToken {
    /// The expiry time as a `Date` (always present in a verified token).
    public var expiresAtDate: Date { Date(timeIntervalSince1970: expiresAt) }

    /// The verified payload decoded as your own claims type.
    ///
    /// The bytes decoded are the payload the signature covered and the verifier already checked;
    /// nothing is fetched or parsed from anywhere else. NumericDate members decode into `Date`
    /// properties as seconds since the epoch, unless `decoder` says otherwise.
    ///
    /// ```swift
    /// struct SessionClaims: Decodable {
    ///     let sub: String
    ///     let exp: Date
    ///     let roles: [String]
    /// }
    /// let session = try verifier.verify(bearer).claims(as: SessionClaims.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder to use; by default a `JSONDecoder` with dates as seconds since
    ///     the epoch.
    /// - Throws: the decoder's `DecodingError` when the payload does not fit `type`.
    public func claims<Claims: Decodable>(as type: Claims.Type, decoder: JSONDecoder? = nil) throws -> Claims {
        let decoder =
            decoder
            ?? {
                let standard = JSONDecoder()
                standard.dateDecodingStrategy = .secondsSince1970
                return standard
            }()
        return try decoder.decode(type, from: Data(payload))
    }
}
