import JWTVerify

/// The evaluation flags `verify`, `audit` and `inspect` share: `--issuer`, `--audience`,
/// `--nonce`, `--leeway`, `--now` and `--algorithms`.
protocol ClaimFlags {
    var issuer: String? { get set }
    var audiences: [String] { get set }
    var nonce: String? { get set }
    var leeway: Double { get set }
    var now: Double? { get set }
    var algorithms: Set<SignatureAlgorithm> { get set }
    /// Whether `--algorithms` was given (a profile's algorithms apply otherwise).
    var algorithmsGiven: Bool { get set }
}

extension ClaimFlags {
    /// Consumes one of the shared flags; false for other options. Repeated `--algorithms` add up.
    mutating func parseClaimFlag(_ name: String, inline: String?, _ arguments: inout Arguments) throws(CommandFailure) -> Bool {
        switch name {
        case "--issuer": issuer = try arguments.value(for: name, inline: inline)
        case "--audience": audiences.append(try arguments.value(for: name, inline: inline))
        case "--nonce": nonce = try arguments.value(for: name, inline: inline)
        case "--leeway": leeway = try OptionValue.seconds(name, try arguments.value(for: name, inline: inline))
        case "--now": now = try OptionValue.time(name, try arguments.value(for: name, inline: inline))
        case "--algorithms":
            let parsed = try OptionValue.algorithms(name, try arguments.value(for: name, inline: inline))
            algorithms = algorithmsGiven ? algorithms.union(parsed) : parsed
            algorithmsGiven = true
        default: return false
        }
        return true
    }
}
