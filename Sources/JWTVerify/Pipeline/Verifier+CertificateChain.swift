extension Verifier {
    /// Steps 7 and 8 for a provider whose tokens bring their key (``CertificateChainKeys``, App
    /// Store signed data): the key is the `x5c` leaf's, once leaf ← intermediate validates to a
    /// pinned root by every rule but the validity periods, which
    /// ``judgeCertificates(_:at:tokenInstant:)`` applies in the walk, once the signature has held
    /// and the payload (its `signedDate`) can be read. No payload byte is read before then.
    func chooseCertificateKey(
        _ prepared: inout PreparedToken, certificates: [String], from keys: any CertificateChainKeys
    ) {
        switch keys.chainKey(leaf: certificates[0], intermediate: certificates[1]) {
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
        guard let keys = policy.rules.certificateChainKeys else { return nil }
        let instant: Double
        if keys.judgesChainNow {
            instant = policy.clock()
        } else if case .fixed(let fixed) = time {
            instant = fixed
        } else if let tokenInstant {
            instant = tokenInstant
        } else {
            return VerificationError(
                .claimType, detail: "signedDate is missing: the chain is judged at signedDate unless a time is given")
        }
        return keys.judge(validity, at: instant)
    }
}
