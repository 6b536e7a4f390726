extension Verifier {
    /// Steps 7 and 8 for App Store signed data: the key is the `x5c` leaf's, once leaf ←
    /// intermediate validates to a pinned root (``AppStoreTrust``) by every rule but the validity
    /// periods, which ``judgeCertificates(_:at:tokenInstant:)`` applies in the walk, once the signature has
    /// held and the payload (its `signedDate`) can be read. No payload byte is read before then.
    func chooseCertificateKey(
        _ prepared: inout PreparedToken, certificates: [String], trust: (roots: AppStoreTrust, onlineChecks: Bool)
    ) {
        switch trust.roots.chain(leaf: certificates[0], intermediate: certificates[1], onlineChecks: trust.onlineChecks)
        {
        case .success(let chain):
            prepared.certificateKey = chain.key
            prepared.certificateValidity = chain.validity
        case .failure(let error): prepared.stage = .rejected(error)
        }
    }

    /// Whether a verified chain was valid when the token is judged: at the call's fixed time,
    /// else at the instant its provider judges it at (`signedDate`, then required); with online
    /// checks, now.
    func judgeCertificates(_ validity: ClosedRange<Double>, at time: EvaluationTime, tokenInstant: Double?)
        -> VerificationError?
    {
        let instant: Double
        if policy.rules.certificateTrust?.onlineChecks == true {
            instant = policy.clock()
        } else if case .fixed(let fixed) = time {
            instant = fixed
        } else if let tokenInstant {
            instant = tokenInstant
        } else {
            return VerificationError(
                .claimType, detail: "signedDate is missing: the chain is judged at signedDate unless a time is given")
        }
        return AppStoreTrust.judge(validity, at: instant)
    }
}

extension Verifier {
    /// A notification's `data.signedTransactionInfo` and `data.signedRenewalInfo` (as the
    /// payload's one parse read them), each verified as a token of its own under this policy (its
    /// own chain, signature, kind and rules) and attached to the notification's claims. A nested
    /// token that fails fails the notification, with its reason.
    func verifyNestedSignedData(_ notification: AppStoreClaims, time: EvaluationTime) -> Result<
        AppStoreClaims, VerificationError
    > {
        var verified: [AppStoreClaims?] = [nil, nil]
        let nested = [
            (notification.signedTransactionInfo, "data.signedTransactionInfo", AppStoreClaims.Kind.transaction),
            (notification.signedRenewalInfo, "data.signedRenewalInfo", .renewalInfo),
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
        return .success(notification.with(transaction: verified[0], renewalInfo: verified[1]))
    }
}
