#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fetched key-set document on disk, so a restarted service or an offline audit has keys at once.
///
/// One JSON file per source URL: `{"url", "fetched_at", "expires_at", "etag", "last_modified",
/// "document"}`, where `document` is the body exactly as served. Written atomically
/// (``LocalFile/writeAtomically(_:to:)``).
struct KeySetSnapshotFile {
    let url: String
    let fetchedAt: Double
    let expiresAt: Double
    let etag: String?
    let lastModified: String?
    let document: [UInt8]

    /// The snapshot file for `url` in `directory`.
    static func path(for url: String, in directory: String) -> String {
        let digest = MessageDigest.sha256.hash(Array(url.utf8))
        let name = HexDigits.string(digest.prefix(12))
        return directory + "/jwks-" + name + ".json"
    }

    /// Writes the snapshot atomically; returns whether it was written.
    @discardableResult
    func write(to path: String) -> Bool {
        var text = OutputText()
        text.beginObject()
        text.key("url")
        text.string(url)
        text.key("fetched_at")
        text.number(fetchedAt)
        text.key("expires_at")
        text.number(expiresAt)
        text.key("etag")
        if let etag { text.string(etag) } else { text.null() }
        text.key("last_modified")
        if let lastModified { text.string(lastModified) } else { text.null() }
        text.key("document")
        text.string(document)
        text.endObject()
        text.newline()
        return LocalFile.writeAtomically(text.bytes, to: path)
    }

    /// Reads a snapshot for `url` (`nil` when absent, unreadable, or for another URL).
    static func read(from path: String, url: String) -> KeySetSnapshotFile? {
        guard let bytes = try? JWKSet.readFile(path), case .success(let document) = JSONDocument.parse(bytes) else {
            return nil
        }
        return document.withRoot { root -> KeySetSnapshotFile? in
            guard root.member("url")?.string == url, let fetchedAt = root.member("fetched_at")?.number,
                let expiresAt = root.member("expires_at")?.number, let body = root.member("document")?.stringBytes
            else { return nil }
            return KeySetSnapshotFile(
                url: url, fetchedAt: fetchedAt, expiresAt: expiresAt, etag: root.member("etag")?.string,
                lastModified: root.member("last_modified")?.string, document: Array(body))
        }
    }
}
