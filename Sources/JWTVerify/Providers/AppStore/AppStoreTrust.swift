import Synchronization

/// The roots App Store signed data must chain to, and the chains already checked against them.
///
/// Every App Store signed token carries its signing chain in the `x5c` header: Apple's leaf,
/// Apple's WWDR intermediate, and a root. Only the leaf and the intermediate are read; the root
/// the token sends is never a trust anchor. The pair must validate, with OpenSSL's X.509
/// verification, up to one of these roots, the leaf carrying Apple's extension
/// 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1.
///
/// Validated chains are cached (bounded, shared by every thread): thousands of tokens signed by
/// one leaf pay for one validation. A chain is validated by every X.509 rule but the validity
/// periods, and keeps the interval in which its three certificates are all valid: each token is
/// judged against it at its own time, once its signature has held.
///
/// Online checks (`onlineChecks: true`) ask OCSP responders through an ``OCSPTransport`` given by
/// ``checkingRevocation(through:)``: `JWTVerify` makes and judges the OCSP messages, the transport
/// (`JWTVerifyRemote`'s `HTTPOCSPTransport`) carries them. Without one, every online check ends
/// `revocation_unavailable`: it never passes unchecked.
public final class AppStoreTrust: Sendable, Hashable, CustomStringConvertible {
    /// Apple Root CA - G3, bundled (its SHA-256 is checked when loaded): the default.
    public static let appleRootCAG3: AppStoreTrust = {
        do {
            return try AppStoreTrust(rootCertificates: [AppleRootCertificate.der()], name: "Apple Root CA - G3")
        } catch {
            preconditionFailure("the bundled Apple Root CA - G3 does not load")
        }
    }()

    /// The OID Apple's leaf certificates for App Store signed data carry.
    public static let leafExtension = "1.2.840.113635.100.6.11.1"
    /// The OID Apple's WWDR intermediate carries.
    public static let intermediateExtension = "1.2.840.113635.100.6.2.1"
    /// Most chains held by the cache.
    public static let cacheCapacity = 1024

    /// A root that is neither a PEM nor a DER certificate.
    public struct InvalidRoot: Error, Sendable, CustomStringConvertible {
        /// Which root, from 0.
        public let index: Int
        /// What was wrong.
        public var description: String { "root certificate \(index) is neither a PEM nor a DER certificate" }
    }

    private let store: X509TrustStore
    private let name: String
    /// What carries online checks' OCSP exchanges (`nil`: none, so they end `revocation_unavailable`).
    private let transport: (any OCSPTransport)?
    private let chains = Mutex(ChainCache())
    /// The chain met last, by its exact text: most tokens come from one leaf, and are matched by
    /// two `memcmp`s, without hashing their 2.5 KB of `x5c` for the cache.
    private let recent = Mutex<RecentChain?>(nil)
    /// Whether validated chains are kept (``withoutChainMemory()``: each token's chain validated anew).
    let remembersChains: Bool
    /// OCSP verdicts by chain: when asked, and the failure (`nil`: both certificates good).
    private let revocations = Mutex([SHA256Digest: (checkedAt: Double, failure: VerificationError?)]())

    /// Trust in these roots, each a PEM or DER certificate, instead of Apple's.
    ///
    /// - Throws: ``InvalidRoot`` for a root that is neither.
    public convenience init(rootCertificates: [[UInt8]]) throws(InvalidRoot) {
        try self.init(
            rootCertificates: rootCertificates,
            name: "\(rootCertificates.count) configured root\(rootCertificates.count == 1 ? "" : "s")")
    }

    private init(rootCertificates: [[UInt8]], name: String) throws(InvalidRoot) {
        var anchors: [[UInt8]] = []
        for (index, certificate) in rootCertificates.enumerated() {
            guard let der = X509TrustStore.der(ofCertificate: certificate) else { throw InvalidRoot(index: index) }
            anchors.append(der)
        }
        do {
            store = try X509TrustStore(anchors: anchors)
        } catch {
            throw InvalidRoot(index: 0)
        }
        self.name = name
        transport = nil
        remembersChains = true
    }

    private init(store: X509TrustStore, name: String, transport: (any OCSPTransport)?, remembersChains: Bool) {
        self.store = store
        self.name = name
        self.transport = transport
        self.remembersChains = remembersChains
    }

    /// The same roots, with online checks' OCSP requests carried by `transport` (such as
    /// `JWTVerifyRemote`'s `HTTPOCSPTransport()`): what `onlineChecks: true` needs. A trust object
    /// of its own, with its own caches of chains and revocation answers.
    public func checkingRevocation(through transport: any OCSPTransport) -> AppStoreTrust {
        AppStoreTrust(store: store, name: name, transport: transport, remembersChains: remembersChains)
    }

