import JWTVerify
import JWTVerifyTestSupport
import Testing

/// A policy that could accept no token is refused when it is built, with a message that says so,
/// instead of answering `audience_mismatch` to every token.
@Suite("policies that accept nothing")
struct EmptyAllowListTests {
    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test("an empty audiences, issuers or algorithms list stops the program at construction, saying so")
    func construction() async {
        let audiences = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VerificationPolicy(issuers: ["https://issuer.example"], audiences: [])
        }
        #expect(Self.stderr(audiences).contains("audiences is empty, so the policy would accept no token"))
        let issuers = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VerificationPolicy(issuers: [], audiences: ["a"])
        }
        #expect(Self.stderr(issuers).contains("issuers is empty, so the policy would accept no token"))
        let algorithms = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VerificationPolicy(issuers: ["i"], audiences: ["a"], algorithms: [])
        }
        #expect(Self.stderr(algorithms).contains("algorithms is empty, so the policy would accept no token"))
        let apple = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VerificationPolicy.appleIdentityToken(audiences: [])
        }
        #expect(Self.stderr(apple).contains("audiences is empty"))
        await #expect(processExitsWith: .failure) { _ = VerificationPolicy.google(audiences: []) }
        await #expect(processExitsWith: .failure) { _ = VerificationPolicy.generic(issuer: "i", audiences: []) }
        await #expect(processExitsWith: .failure) { _ = Verifier(keys: TokenFactory.keys, issuer: "i", audiences: []) }
        let store = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VerificationPolicy.appStore(bundleIDs: [])
        }
        #expect(Self.stderr(store).contains("bundleIDs is empty"))
    }

    @Test("setting an empty list later stops the program too; nil (unchecked) and non-empty lists are fine")
    func setters() async {
        var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
        policy.audiences = nil
        policy.issuers = ["j"]
        policy.algorithms = [.es256]
        #expect(policy.audiences == nil && policy.issuers == ["j"] && policy.algorithms == [.es256])
        #expect(VerificationPolicy(issuers: nil, audiences: nil).audiences == nil)
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
            policy.audiences = []
        }
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
            policy.algorithms = []
        }
        await #expect(processExitsWith: .failure) {
            var policy = VerificationPolicy.generic(issuer: "i", audiences: ["a"])
            policy.issuers?.removeAll()
        }
    }

    @Test("profile(named:) throws for a profile that would accept nothing: no audience, an empty bundle ID list")
    func profiles() throws {
        for name in ["apple", "apple-notification", "google"] {
            do {
                _ = try VerificationPolicy.profile(named: name, .init())
                Issue.record("\(name) without an audience was built")
            } catch {
                #expect(
                    error.description == "the \(name) profile needs an audience: with none it would accept no token")
            }
        }
        #expect(throws: VerificationPolicy.ProfileError.self) {
            try VerificationPolicy.profile(named: "oidc", .init(issuer: "https://i"))
        }
        do {
            _ = try VerificationPolicy.profile(named: "app-store", .init(bundleIDs: []))
            Issue.record("app-store with no bundle ID was built")
        } catch {
            #expect(
                error.description
                    == "the app-store profile has an empty list of bundle IDs, so it would accept no token")
        }
        #expect(try VerificationPolicy.profile(named: "apple", .init(audiences: ["a"])).audiences == ["a"])
        #expect(try VerificationPolicy.profile(named: "app-store", .init()).audiences == nil)
        #expect(try VerificationPolicy.profile(named: "firebase", .init(project: "p")).audiences == ["p"])
    }
}
