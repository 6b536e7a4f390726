import Foundation
import JWTVerify
import JWTVerifyKeyMaking
import JWTVerifyTestSupport
import Testing

/// `--profile` on verify and audit, and `apple client-secret`, run through the built binary.
@Suite("jwtverify profiles")
struct CLIProfileTests {
    @Test("--profile apple: typed claims on the samples; ES256 is refused; the issuer comes from the profile")
    func apple() throws {
        let outcome = try CLIRunner.run([
            "verify", "--profile", "apple", "--jwks", "Vectors/jwks.json", "--audience", "com.example.app", "--now",
            "1767225600",
            CLITests.sample,
        ])
        #expect(outcome.status == 1)
        let byID = Dictionary(uniqueKeysWithValues: outcome.records.map { ($0["id"] as? String ?? "", $0) })
        let first = try #require(byID["valid-rs256-key1"]?["claims"] as? [String: Any])
        #expect(first["email_verified"] as? Bool == true)
        #expect(first["is_private_email"] as? Bool == true)
        let booleans = try #require(byID["valid-bool-email-verified"]?["claims"] as? [String: Any])
        #expect(booleans["is_private_email"] as? Bool == false)
        #expect(byID["valid-es256"]?["reason"] as? String == "unsupported_alg")
        #expect(byID["expired"]?["claims"] == nil)
        #expect(
            try CLIRunner.run([
                "verify", "--profile", "apple", "--issuer", "x", "--audience", "a", "--jwks", "Vectors/jwks.json",
            ]).status == 64)
        #expect(try CLIRunner.run(["verify", "--profile", "bogus", "--audience", "a"]).status == 64)
    }

    @Test(
        "--profile apple requires the raw nonce: nonce_missing without one, from --nonce or the line; --skip-nonce says the service uses none; audit never requires one"
    )
    func appleNonce() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        let payload =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000000,"sub":"001.a.1","nonce":"\#(Nonce.expectedClaim(forRawNonce: "raw-9"))"}"#
        let token = TokenFactory.token(payload: payload)
        let bare = Data((token + "\n").utf8)
        let apple = ["--profile", "apple", "--audience", "com.example.app", "--jwks", keys, "--now", "1700001000"]
        let missing = try CLIRunner.run(["verify"] + apple, input: bare)
        #expect(missing.status == 1)
        #expect(missing.records.first?["reason"] as? String == "nonce_missing")
        #expect(
            missing.records.first?["detail"] as? String
                == "this policy requires the raw nonce of the sign-in, and none was given")
        #expect(try CLIRunner.run(["verify"] + apple + ["--nonce", "raw-9"], input: bare).status == 0)
        let line = Data(#"{"token":"\#(token)","nonce":"raw-9"}"#.utf8 + [0x0A])
        #expect(try CLIRunner.run(["verify"] + apple, input: line).status == 0)
        let skipped = try CLIRunner.run(["verify"] + apple + ["--skip-nonce"], input: bare)
        #expect(skipped.status == 0, "\(skipped.records)")
        // A nonce that is given is still checked under --skip-nonce.
        let wrong = try CLIRunner.run(["verify"] + apple + ["--skip-nonce", "--nonce", "raw-8"], input: bare)
        #expect(wrong.records.first?["reason"] as? String == "nonce_mismatch")
        // audit: captured tokens have no raw nonces; the report says the nonce was not checked.
        let audit = try CLIRunner.run(["audit", "--format", "json"] + apple, input: bare)
        #expect(audit.status == 0, "\(audit.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: audit.stdout) as? [String: Any])
        #expect(report["valid"] as? Int == 1)
        #expect(report["nonce_checked"] as? Bool == false)
    }

    @Test("--profile firebase --project: issuer and audience from the project, typed Firebase claims")
    func firebase() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        let payload =
            #"{"iss":"https://securetoken.google.com/p-1","aud":"p-1","exp":1700003600,"iat":1700000000,"auth_time":1700000000,"sub":"uid-7","firebase":{"sign_in_provider":"apple.com","identities":{}}}"#
        let input = Data((TokenFactory.token(payload: payload) + "\n").utf8)
        let outcome = try CLIRunner.run(
            ["verify", "--profile", "firebase", "--project", "p-1", "--jwks", keys, "--now", "1700001000"], input: input
        )
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let claims = try #require(outcome.records.first?["claims"] as? [String: Any])
        #expect(claims["uid"] as? String == "uid-7")
        #expect(claims["firebase.sign_in_provider"] as? String == "apple.com")
        let other = try CLIRunner.run(
            ["verify", "--profile", "firebase", "--project", "p-2", "--jwks", keys, "--now", "1700001000"], input: input
        )
        #expect(other.records.first?["reason"] as? String == "issuer_mismatch")
        #expect(try CLIRunner.run(["verify", "--profile", "firebase", "--jwks", keys]).status == 64)
        #expect(
            try CLIRunner.run(["verify", "--profile", "firebase", "--project", "p", "--audience", "a", "--jwks", keys])
                .status == 64)
    }

    @Test("--profile firebase-session, firebase-app-check and firebase-phone: their flags, issuers and typed claims")
    func firebaseFamily() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        func run(_ flags: [String], _ token: String) throws -> CLIRunner.Outcome {
            try CLIRunner.run(
                ["verify"] + flags + ["--jwks", keys, "--now", "1700001000"], input: Data((token + "\n").utf8))
        }
        let session = TokenFactory.token(
            payload:
                #"{"iss":"https://session.firebase.google.com/p-1","aud":"p-1","exp":1700003600,"iat":1700000000,"auth_time":1700000000,"sub":"uid-7"}"#
        )
        let sessionRun = try run(["--profile", "firebase-session", "--project", "p-1"], session)
        #expect(sessionRun.status == 0, "\(sessionRun.stderr)")
        #expect((sessionRun.records.first?["claims"] as? [String: Any])?["uid"] as? String == "uid-7")
        #expect(
            try run(["--profile", "firebase", "--project", "p-1"], session).records.first?["reason"] as? String
                == "issuer_mismatch")

        let appCheck = TokenFactory.token(
            header: #"{"kid":"rsa-a","alg":"RS256","typ":"JWT"}"#,
            payload:
                #"{"iss":"https://firebaseappcheck.googleapis.com/123","aud":["projects/123","projects/p-1"],"sub":"1:123:web:ab","exp":1700003600,"iat":1700000000}"#
        )
        let appCheckRun = try run(
            ["--profile", "firebase-app-check", "--project-number", "123", "--project", "p-1"], appCheck)
        #expect(appCheckRun.status == 0, "\(appCheckRun.stderr)")
        #expect((appCheckRun.records.first?["claims"] as? [String: Any])?["app_id"] as? String == "1:123:web:ab")
        #expect(
            try run(["--profile", "firebase-app-check", "--project-number", "124"], appCheck).records.first?["reason"]
                as? String == "issuer_mismatch")

        let phone = TokenFactory.token(
            header: #"{"kid":"ec-a","alg":"ES256","typ":"JWT"}"#,
            payload:
                #"{"iss":"https://fpnv.googleapis.com/projects/p-1","aud":"https://fpnv.googleapis.com/projects/p-1","sub":"+15555550100","exp":1700003600,"iat":1700000000}"#,
            signer: TokenFactory.ec)
        let phoneRun = try run(["--profile", "firebase-phone", "--project", "p-1"], phone)
        #expect(phoneRun.status == 0, "\(phoneRun.stderr)")
        #expect((phoneRun.records.first?["claims"] as? [String: Any])?["phone_number"] as? String == "+15555550100")

        // Each profile's own flags, and only those.
        for flags in [
            ["--profile", "firebase-session"], ["--profile", "firebase-app-check", "--project", "p-1"],
            ["--profile", "firebase-phone"],
            ["--profile", "firebase-phone", "--project", "p-1", "--project-number", "1"],
            ["--profile", "firebase-session", "--project", "p", "--audience", "a"],
            ["--project-number", "1", "--issuer", "i", "--audience", "a"],
        ] {
            #expect(try CLIRunner.run(["verify"] + flags + ["--jwks", keys]).status == 64, "\(flags)")
        }
    }

    @Test(
        "--profile app-store: keys from each token's chain to --apple-root; --bundle-id, --environment, --app-apple-id; typed claims; its flags"
    )
    func appStore() throws {
        let pki = try AppStoreChainFactory()
        try pki.root("root")
        try pki.issue("ca", by: "root", section: "ca")
        try pki.issue("leaf", by: "ca", section: "leaf")
        let root = pki.directory.appendingPathComponent("root.pem").path
        let signed = 1_767_225_600.0
        let tokens = [
            try pki.token(
                payload: AppStoreChainFactory.transaction(signedDate: signed + 60), chain: ["leaf", "ca", "root"],
                signer: "leaf"),
            try pki.token(
                payload: AppStoreChainFactory.transaction(signedDate: signed + 60, bundleID: "com.other"),
                chain: ["leaf", "ca", "root"], signer: "leaf"),
            try pki.token(
                payload: AppStoreChainFactory.transaction(signedDate: nil), chain: ["leaf", "ca", "root"],
                signer: "leaf"),
        ]
        let input = Data((tokens.joined(separator: "\n") + "\n").utf8)
        // The chain was made now; its tokens say they were signed on 2026-01-01 or later, so judge them now.
        let now = String(Int(Date().timeIntervalSince1970) + 120)
        let outcome = try CLIRunner.run(
            [
                "verify", "--profile", "app-store", "--bundle-id", "com.example.app", "--apple-root", root,
                "--environment", "sandbox", "--now", now,
            ], input: input)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.records.map { $0["reason"] as? String } == [nil, "bundle_mismatch", nil])
        let claims = try #require(outcome.records.first?["claims"] as? [String: Any])
        #expect(
            claims["kind"] as? String == "transaction" && claims["bundleId"] as? String == "com.example.app"
                && claims["productId"] as? String == "pro.monthly")
        // Without --now each is judged at its signedDate: the chain is not valid yet then; the undated one is claim_type.
        let atSignedDate = try CLIRunner.run(
            ["verify", "--profile", "app-store", "--bundle-id", "com.example.app", "--apple-root", root], input: input)
        #expect(
            atSignedDate.records.map { $0["reason"] as? String } == [
                "untrusted_chain", "untrusted_chain", "claim_type",
            ])
        // Under Apple's bundled root, our chain is untrusted.
        let apple = try CLIRunner.run(
            ["verify", "--profile", "app-store", "--bundle-id", "com.example.app", "--now", now], input: input)
        #expect(apple.records.first?["reason"] as? String == "untrusted_chain")
        // audit without --bundle-id says it checks none.
        let audit = try CLIRunner.run(
            ["audit", "--profile", "app-store", "--apple-root", root, "--now", now, "--format", "json"], input: input)
        #expect(audit.stderr.contains("bundle IDs are not checked"))
        let report = try #require(try JSONSerialization.jsonObject(with: audit.stdout) as? [String: Any])
        #expect(report["valid"] as? Int == 3, "\(report)")
        for flags in [
            ["--profile", "app-store"], ["--profile", "app-store", "--bundle-id", "a", "--jwks", "Vectors/jwks.json"],
            ["--profile", "app-store", "--bundle-id", "a", "--environment", "Xcode"],
            ["--profile", "app-store", "--bundle-id", "a", "--app-apple-id", "x"],
            ["--profile", "app-store", "--bundle-id", "a", "--audience", "b"],
            ["--bundle-id", "a", "--issuer", "i", "--audience", "b", "--jwks", "Vectors/jwks.json"],
        ] {
            #expect(try CLIRunner.run(["verify"] + flags).status == 64, "\(flags)")
        }
        #expect(
            try CLIRunner.run([
                "verify", "--profile", "app-store", "--bundle-id", "a", "--apple-root", "Vectors/jwks.json",
            ]).status == 65)
        #expect(
            try CLIRunner.run(["verify", "--profile", "app-store", "--bundle-id", "a", "--apple-root", "/nonexistent"])
                .status == 66)
    }

    @Test(
        "inspect gives verify's verdict: App Store data by its chain at signedDate, a profile's own key set, the Apple nonce rule",
        .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
    func inspectAgreesWithVerify() throws {
        let line = try #require(SharedVectors.data("appstore/tokens.jsonl").split(separator: 0x0A).first)
        let token = try #require(
            (try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["token"] as? String)
        let wrong = try CLIRunner.run(["inspect", token, "--profile", "app-store", "--bundle-id", "com.wrong"])
        #expect(
            wrong.status == 1 && wrong.stdoutText.hasPrefix("REJECTED: bundle_mismatch"),
            "\(wrong.stdoutText.prefix(200))")
        let open = try CLIRunner.run(["inspect", token, "--profile", "app-store"])
        #expect(
            open.status == 0 && open.stdoutText.hasPrefix("VERIFIED: signature by the x5c chain's leaf")
                && open.stdoutText.contains("at its signedDate"))
        #expect(
            try CLIRunner.run(
                ["verify", "--profile", "app-store", "--bundle-id", "com.wrong"], input: Data(token.utf8)
            ).records.first?["reason"] as? String == "bundle_mismatch")
        // --profile apple without --jwks takes Apple's key set (here from a fresh snapshot: no network),
        // and, as verify, needs the raw nonce or --skip-nonce.
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: cache) }
        let url = KeySetSource.apple.description
        // the snapshot's name: SHA-256 of the URL, 12 octets in hex
        let digest = String(Nonce.expectedClaim(forRawNonce: url).prefix(24))
        let keys = try String(
            contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Vectors/jwks.json"), encoding: .utf8)
        let snapshot: [String: Any] = [
            "url": url, "fetched_at": Date().timeIntervalSince1970, "expires_at": Date().timeIntervalSince1970 + 3600,
            "document": keys,
        ]
        try JSONSerialization.data(withJSONObject: snapshot).write(
            to: cache.appendingPathComponent("jwks-\(digest).json"))
        let sample = try #require(
            try String(
                contentsOf: CLIRunner.repositoryRoot.appendingPathComponent(
                    "Vectors/samples/apple-identity-tokens.jsonl"), encoding: .utf8
            )
            .split(separator: "\n").first)
        let identity = try #require(
            (try JSONSerialization.jsonObject(with: Data(sample.utf8)) as? [String: Any])?["token"] as? String)
        let flags = [
            "--profile", "apple", "--audience", "com.example.app", "--jwks-cache", cache.path, "--now",
            "2026-01-01T00:00:00Z",
        ]
        let noNonce = try CLIRunner.run(["inspect", identity] + flags)
        #expect(
            noNonce.status == 1 && noNonce.stdoutText.hasPrefix("REJECTED: nonce_missing"),
            "\(noNonce.stdoutText.prefix(300)) \(noNonce.stderr)")
        let skipped = try CLIRunner.run(["inspect", identity, "--skip-nonce"] + flags)
        #expect(
            skipped.status == 0 && skipped.stdoutText.hasPrefix("VERIFIED: signature by kid"),
            "\(skipped.stdoutText.prefix(300)) \(skipped.stderr)")
        let verified = try CLIRunner.run(["verify", "--skip-nonce"] + flags, input: Data(identity.utf8))
        #expect(verified.status == 0)
    }

    @Test(
        "an App Store audit says only what applies: no kid, issuer, audience, nonce or lifetime notes; judged at signedDate",
        .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
    func appStoreReportFacets() throws {
        let path = SharedVectors.directory.appendingPathComponent("appstore/tokens.jsonl").path
        for format in ["table", "markdown", "html"] {
            let text = try CLIRunner.run(["audit", "--profile", "app-store", "--format", format, path]).stdoutText
            for absent in [
                "By kid", "By issuer", "By audience", "Nonces were not checked",
                "Issuers and audiences were not checked", "Lifetime", "not checked: no raw nonces",
            ] {
                #expect(!text.contains(absent), "\(format) says \(absent)")
            }
            #expect(text.contains("each token at its own signedDate"), "\(format)")
        }
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: CLIRunner.run(["audit", "--profile", "app-store", "--format", "json", path]).stdout)
                as? [String: Any])
        #expect(
            (json["evaluation"] as? [String: Any])?["mode"] as? String == "signed_date"
                && json["keys_from_tokens"] as? Bool == true)
    }

    @Test(
        "--profile app-store on Apple's real tokens: audit finds all 43 in the captured lines, 42 verify at their signedDate",
        .enabled(if: SharedVectors.available, Comment(rawValue: SharedVectors.missingMessage)))
    func appStoreRealTokens() throws {
        let path = SharedVectors.directory.appendingPathComponent("appstore/tokens.jsonl").path
        let audit = try CLIRunner.run(["audit", "--profile", "app-store", "--format", "json", path])
        let report = try #require(try JSONSerialization.jsonObject(with: audit.stdout) as? [String: Any])
        #expect(report["tokens"] as? Int == 43)
        #expect(report["valid"] as? Int == 42)
        #expect((report["by_reason"] as? [String: Any])?["claim_type"] as? Int == 1)
        // The App Store breakdowns: the verified tokens by kind, environment, product and notification type.
        let appStore = try #require(report["app_store"] as? [String: [String: Int]])
        #expect(appStore["by_kind"] == ["notification": 21, "transaction": 11, "renewal_info": 10])
        #expect(appStore["by_environment"] == ["Sandbox": 35, "Production": 3, "(none)": 4])
        #expect(appStore["by_notification_type"]?["TEST"] == 5)
        // 42 valid, less the 5 TEST notifications, which name no product
        #expect(appStore["by_product"]?.values.reduce(0, +) == 37)
        // The same through a partial and audit merge, and in the table.
        let partial = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appstore-\(UUID().uuidString).partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        try CLIRunner.run(["audit", "--profile", "app-store", "--format", "partial", path]).stdout.write(to: partial)
        let merged = try CLIRunner.run(["audit", "merge", "--format", "json", partial.path])
        let mergedReport = try #require(try JSONSerialization.jsonObject(with: merged.stdout) as? [String: Any])
        #expect(mergedReport["app_store"] as? [String: [String: Int]] == appStore, "\(merged.stderr)")
        let table = try CLIRunner.run(["audit", "--profile", "app-store", "--format", "table", path]).stdoutText
        #expect(table.contains("App Store: by kind") && table.contains("App Store: by notification type"))
    }

    @Test("--profile apple-notification: a POST body line gives an event object")
    func notification() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        let events = #"{\"type\":\"account-delete\",\"sub\":\"001.u.1\",\"event_time\":1700000950000}"#
        let payload =
            #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700003600,"iat":1700000950,"events":"\#(events)"}"#
        let body = #"{"payload":"\#(TokenFactory.token(payload: payload))"}"# + "\n"
        let outcome = try CLIRunner.run(
            [
                "verify", "--profile", "apple-notification", "--audience", "com.example.app", "--jwks", keys, "--now",
                "1700001000",
            ],
            input: Data(body.utf8))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let event = try #require(outcome.records.first?["event"] as? [String: Any])
        #expect(event["type"] as? String == "account-delete")
        #expect(event["sub"] as? String == "001.u.1")
        #expect(event["event_time"] as? Int == 1_700_000_950_000)
    }

    @Test("audit --profile google: both issuer spellings count, other issuers are issuer_mismatch")
    func auditProfile() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let keys = workspace.jwks.path
        let lines = ["https://accounts.google.com", "accounts.google.com", "https://evil.example"].map { issuer in
            TokenFactory.token(
                payload: #"{"iss":"\#(issuer)","aud":"client-1","exp":1700003600,"iat":1700000000,"sub":"1"}"#)
        }.joined(separator: "\n")
        let outcome = try CLIRunner.run(
            [
                "audit", "--profile", "google", "--audience", "client-1", "--jwks", keys, "--now", "1700001000",
                "--format", "json",
            ],
            input: Data(lines.utf8))
        let report = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any])
        #expect(report["valid"] as? Int == 2)
        #expect(report["by_reason"] as? [String: Int] == ["issuer_mismatch": 1])
    }

    @Test("apple client-secret: the secret verifies with the key; bad flags and files give their statuses")
    func clientSecret() throws {
        let workspace = try TestWorkspace("profile", keysFile: "keys.json")
        let directory = workspace.directory
        let key = TokenFactory.ec
        let p8 = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        try Data(key.key.pkcs8PEM()).write(to: p8)
        let made = try CLIRunner.run([
            "apple", "client-secret", "--team-id", "TEAM123456", "--key-id", "ec-a", "--client-id", "com.example.web",
            "--key", p8.path,
            "--lifetime", "3600",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let secret = made.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyFile = directory.appendingPathComponent("ec.json")
        try Data("{\"keys\":[\(key.jwkJSON)]}".utf8).write(to: keyFile)
        let verified = try CLIRunner.run(
            [
                "verify", "--jwks", keyFile.path, "--issuer", "TEAM123456", "--audience", "https://appleid.apple.com",
                "--algorithms", "ES256",
            ],
            input: Data((secret + "\n").utf8))
        #expect(verified.status == 0)
        #expect(verified.records.first?["sub"] as? String == "com.example.web")
        #expect(
            try CLIRunner.run([
                "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key", p8.path,
                "--lifetime", "99999999",
            ]).status == 64)
        #expect(
            try CLIRunner.run([
                "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key",
                "/nonexistent.p8",
            ]).status == 66)
        // A key file that is not a .p8 (here a JWKS) is named as such, not with OpenSSL's decoder text.
        let notP8 = try CLIRunner.run([
            "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key", keyFile.path,
        ])
        #expect(notP8.status == 65)
        #expect(notP8.stderr.contains("the key is not a PKCS#8 EC private key"), "\(notP8.stderr)")
        #expect(!notP8.stderr.contains("routines"), "\(notP8.stderr)")
    }
}