    /// The same roots and transport, with no memory of validated chains: every token's `x5c`
    /// leaf and intermediate are validated again (two more ECDSA checks per token). The verdicts
    /// are the same as with the memory; this is for comparing the two, and for measuring.
    public func withoutChainMemory() -> AppStoreTrust {
        AppStoreTrust(store: store, name: name, transport: transport, remembersChains: false)
    }

    /// The key of the leaf `x5c[0]` when the chain `x5c[0]` ← `x5c[1]` (standard base64) is
    /// trusted, else `nil`: the key the pipeline checks such a token's signature with (tooling:
    /// the benchmark's raw limit checks App Store signatures with it).
    package func trustedLeafKey(leaf: String, intermediate: String) -> EVPPublicKey? {
        guard case .success(let chain) = chain(leaf: leaf, intermediate: intermediate) else { return nil }
        return chain.key
    }

    /// The roots, for people.
    public var description: String { name }

    /// The same trust object.
    public static func == (lhs: AppStoreTrust, rhs: AppStoreTrust) -> Bool { lhs === rhs }
    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Chains in the cache now.
    public var cachedChains: Int { chains.withLock { $0.entries.count } }

    /// A trusted chain: its leaf's key, and the interval (seconds since the epoch) in which all
    /// three certificates are valid, which each token is judged against at its own time.
    struct TrustedChain: Sendable {
        let key: EVPPublicKey
        let validity: ClosedRange<Double>
    }

    /// The chain `leaf` ← `intermediate` (the standard base64 of `x5c[0]` and `x5c[1]`) when it
    /// leads to a root by every X.509 rule but the validity periods (``judge(_:at:)`` applies
    /// those, once the token's time is known), with online checks not revoked; else the reason.
    /// Cached: the verdict does not depend on the time.
    func chain(leaf: String, intermediate: String, onlineChecks: Bool = false) -> Result<
        TrustedChain, VerificationError
    > {
        if remembersChains,
            let (entry, key) = recent.withLock({ last -> (ChainEntry, SHA256Digest)? in
                guard let last, exactlyEquals(leaf, last.leaf), exactlyEquals(intermediate, last.intermediate) else {
                    return nil
                }
                return (last.entry, last.key)
            })
        {
            return settle(entry, key: key, onlineChecks: onlineChecks)
        }
        var material = Array(leaf.utf8)
        material.append(0)
        material.append(contentsOf: intermediate.utf8)
        let key = material.withUnsafeBytes { SHA256Digest(hashing: $0) }
        if remembersChains, let entry = chains.withLock({ $0.entries[key] }) {
            remember(entry, key: key, leaf: leaf, intermediate: intermediate)
            return settle(entry, key: key, onlineChecks: onlineChecks)
        }
        guard let leafDER = StandardBase64.decode(leaf.utf8) else {
            return .failure(VerificationError(.x5cInvalid, detail: "x5c[0] is not standard base64"))
        }
        guard let intermediateDER = StandardBase64.decode(intermediate.utf8) else {
            return .failure(VerificationError(.x5cInvalid, detail: "x5c[1] is not standard base64"))
        }
        let entry: ChainEntry
        switch store.verify(
            leaf: leafDER, intermediate: intermediateDER, leafExtension: Self.leafExtension,
            intermediateExtension: Self.intermediateExtension)
        {
        case .trusted(let publicKey, let from, let until, let root):
            entry = .trusted(
                TrustedChain(key: publicKey, validity: from...max(from, until)),
                certificates: Certificates(leaf: leafDER, intermediate: intermediateDER, root: root))
        case .notDER(let position):
            entry = .refused(VerificationError(.x5cInvalid, detail: "x5c[\(position)] is not a DER certificate"))
        case .leafKeyNotP256:
            entry = .refused(
                VerificationError(
                    .keyAlgorithmMismatch, detail: "the x5c leaf's key is not a P-256 key (ES256 needs one)"))
        case .untrusted(let why):
            entry = .refused(VerificationError(.untrustedChain, detail: "x5c does not chain to \(name): \(why)"))
        }
        if remembersChains {
            chains.withLock { $0.insert(entry, for: key) }
            remember(entry, key: key, leaf: leaf, intermediate: intermediate)
        }
        return settle(entry, key: key, onlineChecks: onlineChecks)
    }

