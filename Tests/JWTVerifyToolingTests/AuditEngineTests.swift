import Foundation
import JWTVerifyTestSupport
import Testing

@testable import JWTVerify
@testable import JWTVerifyTooling

/// The audit engine as a library: lines of text in, a record per token or a report out, with
/// each range of lines handed to the pipeline whole, however many tokens it holds.
@Suite("audit engine")
struct AuditEngineTests {
    /// 300 lines, a token on each: valid, expired, or with a forged signature, in turn; every
    /// tenth line repeats the line before it.
    static let tokens: [String] = (0..<300).map { index in
        let number = index % 10 == 9 ? index - 1 : index
        let claims =
            number % 3 == 1
            ? TokenFactory.claims(exp: "1700000500", extra: #""n":\#(number)"#)
            : TokenFactory.claims(extra: #""n":\#(number)"#)
        let token = TokenFactory.token(payload: claims)
        guard number % 3 == 2 else { return token }
        return String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
    }

    /// The engine's output over ``tokens`` (each after `Authorization: Bearer `), with `threads`
    /// workers, and the report it returns.
    static func run(records: AuditEngine.Records?, threads: Int) throws -> (output: [UInt8], report: AuditReport) {
        let workspace = try TestWorkspace("audit-engine", withKeys: false)
        let file = workspace.file("log.txt")
        try tokens.map { "GET / Authorization: Bearer \($0)\n" }.joined().write(
            to: file, atomically: true, encoding: .utf8)
        let fd = open(file.path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var engine = AuditEngine(verifier: TokenFactory.verifier(), time: .clock)
        engine.records = records
        engine.threads = threads
        var output: [UInt8] = []
        let report = try engine.run([BatchInput(name: "log.txt", fd: fd)]) { text in
            text.withUnsafeBytes { output.append(contentsOf: $0) }
            return true
        } progress: { _, _ in
        }
        return (output, report)
    }

    @Test("one worker hands the pipeline 300 tokens at once: each record is that token's own verdict, in order")
    func wholeBatch() throws {
        #expect(Self.tokens.count > Verifier.stageSize)
        let (output, report) = try Self.run(records: .jsonl, threads: 1)
        let lines = output.split(separator: UInt8(ascii: "\n"))
        try #require(lines.count == Self.tokens.count)
        for (index, line) in lines.enumerated() {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let expected = TokenFactory.reason(Self.tokens[index])
            #expect(record["line"] as? Int == index + 1)
            #expect(record["found_in"] as? String == "bearer")
            #expect(record["valid"] as? Bool == (expected == nil))
            #expect(record["reason"] as? String == expected)
        }
        #expect(report.tokens == 300 && report.valid == 100)
        #expect(Set(lines.compactMap { TokenFactory.reasonIn($0) }) == ["expired", "bad_signature"])
    }

    @Test("the records do not depend on how the lines are cut among workers")
    func threadsAgree() throws {
        let one = try Self.run(records: .tsv, threads: 1).output
        let three = try Self.run(records: .tsv, threads: 3).output
        #expect(one.count > 300 * 100)
        #expect(one == three)
    }

    @Test("a report writes nothing and counts every token")
    func report() throws {
        let (output, report) = try Self.run(records: nil, threads: 2)
        #expect(output.isEmpty)
        #expect(report.tokens == 300 && report.valid == 100)
    }
}

extension TokenFactory {
    /// The `reason` member of a jsonl record, when it is a string.
    fileprivate static func reasonIn(_ line: ArraySlice<UInt8>) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["reason"] as? String
    }
}
