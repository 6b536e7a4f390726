internal import COpenSSL

/// A hash algorithm fetched from OpenSSL's default provider once per process.
///
/// Explicit fetching avoids OpenSSL 3's implicit per-call fetch; an `EVP_MD` is immutable and may
/// be shared by every thread.
package final class MessageDigest: @unchecked Sendable {
    /// The fetched `EVP_MD`, owned by this object.
    let pointer: OpaquePointer
    /// The digest length in octets.
    package let size: Int
    /// The algorithm's OpenSSL name.
    package let name: String

    private init(name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else {
            fatalError("OpenSSL's default provider has no \(name): \(OpenSSLFailure.drain("EVP_MD_fetch"))")
        }
        self.pointer = md
        self.size = Int(EVP_MD_get_size(md))
        self.name = name
    }

    deinit { EVP_MD_free(pointer) }

    /// SHA-256.
    package static let sha256 = MessageDigest(name: "SHA256")
    /// SHA-384.
    package static let sha384 = MessageDigest(name: "SHA384")
    /// SHA-512.
    package static let sha512 = MessageDigest(name: "SHA512")

    /// The singletons, unretained, for the per-token path (they live as long as the process).
    static let unretainedSHA256 = Unmanaged.passUnretained(sha256)
    static let unretainedSHA384 = Unmanaged.passUnretained(sha384)
    static let unretainedSHA512 = Unmanaged.passUnretained(sha512)
}

extension MessageDigest {
    /// Hashes `input` into `output` (at least ``size`` octets) with this thread's reused context;
    /// returns the digest length.
    func hash(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        ThreadContexts.current.hash(input, with: self, into: output)
    }

    /// The digest of `input` as a new array.
    package func hash(_ input: [UInt8]) -> [UInt8] {
        input.withUnsafeBytes { inBuffer in
            [UInt8](unsafeUninitializedCapacity: size) { out, count in
                count = hash(inBuffer, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }
}
