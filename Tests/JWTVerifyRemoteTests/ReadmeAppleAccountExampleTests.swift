// swift-format-ignore-file
// The examples here are the README's own text, compared with it line for line: not reformatted.
import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyTestSupport
import Testing

// README-APPLE-BYTES-BEGIN
/// Your Sign in with Apple key: `AuthKey_<keyID>.p8` as downloaded (PEM text), read as bytes.
func appleCredentials(p8Path: String, teamID: String, keyID: String) throws -> SignInWithAppleCredentials {
    let p8 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: p8Path)))
    return SignInWithAppleCredentials(teamID: teamID, clientID: "com.example.app", keyID: keyID, privateKeyPEM: p8)
}

/// A request body as `NotificationReceiver.receive(_:)` and `JWKSet(json:)` take it.
func bodyBytes(_ body: Data) -> [UInt8] { [UInt8](body) }
func bodyBytes(_ body: String) -> [UInt8] { Array(body.utf8) }
// README-APPLE-BYTES-END

// README-APPLE-ACCOUNT-BEGIN
/// Made once at startup from your Sign in with Apple key (`AuthKey_<keyID>.p8`), and shared.
func makeAppleAccounts(teamID: String, keyID: String, p8: [UInt8], baseURL: String = SignInWithAppleClient.appleBaseURL) throws -> SignInWithAppleClient {
    try SignInWithAppleClient(
        credentials: SignInWithAppleCredentials(teamID: teamID, clientID: "com.example.app", keyID: keyID, privateKeyPEM: p8),
        baseURL: baseURL)
}

/// Sign-in: the app posts its authorization code and the raw nonce it started with. Keep the
/// user's ID and the refresh token: account deletion needs it.
func completeSignIn(_ apple: SignInWithAppleClient, code: String, rawNonce: String) async throws -> (user: String, refreshToken: String) {
    let grant = try await apple.exchange(code: code, nonce: .raw(rawNonce))  // the identity token is verified
    return (grant.identity.claims.subject ?? "", grant.refreshToken ?? "")
}

/// At most once a day: does the user still use Sign in with Apple with this app?
func stillSignedIn(_ apple: SignInWithAppleClient, refreshToken: String) async throws -> Bool {
    try await apple.checkRefreshToken(refreshToken).isActive  // false: revoked by the user, or expired
}

/// Account deletion (App Store Review Guideline 5.1.1(v)): revoke the refresh token, and make
/// sure it took; Apple answers 200 to any token. `revocation_unconfirmed` (retryable): try later.
func revokeOnAccountDeletion(_ apple: SignInWithAppleClient, refreshToken: String) async throws {
    try await apple.revokeAndConfirm(refreshToken: refreshToken)
}
// README-APPLE-ACCOUNT-END

// README-APPLE-NOTIFICATIONS-BEGIN
/// `POST /apple/notifications`, the endpoint registered with Apple: its body in, the HTTP
/// status to answer out. Apple retries on anything but 200.
func answerAppleNotification(_ receiver: NotificationReceiver, body: [UInt8], handle: (AppleNotificationEvent) -> Void) async -> Int {
    switch await receiver.receive(body) {
    case .success(let notification):
        // A retried delivery (the same jti) is acknowledged like the first, not handled again.
        if !notification.isDuplicate, let event = notification.event { handle(event) }
        return 200
    case .failure(let rejection):
        return rejection.isRetryable ? 503 : rejection.isNotEnvelope ? 400 : 401
    }
}

let appleNotifications = NotificationReceiver(
    verifier: RemoteVerifier(keySet: .https(.apple), policy: .appleNotification(audiences: ["com.example.app"])))
// README-APPLE-NOTIFICATIONS-END

