internal import COpenSSL

/// The OpenSSL library this process runs with.
package enum OpenSSLVersion {
    /// E.g. `OpenSSL 3.0.19 27 Jan 2026`.
    package static var text: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
