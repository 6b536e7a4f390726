import Foundation
import JWTVerify
import JWTVerifyRemote
import JWTVerifyServer
import JWTVerifyTestSupport
import Synchronization
import Testing

/// One pipeline under every face: the same token under the same policy gets the same verdict and
/// reason from the library (`Verifier`), from a cached `Verifier` on a repeat (a cache hit), from
/// the batch entry point (plain, and cached with repeats inside one batch), from `RemoteVerifier`
/// over a live local origin (one token at a time and in a batch), from
/// `jwtverify verify`, from `jwtverify audit` and from `jwtverify serve`'s `/verify`. Corpora: the shared attack corpus, the bundled
/// Apple-shaped samples, and a profile corpus covering every rule of every provider, each token
/// under every profile.
@Suite("faces agree", .serialized)
struct FaceAgreementTests {
    /// One token to evaluate, with everything that decides its verdict.
    struct Case {
        let id: String
        let token: String
        let nonce: String?
        /// The expected reason when the corpus states one (`""`: valid).
        let expected: String?
    }

    /// A set of cases sharing keys, policy and time: one CLI run per face.
    struct Group {
        let name: String
        let jwks: [UInt8]
        let policy: VerificationPolicy
        /// The same policy as CLI flags.
        let arguments: [String]
        let now: Double
        var cases: [Case]
    }

    /// Verdict per face: `""` valid, else the reason; a face absent from the map could not run it.
    typealias Verdicts = [String: String]

    // MARK: - Faces

    /// The library face; with `cached`, a verifier with a cache, each case twice: the second
    /// verdict (a cache hit when the first was valid) is the one compared.
    /// With `inputRule`, each token as the faces that read tokens from lines, fields and
    /// headers take it (``TokenInput``: whitespace and a `Bearer` scheme around it removed; a
    /// `"token"` field left blank holds no token, `malformed`), the library itself taking the token alone.
    static func library(_ group: Group, cached: Bool = false, inputRule: Bool = false) throws -> [String: String] {
        let verifier = Verifier(
            keys: try JWKSet(json: group.jwks), policy: group.policy, cache: cached ? .init(capacity: 4096) : nil)
        var verdicts: [String: String] = [:]
        for item in group.cases {
            var token = item.token
            if inputRule {
                let bytes = Array(token.utf8)
                guard case .token(let range) = bytes.withUnsafeBytes({ TokenInput.locate($0) }) else {
                    verdicts[item.id] = VerificationError.Reason.malformed.rawValue
                    continue
                }
                token = String(decoding: bytes[range], as: UTF8.self)
            }
            for _ in 0..<(cached ? 2 : 1) {
                do {
                    _ = try verifier.verify(token, nonce: item.nonce, at: group.now)
                    verdicts[item.id] = ""
                } catch {
                    verdicts[item.id] = error.reason.rawValue
                }
            }
        }
        return verdicts
    }

    /// The library's batch entry point: every case of the group in one batch (so in chunks of
    /// the pipeline's size, mixed as they come); with `cached`, each case twice in a row in the
    /// same batch, under a cache, and the second verdict compared.
    static func batch(_ group: Group, cached: Bool = false) throws -> [String: String] {
        let verifier = Verifier(
            keys: try JWKSet(json: group.jwks), policy: group.policy, cache: cached ? .init(capacity: 4096) : nil)
        var batch = TokenBatch()
        for item in group.cases {
            for _ in 0..<(cached ? 2 : 1) { batch.append(item.token, nonce: item.nonce) }
        }
        return verdicts(group, verifier.verify(batch, at: group.now), every: cached ? 2 : 1)
    }

    /// Verdicts by case id from batch results, taking the last of every `every` results.
    static func verdicts(_ group: Group, _ results: [Result<VerifiedToken, VerificationError>], every: Int = 1)
        -> [String: String]
    {
        var verdicts: [String: String] = [:]
        for (index, item) in group.cases.enumerated() {
            switch results[index * every + every - 1] {
            case .success: verdicts[item.id] = ""
            case .failure(let error): verdicts[item.id] = error.reason.rawValue
            }
        }
        return verdicts
    }

    /// How long the remote faces wait for the refresh an unknown `kid` starts: long enough that a
    /// loaded machine's loopback fetch always ends first, so the verdict is the keys' and not the
    /// clock's (the bounded wait itself is `RemoteVerifierWaitTests`' and `ServeKeyWaitTests`').
    static let refreshWait = 30.0

    /// `RemoteVerifier`'s batch entry point over a live local origin.
    static func remoteBatch(_ group: Group, origin: OriginServer) async throws -> [String: String] {
        try origin.set(["document": String(decoding: group.jwks, as: UTF8.self)])
        let verifier = RemoteVerifier(keySet: .https(origin.keysURL), policy: group.policy, refreshWait: refreshWait)
        var batch = TokenBatch()
        for item in group.cases { batch.append(item.token, nonce: item.nonce) }
        return verdicts(group, await verifier.verify(batch, at: group.now))
    }

