/// A notification ID as a replay window keeps it: its exact UTF-8 bytes, so that two IDs are the
/// same only when their bytes are (Swift `String` equality is Unicode canonical equivalence, under
/// which byte-distinct IDs can collide).
///
/// An ID of at most ``maximumRawBytes`` octets is kept as it is; a longer one as the octet `0xFF`
/// (which never occurs in UTF-8, so it cannot be mistaken for a short ID) followed by the SHA-256
/// of its bytes. Every key is therefore at most 64 octets, in memory and on disk.
struct NotificationKey: Hashable, Sendable {
    /// The longest ID kept byte for byte.
    static let maximumRawBytes = 64
    /// The longest key (a marked one, the marker and a digest, is 33 octets).
    static let maximumBytes = maximumRawBytes

    /// The key's octets.
    let bytes: [UInt8]

    /// The key of the notification ID `id`.
    init(_ id: String) {
        let utf8 = Array(id.utf8)
        bytes = utf8.count <= Self.maximumRawBytes ? utf8 : [0xFF] + MessageDigest.sha256.hash(utf8)
    }

    /// A key read back from a window file; `nil` when `bytes` is not one this type makes (too
    /// long, not UTF-8, or a marked key that is not the marker and a digest).
    init?(stored bytes: [UInt8]) {
        if bytes.first == 0xFF {
            guard bytes.count == 33 else { return nil }
        } else {
            guard bytes.count <= Self.maximumRawBytes, String(validating: bytes, as: UTF8.self) != nil else {
                return nil
            }
        }
        self.bytes = bytes
    }
}
