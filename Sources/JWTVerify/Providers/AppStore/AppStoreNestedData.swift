extension AppStoreClaims {
    /// Where a notification carries signed data of its own, as dotted paths into its payload, in
    /// the order they are verified: each is a compact JWS under the same chain rules.
    package static let nestedSignedDataFields = [
        "data.signedTransactionInfo", "data.signedRenewalInfo", "appData.signedAppTransactionInfo",
    ]

    /// A notification's nested signed data as read, before it is verified: each field's token
    /// (`nil` where the notification has none), its name and the kind it must be, in
    /// ``nestedSignedDataFields``' order.
    var nestedSignedData: [(token: NestedToken?, field: String, kind: Kind)] {
        let fields = Self.nestedSignedDataFields
        return [
            (signedTransactionInfo, fields[0], .transaction),
            (signedRenewalInfo, fields[1], .renewalInfo),
            (signedAppTransactionInfo, fields[2], .appTransaction),
        ]
    }

    /// The notification with the verdicts of its nested signed data (one per token present, in
    /// ``nestedSignedData``'s order) attached; the first nested token that failed, or is not of
    /// its field's kind, fails the notification, with its reason and the field it came in.
    func completed(with verdicts: ArraySlice<Result<VerifiedToken, VerificationError>>) -> Result<
        AppStoreClaims, VerificationError
    > {
        var verified: [AppStoreClaims?] = [nil, nil, nil]
        var next = verdicts.startIndex
        for (position, (token, field, expected)) in nestedSignedData.enumerated() where token != nil {
            guard next < verdicts.endIndex else {
                return .failure(VerificationError(.claimType, detail: "\(field) was not verified"))
            }
            let verdict = verdicts[next]
            next += 1
            switch verdict {
            case .failure(let error):
                return .failure(VerificationError(error.reason, detail: "\(field): \(error.detail)"))
            case .success(let inner):
                guard let claims = inner.provider.claims(as: AppStoreClaims.self), claims.kind == expected else {
                    return .failure(
                        VerificationError(.claimType, detail: "\(field) is not a signed \(expected.rawValue)"))
                }
                verified[position] = claims
            }
        }
        return .success(with(transaction: verified[0], renewalInfo: verified[1], appTransaction: verified[2]))
    }
}