    static func remote(_ group: Group, origin: OriginServer) async throws -> [String: String] {
        try origin.set(["document": String(decoding: group.jwks, as: UTF8.self)])
        let verifier = RemoteVerifier(keySet: .https(origin.keysURL), policy: group.policy, refreshWait: refreshWait)
        var verdicts: [String: String] = [:]
        for item in group.cases {
            do {
                _ = try await verifier.verify(item.token, nonce: item.nonce, at: group.now)
                verdicts[item.id] = ""
            } catch {
                verdicts[item.id] = error.reason.rawValue
            }
        }
        return verdicts
    }

    /// `jwtverify verify` over JSON request lines (each with its own nonce); empty when the CLI
    /// refuses the key set (a set with no usable key is a configuration error there, status 65).
    static func verifyCLI(_ group: Group, jwksFile: String) throws -> [String: String] {
        let run = try CLIRunner.run(
            ["verify", "--jwks", jwksFile, "--now", "\(group.now)", "--threads", "2"] + group.arguments,
            input: try requestLines(group))
        if run.status == 65 { return [:] }
        #expect(run.status <= 1, "\(group.name): verify exited \(run.status): \(run.stderr)")
        return try verdicts(group, records: run.stdout)
    }

    /// The group's cases as JSON request lines, each with its own nonce and its index as `id`.
    static func requestLines(_ group: Group) throws -> Data {
        var input = Data()
        for (index, item) in group.cases.enumerated() {
            var request: [String: Any] = ["token": item.token, "id": index]
            if let nonce = item.nonce { request["nonce"] = nonce }
            input += try JSONSerialization.data(withJSONObject: request) + Data([0x0A])
        }
        return input
    }

