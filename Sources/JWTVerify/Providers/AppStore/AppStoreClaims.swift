/// App Store signed data, typed: a StoreKit 2 transaction or renewal info, an App Store Server
/// Notification (V2), an AppTransaction, or a Retention Messaging realtime request, verified under
/// ``VerificationPolicy/appStore(bundleIDs:environment:appAppleID:trust:onlineChecks:)``.
///
/// Dates are milliseconds since the epoch, as Apple sends them. A notification's
/// `data.signedTransactionInfo`, `data.signedRenewalInfo` and `appData.signedAppTransactionInfo`
/// are verified under the same policy, each at its own `signedDate`, and come typed as
/// ``transaction``, ``renewalInfo`` and ``appTransaction``. Every other member is in
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
        /// A Retention Messaging realtime request (`DecodedRealtimeRequestBody`): it carries no
        /// bundle ID, and is bound to the app by its `appAppleId`.
        case realtimeRequest = "realtime_request"
    }

    /// What the payload is.
    public private(set) var kind: Kind = .transaction
    /// `environment` (`receiptType` for an AppTransaction; a notification's from its `data`,
    /// `summary`, `externalPurchaseToken` or `appData`): `Production` or `Sandbox`.
    public private(set) var environment: String?
    /// `bundleId` (a notification's from its `data`, `summary`, `externalPurchaseToken` or `appData`).
    public private(set) var bundleID: String?
    /// `appAppleId` (notifications, AppTransactions and realtime requests).
    public private(set) var appAppleID: Int64?
    /// `signedDate`, in milliseconds since the epoch.
    public private(set) var signedDate: Double?
    /// `productId` (transactions, renewal infos, realtime requests, a notification's `summary`).
    public private(set) var productID: String?
    /// `transactionId`.
    public private(set) var transactionID: String?
    /// `originalTransactionId`.
    public private(set) var originalTransactionID: String?
    /// Transactions: `purchaseDate`, `expiresDate` (subscriptions), `revocationDate` (refunds).
    public private(set) var purchaseDate: Double?
    public private(set) var expiresDate: Double?
    public private(set) var revocationDate: Double?
    /// Transactions: `type` (`Auto-Renewable Subscription`, `Consumable`, …) and `appAccountToken`.
    public private(set) var type: String?
    public private(set) var appAccountToken: String?
    /// Renewal infos: `autoRenewProductId` and `autoRenewStatus` (1 on, 0 off).
    public private(set) var autoRenewProductID: String?
    public private(set) var autoRenewStatus: Int?
    /// Notifications: `notificationType`, `subtype` and `notificationUUID`, as sent.
    public private(set) var notificationType: String?
    public private(set) var subtype: String?
    public private(set) var notificationUUID: String?
    /// Transactions, renewal infos and AppTransactions: `appTransactionId`.
    public private(set) var appTransactionID: String?
    /// Transactions: `billingPlanType`; renewal infos: `renewalBillingPlanType` (`BILLED_UPFRONT`,
    /// `MONTHLY`, as sent).
    public private(set) var billingPlanType: String?
    public private(set) var renewalBillingPlanType: String?
    /// Transactions and renewal infos: `commitmentInfo`.
    public private(set) var commitmentInfo: AppStoreCommitmentInfo?
    /// AppTransactions: `applicationVersion`, `originalApplicationVersion`, `originalPurchaseDate`,
    /// `receiptCreationDate` and `originalPlatform` (`iOS`, `macOS`, `tvOS`, `visionOS`, as sent).
    public private(set) var applicationVersion: String?
    public private(set) var originalApplicationVersion: String?
    public private(set) var originalPurchaseDate: Double?
    public private(set) var receiptCreationDate: Double?
    public private(set) var originalPlatform: String?
    /// `EXTERNAL_PURCHASE_TOKEN` notifications: the token's `externalPurchaseId` and
    /// `tokenCreationDate`.
    public private(set) var externalPurchaseID: String?
    public private(set) var tokenCreationDate: Double?
    /// Realtime requests: `requestIdentifier` and `userLocale`.
    public private(set) var requestIdentifier: String?
    public private(set) var userLocale: String?
    private var nested: Nested?
    /// A notification's `data.signedTransactionInfo`, `data.signedRenewalInfo` and
    /// `appData.signedAppTransactionInfo` as read, before they are verified (``Verifier`` verifies
    /// them and attaches the results as ``transaction``, ``renewalInfo`` and ``appTransaction``):
    /// read in the payload's one parse.
    private(set) var signedTransactionInfo: String?
    private(set) var signedRenewalInfo: String?
    private(set) var signedAppTransactionInfo: String?

    /// A notification's `data.signedTransactionInfo`, verified.
    public var transaction: AppStoreClaims? { nested?.transaction }
    /// A notification's `data.signedRenewalInfo`, verified.
    public var renewalInfo: AppStoreClaims? { nested?.renewalInfo }
    /// A notification's `appData.signedAppTransactionInfo` (`RESCIND_CONSENT`), verified.
    public var appTransaction: AppStoreClaims? { nested?.appTransaction }

    /// ``notificationType`` when Apple's libraries type it, else `nil` (a type added later: it
    /// passes as sent).
    public var knownNotificationType: AppStoreNotificationType? {
        notificationType.flatMap(AppStoreNotificationType.init(exactly:))
    }
    /// ``subtype`` when Apple's libraries type it, else `nil` (a subtype added later: it passes
    /// as sent).
    public var knownSubtype: AppStoreNotificationSubtype? {
        subtype.flatMap(AppStoreNotificationSubtype.init(exactly:))
    }

    /// The nested signed data of a notification, behind one box.
    private final class Nested: Sendable, Hashable {
        let transaction: AppStoreClaims?
        let renewalInfo: AppStoreClaims?
        let appTransaction: AppStoreClaims?
        init(transaction: AppStoreClaims?, renewalInfo: AppStoreClaims?, appTransaction: AppStoreClaims?) {
            self.transaction = transaction
            self.renewalInfo = renewalInfo
            self.appTransaction = appTransaction
        }
        static func == (a: Nested, b: Nested) -> Bool {
            a.transaction == b.transaction && a.renewalInfo == b.renewalInfo && a.appTransaction == b.appTransaction
        }
        func hash(into hasher: inout Hasher) {
            hasher.combine(transaction)
            hasher.combine(renewalInfo)
            hasher.combine(appTransaction)
        }
    }

    /// These claims with a notification's nested transaction, renewal info and AppTransaction
    /// (and no longer the signed texts they were verified from).
    func with(transaction: AppStoreClaims?, renewalInfo: AppStoreClaims?, appTransaction: AppStoreClaims?)
        -> AppStoreClaims
    {
        var copy = self
        copy.nested =
            transaction == nil && renewalInfo == nil && appTransaction == nil
            ? nil : Nested(transaction: transaction, renewalInfo: renewalInfo, appTransaction: appTransaction)
        copy.signedTransactionInfo = nil
        copy.signedRenewalInfo = nil
        copy.signedAppTransactionInfo = nil
        return copy
    }

    /// Claims with no member read.
    private init() {}

    /// Reads and types a payload; a payload that is none of the five kinds, or a member of the
    /// wrong type, is `claim_type`. The members are the field table's (``fields(_:_:)``); what
    /// depends on the kind (the kind itself, and where a notification's app identity and an
    /// AppTransaction's environment come from) is read here.
    init<Object: JSONObjectReading>(reading payload: Object) throws(VerificationError) {
        self.init()
        let reader = ProviderClaimReader(payload: payload)
        if payload.member("notificationType") != nil {
            kind = .notification
            try readNotificationIdentity(payload)
        } else if payload.member("receiptType") != nil {
            kind = .appTransaction
        } else if payload.member("transactionId") != nil {
            kind = .transaction
        } else if payload.member("autoRenewStatus") != nil || payload.member("autoRenewProductId") != nil {
            kind = .renewalInfo
        } else if payload.member("requestIdentifier") != nil {
            kind = .realtimeRequest
        } else {
            throw VerificationError(
                .claimType,
                detail:
                    "not App Store signed data: none of notificationType, transactionId, autoRenewStatus, receiptType, "
                    + "requestIdentifier")
        }
        var visitor = AppStoreFieldReader(reader: reader, kind: kind)
        try Self.fields(&self, &visitor)
    }

    /// A notification's app identity: from `data`, else `summary`, else `externalPurchaseToken`,
    /// else `appData` (the first present); `data`'s signed transaction and renewal info, the
    /// external purchase token's ID and creation date, `appData`'s signed AppTransaction.
    private mutating func readNotificationIdentity<Object: JSONObjectReading>(_ payload: Object)
        throws(VerificationError)
    {
        let parts = [
            ("data", payload.member("data")), ("summary", payload.member("summary")),
            ("externalPurchaseToken", payload.member("externalPurchaseToken")),
            ("appData", payload.member("appData")),
        ]
        guard let (name, part) = parts.first(where: { $0.1 != nil }).map({ ($0.0, $0.1!) }) else { return }
        guard part.kind == .object else { throw VerificationError(.claimType, detail: "\(name) is not an object") }
        let inner = ProviderClaimReader(payload: NestedObject(value: part))
        bundleID = try inner.string("bundleId")
        appAppleID = try Self.integer(inner.number("appAppleId"), "\(name).appAppleId")
        if name == "externalPurchaseToken" {
            externalPurchaseID = try inner.string("externalPurchaseId")
            tokenCreationDate = try inner.number("tokenCreationDate")
            environment = externalPurchaseID.map { $0.utf8.starts(with: "SANDBOX".utf8) ? "Sandbox" : "Production" }
        } else {
            environment = try inner.string("environment")
        }
        if name == "summary" { productID = try inner.string("productId") }
        if name == "data" {
            for (position, field) in ["signedTransactionInfo", "signedRenewalInfo"].enumerated() {
                guard let node = part.member(position == 0 ? "signedTransactionInfo" : "signedRenewalInfo") else {
                    continue
                }
                guard let text = node.string else {
                    throw VerificationError(.claimType, detail: "data.\(field) is not a string")
                }
                if position == 0 { signedTransactionInfo = text } else { signedRenewalInfo = text }
            }
        }
        if name == "appData", let node = part.member("signedAppTransactionInfo") {
            guard let text = node.string else {
                throw VerificationError(.claimType, detail: "appData.signedAppTransactionInfo is not a string")
            }
            signedAppTransactionInfo = text
        }
    }

    /// A whole number Apple sends as a JSON number.
    static func integer(_ value: Double?, _ name: String) throws(VerificationError) -> Int64? {
        guard let value else { return nil }
        guard value == value.rounded(), abs(value) < 9.0e15 else {
            throw VerificationError(.claimType, detail: "\(name) is not an integer")
        }
        return Int64(value)
    }

    /// The App Store's rules against the configuration, in Apple's order: bundle ID (renewal
    /// infos and realtime requests carry none), app Apple ID (production notifications and
    /// AppTransactions, when configured; realtime requests below), then environment (Xcode and
    /// LocalTesting never pass).
    ///
    /// A realtime request is bound to its app by `appAppleId` alone: in Production it needs the
    /// configured app Apple ID (a policy without one refuses it), and wherever one is configured a
    /// request naming another app is refused.
    func check(bundleIDs: [String]?, environment expected: AppStoreEnvironment?, appAppleID expectedAppAppleID: Int64?)
        -> VerificationError?
    {
        if kind == .realtimeRequest, let refusal = checkRealtimeApp(expectedAppAppleID) { return refusal }
        if let bundleIDs, kind != .renewalInfo, kind != .realtimeRequest {
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

    /// A realtime request's app: `app_apple_id_mismatch` when it names another app than the
    /// configured one, or is a production request and none is configured.
    private func checkRealtimeApp(_ expected: Int64?) -> VerificationError? {
        guard let expected else {
            guard !exactlyEquals(environment, AppStoreEnvironment.production.rawValue) else {
                return VerificationError(
                    .appAppleIDMismatch,
                    detail: "a production realtime request names its app by appAppleId alone: configure the app's "
                        + "Apple ID (--app-apple-id)")
            }
            return nil
        }
        let production = exactlyEquals(environment, AppStoreEnvironment.production.rawValue)
        guard appAppleID != expected, production || appAppleID != nil else { return nil }
        return VerificationError(
            .appAppleIDMismatch, detail: "appAppleId \(appAppleID.map { String($0) } ?? "(none)") is not \(expected)")
    }
}

extension AppStoreClaims: ProviderClaimMembers {
    /// Each member once, in name order, with where it is read from (``AppStoreFieldSource``): a
    /// notification's app identity is read from its `data`, `summary`, `externalPurchaseToken` or
    /// `appData` by ``init(reading:)``.
    static func fields<Visitor: AppStoreFieldVisitor>(_ claims: inout Self, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.text("appAccountToken", &claims.appAccountToken, .signedItem)
        try visitor.integer("appAppleId", &claims.appAppleID, .appIdentity)
        visitor.nested("appTransaction", claims.appTransaction)
        try visitor.text("appTransactionId", &claims.appTransactionID, .signedItem)
        try visitor.text("applicationVersion", &claims.applicationVersion, .appTransaction)
        try visitor.text("autoRenewProductId", &claims.autoRenewProductID, .signedItem)
        try visitor.integer("autoRenewStatus", &claims.autoRenewStatus, .signedItem)
        try visitor.text("billingPlanType", &claims.billingPlanType, .signedItem)
        try visitor.text("bundleId", &claims.bundleID, .itemIdentity)
        try visitor.commitment("commitmentInfo", &claims.commitmentInfo, .signedItem)
        try visitor.text("environment", &claims.environment, .environment)
        try visitor.number("expiresDate", &claims.expiresDate, .signedItem)
        try visitor.text("externalPurchaseId", &claims.externalPurchaseID, .notificationPart)
        visitor.kind(claims.kind)
        try visitor.text("notificationType", &claims.notificationType, .notification)
        try visitor.text("notificationUUID", &claims.notificationUUID, .notification)
        try visitor.text("originalApplicationVersion", &claims.originalApplicationVersion, .appTransaction)
        try visitor.text("originalPlatform", &claims.originalPlatform, .appTransaction)
        try visitor.number("originalPurchaseDate", &claims.originalPurchaseDate, .signedItem)
        try visitor.text("originalTransactionId", &claims.originalTransactionID, .signedItem)
        try visitor.text("productId", &claims.productID, .itemIdentity)
        try visitor.number("purchaseDate", &claims.purchaseDate, .signedItem)
        try visitor.number("receiptCreationDate", &claims.receiptCreationDate, .appTransaction)
        try visitor.text("renewalBillingPlanType", &claims.renewalBillingPlanType, .signedItem)
        visitor.nested("renewalInfo", claims.renewalInfo)
        try visitor.text("requestIdentifier", &claims.requestIdentifier, .realtimeRequest)
        try visitor.number("revocationDate", &claims.revocationDate, .signedItem)
        try visitor.number("signedDate", &claims.signedDate, .everyKind)
        try visitor.text("subtype", &claims.subtype, .notification)
        try visitor.number("tokenCreationDate", &claims.tokenCreationDate, .notificationPart)
        visitor.nested("transaction", claims.transaction)
        try visitor.text("transactionId", &claims.transactionID, .signedItem)
        try visitor.text("type", &claims.type, .signedItem)
        try visitor.text("userLocale", &claims.userLocale, .realtimeRequest)
    }

    /// The typed members under Apple's names, in name order (`kind` added; a notification's
    /// nested data as `transaction`, `renewalInfo` and `appTransaction` objects).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        var copy = self
        withoutActuallyEscaping(body) { body in
            var lister = AppStoreFieldLister(body: body)
            try? Self.fields(&copy, &lister)
        }
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

/// Where an App Store member is read from.
enum AppStoreFieldSource {
    /// The payload of every kind.
    case everyKind
    /// The payload of a transaction, a renewal info, an AppTransaction or a realtime request.
    case signedItem
    /// The payload of a notification.
    case notification
    /// An item's own payload; a notification's comes from its app identity part
    /// (``AppStoreClaims/init(reading:)``).
    case itemIdentity
    /// `environment` of a transaction or renewal info, `receiptType` of an AppTransaction; a
    /// notification's comes from its app identity part.
    case environment
    /// An AppTransaction's or a realtime request's own payload; a notification's comes from its
    /// app identity part.
    case appIdentity
    /// An AppTransaction's own payload.
    case appTransaction
    /// A realtime request's own payload.
    case realtimeRequest
    /// A notification's app identity part, read by ``AppStoreClaims/init(reading:)``.
    case notificationPart
}

/// What the App Store claims' field table is walked with.
protocol AppStoreFieldVisitor {
    mutating func text(_ name: StaticString, _ value: inout String?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    mutating func number(_ name: StaticString, _ value: inout Double?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    mutating func integer(_ name: StaticString, _ value: inout Int64?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    mutating func integer(_ name: StaticString, _ value: inout Int?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    /// A transaction's or renewal info's `commitmentInfo` object.
    mutating func commitment(
        _ name: StaticString, _ value: inout AppStoreCommitmentInfo?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    /// `kind`, which the payload does not carry.
    mutating func kind(_ kind: AppStoreClaims.Kind)
    /// A notification's nested signed data, once verified.
    mutating func nested(_ name: StaticString, _ claims: AppStoreClaims?)
}

/// Reads the table's members that the payload's kind carries where the table says.
struct AppStoreFieldReader<Object: JSONObjectReading>: AppStoreFieldVisitor {
    let reader: ProviderClaimReader<Object>
    let kind: AppStoreClaims.Kind

    /// The name a member of `source` named `name` is read under for this kind, if it is read here.
    private func source(_ name: StaticString, _ source: AppStoreFieldSource) -> StaticString? {
        switch source {
        case .everyKind: name
        case .signedItem, .itemIdentity: kind != .notification ? name : nil
        case .notification: kind == .notification ? name : nil
        case .environment:
            switch kind {
            case .transaction, .renewalInfo, .realtimeRequest: name
            case .appTransaction: "receiptType"
            case .notification: nil
            }
        case .appIdentity: kind == .appTransaction || kind == .realtimeRequest ? name : nil
        case .appTransaction: kind == .appTransaction ? name : nil
        case .realtimeRequest: kind == .realtimeRequest ? name : nil
        case .notificationPart: nil
        }
    }

    mutating func text(_ name: StaticString, _ value: inout String?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    {
        if let member = self.source(name, source) { value = try reader.string(member) }
    }

    mutating func number(_ name: StaticString, _ value: inout Double?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    {
        if let member = self.source(name, source) { value = try reader.number(member) }
    }

    mutating func integer(_ name: StaticString, _ value: inout Int64?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    {
        if let member = self.source(name, source) {
            value = try AppStoreClaims.integer(reader.number(member), "\(member)")
        }
    }

    mutating func integer(_ name: StaticString, _ value: inout Int?, _ source: AppStoreFieldSource)
        throws(VerificationError)
    {
        if let member = self.source(name, source) {
            value = try AppStoreClaims.integer(reader.number(member), "\(member)").map { Int($0) }
        }
    }

    mutating func commitment(
        _ name: StaticString, _ value: inout AppStoreCommitmentInfo?, _ source: AppStoreFieldSource
    )
        throws(VerificationError)
    {
        guard let member = self.source(name, source), let node = reader.payload.member(member) else { return }
        value = try AppStoreCommitmentInfo(reading: node, listed: "\(member)")
    }

    mutating func kind(_ kind: AppStoreClaims.Kind) {}
    mutating func nested(_ name: StaticString, _ claims: AppStoreClaims?) {}
}

/// Lists the table's members present, under Apple's names.
struct AppStoreFieldLister: AppStoreFieldVisitor {
    let body: (StaticString, JSONValue) -> Void

    mutating func text(_ name: StaticString, _ value: inout String?, _ source: AppStoreFieldSource) {
        if let value { body(name, .string(value)) }
    }
    mutating func number(_ name: StaticString, _ value: inout Double?, _ source: AppStoreFieldSource) {
        if let value { body(name, .number(value)) }
    }
    mutating func integer(_ name: StaticString, _ value: inout Int64?, _ source: AppStoreFieldSource) {
        if let value { body(name, .number(Double(value))) }
    }
    mutating func integer(_ name: StaticString, _ value: inout Int?, _ source: AppStoreFieldSource) {
        if let value { body(name, .number(Double(value))) }
    }
    mutating func commitment(
        _ name: StaticString, _ value: inout AppStoreCommitmentInfo?, _ source: AppStoreFieldSource
    ) {
        if let value { body(name, .object(value.members)) }
    }
    mutating func kind(_ kind: AppStoreClaims.Kind) { body("kind", .string(kind.rawValue)) }
    mutating func nested(_ name: StaticString, _ claims: AppStoreClaims?) {
        if let claims { body(name, .object(ProviderClaims(claims).members)) }
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
