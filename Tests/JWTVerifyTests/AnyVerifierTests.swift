import JWTVerify
import JWTVerifyTestSupport
import Testing

/// A key origin that answers every fetch with one document at once.
private struct FixedFetcher: KeySetFetcher {
    let body: String

    func fetch(_ url: String, etag: String?, lastModified: String?) async -> KeySetFetchResult {
        .document(body: Array(body.utf8), maxAge: 600, etag: nil, lastModified: nil)
    }
}

/// The one "local or remote verifier": the same verdicts as the verifier it holds, keys at hand
/// only once a remote set has them, and a copy under other rules over the same keys.
@Suite("any verifier: local or remote")
struct AnyVerifierTests {
    static let policy = VerificationPolicy.generic(issuer: TokenFactory.issuer, audiences: [TokenFactory.audience])

    static func remote() -> RemoteVerifier {
        let keySet = RemoteKeySet(url: "https://example.test/keys", fetcher: FixedFetcher(body: TokenFactory.jwksJSON))
        // A long wait: an unknown kid's refresh must end before the verdict, however loaded the machine.
        return RemoteVerifier(keySet: keySet, policy: policy, refreshWait: 30)
    }

    static func reason(_ verifier: AnyVerifier, _ token: String) async -> String? {
        do {
            _ = try await verifier.verify(token, at: TokenFactory.now)
            return nil
        } catch {
            return error.reason.rawValue
        }
    }

    @Test("local and remote give the verdicts of the verifiers they hold")
    func verdicts() async {
        let valid = TokenFactory.token(payload: TokenFactory.claims())
        let expired = TokenFactory.token(payload: TokenFactory.claims(exp: "1700000500"))
        let unknown = TokenFactory.unsignedToken(kid: "nobody")
        for verifier in [
            AnyVerifier.local(Verifier(keys: TokenFactory.keys, policy: Self.policy)), .remote(Self.remote()),
        ] {
            #expect(await Self.reason(verifier, valid) == nil)
            #expect(await Self.reason(verifier, expired) == "expired")
            #expect(await Self.reason(verifier, unknown) == "unknown_kid")
            #expect(verifier.policy.issuers == [TokenFactory.issuer])
        }
    }

    @Test("a remote set has keys once fetched; local keys always")
    func hasKeys() async {
        #expect(AnyVerifier.local(Verifier(keys: TokenFactory.keys, policy: Self.policy)).hasKeys)
        let remote = Self.remote()
        #expect(!AnyVerifier.remote(remote).hasKeys)
        await remote.keySet.load()
        #expect(AnyVerifier.remote(remote).hasKeys)
    }

    @Test("with(policy:) keeps the keys (the same remote set, its refresh wait) and takes the new rules")
    func withPolicy() async {
        var relaxed = Self.policy
        relaxed.audiences = ["other.app"]
        let token = TokenFactory.token(payload: TokenFactory.claims())
        let remote = Self.remote()
        let copy = AnyVerifier.remote(remote).with(policy: relaxed)
        guard case .remote(let other) = copy else { return #expect(Bool(false), "not remote") }
        #expect(other.keySet === remote.keySet && other.refreshWait == 30)
        #expect(await Self.reason(copy, token) == "audience_mismatch")
        let local = AnyVerifier.local(Verifier(keys: TokenFactory.keys, policy: Self.policy)).with(policy: relaxed)
        #expect(await Self.reason(local, token) == "audience_mismatch")
    }
}
