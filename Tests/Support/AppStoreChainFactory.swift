package import Foundation
package import JWTVerify

/// Certificate chains shaped like Apple's App Store signing chain (root ← intermediate with
/// 1.2.840.113635.100.6.2.1 ← P-256 leaf with 1.2.840.113635.100.6.11.1), made with the `openssl`
/// command in a temporary folder, and App Store tokens signed with their leaves.
package final class AppStoreChainFactory: @unchecked Sendable {
    // Safety: `directory` is set in init and only read after; the memos are guarded by `lock`.
    package let directory: URL
    private let lock = NSLock()
    private var certificates: [String: String] = [:]
    private var keys: [String: EVPPrivateKey] = [:]

    /// Why a chain could not be made.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A folder of its own.
    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwtverify-chains-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.extensions.utf8).write(to: directory.appendingPathComponent("ext.cnf"))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private static let extensions = """
        [leaf]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        1.2.840.113635.100.6.11.1 = ASN1:NULL
        [leaf_plain]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        [ca]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        1.2.840.113635.100.6.2.1 = ASN1:NULL
        [ca_plain]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign

        """

    /// Runs `openssl arguments…` in the folder.
    @discardableResult
    package func openssl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "openssl \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
        return data
    }

    /// A P-256 private key in `name.key`.
    package func key(_ name: String) throws {
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
    }

    /// A self-signed root `name.pem` with subject `subject` (a new key unless `name.key` exists).
    package func root(
        _ name: String, subject: String = "/CN=Test Root CA - G3/OU=Test Certification Authority/O=Test Inc./C=US"
    ) throws {
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(name).key").path) {
            try key(name)
        }
        try openssl([
            "req", "-x509", "-new", "-key", "\(name).key", "-subj", subject, "-days", "3650", "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "\(name).pem",
        ])
    }

    /// A certificate `name.pem` for a new key, signed by `issuer`, with the extension section
    /// `section` of the factory's config (`leaf`, `leaf_plain`, `ca`, `ca_plain`), valid for `days`.
    /// With `ocsp`, the certificate names that OCSP responder in its Authority Information Access.
    package func issue(
        _ name: String, by issuer: String, section: String, days: Int = 3650, subject: String? = nil,
        ocsp: String? = nil
    ) throws {
        try key(name)
        try openssl([
            "req", "-new", "-key", "\(name).key", "-subj", subject ?? "/CN=\(name)/O=Test Inc./C=US", "-out",
            "\(name).csr",
        ])
        var extensions = "ext.cnf"
        var chosen = section
        if let ocsp {
            let base = Self.extensions.components(separatedBy: "[\(section)]\n")[1].components(separatedBy: "[")[0]
            extensions = "\(name).cnf"
            chosen = "this"
            try Data("[this]\n\(base)authorityInfoAccess = OCSP;URI:\(ocsp)\n".utf8).write(
                to: directory.appendingPathComponent(extensions))
        }
        try openssl([
            "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key", "-CAcreateserial",
            "-days", "\(days)",
            "-extfile", extensions, "-extensions", chosen, "-out", "\(name).pem",
        ])
    }

    /// The serial number of `name.pem`, in hex as OpenSSL writes it.
    package func serial(_ name: String) throws -> String {
        let text = String(decoding: try openssl(["x509", "-in", "\(name).pem", "-noout", "-serial"]), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "serial=", with: "")
    }

    /// An `openssl ocsp` index in `file`: each certificate good, or revoked when listed in `revoked`.
    package func ocspIndex(_ file: String, good: [String], revoked: [String]) throws {
        var lines = ""
        for name in good { lines += "V\t391231235959Z\t\t\(try serial(name))\tunknown\t/CN=\(name)\n" }
        for name in revoked {
            lines += "R\t391231235959Z\t240101000000Z,keyCompromise\t\(try serial(name))\tunknown\t/CN=\(name)\n"
        }
        try Data(lines.utf8).write(to: directory.appendingPathComponent(file))
    }

    /// Starts an OCSP responder on 127.0.0.1:`port` answering, through `openssl ocsp`, for the
    /// certificates `issuer` issued (its index `index`); the caller terminates it.
    package func ocspResponder(issuer: String, index: String, port: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = SharedVectors.repositoryRoot.appendingPathComponent("Tests/Support/ocsp_responder.py").path
        process.arguments = ["python3", script, "\(port)", directory.path, issuer, index]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The certificate `name.pem`, as PEM bytes.
    package func pem(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent("\(name).pem")))
    }

    /// The certificate `name.pem` as standard base64 of its DER, as `x5c` carries it.
    package func x5c(_ name: String) throws -> String {
        if let known = lock.withLock({ certificates[name] }) { return known }
        let text = try openssl(["x509", "-in", "\(name).pem", "-outform", "DER"]).base64EncodedString()
        lock.withLock { certificates[name] = text }
        return text
    }

    /// The private key `name.key`.
    package func privateKey(_ name: String) throws -> EVPPrivateKey {
        if let known = lock.withLock({ keys[name] }) { return known }
        let key = try EVPPrivateKey.pem(Array(try Data(contentsOf: directory.appendingPathComponent("\(name).key"))))
        lock.withLock { keys[name] = key }
        return key
    }

    /// Trust in the root `name.pem` alone.
    package func trust(_ name: String) throws -> AppStoreTrust { try AppStoreTrust(rootCertificates: [try pem(name)]) }

    /// A compact ES256 token over `payload`, its header `{"alg":…,"x5c":[chain…]}` and signed
    /// with `signer`'s key.
    package func token(payload: String, chain: [String], signer: String, algorithm: String = "ES256") throws -> String {
        let certificates = try chain.map { "\"\(try self.x5c($0))\"" }.joined(separator: ",")
        let header = #"{"alg":"\#(algorithm)","x5c":[\#(certificates)]}"#
        return TokenFactory.token(
            header: header, payload: payload,
            signer: TokenFactory.Signer(kid: "", algorithm: .es256, key: try privateKey(signer)), algorithm: .es256)
    }

    /// A transaction payload signed at `signedDate` (seconds since the epoch), with `extra` members.
    package static func transaction(
        signedDate: Double?, bundleID: String = "com.example.app", environment: String = "Sandbox", extra: String = ""
    ) -> String {
        let date = signedDate.map { #","signedDate":\#(Int64($0 * 1000))"# } ?? ""
        return
            #"{"transactionId":"2000000123","originalTransactionId":"2000000100","bundleId":"\#(bundleID)","productId":"pro.monthly","purchaseDate":1700000000000,"expiresDate":1702592000000,"type":"Auto-Renewable Subscription","environment":"\#(environment)"\#(date)\#(extra)}"#
    }
}
