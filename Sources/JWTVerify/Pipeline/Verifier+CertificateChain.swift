extension Verifier {
    /// Steps 7 and 8 for App Store signed data: the key is the `x5c` leaf's, once leaf ←
    /// intermediate validates to a pinned root (``AppStoreTrust``) by every rule but the validity
    /// periods, which ``judgeChain(_:at:signedDate:)`` applies in the walk, once the signature has
    /// held and the payload (its `signedDate`) can be read. No payload byte is read before then.
    func chooseChainKey(_ prepared: inout PreparedToken, certificates: [String], settings: ProviderRules.AppStoreSettings) {
        switch settings.trust.chain(leaf: certificates[0], intermediate: certificates[1], onlineChecks: settings.onlineChecks) {
        case .success(let chain):
            prepared.chainKey = chain.key
            prepared.chainValidity = chain.validity
        case .failure(let error): prepared.stage = .rejected(error)
        }
    }

    /// Whether a verified chain was valid when the token is judged: at the call's fixed time,
    /// else at its `signedDate` (then required); with online checks, now.
    func judgeChain(_ validity: ClosedRange<Double>, at time: EvaluationTime, signedDate: Double?) -> VerificationError? {
        let instant: Double
        if policy.rules.appStoreSettings?.onlineChecks == true {
            instant = policy.clock()
        } else if case .fixed(let fixed) = time {
            instant = fixed
        } else if let signedDate {
            instant = signedDate / 1000
        } else {
            return VerificationError(.claimType, detail: "signedDate is missing: the chain is judged at signedDate unless a time is given")
        }
        return AppStoreTrust.judge(validity, at: instant)
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
