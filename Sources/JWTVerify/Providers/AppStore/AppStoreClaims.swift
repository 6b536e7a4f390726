/// App Store signed data, typed: a StoreKit 2 transaction or renewal info, an App Store Server
/// Notification (V2), or an AppTransaction, verified under ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``.
///
/// Dates are milliseconds since the epoch, as Apple sends them. A notification's
/// `data.signedTransactionInfo` and `data.signedRenewalInfo` are verified under the same policy
/// and come typed as ``transaction`` and ``renewalInfo``. Every other member is in
/// ``VerifiedToken/allClaims``.
public struct AppStoreClaims: ProviderClaimSet, Hashable {
    /// What the payload is.
    public enum Kind: String, Sendable, Hashable {
        /// A StoreKit 2 transaction (`JWSTransaction`).
        case transaction
        /// A subscription's renewal info (`JWSRenewalInfo`).
        case renewalInfo = "renewal_info"
        /// An App Store Server Notification V2 (`responseBodyV2DecodedPayload`).
        case notification
        /// An `AppTransaction`.
        case appTransaction = "app_transaction"
    }

    /// What the payload is.
    public let kind: Kind
    /// `environment` (`receiptType` for an AppTransaction; a notification's from its `data`,
    /// `summary` or `externalPurchaseToken`): `Production` or `Sandbox`.
    public let environment: String?
    /// `bundleId` (a notification's from its `data`, `summary`, `externalPurchaseToken` or `appData`).
    public let bundleID: String?
    /// `appAppleId` (notifications and AppTransactions).
    public let appAppleID: Int64?
    /// `signedDate`, in milliseconds since the epoch.
    public let signedDate: Double?
    /// `productId` (transactions, renewal infos, a notification's `summary`).
    public let productID: String?
    /// `transactionId`.
    public let transactionID: String?
    /// `originalTransactionId`.
    public let originalTransactionID: String?
    /// Transactions: `purchaseDate`, `expiresDate` (subscriptions), `revocationDate` (refunds).
    public let purchaseDate: Double?
    public let expiresDate: Double?
    public let revocationDate: Double?
    /// Transactions: `type` (`Auto-Renewable Subscription`, `Consumable`, …) and `appAccountToken`.
    public let type: String?
    public let appAccountToken: String?
    /// Renewal infos: `autoRenewProductId` and `autoRenewStatus` (1 on, 0 off).
    public let autoRenewProductID: String?
    public let autoRenewStatus: Int?
    /// Notifications: `notificationType`, `subtype` and `notificationUUID`.
    public let notificationType: String?
    public let subtype: String?
    public let notificationUUID: String?
    private let nested: Nested?
    /// A notification's `data.signedTransactionInfo` and `data.signedRenewalInfo` as read, before
    /// they are verified (``Verifier`` verifies them and attaches the results as ``transaction``
    /// and ``renewalInfo``): read in the payload's one parse.
    let signedTransactionInfo: String?
    let signedRenewalInfo: String?

    /// A notification's `data.signedTransactionInfo`, verified.
    public var transaction: AppStoreClaims? { nested?.transaction }
    /// A notification's `data.signedRenewalInfo`, verified.
    public var renewalInfo: AppStoreClaims? { nested?.renewalInfo }

    /// The nested signed data of a notification, behind one box.
    private final class Nested: Sendable, Hashable {
        let transaction: AppStoreClaims?
        let renewalInfo: AppStoreClaims?
        init(transaction: AppStoreClaims?, renewalInfo: AppStoreClaims?) {
            self.transaction = transaction
            self.renewalInfo = renewalInfo
        }
        static func == (a: Nested, b: Nested) -> Bool {
            a.transaction == b.transaction && a.renewalInfo == b.renewalInfo
        }
        func hash(into hasher: inout Hasher) {
            hasher.combine(transaction)
            hasher.combine(renewalInfo)
        }
    }

    /// These claims with a notification's nested transaction and renewal info.
    func with(transaction: AppStoreClaims?, renewalInfo: AppStoreClaims?) -> AppStoreClaims {
        var copy = self
        copy.replaceNested(
            transaction == nil && renewalInfo == nil ? nil : Nested(transaction: transaction, renewalInfo: renewalInfo))
        return copy
    }

    private mutating func replaceNested(_ value: Nested?) {
        self = AppStoreClaims(copying: self, nested: value)
    }