    /// Verdict per case from `verify`'s records for ``requestLines(_:)``.
    static func verdicts(_ group: Group, records: Data) throws -> [String: String] {
        var verdicts: [String: String] = [:]
        for line in records.split(separator: 0x0A) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let index = try #require(record["id"] as? Int)
            verdicts[group.cases[index].id] = (record["reason"] as? String) ?? ""
        }
        return verdicts
    }

    /// `jwtverify inspect`, one run per case (two at a time): the token on stdin with the case's
    /// nonce and the group's flags; the verdict from its first line (`VERIFIED` or `REJECTED:
    /// reason`). Only tokens inspect's extractor finds whole (three base64url segments) are
    /// compared; `jwks` nil gives no `--jwks` (the profile's own keys: App Store data).
    static func inspectCLI(_ group: Group, jwksFile: String?, time: Bool = true) -> [String: String] {
        let comparable = group.cases.filter { item in
            let segments = item.token.split(separator: ".", omittingEmptySubsequences: false)
            return segments.count == 3
                && segments.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy(Base64URL.isAlphabet) }
        }
        let verdicts = Mutex<[String: String]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for item in comparable.enumerated().filter({ $0.offset % 2 == worker }).map(\.element) {
                let arguments =
                    ["inspect", "-"] + (jwksFile.map { ["--jwks", $0] } ?? [])
                    + (time ? ["--now", "\(group.now)"] : [])
                    + (item.nonce.map { ["--nonce", $0] } ?? []) + group.arguments
                guard let run = try? CLIRunner.run(arguments, input: Data(item.token.utf8)) else { continue }
                let first = run.stdoutText.prefix { $0 != "\n" }
                let verdict: String? =
                    first.hasPrefix("VERIFIED")
                    ? "" : first.hasPrefix("REJECTED: ") ? String(first.dropFirst(10).prefix { $0 != ":" }) : nil
                verdicts.withLock {
                    $0[item.id] = verdict ?? "(inspect exited \(run.status): \(run.stderr.prefix(120)))"
                }
            }
        }
        return verdicts.withLock { $0 }
    }

    /// `jwtverify serve`'s `/verify`, given the same JSON request lines as `verify`; empty when
    /// serve refuses the key set.
    static func serveVerify(_ group: Group, jwksFile: String) throws -> [String: String] {
        let serve: ServeProcess
        do {
            serve = try ServeProcess(
                ["--jwks", jwksFile, "--now", "\(group.now)", "--max-body-bytes", "\(64 << 20)"] + group.arguments)
        } catch ServeFailure.didNotStart(let stderr) where stderr.contains("no usable key") {
            return [:]
        }
        let answer = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify", body: [UInt8](try requestLines(group)))
        #expect(answer.status == 200, "\(group.name): /verify answered \(answer.status): \(answer.text.prefix(300))")
        return try verdicts(group, records: answer.body)
    }

    /// `serve`'s `/auth`, in-process: each token as `Authorization: Bearer`, through a route whose
    /// `--nonce` is the case's (one route per nonce); the verdict from the status and
    /// `X-JWT-Reason`. Only tokens a bearer header can carry (token68) are compared.
    static func auth(_ group: Group) throws -> [String: String] {
        guard let keys = try? JWKSet(json: group.jwks) else { return [:] }
        let verifier = Verifier(keys: keys, policy: group.policy)
        var services: [String: ServeService] = [:]
        var verdicts: [String: String] = [:]
        for item in group.cases {
            let bytes = Array(item.token.utf8)
            guard !bytes.isEmpty, bytes.allSatisfy({ Base64URL.isAlphabet($0) || $0 == UInt8(ascii: ".") }) else {
                continue
            }
            let nonce = item.nonce ?? ""
            let service =
                services[nonce]
                ?? {
                    let configuration = RouteConfiguration(
                        name: ServeRoute.defaultName, nonce: item.nonce, time: .fixed(group.now))
                    let route = ServeRoute(
                        configuration: configuration, keys: .files(verifier, loadedAt: 0, count: keys.keys.count))
                    return ServeService(routes: ServeRoutes(routes: [route.name: route]))
                }()
            services[nonce] = service
            let answer = service.handle(
                InMemoryRequest(path: "/auth", headers: ["Authorization": "Bearer " + item.token]))
            verdicts[item.id] =
                answer.status == 200 ? "" : answer.header("X-JWT-Reason") ?? "(\(answer.status) without a reason)"
        }
        return verdicts
    }

    /// `jwtverify audit` over one token per line, one run per nonce; only tokens the extractor
    /// finds whole are compared (audit looks for tokens in text, so a malformed one may not be found).
    static func auditCLI(_ group: Group, jwksFile: String) throws -> [String: String] {
        var verdicts: [String: String] = [:]
        // Captured tokens come without their raw nonces: under a policy that requires one, audit
        // answers another question than the other faces for cases without a nonce (the group
        // under the policy with `nonce: .checkedWhenGiven` compares those).
        let requiresNonce = group.policy.nonceRequirement == .required
        let comparable = group.cases.filter {
            !$0.token.contains("\n") && !$0.token.isEmpty && !(requiresNonce && $0.nonce == nil)
        }
        let byNonce = Dictionary(grouping: comparable, by: { $0.nonce ?? "" })
        for (nonce, cases) in byNonce {
            let input = Data(cases.map(\.token).joined(separator: "\n").utf8) + Data([0x0A])
            let arguments =
                ["audit", "--format", "jsonl", "--show-tokens", "-q", "--jwks", jwksFile, "--now", "\(group.now)"]
                + (nonce.isEmpty ? [] : ["--nonce", nonce]) + group.arguments
            let run = try CLIRunner.run(arguments, input: input)
            if run.status == 65 { return [:] }
            #expect(run.status <= 1, "\(group.name): audit exited \(run.status): \(run.stderr)")
            var byToken: [String: [String]] = [:]
            for item in cases { byToken[item.token, default: []].append(item.id) }
            for line in run.stdout.split(separator: 0x0A) {
                let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
                guard let token = record["token"] as? String, let ids = byToken[token] else { continue }
                for id in ids { verdicts[id] = (record["reason"] as? String) ?? "" }
            }
        }
        return verdicts
    }

    /// Runs every face over `groups`; returns how many verdicts each face gave.
    static func agree(_ groups: [Group]) async throws -> [String: Int] {
        let origin = try OriginServer()
        let workspace = try TestWorkspace("faces", withKeys: false)
        let directory = workspace.directory
        var counts: [String: Int] = [:]
        var disagreements: [String] = []
        for (index, group) in groups.enumerated() {
            let jwksFile = directory.appendingPathComponent("jwks-\(index).json").path
            try Data(group.jwks).write(to: URL(fileURLWithPath: jwksFile))
            let library = try Self.library(group)
            // verify's lines and /verify's bodies take tokens by the one input rule.
            let onInput = try Self.library(group, inputRule: true)
            let readsInput: Set<String> = ["verify", "serve"]
            let faces: [(String, [String: String])] = [
                ("library", library),
                ("cached", try Self.library(group, cached: true)),
                ("batch", try Self.batch(group)),
                ("cached batch", try Self.batch(group, cached: true)),
                ("remote", try await remote(group, origin: origin)),
                ("remote batch", try await remoteBatch(group, origin: origin)),
                ("verify", try verifyCLI(group, jwksFile: jwksFile)),
                ("audit", try auditCLI(group, jwksFile: jwksFile)),
                ("serve", try serveVerify(group, jwksFile: jwksFile)),
                ("auth", try auth(group)),
                ("inspect", inspectCLI(group, jwksFile: jwksFile)),
            ]
            for item in group.cases {
                let reference = library[item.id] ?? "?"
                if let expected = item.expected, expected != reference {
                    disagreements.append("\(group.name)/\(item.id): library \(reference), corpus expects \(expected)")
                }
                for (face, verdicts) in faces {
                    guard let verdict = verdicts[item.id] else { continue }
                    counts[face, default: 0] += 1
                    let expected = readsInput.contains(face) ? onInput[item.id] ?? "(blank)" : reference
                    if verdict != expected {
                        disagreements.append("\(group.name)/\(item.id): \(face) \(verdict), library \(expected)")
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(10))")
        return counts
    }

    // MARK: - Corpora

    @Test("the attack corpus: every face gives the corpus's verdict and reason", .enabled(if: SharedVectors.available))
    func attackCorpus() async throws {
        var groups: [String: Group] = [:]
        var order: [String] = []
        let data = try SharedVectors.data("attacks/cases.jsonl")
        for line in data.split(separator: 0x0A) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let options = try #require(object["options"] as? [String: Any])
            let jwks: [UInt8]
            if let inline = object["jwks"] {
                jwks = [UInt8](try JSONSerialization.data(withJSONObject: inline, options: [.sortedKeys]))
            } else {
                jwks = [UInt8](try SharedVectors.data("attacks/\(object["jwks_ref"] as? String ?? "jwks.json")"))
            }
            let issuer = options["issuer"] as? String ?? ""
            let audiences = (options["audience"] as? [String]) ?? [(options["audience"] as? String) ?? ""]
            let algorithms = options["algorithms"] as? [String] ?? []
            let leeway = (options["leeway"] as? NSNumber)?.doubleValue ?? 60
            let maxBytes = (options["max_token_bytes"] as? NSNumber)?.intValue ?? 65536
            let now = (options["now"] as? NSNumber)?.doubleValue ?? 0
            let policy = VerificationPolicy(
                issuers: [issuer], audiences: audiences,
                algorithms: Set(algorithms.compactMap(SignatureAlgorithm.init(name:))),
                leeway: leeway, maxTokenBytes: maxBytes)
            let arguments =
                ["--issuer", issuer] + audiences.flatMap { ["--audience", $0] }
                + [
                    "--algorithms", algorithms.joined(separator: ","), "--leeway", "\(leeway)", "--max-token-bytes",
                    "\(maxBytes)",
                ]
            let key = String(decoding: jwks, as: UTF8.self) + arguments.joined(separator: " ") + "\(now)"
            let expect = object["expect"] as? String == "accept" ? "" : object["reason"] as? String
            let item = Case(
                id: object["id"] as? String ?? "?", token: object["token"] as? String ?? "",
                nonce: options["nonce"] as? String, expected: expect)
            if groups[key] == nil {
                order.append(key)
                groups[key] = Group(
                    name: "attacks", jwks: jwks, policy: policy, arguments: arguments, now: now, cases: [])
            }
            groups[key]!.cases.append(item)
        }
        let counts = try await Self.agree(order.map { groups[$0]! })
        print("faces agree on the attack corpus: \(counts.sorted { $0.key < $1.key })")
        #expect(counts["library"] == 183)
        #expect(counts["cached"] == 183)
        #expect(counts["remote"] == 183)
        for face in ["batch", "cached batch", "remote batch"] { #expect(counts[face] == 183, "\(face)") }
        #expect(counts["verify", default: 0] >= 169)
        #expect(counts["serve"] == counts["verify"])
        #expect(counts["audit", default: 0] >= 120)
        #expect(counts["auth", default: 0] >= 120)
        #expect(counts["inspect", default: 0] >= 120)
    }

    @Test(
        "App Store signed data: Apple's real tokens and each with a payload byte changed, through every face that takes it",
        .enabled(if: SharedVectors.available))
    func appStoreCorpus() async throws {
        let data = try SharedVectors.data("appstore/tokens.jsonl")
        var cases: [Case] = []
        for (index, line) in data.split(separator: 0x0A).enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let token = try #require(object["token"] as? String)
            cases.append(Case(id: "real-\(index)", token: token, nonce: nil, expected: nil))
            var bytes = Array(token.utf8)
            let position = bytes.firstIndex(of: UInt8(ascii: "."))! + 40
            bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "Q") : UInt8(ascii: "A")
            cases.append(
                Case(id: "changed-\(index)", token: String(decoding: bytes, as: UTF8.self), nonce: nil, expected: nil))
        }
        // Every bundle ID the vectors carry, as a service of all those apps would configure.
        let open = Verifier(
            policy: VerificationPolicy(
                issuers: nil, audiences: nil, algorithms: [.es256], rules: .appStore(bundleIDs: nil)))
        let bundles = Set(cases.compactMap { try? open.verify($0.token).provider(as: AppStoreClaims.self)?.bundleID })
            .sorted()
        #expect(bundles.count >= 5)
        let policy = VerificationPolicy.appStore(bundleIDs: bundles)
        let arguments = ["--profile", "app-store"] + bundles.flatMap { ["--bundle-id", $0] }
        let group = Group(name: "appstore", jwks: [], policy: policy, arguments: arguments, now: 0, cases: cases)
        let verifier = Verifier(policy: policy)
        func verdict(_ result: Result<VerifiedToken, VerificationError>) -> String {
            if case .failure(let error) = result { return error.reason.rawValue }
            return ""
        }
        // Each judged at its signedDate: no face is given a time.
        var library: [String: String] = [:]
        for item in cases {
            library[item.id] = verdict(Result { () throws(VerificationError) in try verifier.verify(item.token) })
        }
        var batch = TokenBatch()
        for item in cases { batch.append(item.token) }
        let batched = Self.verdicts(group, verifier.verify(batch))
        let verify = try CLIRunner.run(["verify", "--threads", "2"] + arguments, input: try Self.requestLines(group))
        let verified = try Self.verdicts(group, records: verify.stdout)
        var audited: [String: String] = [:]
        let audit = try CLIRunner.run(
            ["audit", "--format", "jsonl", "--show-tokens", "-q"] + arguments,
            input: Data(cases.map(\.token).joined(separator: "\n").utf8 + [0x0A]))
        for line in audit.stdout.split(separator: 0x0A) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            if let token = record["token"] as? String, let item = cases.first(where: { $0.token == token }) {
                audited[item.id] = (record["reason"] as? String) ?? ""
            }
        }
        let serve = try ServeProcess(["--max-body-bytes", "\(64 << 20)"] + arguments)
        let answer = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify", body: [UInt8](try Self.requestLines(group)))
        let served = try Self.verdicts(group, records: answer.body)
        let route = ServeRoute(
            configuration: RouteConfiguration(name: ServeRoute.defaultName),
            keys: .files(verifier, loadedAt: 0, count: 0))
        let service = ServeService(routes: ServeRoutes(routes: [route.name: route]))
        var webhook: [String: String] = [:]
        var auth: [String: String] = [:]
        for item in cases {
            let posted = service.handle(
                InMemoryRequest(
                    method: "POST", path: "/appstore", body: Array(#"{"signedPayload":"\#(item.token)"}"#.utf8)))
            webhook[item.id] = posted.status == 200 ? "" : posted.header("X-JWT-Reason") ?? "(\(posted.status))"
            let gated = service.handle(
                InMemoryRequest(path: "/auth", headers: ["Authorization": "Bearer " + item.token]))
            auth[item.id] = gated.status == 200 ? "" : gated.header("X-JWT-Reason") ?? "(\(gated.status))"
        }
        var disagreements: [String] = []
        let inspected = Self.inspectCLI(group, jwksFile: nil, time: false)
        #expect(inspected.count == cases.count)
        for (face, verdicts) in [
            ("batch", batched), ("verify", verified), ("audit", audited), ("serve", served), ("appstore", webhook),
            ("auth", auth), ("inspect", inspected),
        ] {
            #expect(verdicts.count == cases.count, "\(face) gave \(verdicts.count) verdicts")
            for item in cases where verdicts[item.id] != library[item.id] {
                disagreements.append(
                    "\(item.id): \(face) \(verdicts[item.id] ?? "none"), library \(library[item.id] ?? "none")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(10))")
        // The real tokens: 42 valid (the one without signedDate is claim_type); no changed one passes.
        #expect(cases.filter { $0.id.hasPrefix("real") && library[$0.id] == "" }.count == 42)
        #expect(cases.filter { $0.id.hasPrefix("changed") && library[$0.id] == "" }.isEmpty)
        let changed = Dictionary(grouping: cases.filter { $0.id.hasPrefix("changed") }, by: { library[$0.id] ?? "" })
            .mapValues(\.count)
        #expect(changed == ["bad_signature": 43], "\(changed)")
    }

    @Test(
        "App Store's nested and realtime kinds (Vectors/appstore): each line's verdict through every face that takes it"
    )
    func appStoreNewKinds() async throws {
        typealias Vectors = AppStoreSyntheticVectors
        let cases = Vectors.all.map { Case(id: $0.id, token: $0.token, nonce: nil, expected: $0.expect) }
        #expect(cases.count == 17)
        let policy = try Vectors.policy()
        let group = Group(
            name: "appstore-kinds", jwks: [], policy: policy, arguments: Vectors.arguments, now: 0, cases: cases)
        let verifier = Verifier(policy: policy)
        func verdict(_ result: Result<VerifiedToken, VerificationError>) -> String {
            if case .failure(let error) = result { return error.reason.rawValue }
            return ""
        }
        // Each judged at its signedDate: no face is given a time.
        var library: [String: String] = [:]
        for item in cases {
            library[item.id] = verdict(Result { () throws(VerificationError) in try verifier.verify(item.token) })
        }
        for item in cases { #expect(library[item.id] == (item.expected == "valid" ? "" : item.expected), "\(item.id)") }
        var batch = TokenBatch()
        for item in cases { batch.append(item.token) }
        let batched = Self.verdicts(group, verifier.verify(batch))
        let verify = try CLIRunner.run(
            ["verify", "--threads", "2"] + group.arguments, input: try Self.requestLines(group))
        let verified = try Self.verdicts(group, records: verify.stdout)
        var audited: [String: String] = [:]
        let audit = try CLIRunner.run(
            ["audit", "--format", "jsonl", "--show-tokens", "-q"] + group.arguments,
            input: Data(cases.map(\.token).joined(separator: "\n").utf8 + [0x0A]))
        for line in audit.stdout.split(separator: 0x0A) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            if let token = record["token"] as? String, let item = cases.first(where: { $0.token == token }) {
                audited[item.id] = (record["reason"] as? String) ?? ""
            }
        }
        let serve = try ServeProcess(group.arguments)
        let answer = try RawHTTP.request(
            serve.port, method: "POST", path: "/verify", body: [UInt8](try Self.requestLines(group)))
        let served = try Self.verdicts(group, records: answer.body)
        // The one realtime request over the socket, at /retention as Apple posts it.
        let posted = try RawHTTP.request(
            serve.port, method: "POST", path: "/retention",
            body: Array(#"{"signedPayload":"\#(Vectors.token("realtime-request-wrong-app"))"}"#.utf8))
        #expect(posted.status == 401 && posted.header("X-JWT-Reason") == "app_apple_id_mismatch")
        let route = ServeRoute(
            configuration: RouteConfiguration(name: ServeRoute.defaultName),
            keys: .files(verifier, loadedAt: 0, count: 0))
        let service = ServeService(routes: ServeRoutes(routes: [route.name: route]))
        var webhook: [String: String] = [:]
        var retention: [String: String] = [:]
        var auth: [String: String] = [:]
        for item in cases {
            let body = Array(#"{"signedPayload":"\#(item.token)"}"#.utf8)
            let notified = service.handle(InMemoryRequest(method: "POST", path: "/appstore", body: body))
            webhook[item.id] = notified.status == 200 ? "" : notified.header("X-JWT-Reason") ?? "(\(notified.status))"
            if item.id.hasPrefix("realtime") {
                let asked = service.handle(InMemoryRequest(method: "POST", path: "/retention", body: body))
                retention[item.id] = asked.status == 200 ? "" : asked.header("X-JWT-Reason") ?? "(\(asked.status))"
            }
            let gated = service.handle(
                InMemoryRequest(path: "/auth", headers: ["Authorization": "Bearer " + item.token]))
            auth[item.id] = gated.status == 200 ? "" : gated.header("X-JWT-Reason") ?? "(\(gated.status))"
        }
        #expect(retention.count == 4)
        let inspected = Self.inspectCLI(group, jwksFile: nil, time: false)
        var disagreements: [String] = []
        for (face, verdicts) in [
            ("batch", batched), ("verify", verified), ("audit", audited), ("serve", served), ("appstore", webhook),
            ("retention", retention), ("auth", auth), ("inspect", inspected),
        ] {
            if face != "retention" { #expect(verdicts.count == cases.count, "\(face) gave \(verdicts.count) verdicts") }
            for item in cases where verdicts[item.id] != nil && verdicts[item.id] != library[item.id] {
                disagreements.append(
                    "\(item.id): \(face) \(verdicts[item.id] ?? "none"), library \(library[item.id] ?? "none")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(10))")
    }

    @Test("the bundled samples: generic and Apple policies")
    func samples() async throws {
        let jwks = [UInt8](try Data(contentsOf: SharedVectors.projectVectors.appendingPathComponent("jwks.json")))
        var cases: [Case] = []
        let data = try Data(
            contentsOf: SharedVectors.projectVectors.appendingPathComponent("samples/apple-identity-tokens.jsonl"))
        for line in data.split(separator: 0x0A) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            cases.append(
                Case(
                    id: object["id"] as? String ?? "?", token: object["token"] as? String ?? "",
                    nonce: object["nonce"] as? String, expected: nil))
        }
        let now = 1_767_225_600.0
        let groups = [
            Group(
                name: "samples/generic", jwks: jwks,
                policy: .generic(issuer: "https://appleid.apple.com", audiences: ["com.example.app"]),
                arguments: ["--issuer", "https://appleid.apple.com", "--audience", "com.example.app"], now: now,
                cases: cases),
            Group(
                name: "samples/apple", jwks: jwks, policy: .appleIdentityToken(audiences: ["com.example.app"]),
                arguments: ["--profile", "apple", "--audience", "com.example.app"], now: now, cases: cases),
        ]
        let counts = try await Self.agree(groups)
        print("faces agree on the samples: \(counts.sorted { $0.key < $1.key })")
        #expect(counts["library"] == 2 * cases.count)
        for face in ["batch", "cached batch", "remote batch"] { #expect(counts[face] == 2 * cases.count, "\(face)") }
        #expect(counts["verify"] == 2 * cases.count)
        #expect(counts["serve"] == 2 * cases.count)
        #expect(counts["auth", default: 0] >= 2 * (cases.count - 3))
    }

    @Test("the profile corpus: every provider rule, each token under every profile")
    func profileCorpus() async throws {
        let tokens = ProfileCorpus.tokens
        let groups = ProfileCorpus.policies.flatMap { policy in
            [nil, "raw-1"].map { nonce in
                Group(
                    name: "profiles/\(policy.name)/\(nonce ?? "-")", jwks: Array(TokenFactory.jwksJSON.utf8),
                    policy: policy.policy,
                    arguments: policy.arguments, now: TokenFactory.now,
                    cases: tokens.map { Case(id: $0.id, token: $0.token, nonce: nonce, expected: nil) })
            }
        }
        let counts = try await Self.agree(groups)
        print(
            "faces agree on the profile corpus (\(tokens.count) tokens x \(groups.count) policy/nonce pairs): \(counts.sorted { $0.key < $1.key })"
        )
        let total = tokens.count * groups.count
        #expect(counts["library"] == total)
        #expect(counts["cached"] == total)
        #expect(counts["remote"] == total)
        for face in ["batch", "cached batch", "remote batch"] { #expect(counts[face] == total, "\(face)") }
        #expect(counts["verify"] == total)
        #expect(counts["serve"] == total)
        #expect(counts["auth"] == total)
        // audit has no raw nonces: it sits out the nonce-less runs of the policies that require one.
        let requiring = ProfileCorpus.policies.filter { $0.policy.nonceRequirement == .required }.count
        #expect(requiring == 2)
        #expect(counts["audit"] == total - requiring * tokens.count)
        // The corpus exercises every reason the provider rules can give, under some profile.
        let verdicts = try groups.flatMap { try Self.library($0).values }
        for reason in [
            "", "claim_type", "issued_in_future", "hosted_domain_mismatch", "audience_mismatch", "issuer_mismatch",
            "unsupported_alg", "nonce_missing", "expired", "insufficient_scope", "header_invalid", "claim_mismatch",
        ] {
            #expect(verdicts.contains(reason), "no case gives \(reason)")
        }
    }
}

/// Tokens that each break one provider rule (or none), signed with the test keys.
enum ProfileCorpus {
    struct Policy {
        let name: String
        let policy: VerificationPolicy
        let arguments: [String]
    }

    static let policies: [Policy] = [
        Policy(
            name: "generic", policy: .generic(issuer: TokenFactory.issuer, audiences: ["com.example.app"]),
            arguments: ["--issuer", TokenFactory.issuer, "--audience", "com.example.app"]),
        Policy(
            name: "apple", policy: .appleIdentityToken(audiences: ["com.example.app"]),
            arguments: ["--profile", "apple", "--audience", "com.example.app"]),
        Policy(
            name: "apple-no-nonces",
            policy: .appleIdentityToken(audiences: ["com.example.app"], nonce: .checkedWhenGiven),
            arguments: ["--profile", "apple", "--audience", "com.example.app", "--skip-nonce"]),
        Policy(
            name: "apple-relaxed",
            policy: .appleIdentityToken(audiences: ["com.example.app"], acceptMissingNonceWhenUnsupported: true),
            arguments: [
                "--profile", "apple", "--audience", "com.example.app", "--accept-missing-nonce-when-unsupported",
            ]),
        Policy(
            name: "apple-notification", policy: .appleNotification(audiences: ["com.example.app"]),
            arguments: ["--profile", "apple-notification", "--audience", "com.example.app"]),
        Policy(
            name: "firebase", policy: .firebase(project: "p-1"),
            arguments: ["--profile", "firebase", "--project", "p-1"]),
        Policy(
            name: "firebase-apple-only",
            policy: {
                var policy = VerificationPolicy.firebase(project: "p-1")
                policy.claimRules = ["firebase.sign_in_provider=apple.com", "email_verified=true"].map {
                    ClaimRule(parsing: $0)!
                }
                return policy
            }(),
            arguments: [
                "--profile", "firebase", "--project", "p-1", "--require-claim", "firebase.sign_in_provider=apple.com",
                "--require-claim", "email_verified=true",
            ]),
        Policy(
            name: "google", policy: .google(audiences: ["client-1"]),
            arguments: ["--profile", "google", "--audience", "client-1"]),
        Policy(
            name: "google-hd-azp",
            policy: .google(audiences: ["client-1"], hostedDomain: "example.com", authorizedParty: "client-1"),
            arguments: [
                "--profile", "google", "--audience", "client-1", "--hosted-domain", "example.com", "--authorized-party",
                "client-1",
            ]),
        Policy(
            name: "oidc", policy: .oidc(issuer: "https://login.example.com", audiences: ["api"]),
            arguments: ["--profile", "oidc", "--issuer", "https://login.example.com", "--audience", "api"]),
        Policy(
            name: "access-token",
            policy: .accessToken(issuer: "https://login.example.com", audiences: ["api"], requiredScopes: ["read"]),
            arguments: [
                "--profile", "access-token", "--issuer", "https://login.example.com", "--audience", "api", "--scope",
                "read",
            ]),
    ]

    static let nonce = Nonce.expectedClaim(forRawNonce: "raw-1")

    static func apple(
        _ extra: String = "", iat: String? = "1700000900", nonce: String? = ProfileCorpus.nonce,
        exp: String = "1700001500"
    ) -> String {
        var members = [
            #""iss":"https://appleid.apple.com""#, #""aud":"com.example.app""#, #""exp":\#(exp)"#,
            #""sub":"001234.abc.1234""#, #""auth_time":1700000890"#,
        ]
        if let iat { members.append(#""iat":\#(iat)"#) }
        if let nonce { members.append(#""nonce":"\#(nonce)""#) }
        return "{" + members.joined(separator: ",") + extra + "}"
    }

    static func firebase(
        sub: String = "uid-1", authTime: String? = "1700000000",
        extra: String =
            #","firebase":{"sign_in_provider":"apple.com","identities":{"apple.com":["001"],"email":["a@b.c"]}}"#
    ) -> String {
        #"{"iss":"https://securetoken.google.com/p-1","aud":"p-1","exp":1700003600,"iat":1700000000,"sub":"\#(sub)""#
            + (authTime.map { #","auth_time":\#($0)"# } ?? "")
            + #","email":"a@b.c","email_verified":true,"nonce":"\#(nonce)""# + extra + "}"
    }

    static func google(
        iss: String = "https://accounts.google.com",
        extra: String = #","hd":"example.com","azp":"client-1","email_verified":"true""#
    ) -> String {
        #"{"iss":"\#(iss)","aud":"client-1","exp":1700003600,"iat":1700000000,"sub":"1","email":"a@example.com","nonce":"\#(nonce)""#
            + extra + "}"
    }

    /// RFC 9068 access tokens of login.example.com for `api`: valid, without the required scope,
    /// without `jti`, and an ID token typed as one.
    static func accessToken(scope: String = "read write", drop: String? = nil) -> String {
        let members = [
            #""iss":"https://login.example.com""#, #""aud":"api""#, #""exp":1700003600"#, #""iat":1700000000"#,
            #""sub":"u""#, #""client_id":"c""#, #""jti":"j""#, #""scope":"\#(scope)""#, #""cnf":{"jkt":"t"}"#,
        ]
        let kept = members.filter { member in drop.map { !member.hasPrefix("\"\($0)\"") } ?? true }
        return "{" + kept.joined(separator: ",") + "}"
    }

    static let accessTokens: [(id: String, typ: String, payload: String)] = [
        ("access-valid", "at+jwt", accessToken()),
        ("access-media-type", "application/AT+JWT", accessToken()),
        ("access-no-read", "at+jwt", accessToken(scope: "write")),
        ("access-no-jti", "at+jwt", accessToken(drop: "jti")),
        ("access-as-id-token", "JWT", accessToken()),
    ]

    static let events =
        #"{\"type\":\"email-disabled\",\"sub\":\"001234.abc.1234\",\"email\":\"x@privaterelay.appleid.com\",\"is_private_email\":\"true\",\"event_time\":1700000950123}"#

    static let tokens: [(id: String, token: String)] = {
        var payloads: [(String, String)] = [
            ("apple-valid", apple()),
            (
                "apple-email-strings",
                apple(#","email":"a@privaterelay.appleid.com","email_verified":"true","is_private_email":"false""#)
            ),
            ("apple-email-bools", apple(#","email_verified":false,"is_private_email":true"#)),
            ("apple-email-verified-TRUE", apple(#","email_verified":"TRUE""#)),
            ("apple-email-verified-1", apple(#","email_verified":1"#)),
            ("apple-status-2", apple(#","real_user_status":2"#)),
            ("apple-status-3", apple(#","real_user_status":3"#)),
            ("apple-status-string", apple(#","real_user_status":"2""#)),
            ("apple-no-iat", apple(iat: nil)),
            ("apple-no-nonce-unsupported", apple(#","nonce_supported":false"#, nonce: nil)),
            ("apple-no-nonce-unsupported-string", apple(#","nonce_supported":"false""#, nonce: nil)),
            ("apple-no-nonce", apple(nonce: nil)),
            ("apple-wrong-nonce", apple(nonce: Nonce.expectedClaim(forRawNonce: "raw-2"))),
            ("apple-c-hash-number", apple(#","c_hash":5"#)),
            (
                "apple-auth-time-string",
                apple().replacingOccurrences(of: #""auth_time":1700000890"#, with: #""auth_time":"x""#)
            ),
            ("apple-expired", apple(exp: "1700000000")),
            ("apple-iat-future", apple(iat: "1700009000")),
            ("apple-notification-as-identity", apple(#","events":"\#(events)""#)),
            (
                "notification-valid",
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"jti":"j","events":"\#(events)"}"#
            ),
            (
                "notification-bad-private-flag",
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"events":"{\"type\":\"email-enabled\",\"is_private_email\":\"maybe\"}"}"#
            ),
            (
                "notification-events-not-json",
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"events":"not json"}"#
            ),
            (
                "notification-events-object",
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","exp":1700001500,"iat":1700000950,"events":{"type":"email-enabled"}}"#
            ),
            ("firebase-valid", firebase()),
            ("firebase-sub-128", firebase(sub: String(repeating: "u", count: 128))),
            ("firebase-sub-129", firebase(sub: String(repeating: "u", count: 129))),
            ("firebase-sub-empty", firebase(sub: "")),
            ("firebase-auth-time-future", firebase(authTime: "1700001100")),
            ("firebase-auth-time-missing", firebase(authTime: nil)),
            ("firebase-not-object", firebase(extra: #","firebase":"apple.com""#)),
            ("firebase-provider-number", firebase(extra: #","firebase":{"sign_in_provider":7}"#)),
            ("firebase-identities-array", firebase(extra: #","firebase":{"identities":["x"]}"#)),
            (
                "firebase-deep",
                firebase(extra: #","firebase":{"identities":{"apple.com":["001"]},"tenant":{"a":{"b":{"c":1}}}}"#)
            ),
            ("firebase-other-project", firebase().replacingOccurrences(of: "p-1", with: "p-2")),
            ("google-valid", google()),
            ("google-bare-issuer", google(iss: "accounts.google.com")),
            ("google-evil-issuer", google(iss: "https://accounts.google.com.evil")),
            ("google-other-hd", google(extra: #","hd":"corp.example","azp":"client-1""#)),
            ("google-no-hd", google(extra: #","azp":"client-1""#)),
            ("google-other-azp", google(extra: #","hd":"example.com","azp":"client-2""#)),
            ("google-email-verified-yes", google(extra: #","hd":"example.com","email_verified":"yes""#)),
            (
                "oidc-valid",
                #"{"iss":"https://login.example.com","aud":"api","exp":1700003600,"sub":"u","email_verified":false,"nonce":"\#(nonce)"}"#
            ),
            (
                "oidc-email-number",
                #"{"iss":"https://login.example.com","aud":"api","exp":1700003600,"sub":"u","email":3}"#
            ),
        ]
        var tokens = payloads.map { ($0.0, TokenFactory.token(payload: $0.1)) }
        tokens.append(("apple-es256", TokenFactory.token(payload: apple(), signer: TokenFactory.ec)))
        tokens.append(("apple-rsa-b", TokenFactory.token(payload: apple(), signer: TokenFactory.rsaB)))
        for (id, typ, payload) in accessTokens {
            tokens.append(
                (id, TokenFactory.token(header: #"{"alg":"RS256","kid":"rsa-a","typ":"\#(typ)"}"#, payload: payload)))
        }
        return tokens
    }()
}
