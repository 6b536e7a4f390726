import Foundation
import Testing

/// The README's promise that `JWTVerify` links no networking code, checked on the objects the
/// build made: every object of the `JWTVerify` target and of the C targets its product carries
/// references no HTTP, TLS, socket or libcurl symbol and asks the linker for no such library,
/// while `JWTVerifyRemote`'s objects (the control) do reference libcurl.
@Suite("The JWTVerify product links no networking code")
struct NetworkingBoundaryTests {
    /// The build's products folder: the one holding the test bundle and `JWTVerify.build`.
    static let products: URL? = {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("JWTVerify.build").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// Undefined symbols no object of the product may reference, by prefix or whole name.
    static let networkingPrefixes = ["OSSL_HTTP_", "curl_", "SSL_", "TLS_", "MHD_", "BIO_new_connect", "BIO_s_connect"]
    static let networkingNames: Set = [
        "socket", "connect", "getaddrinfo", "gethostbyname", "send", "recv", "sendto", "recvfrom",
        "BIO_new_ssl_connect",
        "OCSP_sendreq_new", "OCSP_sendreq_bio", "OSSL_HTTP_transfer",
    ]
    /// Libraries no object of the product may ask the linker for.
    static let networkingLibraries: Set = ["-lcurl", "-lssl", "-lmicrohttpd", "-lFoundationNetworking"]

    /// The objects of target `name` (`Name.build/*.o`).
    static func objects(of name: String) throws -> [URL] {
        let folder = try #require(products).appendingPathComponent("\(name).build")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "o" }
    }

    /// The undefined symbols of `objects` (`nm -u`).
    static func undefinedSymbols(_ objects: [URL]) throws -> Set<String> {
        let (status, text) = try ExternalProgram.run("/usr/bin/env", ["nm", "-u"] + objects.map(\.path))
        #expect(status == 0, "nm failed: \(text.prefix(400))")
        return Set(text.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
    }

    /// The libraries `objects` ask the linker for (Swift's autolink entries).
    static func autolinkedLibraries(_ objects: [URL]) throws -> Set<String> {
        var libraries = Set<String>()
        for object in objects {
            let (_, text) = try ExternalProgram.run(
                "/usr/bin/env", ["readelf", "-p", ".swift1_autolink_entries", object.path])
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("-l") {
                libraries.insert(String(word))
            }
        }
        return libraries
    }

    static func networking(_ symbol: String) -> Bool {
        networkingNames.contains(symbol) || networkingPrefixes.contains { symbol.hasPrefix($0) }
    }

    @Test(
        "JWTVerify's and its C targets' objects reference no HTTP/TLS/socket/curl symbol and autolink no such library")
    func libraryObjects() throws {
        let swiftObjects = try Self.objects(of: "JWTVerify")
        // One object per source file of the target: the scan covers the whole module.
        let sources = try #require(
            FileManager.default.enumerator(
                atPath: CLIRunner.repositoryRoot.appendingPathComponent("Sources/JWTVerify").path)
        ).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(sources.count > 50)
        let objectNames = Set(swiftObjects.map(\.lastPathComponent))
        for source in sources {
            let name = URL(fileURLWithPath: source).lastPathComponent + ".o"
            #expect(objectNames.contains(name), "no object for Sources/JWTVerify/\(source)")
        }
        var objects = swiftObjects
        for target in ["CFixedBaseP256", "CRSAMontgomery", "CCryptoMB", "CByteKernels"] {
            let made = try Self.objects(of: target)
            #expect(!made.isEmpty, "no object for \(target)")
            objects += made
        }
        let symbols = try Self.undefinedSymbols(objects)
        // The scan sees what the library does use (OpenSSL, jansson, the OCSP messages it judges).
        #expect(symbols.isSuperset(of: ["EVP_DigestVerify", "json_loadb", "OCSP_basic_verify", "i2d_OCSP_REQUEST"]))
        #expect(symbols.filter(Self.networking).sorted() == [])
        let libraries = try Self.autolinkedLibraries(swiftObjects)
        #expect(libraries.isSuperset(of: ["-lcrypto", "-ljansson"]))
        #expect(libraries.intersection(Self.networkingLibraries).sorted() == [])
    }

    @Test("the control: JWTVerifyRemote's objects do reference libcurl and autolink it")
    func remoteObjects() throws {
        let objects = try Self.objects(of: "JWTVerifyRemote")
        let symbols = try Self.undefinedSymbols(objects)
        #expect(symbols.contains("curl_easy_perform") && symbols.contains("curl_easy_init"))
        #expect(try Self.autolinkedLibraries(objects).contains("-lcurl"))
    }
}
