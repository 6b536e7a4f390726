extension Verifier {
    /// The App Store provider's nested signed data: a notification's `data.signedTransactionInfo`,
    /// `data.signedRenewalInfo` and `appData.signedAppTransactionInfo` (as the payload's one parse
    /// read them), each verified as a token of its own under this policy (its own chain, signature,
    /// kind and rules, at its own `signedDate` unless the call gives a time) and attached to the
    /// notification's claims. A nested token that fails fails the notification, with its reason
    /// and the field it came in.
    func verifyNestedSignedData(_ notification: AppStoreClaims, time: EvaluationTime) -> Result<
        AppStoreClaims, VerificationError
    > {
        var verified: [AppStoreClaims?] = [nil, nil, nil]
        let nested = [
            (notification.signedTransactionInfo, "data.signedTransactionInfo", AppStoreClaims.Kind.transaction),
            (notification.signedRenewalInfo, "data.signedRenewalInfo", .renewalInfo),
            (notification.signedAppTransactionInfo, "appData.signedAppTransactionInfo", .appTransaction),
        ]
        for (position, (signed, field, expected)) in nested.enumerated() {
            guard var token = signed else { continue }
            let result = token.withUTF8 { evaluateOne(UnsafeRawBufferPointer($0), rawNonce: nil, time: time) }
            switch result {
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
        return .success(
            notification.with(transaction: verified[0], renewalInfo: verified[1], appTransaction: verified[2]))
    }
}
