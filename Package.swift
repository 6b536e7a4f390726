// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "JWTVerify",
    // Synchronization.Mutex and Atomic need macOS 15; Linux has no minimum here.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "JWTVerify", targets: ["JWTVerify"]),
        .library(name: "JWTVerifyRemote", targets: ["JWTVerifyRemote"]),
        .executable(name: "jwtverify", targets: ["jwtverify"]),
    ],
    targets: [
        // System libraries: a module map plus one shim header each. `make deps` installs the packages.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"]), .brew(["jansson"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        // libcurl for JWTVerifyRemote's requests: its easy interface decodes gzip into a callback,
        // so every answer is counted in decoded octets and stopped at its cap.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // hiredis for serve's --replay-store (Redis): every exchange in the shim, each reply freed there.
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]
        ),
        // glibc allocator tuning for the CLI's batch work (a header only; libc is always linked).
        .systemLibrary(name: "CMallocTuning"),
        // ES256 with a fixed-base table per P-256 key: the one C file that uses OpenSSL calls
        // deprecated in 3.0 (the COpenSSL shim keeps hiding them from everything else). In batches,
        // u1*G goes through crypto_mb's lanes when it is loaded.
        .target(
            name: "CFixedBaseP256",
            dependencies: ["COpenSSL", "CCryptoMB"],
            path: "Sources/CFixedBaseP256"
        ),
        // RS256/RS384/RS512 by a chain of Montgomery products per RSA key (OpenSSL BN calls only).
        .target(
            name: "CRSAMontgomery",
            dependencies: ["COpenSSL"],
            path: "Sources/CRSAMontgomery"
        ),
        // Intel's crypto_mb (eight RSA public operations per call, AVX-512 IFMA), found and opened at
        // run time: nothing at build time depends on it.
        .target(
            name: "CCryptoMB",
            dependencies: ["CRSAMontgomery"],
            path: "Sources/CCryptoMB"
        ),
        // SIMD passes over whole blocks of JSON strings and base64url text (scanning, decoding);
        // Swift decides every byte the blocks leave over.
        .target(
            name: "CByteKernels",
            path: "Sources/CByteKernels"
        ),
        .target(
            name: "JWTVerify",
            dependencies: ["COpenSSL", "CJansson", "CFixedBaseP256", "CRSAMontgomery", "CCryptoMB", "CByteKernels"],
            swiftSettings: strictSettings
        ),
        // Key generation and certificate minting, for tests, benchmarks and sample data: the
        // JWTVerify product makes no keys. Not a product.
        .target(
            name: "JWTVerifyKeyMaking",
            dependencies: ["COpenSSL", "JWTVerify"],
            swiftSettings: strictSettings
        ),
        // What the executables and the tests share, and no service needs: batch I/O, report
        // records, audit extraction, the benchmark and the differential oracle. Not a product.
        .target(
            name: "JWTVerifyTooling",
            dependencies: ["JWTVerify", "JWTVerifyKeyMaking", "CByteKernels", "CMallocTuning"],
            swiftSettings: strictSettings
        ),
        // serve's HTTP side: a transport protocol with GNU libmicrohttpd as its implementation,
        // the service, routes, gateway answers, metrics and the /verify body reader. Not a product.
        .target(
            name: "JWTVerifyServer",
            dependencies: ["JWTVerify", "JWTVerifyTooling", "CMicroHTTPD", "CHiredis"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "JWTVerifyRemote",
            dependencies: ["JWTVerify", "CCurl"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "jwtverify",
            dependencies: ["JWTVerify", "JWTVerifyRemote", "JWTVerifyTooling", "JWTVerifyServer", "CMallocTuning"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "jwtfuzz",
            dependencies: [
                "JWTVerify", "JWTVerifyKeyMaking", "JWTVerifyTooling", "JWTVerifyServer", "JWTVerifyRemote", "JWTVerifyTestSupport",
            ],
            path: "Tests/Fuzz/FuzzTargets",
            swiftSettings: strictSettings
        ),
        .target(
            name: "JWTVerifyTestSupport",
            dependencies: ["JWTVerify", "JWTVerifyKeyMaking"],
            path: "Tests/Support",
            exclude: [
                "jwks_origin.py", "discovery_origin.py", "ocsp_responder.py", "apple_standin.py", "loopback_http.py", "recording_backend.py",
                "junk_responder.py", "app_store_server_standin.py",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JWTVerifyTests",
            dependencies: ["JWTVerify", "JWTVerifyKeyMaking", "JWTVerifyTestSupport"],
            swiftSettings: strictSettings
        ),
        // JWTVerifyTooling's own tests: batch reading, audit extraction, serve's parsing, the
        // benchmark and the JSON differential oracle.
        .testTarget(
            name: "JWTVerifyToolingTests",
            dependencies: ["JWTVerify", "JWTVerifyTooling", "JWTVerifyTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JWTVerifyServerTests",
            dependencies: ["JWTVerify", "JWTVerifyServer", "JWTVerifyTooling", "JWTVerifyTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JWTVerifyRemoteTests",
            dependencies: ["JWTVerify", "JWTVerifyRemote", "JWTVerifyTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JWTVerifyCLITests",
            dependencies: [
                "jwtverify", "JWTVerify", "JWTVerifyKeyMaking", "JWTVerifyRemote", "JWTVerifyTooling", "JWTVerifyServer", "JWTVerifyTestSupport",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
