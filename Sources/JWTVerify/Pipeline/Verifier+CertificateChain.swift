extension Verifier {
    /// Steps 7 and 8 for App Store signed data: the key is the `x5c` leaf's, once leaf ←
    /// intermediate validates to a pinned root (``AppStoreTrust``) at the evaluation time: the
    /// call's fixed time when it has one, else the payload's `signedDate` (read here, before the
    /// signature, as Apple's own verifier does), which must then be there.
    func chooseChainKey(_ prepared: inout PreparedToken, certificates: [String], settings: ProviderRules.AppStoreSettings, time: EvaluationTime) {
        let instant: Double
        if settings.onlineChecks {
            instant = policy.clock()
        } else if case .fixed(let fixed) = time {
            instant = fixed
        } else {
            switch AppStoreClaims.signedDate(prepared.payload!) {
            case .success(let milliseconds?): instant = milliseconds / 1000
            case .success(nil):
                prepared.stage = .rejected(
                    VerificationError(.claimType, detail: "signedDate is missing: the chain is judged at signedDate unless a time is given"))
                return
            case .failure(let error):
                prepared.stage = .rejected(error)
                return
            }
        }
        switch settings.trust.leafKey(leaf: certificates[0], intermediate: certificates[1], at: instant, onlineChecks: settings.onlineChecks) {
        case .success(let key): prepared.chainKey = key
        case .failure(let error): prepared.stage = .rejected(error)
        }
    }
}

extension Verifier {
    /// A notification's `data.signedTransactionInfo` and `data.signedRenewalInfo`, each verified
    /// as a token of its own under this policy (its own chain, signature, kind and rules) and
    /// attached to the notification's claims. A nested token that fails fails the notification,
    /// with its reason.
    func verifyNestedSignedData(_ notification: AppStoreClaims, payload: UnsafeRawBufferPointer, time: EvaluationTime) -> Result<AppStoreClaims, VerificationError> {
        guard case .success(let nested) = JSONObjectParser.parse(payload, NestedSignedDataReading()) else { return .success(notification) }
        var verified: [AppStoreClaims?] = [nil, nil]
        for (position, (field, expected)) in [("data.signedTransactionInfo", AppStoreClaims.Kind.transaction), ("data.signedRenewalInfo", .renewalInfo)].enumerated() {
            switch nested[position] {
            case nil: continue
            case .failure(let error): return .failure(error)
            case .success(var token)?:
                let result = token.withUTF8 { evaluateOne(UnsafeRawBufferPointer($0), rawNonce: nil, time: time) }
                switch result {
                case .failure(let error): return .failure(VerificationError(error.reason, detail: "\(field): \(error.detail)"))
                case .success(let inner):
                    guard let claims = inner.provider.appStore, claims.kind == expected else {
                        return .failure(VerificationError(.claimType, detail: "\(field) is not a signed \(expected.rawValue)"))
                    }
                    verified[position] = claims
                }
            }
        }
        return .success(notification.with(transaction: verified[0], renewalInfo: verified[1]))
    }

    /// `data.signedTransactionInfo` and `data.signedRenewalInfo` of a notification payload, when
    /// present: each must be a string.
    private struct NestedSignedDataReading: JSONObjectConsumer {
        func consume<Object: JSONObjectReading>(_ object: Object) -> [Result<String, VerificationError>?] {
            guard let data = object.member("data"), data.kind == .object else { return [nil, nil] }
            return [data.member("signedTransactionInfo"), data.member("signedRenewalInfo")].enumerated().map { position, node in
                guard let node else { return nil }
                guard let text = node.string else {
                    let name = position == 0 ? "data.signedTransactionInfo" : "data.signedRenewalInfo"
                    return .failure(VerificationError(.claimType, detail: "\(name) is not a string"))
                }
                return .success(text)
            }
        }
    }
}
