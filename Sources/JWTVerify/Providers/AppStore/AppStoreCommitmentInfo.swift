/// A transaction's or renewal info's `commitmentInfo` (a subscription billed monthly under a
/// yearly commitment, App Store Server API 1.19), typed as Apple's libraries type it
/// (`TransactionCommitmentInfo`, `RenewalCommitmentInfo`). Prices are in milliunits of the
/// currency, dates in milliseconds since the epoch.
public struct AppStoreCommitmentInfo: Sendable, Hashable {
    /// Transactions: `billingPeriodNumber`, this billing period's number within the commitment.
    public internal(set) var billingPeriodNumber: Int64?
    /// Transactions: `totalBillingPeriods` in the commitment.
    public internal(set) var totalBillingPeriods: Int64?
    /// Transactions: `commitmentExpiresDate`.
    public internal(set) var commitmentExpiresDate: Double?
    /// Transactions: `commitmentPrice`.
    public internal(set) var commitmentPrice: Int64?
    /// Renewal infos: `commitmentAutoRenewProductId`.
    public internal(set) var commitmentAutoRenewProductID: String?
    /// Renewal infos: `commitmentAutoRenewStatus` (1 on, 0 off).
    public internal(set) var commitmentAutoRenewStatus: Int64?
    /// Renewal infos: `commitmentRenewalBillingPlanType` (`BILLED_UPFRONT`, `MONTHLY`, as sent).
    public internal(set) var commitmentRenewalBillingPlanType: String?
    /// Renewal infos: `commitmentRenewalDate`.
    public internal(set) var commitmentRenewalDate: Double?
    /// Renewal infos: `commitmentRenewalPrice`.
    public internal(set) var commitmentRenewalPrice: Int64?

    /// Reads the object `node` (`listed` names it in a `claim_type` detail): each member Apple
    /// types, of its type, others ignored.
    init<Value: JSONValueReading>(reading node: Value, listed: String) throws(VerificationError) {
        guard node.kind == .object else { throw VerificationError(.claimType, detail: "\(listed) is not an object") }
        func text(_ name: StaticString) throws(VerificationError) -> String? {
            guard let member = node.member(name) else { return nil }
            guard let value = member.string else {
                throw VerificationError(.claimType, detail: "\(listed).\(name) is not a string")
            }
            return value
        }
        func number(_ name: StaticString) throws(VerificationError) -> Double? {
            guard let member = node.member(name) else { return nil }
            guard let value = member.number else {
                throw VerificationError(.claimType, detail: "\(listed).\(name) is not a number")
            }
            return value
        }
        func integer(_ name: StaticString) throws(VerificationError) -> Int64? {
            try AppStoreClaims.integer(number(name), "\(listed).\(name)")
        }
        billingPeriodNumber = try integer("billingPeriodNumber")
        commitmentAutoRenewProductID = try text("commitmentAutoRenewProductId")
        commitmentAutoRenewStatus = try integer("commitmentAutoRenewStatus")
        commitmentExpiresDate = try number("commitmentExpiresDate")
        commitmentPrice = try integer("commitmentPrice")
        commitmentRenewalBillingPlanType = try text("commitmentRenewalBillingPlanType")
        commitmentRenewalDate = try number("commitmentRenewalDate")
        commitmentRenewalPrice = try integer("commitmentRenewalPrice")
        totalBillingPeriods = try integer("totalBillingPeriods")
    }

    /// The members present, under Apple's names, in name order.
    var members: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        func add(_ name: String, _ value: JSONValue?) { if let value { members[name] = value } }
        add("billingPeriodNumber", billingPeriodNumber.map { .integer($0) })
        add("commitmentAutoRenewProductId", commitmentAutoRenewProductID.map { .string($0) })
        add("commitmentAutoRenewStatus", commitmentAutoRenewStatus.map { .integer($0) })
        add("commitmentExpiresDate", commitmentExpiresDate.map(Self.json))
        add("commitmentPrice", commitmentPrice.map { .integer($0) })
        add("commitmentRenewalBillingPlanType", commitmentRenewalBillingPlanType.map { .string($0) })
        add("commitmentRenewalDate", commitmentRenewalDate.map(Self.json))
        add("commitmentRenewalPrice", commitmentRenewalPrice.map { .integer($0) })
        add("totalBillingPeriods", totalBillingPeriods.map { .integer($0) })
        return members
    }

    /// A date as a JSON number: an integer when whole, as Apple sends it.
    private static func json(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 9.0e15 ? .integer(Int64(value)) : .number(value)
    }
}
