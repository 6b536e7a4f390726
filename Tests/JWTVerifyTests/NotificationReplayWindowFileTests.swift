import Foundation
import JWTVerify
import JWTVerifyTestSupport
import Testing

/// A replay window kept in a file: restored with every ID it recorded, within its bounds, IDs
/// compared as bytes, and a file that is not one refused with its name.
@Suite("notification windows on disk")
struct NotificationReplayWindowFileTests {
    /// A fresh folder, removed when released.
    final class Folder: @unchecked Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-window-\(UUID().uuidString)"
        ).path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func file(_ name: String = "seen.window") -> String { path + "/" + name }
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test("restored: the same IDs are duplicates, new ones are not; the file is the documented text")
    func roundTrip() throws {
        let folder = try Folder()
        let path = folder.file()
        do {
            let window = try NotificationReplayWindow(persistingTo: path)
            #expect(window.path == path && window.retention == 7 * 86_400 && window.capacity == 100_000)
            #expect(try !window.recordSighting(of: "a", at: 1_700_000_000))
            #expect(try !window.recordSighting(of: "b", at: 1_700_000_001.5))
            #expect(try window.recordSighting(of: "a", at: 1_700_000_002))  // a duplicate is not written
        }
        #expect(try Self.text(path) == "jwtverify-notification-window 1\n1700000000.0 61\n1700000001.5 62\n")
        let restored = try NotificationReplayWindow(persistingTo: path)
        #expect(restored.count == 2)
        #expect(
            try restored.recordSighting(of: "a", at: 1_700_000_003)
                && restored.recordSighting(of: "b", at: 1_700_000_003))
        #expect(try !restored.recordSighting(of: "c", at: 1_700_000_004))
        #expect(try NotificationReplayWindow(persistingTo: path).recordSighting(of: "c", at: 1_700_000_005))
        // A window in memory forgets: the old behaviour, kept.
        #expect(NotificationReplayWindow().path == nil)
        #expect(try !NotificationReplayWindow().recordSighting(of: "a", at: 1_700_000_006))
    }

    @Test("retention is honoured across a restore: an ID past it is a new sighting, and that sighting is kept in turn")
    func retentionAcrossRestore() throws {
        let folder = try Folder()
        let path = folder.file()
        #expect(try !NotificationReplayWindow(persistingTo: path, retention: 100).recordSighting(of: "a", at: 0))
        func reopened() throws -> NotificationReplayWindow {
            try NotificationReplayWindow(persistingTo: path, retention: 100)
        }
        #expect(try reopened().recordSighting(of: "a", at: 100))  // still within
        #expect(try !reopened().recordSighting(of: "a", at: 100.5))  // past it
        let later = try NotificationReplayWindow(persistingTo: path, retention: 100)
        #expect(try later.recordSighting(of: "a", at: 150))  // the sighting at 100.5 was kept
        #expect(later.count == 1)
    }

    @Test("capacity is honoured across a restore; the file stays within 2 x capacity + 1024 lines")
    func capacityBound() throws {
        let folder = try Folder()
        let path = folder.file()
        do {
            let window = try NotificationReplayWindow(persistingTo: path, capacity: 3, retention: 1_000_000)
            for (index, id) in ["a", "b", "c", "d"].enumerated() {
                #expect(try !window.recordSighting(of: id, at: Double(index)))
            }
        }
        let restored = try NotificationReplayWindow(persistingTo: path, capacity: 3, retention: 1_000_000)
        #expect(restored.count == 3)
        // Rewritten at load: "a" went first.
        #expect(try Self.text(path) == "jwtverify-notification-window 1\n1.0 62\n2.0 63\n3.0 64\n")
        #expect(try restored.recordSighting(of: "d", at: 4) && !restored.recordSighting(of: "a", at: 4))

        let small = try NotificationReplayWindow(persistingTo: path, capacity: 10, retention: 1_000_000)
        var mostLines = 0
        for index in 0..<2_500 {
            #expect(try !small.recordSighting(of: "id-\(index)", at: Double(10 + index)))
            if index % 100 == 99 { mostLines = max(mostLines, try Self.text(path).split(separator: "\n").count - 1) }
        }
        #expect(mostLines > 10 && mostLines <= 2 * 10 + 1024, "\(mostLines) lines")
        let reopened = try NotificationReplayWindow(persistingTo: path, capacity: 10, retention: 1_000_000)
        #expect(reopened.count == 10)
        #expect(try reopened.recordSighting(of: "id-2499", at: 6000))
        #expect(try !reopened.recordSighting(of: "id-2489", at: 6000))
        // A file larger than a window of this capacity ever writes is refused.
        let bound = 32 + (2 * 10 + 1024) * 154
        let big = folder.file("big.window")
        let line = "1.0 " + String(repeating: "61", count: 64) + "\n"
        try ("jwtverify-notification-window 1\n" + String(repeating: line, count: bound / line.utf8.count + 1)).write(
            toFile: big, atomically: true, encoding: .utf8)
        #expect(throws: NotificationWindowFileError(.tooLarge, path: big, detail: "")) {
            try NotificationReplayWindow(persistingTo: big, capacity: 10)
        }
    }

    @Test("IDs are compared as bytes: canonically equivalent spellings are two IDs, also after a restore")
    func bytes() throws {
        let folder = try Folder()
        let path = folder.file()
        let kelvin = "\u{212A}1"
        let latin = "K1"
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(kelvin == latin && composed == decomposed)  // Swift's String equality, which must not be used
        let long = String(repeating: "x", count: 200)
        do {
            let window = try NotificationReplayWindow(persistingTo: path)
            for id in [kelvin, latin, composed, decomposed, long + "1", long + "2"] {
                #expect(try !window.recordSighting(of: id, at: 1), "\(id)")
            }
        }
        let restored = try NotificationReplayWindow(persistingTo: path)
        #expect(restored.count == 6)
        for id in [kelvin, latin, composed, decomposed, long + "1", long + "2"] {
            #expect(try restored.recordSighting(of: id, at: 2), "\(id)")
        }
        #expect(try !restored.recordSighting(of: long + "3", at: 2))
        // A 200-octet ID is kept as ff and its SHA-256: a line of bounded length.
        let lines = try Self.text(path).split(separator: "\n")
        let marked = lines.filter { $0.hasPrefix("1.0 ff") }
        #expect(marked.count == 2 && marked.allSatisfy { $0.utf8.count == 4 + 2 + 64 }, "\(marked)")
    }

    @Test("a file that is not a window is refused with its name and left as it is; a torn last line is dropped")
    func refusals() throws {
        let folder = try Folder()
        func refusal(_ contents: String, _ reason: NotificationWindowFileError.Reason) throws
            -> NotificationWindowFileError?
        {
            let path = folder.file("\(UUID().uuidString).window")
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: NotificationWindowFileError.self) {
                try NotificationReplayWindow(persistingTo: path)
            }
            #expect(
                error?.reason == reason && error?.path == path && error?.detail.contains(path) == true,
                "\(String(describing: error))")
            #expect(try Self.text(path) == contents)  // never overwritten
            return error
        }
        let foreign = try refusal(#"{"jwks": []}"#, .malformed)
        #expect(
            foreign?.description.hasPrefix("state_malformed: ") == true
                && foreign?.detail.contains("not a notification window file") == true)
        _ = try refusal("", .malformed)
        let damaged = try refusal("jwtverify-notification-window 1\n1.0 61\n2.0 6\n3.0 63\n", .malformed)  // odd hex
        #expect(damaged?.detail.contains("line 3") == true)
        for line in [
            "x 61", "nan 61", "1.0 6G", "1.0 AB", "1.0", " 61", "1.0 ff61", "1.0 " + String(repeating: "61", count: 65),
            "1.0 c328",
        ] {
            _ = try refusal("jwtverify-notification-window 1\n\(line)\n", .malformed)
        }
        _ = try refusal("jwtverify-notification-window 2\n", .malformed)  // a later version is not read as this one

        let directory = folder.file("a-folder")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(throws: NotificationWindowFileError(.unreadable, path: directory, detail: "")) {
            try NotificationReplayWindow(persistingTo: directory)
        }
        let nowhere = folder.file("missing/seen.window")
        #expect(throws: NotificationWindowFileError(.unwritable, path: nowhere, detail: "")) {
            try NotificationReplayWindow(persistingTo: nowhere)
        }

        // A crash while appending leaves a last line without its newline: that sighting was never
        // acknowledged, and the rest of the file is kept.
        let torn = folder.file("torn.window")
        try "jwtverify-notification-window 1\n1.0 61\n2.0 6".write(toFile: torn, atomically: true, encoding: .utf8)
        let window = try NotificationReplayWindow(persistingTo: torn)
        #expect(window.count == 1)
        #expect(try Self.text(torn) == "jwtverify-notification-window 1\n1.0 61\n")
        #expect(try window.recordSighting(of: "a", at: 3) && !window.recordSighting(of: "b", at: 3))
    }

    @Test("a receiver over a persisted window: after a restart the same notification is a duplicate")
    func receiverAcrossRestart() async throws {
        let folder = try Folder()
        let body = NotificationReceiverTests.body(
            NotificationReceiverTests.notification(type: "account-delete", jti: "jti-restart"))
        let first = NotificationReceiverTests.receiver(
            window: try NotificationReplayWindow(persistingTo: folder.file()))
        let received = try await first.receive(body, at: TokenFactory.now).get()
        #expect(received.id == "jti-restart" && !received.isDuplicate)
        let second = NotificationReceiverTests.receiver(
            window: try NotificationReplayWindow(persistingTo: folder.file()))
        #expect(try await second.receive(body, at: TokenFactory.now).get().isDuplicate)
        let memory = NotificationReceiverTests.receiver()
        #expect(try await !memory.receive(body, at: TokenFactory.now).get().isDuplicate)
    }
}