    private init(copying other: AppStoreClaims, nested: Nested?) {
        kind = other.kind
        environment = other.environment
        bundleID = other.bundleID
        appAppleID = other.appAppleID
        signedDate = other.signedDate
        productID = other.productID
        transactionID = other.transactionID
        originalTransactionID = other.originalTransactionID
        purchaseDate = other.purchaseDate
        expiresDate = other.expiresDate
        revocationDate = other.revocationDate
        type = other.type
        appAccountToken = other.appAccountToken
        autoRenewProductID = other.autoRenewProductID
        autoRenewStatus = other.autoRenewStatus
        notificationType = other.notificationType
        subtype = other.subtype
        notificationUUID = other.notificationUUID
        self.nested = nested
        signedTransactionInfo = nil
        signedRenewalInfo = nil
    }

    /// Reads and types a payload; a payload that is none of the four kinds, or a member of the
    /// wrong type, is `claim_type`.
    init<Object: JSONObjectReading>(reading payload: Object) throws(VerificationError) {
        let reader = ProviderClaimReader(payload: payload)
        func integer(_ value: Double?, _ name: String) throws(VerificationError) -> Int64? {
            guard let value else { return nil }
            guard value == value.rounded(), abs(value) < 9.0e15 else {
                throw VerificationError(.claimType, detail: "\(name) is not an integer")
            }
            return Int64(value)
        }
        if payload.member("notificationType") != nil {
            kind = .notification
            notificationType = try reader.string("notificationType")
            subtype = try reader.string("subtype")
            notificationUUID = try reader.string("notificationUUID")
            // The app's identity: from data, else summary, else externalPurchaseToken, else appData.
            var environment: String? = nil
            var bundleID: String? = nil
            var appAppleID: Int64? = nil
            var productID: String? = nil
            var signed: [String?] = [nil, nil]
            var found = false
            let parts = [
                ("data", payload.member("data")), ("summary", payload.member("summary")),
                ("externalPurchaseToken", payload.member("externalPurchaseToken")),
                ("appData", payload.member("appData")),
            ]
            for (name, part) in parts {
                guard let part, !found else { continue }
                guard part.kind == .object else {
                    throw VerificationError(.claimType, detail: "\(name) is not an object")
                }
                found = true
                let inner = ProviderClaimReader(payload: NestedObject(value: part))
                bundleID = try inner.string("bundleId")
                appAppleID = try integer(inner.number("appAppleId"), "\(name).appAppleId")
                if name == "externalPurchaseToken" {
                    let identifier = try inner.string("externalPurchaseId")
                    environment = identifier.map { $0.hasPrefix("SANDBOX") ? "Sandbox" : "Production" }
                } else {
                    environment = try inner.string("environment")
                }
                if name == "summary" { productID = try inner.string("productId") }
                if name == "data" {
                    for (position, field) in [
                        ("signedTransactionInfo", "data.signedTransactionInfo"),
                        ("signedRenewalInfo", "data.signedRenewalInfo"),
                    ].enumerated() {
                        guard let node = part.member(position == 0 ? "signedTransactionInfo" : "signedRenewalInfo")
                        else { continue }
                        guard let text = node.string else {
                            throw VerificationError(.claimType, detail: "\(field.1) is not a string")
                        }
                        signed[position] = text
                    }
                }
            }
            signedTransactionInfo = signed[0]
            signedRenewalInfo = signed[1]
            self.environment = environment
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.productID = productID
            transactionID = nil
            originalTransactionID = nil
            purchaseDate = nil
            expiresDate = nil
            revocationDate = nil
            type = nil
            appAccountToken = nil
            autoRenewProductID = nil
            autoRenewStatus = nil
        } else {
            notificationType = nil
            subtype = nil
            notificationUUID = nil
            signedTransactionInfo = nil
            signedRenewalInfo = nil
            if payload.member("receiptType") != nil {
                kind = .appTransaction
                environment = try reader.string("receiptType")
                appAppleID = try integer(reader.number("appAppleId"), "appAppleId")
            } else if payload.member("transactionId") != nil {
                kind = .transaction
                environment = try reader.string("environment")
                appAppleID = nil
            } else if payload.member("autoRenewStatus") != nil || payload.member("autoRenewProductId") != nil {
                kind = .renewalInfo
                environment = try reader.string("environment")
                appAppleID = nil
            } else {
                throw VerificationError(
                    .claimType,
                    detail:
                        "not App Store signed data: none of notificationType, transactionId, autoRenewStatus, receiptType"
                )
            }
            bundleID = try reader.string("bundleId")
            productID = try reader.string("productId")
            transactionID = try reader.string("transactionId")
            originalTransactionID = try reader.string("originalTransactionId")
            purchaseDate = try reader.number("purchaseDate")
            expiresDate = try reader.number("expiresDate")
            revocationDate = try reader.number("revocationDate")
            type = try reader.string("type")
            appAccountToken = try reader.string("appAccountToken")
            autoRenewProductID = try reader.string("autoRenewProductId")
            autoRenewStatus = try integer(reader.number("autoRenewStatus"), "autoRenewStatus").map { Int($0) }
        }
        signedDate = try reader.number("signedDate")
        nested = nil
    }

