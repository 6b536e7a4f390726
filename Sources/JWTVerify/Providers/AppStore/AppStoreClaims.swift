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
    public var kind: Kind { box.fields.kind }
    /// `environment` (`receiptType` for an AppTransaction; a notification's from its `data`,
    /// `summary`, `externalPurchaseToken` or `appData`): `Production` or `Sandbox`.
    public var environment: String? { box.fields.environment }
    /// `bundleId` (a notification's from its `data`, `summary`, `externalPurchaseToken` or `appData`).
    public var bundleID: String? { box.fields.bundleID }
    /// `appAppleId` (notifications, AppTransactions and realtime requests).
    public var appAppleID: Int64? { box.fields.appAppleID }
    /// `signedDate`, in milliseconds since the epoch.
    public var signedDate: Double? { box.fields.signedDate }
    /// `productId` (transactions, renewal infos, realtime requests, a notification's `summary`).
    public var productID: String? { box.fields.productID }
    /// `transactionId`.
    public var transactionID: String? { box.fields.transactionID }
    /// `originalTransactionId`.
    public var originalTransactionID: String? { box.fields.originalTransactionID }
    /// Transactions: `purchaseDate`, `expiresDate` (subscriptions), `revocationDate` (refunds).
    public var purchaseDate: Double? { box.fields.purchaseDate }
    public var expiresDate: Double? { box.fields.expiresDate }
    public var revocationDate: Double? { box.fields.revocationDate }
    /// Transactions: `type` (`Auto-Renewable Subscription`, `Consumable`, …) and `appAccountToken`.
    public var type: String? { box.fields.type }
    public var appAccountToken: String? { box.fields.appAccountToken }
    /// Renewal infos: `autoRenewProductId` and `autoRenewStatus` (1 on, 0 off).
    public var autoRenewProductID: String? { box.fields.autoRenewProductID }
    public var autoRenewStatus: Int? { box.fields.autoRenewStatus }
    /// Notifications: `notificationType`, `subtype` and `notificationUUID`, as sent.
    public var notificationType: String? { box.fields.notificationType }
    public var subtype: String? { box.fields.subtype }
    public var notificationUUID: String? { box.fields.notificationUUID }
    /// Transactions, renewal infos and AppTransactions: `appTransactionId`.
    public var appTransactionID: String? { box.fields.appTransactionID }
    /// Transactions: `billingPlanType`; renewal infos: `renewalBillingPlanType` (`BILLED_UPFRONT`,
    /// `MONTHLY`, as sent).
    public var billingPlanType: String? { box.fields.billingPlanType }
    public var renewalBillingPlanType: String? { box.fields.renewalBillingPlanType }
    /// Transactions and renewal infos: `commitmentInfo`.
    public var commitmentInfo: AppStoreCommitmentInfo? { box.fields.commitmentInfo }
    /// AppTransactions: `applicationVersion`, `originalApplicationVersion`, `originalPurchaseDate`,
    /// `receiptCreationDate` and `originalPlatform` (`iOS`, `macOS`, `tvOS`, `visionOS`, as sent).
    public var applicationVersion: String? { box.fields.applicationVersion }
    public var originalApplicationVersion: String? { box.fields.originalApplicationVersion }
    public var originalPurchaseDate: Double? { box.fields.originalPurchaseDate }
    public var receiptCreationDate: Double? { box.fields.receiptCreationDate }
    public var originalPlatform: String? { box.fields.originalPlatform }
    /// `EXTERNAL_PURCHASE_TOKEN` notifications: the token's `externalPurchaseId` and
    /// `tokenCreationDate`.
    public var externalPurchaseID: String? { box.fields.externalPurchaseID }
    public var tokenCreationDate: Double? { box.fields.tokenCreationDate }
    /// Realtime requests: `requestIdentifier` and `userLocale`.
    public var requestIdentifier: String? { box.fields.requestIdentifier }
    public var userLocale: String? { box.fields.userLocale }
    private var nested: Nested? { box.fields.nested }
    /// A notification's `data.signedTransactionInfo`, `data.signedRenewalInfo` and
    /// `appData.signedAppTransactionInfo` as read, before they are verified (``Verifier`` verifies
    /// them and attaches the results as ``transaction``, ``renewalInfo`` and ``appTransaction``):
    /// read in the payload's one parse.
    var signedTransactionInfo: NestedToken? { box.fields.signedTransactionInfo }
    var signedRenewalInfo: NestedToken? { box.fields.signedRenewalInfo }
    var signedAppTransactionInfo: NestedToken? { box.fields.signedAppTransactionInfo }

    /// The members, behind one box: claims are copied at every step of a token's walk and into
    /// its verdict, and a copy is then one reference count, not one per string.
    private let box: Box

    /// Every member as read.
    fileprivate struct Fields: Hashable {
        var kind: Kind = .transaction
        var environment: String?
        var bundleID: String?
        var appAppleID: Int64?
        var signedDate: Double?
        var productID: String?
        var transactionID: String?
        var originalTransactionID: String?
        var purchaseDate: Double?
        var expiresDate: Double?
        var revocationDate: Double?
        var type: String?
        var appAccountToken: String?
        var autoRenewProductID: String?
        var autoRenewStatus: Int?
        var notificationType: String?
        var subtype: String?
        var notificationUUID: String?
        var appTransactionID: String?
        var billingPlanType: String?
        var renewalBillingPlanType: String?
        var commitmentInfo: AppStoreCommitmentInfo?
        var applicationVersion: String?
        var originalApplicationVersion: String?
        var originalPurchaseDate: Double?
        var receiptCreationDate: Double?
        var originalPlatform: String?
        var externalPurchaseID: String?
        var tokenCreationDate: Double?
        var requestIdentifier: String?
        var userLocale: String?
        var nested: Nested?
        var signedTransactionInfo: NestedToken?
        var signedRenewalInfo: NestedToken?
        var signedAppTransactionInfo: NestedToken?
    }

    /// The box the members live in: immutable, so claims that share one never see a write.
    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// The members.
    private var fields: Fields { box.fields }

    /// Whether `a` and `b` have the same members (nested data included).
    public static func == (a: AppStoreClaims, b: AppStoreClaims) -> Bool { a.box === b.box || a.fields == b.fields }

    /// Hashes every member (nested data included).
    public func hash(into hasher: inout Hasher) { hasher.combine(fields) }

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
    fileprivate final class Nested: Sendable, Hashable {
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
        var copy = fields
        copy.nested =
            transaction == nil && renewalInfo == nil && appTransaction == nil
            ? nil : Nested(transaction: transaction, renewalInfo: renewalInfo, appTransaction: appTransaction)
        copy.signedTransactionInfo = nil
        copy.signedRenewalInfo = nil
        copy.signedAppTransactionInfo = nil
        return AppStoreClaims(copy)
    }

    /// Claims with `fields`.
    private init(_ fields: Fields) { box = Box(fields) }

    /// Reads and types a payload; a payload that is none of the five kinds, or a member of the
    /// wrong type, is `claim_type`. The members are the field table's (``fields(_:_:)``); what
    /// depends on the kind (the kind itself, and where a notification's app identity and an
    /// AppTransaction's environment come from) is read here.
    init<Object: JSONObjectReading>(reading payload: Object) throws(VerificationError) {
        // Read into a local, boxed once at the end.
        var read = Fields()
        let reader = ProviderClaimReader(payload: payload)
        if payload.member("notificationType") != nil {
            read.kind = .notification
            try Self.readNotificationIdentity(payload, into: &read)
        } else if payload.member("receiptType") != nil {
            read.kind = .appTransaction
        } else if payload.member("transactionId") != nil {
            read.kind = .transaction
        } else if payload.member("autoRenewStatus") != nil || payload.member("autoRenewProductId") != nil {
            read.kind = .renewalInfo
        } else if payload.member("requestIdentifier") != nil {
            read.kind = .realtimeRequest
        } else {
            throw VerificationError(
                .claimType,
                detail:
                    "not App Store signed data: none of notificationType, transactionId, autoRenewStatus, receiptType, "
                    + "requestIdentifier")
        }
        var visitor = AppStoreFieldReader(reader: reader, kind: read.kind)
        try Self.fields(&read, &visitor)
        self.init(read)
    }

    /// A notification's app identity: from `data`, else `summary`, else `externalPurchaseToken`,
    /// else `appData` (the first present); `data`'s signed transaction and renewal info, the
    /// external purchase token's ID and creation date, `appData`'s signed AppTransaction.
    private static func readNotificationIdentity<Object: JSONObjectReading>(
        _ payload: Object, into fields: inout Fields
    ) throws(VerificationError) {
        let name: String
        let part: Object.Value
        if let found = payload.member("data") {
            (name, part) = ("data", found)
        } else if let found = payload.member("summary") {
            (name, part) = ("summary", found)
        } else if let found = payload.member("externalPurchaseToken") {
            (name, part) = ("externalPurchaseToken", found)
        } else if let found = payload.member("appData") {
            (name, part) = ("appData", found)
        } else {
            return
        }
        // The part's members are found once (it holds the nested tokens: kilobytes to scan).
        let read = part.withObject { members -> Result<Void, VerificationError> in
            do throws(VerificationError) {
                try readIdentity(of: name, members, into: &fields)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        guard let read else { throw VerificationError(.claimType, detail: "\(name) is not an object") }
        try read.get()
    }

    /// ``readNotificationIdentity(_:into:)`` once it has found the part (`name`) and its `members`.
    private static func readIdentity<Members: JSONObjectReading>(
        of name: String, _ members: Members, into fields: inout Fields
    ) throws(VerificationError) {
        let inner = ProviderClaimReader(payload: members)
        fields.bundleID = try inner.string("bundleId")
        fields.appAppleID = try integer(inner.number("appAppleId"), "\(name).appAppleId")
        if name == "externalPurchaseToken" {
            fields.externalPurchaseID = try inner.string("externalPurchaseId")
            fields.tokenCreationDate = try inner.number("tokenCreationDate")
            fields.environment = fields.externalPurchaseID.map {
                $0.utf8.starts(with: "SANDBOX".utf8) ? "Sandbox" : "Production"
            }
        } else {
            fields.environment = try inner.string("environment")
        }
        if name == "summary" { fields.productID = try inner.string("productId") }
        if name == "data" {
            for (position, field) in ["signedTransactionInfo", "signedRenewalInfo"].enumerated() {
                guard let node = members.member(position == 0 ? "signedTransactionInfo" : "signedRenewalInfo") else {
                    continue
                }
                guard let token = NestedToken(node) else {
                    throw VerificationError(.claimType, detail: "data.\(field) is not a string")
                }
                if position == 0 { fields.signedTransactionInfo = token } else { fields.signedRenewalInfo = token }
            }
        }
        if name == "appData", let node = members.member("signedAppTransactionInfo") {
            guard let token = NestedToken(node) else {
                throw VerificationError(.claimType, detail: "appData.signedAppTransactionInfo is not a string")
            }
            fields.signedAppTransactionInfo = token
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
    fileprivate static func fields<Visitor: AppStoreFieldVisitor>(_ claims: inout Fields, _ visitor: inout Visitor)
        throws(VerificationError)
    {
        try visitor.text("appAccountToken", &claims.appAccountToken, .signedItem)
        try visitor.integer("appAppleId", &claims.appAppleID, .appIdentity)
        visitor.nested("appTransaction", claims.nested?.appTransaction)
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
        visitor.nested("renewalInfo", claims.nested?.renewalInfo)
        try visitor.text("requestIdentifier", &claims.requestIdentifier, .realtimeRequest)
        try visitor.number("revocationDate", &claims.revocationDate, .signedItem)
        try visitor.number("signedDate", &claims.signedDate, .everyKind)
        try visitor.text("subtype", &claims.subtype, .notification)
        try visitor.number("tokenCreationDate", &claims.tokenCreationDate, .notificationPart)
        visitor.nested("transaction", claims.nested?.transaction)
        try visitor.text("transactionId", &claims.transactionID, .signedItem)
        try visitor.text("type", &claims.type, .signedItem)
        try visitor.text("userLocale", &claims.userLocale, .realtimeRequest)
    }

    /// The typed members under Apple's names, in name order (`kind` added; a notification's
    /// nested data as `transaction`, `renewalInfo` and `appTransaction` objects).
    package func forEachMember(_ body: (StaticString, JSONValue) -> Void) {
        var copy = fields
        withoutActuallyEscaping(body) { body in
            var lister = AppStoreFieldLister(body: body)
            try? Self.fields(&copy, &lister)
        }
    }

    /// Writes the members present and `added` into the open object `out`, in name order,
    /// straight from the field table: what ``forEachMember(_:)`` lists, without a `JSONValue` or
    /// a closure per member.
    package func writeMembers(to out: UnsafeMutablePointer<OutputText>, adding added: inout AddedClaimMembers) {
        var copy = fields
        var writer = AppStoreFieldWriter(out: out, added: added)
        try? Self.fields(&copy, &writer)
        writer.added.write(before: nil, to: out)
        added = writer.added
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

/// Writes the table's members present straight into a record, with the record's own members
/// among them by name: what ``AppStoreFieldLister`` lists, value for value.
struct AppStoreFieldWriter: AppStoreFieldVisitor {
    /// The record being written, lent for the walk.
    let out: UnsafeMutablePointer<OutputText>
    /// The record's own members, still to be placed.
    var added: AddedClaimMembers

    mutating func text(_ name: StaticString, _ value: inout String?, _ source: AppStoreFieldSource) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.string(value)
    }
    mutating func number(_ name: StaticString, _ value: inout Double?, _ source: AppStoreFieldSource) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.number(value)
    }
    mutating func integer(_ name: StaticString, _ value: inout Int64?, _ source: AppStoreFieldSource) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.number(Double(value))
    }
    mutating func integer(_ name: StaticString, _ value: inout Int?, _ source: AppStoreFieldSource) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.number(Double(value))
    }
    mutating func commitment(
        _ name: StaticString, _ value: inout AppStoreCommitmentInfo?, _ source: AppStoreFieldSource
    ) {
        guard let value else { return }
        added.key(name, to: out)
        out.pointee.append(.object(value.members))
    }
    mutating func kind(_ kind: AppStoreClaims.Kind) {
        added.key("kind", to: out)
        out.pointee.string(kind.rawValue)
    }
    mutating func nested(_ name: StaticString, _ claims: AppStoreClaims?) {
        guard let claims else { return }
        added.key(name, to: out)
        out.pointee.append(.object(ProviderClaims(claims).members))
    }
}

/// The App Store environments a policy may require.
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
