#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a persisted ``NotificationReplayWindow`` lives in: a journal of first sightings,
/// appended to and flushed to the disk (`fsync`) before a sighting counts, and rewritten whole
/// (``LocalFile/writeAtomically(_:to:)``: a temporary file, `fsync`, `rename`) when it opens and
/// whenever it holds twice the live IDs and 1,024 more.
///
/// The format is text, one line each:
///
/// ```
/// jwtverify-notification-window 1
/// <first sighting, seconds since 1970, as Swift writes a Double> <the ID's key in lowercase hex>
/// ...
/// ```
///
/// The key is the ID's UTF-8 bytes (at most 64), or `ff` and the SHA-256 of a longer ID
/// (``NotificationKey``). Lines are in the order of first sighting, so reading them again replays
/// the window. A last line without its newline is an append a crash cut short, never
/// acknowledged: it is dropped. Anything else that is not this format is refused.
final class NotificationWindowFile {
    /// One line: an ID's key and its first sighting.
    typealias Sighting = (key: NotificationKey, time: Double)

    /// The first line.
    static let header = Array("jwtverify-notification-window 1\n".utf8)
    /// The longest line: a time (at most 24 characters), a space, the hex key and a newline.
    static let maximumLineBytes = 24 + 1 + 2 * NotificationKey.maximumBytes + 1

    /// Most sighting lines a window of `capacity` leaves in its file (compaction keeps it there).
    static func maximumRecords(capacity: Int) -> Int { 2 * capacity + 1024 }

    /// Most octets a window of `capacity` leaves in its file; a larger file is refused.
    static func maximumBytes(capacity: Int) -> Int {
        header.count + maximumRecords(capacity: capacity) * maximumLineBytes
    }

    /// The file.
    let path: String
    /// Open for appending; -1 after a failed compaction.
    private var descriptor: Int32 = -1
    /// Sighting lines in the file.
    private(set) var records = 0
    /// The file's length with only whole, flushed lines.
    private var length = 0

    /// The sightings in `path`, in order (none when it does not exist).
    static func read(_ path: String, capacity: Int) throws(NotificationWindowFileError) -> [Sighting] {
        var info = stat()
        if stat(path, &info) != 0 && errno == ENOENT { return [] }
        let limit = maximumBytes(capacity: capacity)
        let bytes: [UInt8]
        switch LocalFile.read(path, limit: limit) {
        case .success(let read): bytes = read
        case .failure(let failure) where failure.isUnreadable:
            throw NotificationWindowFileError(.unreadable, path: path, detail: failure.description)
        case .failure:
            throw NotificationWindowFileError(
                .tooLarge, path: path,
                detail:
                    "\(path) is larger than \(limit) octets, the most a notification window of capacity "
                    + "\(capacity) writes"
            )
        }
        guard bytes.starts(with: header) else {
            throw NotificationWindowFileError(
                .malformed, path: path,
                detail:
                    "\(path) is not a notification window file "
                    + "(it does not start with \"jwtverify-notification-window 1\")"
            )
        }
        var sightings: [Sighting] = []
        var start = header.count
        var line = 2
        while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            guard let sighting = parse(bytes[start..<end]) else {
                throw NotificationWindowFileError(
                    .malformed, path: path,
                    detail: "\(path), line \(line): not \"<time> <hex ID>\" as a notification window writes it")
            }
            sightings.append(sighting)
            start = end + 1
            line += 1
        }
        return sightings
    }

    /// One sighting line without its newline, or `nil`.
    private static func parse(_ line: ArraySlice<UInt8>) -> Sighting? {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")), space > line.startIndex else { return nil }
        let digits = line[(space + 1)...]
        guard digits.count % 2 == 0, digits.count <= 2 * NotificationKey.maximumBytes else { return nil }
        var key: [UInt8] = []
        key.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            key.append(high << 4 | low)
            index += 2
        }
        guard let stored = NotificationKey(stored: key),
            let time = Double(String(decoding: line[..<space], as: UTF8.self)),
            time.isFinite
        else { return nil }
        return (stored, time)
    }

    /// The value of a lowercase hex digit.
    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The line of one sighting, with its newline.
    private static func line(_ key: NotificationKey, _ time: Double, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: time.description.utf8)
        bytes.append(UInt8(ascii: " "))
        for byte in key.bytes {
            bytes.append(HexDigits.digit(byte >> 4))
            bytes.append(HexDigits.digit(byte & 0x0F))
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The file at `path`, rewritten with `live` and open for appending.
    init(path: String, live: some Sequence<Sighting>) throws(NotificationWindowFileError) {
        self.path = path
        try rewrite(live)
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Whether the next append should rewrite the file first: it holds twice the live IDs and
    /// 1,024 more (so rewriting costs a constant per sighting), or an earlier write failed.
    func needsRewrite(live: Int) -> Bool { descriptor < 0 || records >= 2 * live + 1024 }

    /// Replaces the file with `live` alone, atomically, and opens it for appending.
    func rewrite(_ live: some Sequence<Sighting>) throws(NotificationWindowFileError) {
        var bytes = Self.header
        var count = 0
        for (key, time) in live {
            Self.line(key, time, into: &bytes)
            count += 1
        }
        guard LocalFile.writeAtomically(bytes, to: path) else {
            throw NotificationWindowFileError(
                .unwritable, path: path, detail: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if descriptor >= 0 { close(descriptor) }
        descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw NotificationWindowFileError(
                .unwritable, path: path, detail: "cannot open \(path) to append: \(String(cString: strerror(errno)))")
        }
        records = count
        length = bytes.count
    }

    /// Appends one sighting and flushes it to the disk; on failure the file is cut back to its
    /// whole lines (or, failing that, rewritten before the next append).
    func append(_ key: NotificationKey, at time: Double) throws(NotificationWindowFileError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.maximumLineBytes)
        Self.line(key, time, into: &bytes)
        var written = 0
        var failure: Int32 = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = n < 0 ? errno : ENOSPC
                break
            }
            written += n
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        guard failure != 0 else {
            records += 1
            length += bytes.count
            return
        }
        if ftruncate(descriptor, off_t(length)) != 0 || fsync(descriptor) != 0 {
            close(descriptor)
            descriptor = -1
        }
        throw NotificationWindowFileError(
            .unwritable, path: path,
            detail: "cannot record a notification in \(path): \(String(cString: strerror(failure)))")
    }
}