    /// Keeps `entry` as the chain met last.
    private func remember(_ entry: ChainEntry, key: SHA256Digest, leaf: String, intermediate: String) {
        let last = RecentChain(leaf: Array(leaf.utf8), intermediate: Array(intermediate.utf8), key: key, entry: entry)
        recent.withLock { $0 = last }
    }

    /// The chain met last: its `x5c` text, its cache key and its entry.
    struct RecentChain: Sendable {
        let leaf: [UInt8]
        let intermediate: [UInt8]
        let key: SHA256Digest
        let entry: ChainEntry
    }

    /// A trusted chain at `time`: `untrusted_chain` when a certificate is not valid then.
    static func judge(_ validity: ClosedRange<Double>, at time: Double) -> VerificationError? {
        guard !validity.contains(time) else { return nil }
        return VerificationError(
            .untrustedChain,
            detail:
                "the x5c chain is valid from \(Verifier.number(validity.lowerBound)) to \(Verifier.number(validity.upperBound)), not at \(Verifier.number(time.rounded(.down)))"
        )
    }

    /// A cached or new chain, then, with online checks, its revocation status.
    private func settle(_ entry: ChainEntry, key: SHA256Digest, onlineChecks: Bool) -> Result<
        TrustedChain, VerificationError
    > {
        switch entry {
        case .refused(let error): return .failure(error)
        case .trusted(let chain, let certificates):
            if onlineChecks, let failure = revocation(of: certificates, key: key) { return .failure(failure) }
            return .success(chain)
        }
    }

    /// How long an OCSP answer is kept.
    public static let revocationCacheSeconds = 900.0
    /// How long an OCSP responder is waited for.
    public static let revocationTimeoutSeconds = 5

    /// The leaf's and the intermediate's OCSP status (each from the responder its certificate
    /// names, through ``checkingRevocation(through:)``'s transport), kept
    /// ``revocationCacheSeconds``; a responder that cannot be had is asked again next time. `nil`
    /// when both are good; `revocation_unavailable` without a transport.
    private func revocation(of certificates: Certificates, key: SHA256Digest) -> VerificationError? {
        guard let transport else {
            return VerificationError(
                .revocationUnavailable,
                detail: "online checks have no OCSP transport: give the policy "
                    + "trust.checkingRevocation(through:) (JWTVerifyRemote's HTTPOCSPTransport)")
        }
        let now = VerificationPolicy.systemClock()
        if let known = revocations.withLock({ $0[key] }), now - known.checkedAt < Self.revocationCacheSeconds {
            return known.failure
        }
        for (name, certificate, issuer) in [
            ("leaf", certificates.leaf, certificates.intermediate),
            ("intermediate", certificates.intermediate, certificates.root),
        ] {
            let timeout = Double(Self.revocationTimeoutSeconds)
            switch store.revocationStatus(of: certificate, issuer: issuer, through: transport, timeout: timeout) {
            case .good: continue
            case .revoked(let why):
                let failure = VerificationError(.certificateRevoked, detail: "the x5c \(name) is \(why)")
                revocations.withLock { $0[key] = (now, failure) }
                return failure
            case .unknown(let why):
                let failure = VerificationError(.untrustedChain, detail: "the x5c \(name): \(why)")
                revocations.withLock { $0[key] = (now, failure) }
                return failure
            case .unavailable(let why):
                return VerificationError(.revocationUnavailable, detail: "the x5c \(name)'s revocation status: \(why)")
            }
        }
        revocations.withLock { table in
            if table.count >= Self.cacheCapacity { table.removeAll() }
            table[key] = (now, nil)
        }
        return nil
    }

    /// A trusted chain's three certificates, DER, for revocation checks.
    struct Certificates: Sendable {
        let leaf: [UInt8]
        let intermediate: [UInt8]
        let root: [UInt8]
    }

    /// A chain as checked: trusted (its key and validity interval, and its certificates for
    /// revocation checks), or refused.
    enum ChainEntry: Sendable {
        case trusted(TrustedChain, certificates: Certificates)
        case refused(VerificationError)
    }

    /// The checked chains by the SHA-256 of their two certificates' text, at most
    /// ``AppStoreTrust/cacheCapacity``; when full, the oldest goes.
    struct ChainCache: Sendable {
        var entries: [SHA256Digest: ChainEntry] = [:]
        var order: [SHA256Digest] = []
        var oldest = 0

        mutating func insert(_ entry: ChainEntry, for key: SHA256Digest) {
            guard entries.updateValue(entry, forKey: key) == nil else { return }
            if order.count < AppStoreTrust.cacheCapacity {
                order.append(key)
            } else {
                entries[order[oldest]] = nil
                order[oldest] = key
                oldest = (oldest + 1) % order.count
            }
        }
    }
}