@Suite("README: account deletion and Apple's notifications")
struct ReadmeAppleAccountExampleTests {
    @Test("the README's account example is this code, and it signs in, checks and revokes against the stand-in")
    func accountLifecycle() async throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-APPLE-ACCOUNT", importing: ["JWTVerify", "JWTVerifyRemote"]))
        let standIn = try AppleStandIn()
        let apple = try makeAppleAccounts(
            teamID: AppleStandIn.teamA.team, keyID: AppleStandIn.teamA.keyID, p8: try standIn.keyPEM("a"), baseURL: standIn.baseURL)
        let signedIn = try await completeSignIn(apple, code: try standIn.authorize(subject: "001.readme.1", rawNonce: "nonce-r"), rawNonce: "nonce-r")
        #expect(signedIn.user == "001.readme.1")
        #expect(try await stillSignedIn(apple, refreshToken: signedIn.refreshToken))
        try await revokeOnAccountDeletion(apple, refreshToken: signedIn.refreshToken)
        #expect(try await !stillSignedIn(apple, refreshToken: signedIn.refreshToken))
        await #expect(throws: SignInWithAppleError(.identityToken, SignInWithAppleError.Code(rawValue: "nonce_mismatch"))) {
            try await completeSignIn(apple, code: try standIn.authorize(subject: "001.readme.1", rawNonce: "nonce-r"), rawNonce: "other")
        }
    }

    @Test("the README's bytes example is this code: a .p8 file read as bytes makes a working client; a bad one is named")
    func bytesExample() async throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-APPLE-BYTES", importing: ["Foundation", "JWTVerify", "JWTVerifyRemote"]))
        let standIn = try AppleStandIn()
        let workspace = try TestWorkspace("readme-p8", withKeys: false)
        let p8 = workspace.directory.appendingPathComponent("AuthKey_\(AppleStandIn.teamA.keyID).p8")
        try Data(try standIn.keyPEM("a")).write(to: p8)
        let credentials = try appleCredentials(p8Path: p8.path, teamID: AppleStandIn.teamA.team, keyID: AppleStandIn.teamA.keyID)
        #expect(credentials.privateKeyPEM == (try standIn.keyPEM("a")))
        let apple = try SignInWithAppleClient(credentials: credentials, baseURL: standIn.baseURL)
        let signedIn = try await completeSignIn(apple, code: try standIn.authorize(subject: "001.readme.3", rawNonce: "nonce-b"), rawNonce: "nonce-b")
        #expect(signedIn.user == "001.readme.3")
        // A file that is not a .p8 (here a JWKS) is refused when the client is made, by name.
        let notP8 = workspace.directory.appendingPathComponent("keys.json")
        try Data(TokenFactory.jwksJSON.utf8).write(to: notP8)
        #expect(throws: SignInWithAppleError.self) {
            _ = try SignInWithAppleClient(
                credentials: try appleCredentials(p8Path: notP8.path, teamID: "T", keyID: "K"), baseURL: standIn.baseURL)
        }
        do {
            _ = try SignInWithAppleClient(credentials: try appleCredentials(p8Path: notP8.path, teamID: "T", keyID: "K"), baseURL: standIn.baseURL)
        } catch let error as SignInWithAppleError {
            #expect(error.code == .invalidConfiguration && error.detail.contains("the key is not a PKCS#8 EC private key"))
        }
        #expect(bodyBytes(Data(#"{"payload":"x"}"#.utf8)) == Array(#"{"payload":"x"}"#.utf8))
        #expect(bodyBytes("Zoë") == [0x5A, 0x6F, 0xC3, 0xAB])
    }

    @Test("the README's notification endpoint is this code: events handled once, repeats acknowledged, statuses as documented")
    func notificationEndpoint() async throws {
        #expect(try ReadmeSnippet.isInReadme(sourceFile: #filePath, marker: "README-APPLE-NOTIFICATIONS", importing: ["JWTVerify", "JWTVerifyRemote"]))
        #expect(appleNotifications.window.count == 0)
        let origin = try OriginServer()
        try origin.set(["document": "{\"keys\":[\(TokenFactory.rsa.jwkJSON)]}"])
        let receiver = NotificationReceiver(
            verifier: RemoteVerifier(keySet: .https(origin.keysURL), policy: .appleNotification(audiences: ["com.example.app"])))
        let now = Int(Date().timeIntervalSince1970)
        let events = #"{\"type\":\"account-delete\",\"sub\":\"001.readme.2\",\"event_time\":\#(now * 1000)}"#
        let jws = TokenFactory.token(
            payload: #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":\#(now + 600),"iat":\#(now),"jti":"readme-1","events":"\#(events)"}"#)
        var handled: [String] = []
        let body = Array(#"{"payload":"\#(jws)"}"#.utf8)
        #expect(await answerAppleNotification(receiver, body: body) { handled.append("\($0.type) \($0.subject ?? "")") } == 200)
        #expect(await answerAppleNotification(receiver, body: body) { handled.append("\($0.type) \($0.subject ?? "")") } == 200)
        #expect(handled == ["account-delete 001.readme.2"])
        #expect(await answerAppleNotification(receiver, body: Array("{}".utf8)) { _ in } == 400)
        let tampered = jws.dropLast(2) + (jws.hasSuffix("AA") ? "BB" : "AA")
        #expect(await answerAppleNotification(receiver, body: Array(#"{"payload":"\#(tampered)"}"#.utf8)) { _ in } == 401)
        // What a notification must carry, as the README says: exp, iat and events; otherwise 401 claim_type.
        for missing in ["exp", "iat", "events"] {
            var members = ["\"iss\":\"https://appleid.apple.com\"", "\"aud\":\"com.example.app\"", "\"exp\":\(now + 600)", "\"iat\":\(now)", "\"jti\":\"readme-\(missing)\"", "\"events\":\"\(events)\""]
            members.removeAll { $0.hasPrefix("\"\(missing)\"") }
            let incomplete = Array(#"{"payload":"\#(TokenFactory.token(payload: "{" + members.joined(separator: ",") + "}"))"}"#.utf8)
            #expect(await answerAppleNotification(receiver, body: incomplete) { _ in Issue.record("handled without \(missing)") } == 401)
            guard case .failure(let rejection) = await receiver.receive(incomplete) else {
                Issue.record("accepted without \(missing)")
                continue
            }
            #expect(rejection.verificationError?.reason == .claimType, "without \(missing)")
        }
        let offline = NotificationReceiver(
            verifier: RemoteVerifier(keySet: .https("http://127.0.0.1:9/keys"), policy: .appleNotification(audiences: ["com.example.app"])))
        #expect(await answerAppleNotification(offline, body: body) { _ in } == 503)
    }
}