    /// The App Store's rules against the configuration, in Apple's order: bundle ID (renewal
    /// infos carry none), app Apple ID (production notifications and AppTransactions, when
    /// configured), then environment (Xcode and LocalTesting never pass).
    func check(bundleIDs: [String]?, environment expected: AppStoreEnvironment?, appAppleID expectedAppAppleID: Int64?)
        -> VerificationError?
    {
        if let bundleIDs, kind != .renewalInfo {
            guard let bundleID, bundleIDs.containsExactly(bundleID) else {
                return VerificationError(
                    .bundleMismatch,
                    detail:
                        "bundleId \(bundleID.map(Verifier.quoted) ?? "(none)") is not \(bundleIDs.map(Verifier.quoted).joined(separator: " or "))"
                )
            }
        }
        if let expectedAppAppleID, kind == .notification || kind == .appTransaction,
            exactlyEquals(environment, AppStoreEnvironment.production.rawValue)
        {
            guard appAppleID == expectedAppAppleID else {
                return VerificationError(
                    .appAppleIDMismatch,
                    detail: "appAppleId \(appAppleID.map { String($0) } ?? "(none)") is not \(expectedAppAppleID)")
            }
        }
        if let environment, exactlyEquals(environment, "Xcode") || exactlyEquals(environment, "LocalTesting") {
            return VerificationError(
                .environmentMismatch, detail: "environment \(environment): locally signed data is never accepted")
        }
        if let expected, !exactlyEquals(environment, expected.rawValue) {
            return VerificationError(
                .environmentMismatch,
                detail: "environment \(environment.map(Verifier.quoted) ?? "(none)") is not \(expected.rawValue)")
        }
        return nil
    }
}

extension AppStoreClaims: ProviderClaimMembers {
    /// The typed members under Apple's names, in name order (`kind` added; a notification's
    /// nested data as `transaction` and `renewalInfo` objects).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        func integer(_ value: Int64?) -> Double? { value.map(Double.init) }
        member("appAccountToken", appAccountToken, body)
        member("appAppleId", integer(appAppleID), body)
        member("autoRenewProductId", autoRenewProductID, body)
        member("autoRenewStatus", integer(autoRenewStatus.map(Int64.init)), body)
        member("bundleId", bundleID, body)
        member("environment", environment, body)
        member("expiresDate", expiresDate, body)
        body("kind", .string(kind.rawValue))
        member("notificationType", notificationType, body)
        member("notificationUUID", notificationUUID, body)
        member("originalTransactionId", originalTransactionID, body)
        member("productId", productID, body)
        member("purchaseDate", purchaseDate, body)
        if let renewalInfo { body("renewalInfo", .object(ProviderClaims(renewalInfo).members)) }
        member("revocationDate", revocationDate, body)
        member("signedDate", signedDate, body)
        member("subtype", subtype, body)
        if let transaction { body("transaction", .object(ProviderClaims(transaction).members)) }
        member("transactionId", transactionID, body)
        member("type", type, body)
    }

    /// `notificationUUID`.
    package var notificationID: String? { notificationUUID }

    /// Kind, environment, product (its own, or its nested transaction's) and notification type
    /// (with its subtype): ``AppStoreProfile/reportFacets``.
    package func forEachFacet(_ body: (String, String) -> Void) {
        body("by_kind", kind.rawValue)
        body("by_environment", environment ?? "(none)")
        if let product = productID ?? transaction?.productID ?? renewalInfo?.productID { body("by_product", product) }
        if let notificationType { body("by_notification_type", notificationType + (subtype.map { " / " + $0 } ?? "")) }
    }
}

/// An object nested in a payload, read through the same object interface.
private struct NestedObject<Value: JSONValueReading>: JSONObjectReading {
    let value: Value
    func member(_ name: StaticString) -> Value? { value.member(name) }
    func member(named name: UnsafeRawBufferPointer) -> Value? { nil }
}

/// The App Store environments a policy may require.
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
