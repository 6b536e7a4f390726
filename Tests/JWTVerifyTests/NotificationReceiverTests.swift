import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

/// Apple's server-to-server notifications through the library: one envelope reader, the JWS
/// through the pipeline, and the replay window that tells retried deliveries apart.
@Suite("notifications: envelopes, verification and duplicates")
struct NotificationReceiverTests {
    /// A Sign in with Apple notification of `type` with `jti`, signed by the test key (or `signer`).
    static func notification(
        type: String, jti: String = "jti-1", signer: TokenFactory.Signer = TokenFactory.rsa, email: Bool = true
    ) -> String {
        let emailPart = email ? #",\"email\":\"x@privaterelay.appleid.com\",\"is_private_email\":\"true\""# : ""
        let events = #"{\"type\":\"\#(type)\",\"sub\":\"001234.abc.1234\",\"event_time\":1700000950123\#(emailPart)}"#
        return TokenFactory.token(
            payload:
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"jti":"\#(jti)","events":"\#(events)"}"#,
            signer: signer)
    }

    static func receiver(window: NotificationReplayWindow = NotificationReplayWindow()) -> NotificationReceiver {
        NotificationReceiver(
            verifier: Verifier(keys: TokenFactory.keys, policy: .appleNotification(audiences: [TokenFactory.audience])),
            window: window)
    }

    static func body(_ jws: String) -> [UInt8] { Array(#"{"payload":"\#(jws)"}"#.utf8) }

    @Test(
        "each event type, typed; an unknown type is kept as sent",
        arguments: ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "future-kind"])
    func eventTypes(type: String) async throws {
        let email = type.hasPrefix("email")
        let received = try await Self.receiver().receive(
            Self.body(Self.notification(type: type, email: email)), at: TokenFactory.now
        ).get()
        let event = try #require(received.event)
        #expect(event.type == type && event.subject == "001234.abc.1234" && event.eventTime == 1_700_000_950_123)
        #expect(
            event.email == (email ? "x@privaterelay.appleid.com" : nil) && event.isPrivateEmail == (email ? true : nil))
        #expect(received.id == "jti-1" && !received.isDuplicate && received.appStore == nil)
    }

    @Test("a repeat is a duplicate; another jti is not; the window forgets after its retention and beyond its capacity")
    func duplicates() async throws {
        let receiver = Self.receiver()
        let body = Self.body(Self.notification(type: "account-delete"))
        #expect(try await !receiver.receive(body, at: TokenFactory.now).get().isDuplicate)
        #expect(try await receiver.receive(body, at: TokenFactory.now).get().isDuplicate)
        #expect(
            try await !receiver.receive(
                Self.body(Self.notification(type: "account-delete", jti: "jti-2")), at: TokenFactory.now
            ).get().isDuplicate)
        let window = NotificationReplayWindow(capacity: 3, retention: 100)
        #expect(try !window.recordSighting(of: "a", at: 0) && window.recordSighting(of: "a", at: 50))
        #expect(try !window.recordSighting(of: "a", at: 101))  // retention over: a new first sighting
        for id in ["b", "c", "d"] { #expect(try !window.recordSighting(of: id, at: 102)) }
        #expect(window.count == 3)  // "a" went first
        #expect(try !window.recordSighting(of: "a", at: 103) && window.recordSighting(of: "d", at: 103))
    }

    @Test("a tampered JWS, an unsigned one and a body that is not Apple's envelope")
    func rejections() async throws {
        let receiver = Self.receiver()
        let good = Self.notification(type: "consent-revoked")
        let parts = good.split(separator: ".")
        let tampered = "\(parts[0]).\(parts[1].dropLast())A.\(parts[2])"
        let rejected = try #require(await receiver.receive(Self.body(tampered), at: TokenFactory.now).failure)
        #expect(
            rejected.code == "bad_signature" && rejected.verificationError?.reason == .badSignature
                && !rejected.isNotEnvelope)
        let stranger = try #require(
            await receiver.receive(
                Self.body(
                    Self.notification(
                        type: "x", signer: .init(kid: "rsa-a", algorithm: .rs256, key: try .generateRSA(bits: 2048)))),
                at: TokenFactory.now
            ).failure)
        #expect(stranger.code == "bad_signature")
        for body in [
            "not json", "[1,2]", #"{"token":"a.b.c"}"#, #"{"payload":7}"#, #"{"payload":"a","signedPayload":"b"}"#,
        ] {
            let refused = try #require(await receiver.receive(Array(body.utf8)).failure, "\(body)")
            #expect(refused.isNotEnvelope && refused.code == "body_not_notification" && !refused.isRetryable, "\(body)")
        }
        // An identity token is not a notification.
        let identity = TokenFactory.token(payload: TokenFactory.claims())
        #expect(await receiver.receive(Self.body(identity), at: TokenFactory.now).failure?.code == "claim_type")
    }
}

extension Result {
    /// The error, when this is a failure.
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
