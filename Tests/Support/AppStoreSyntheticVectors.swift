package import Foundation
package import JWTVerify

/// `Vectors/appstore/`: the synthetic App Store tokens `Vectors/generate_appstore.py` makes (the
/// kinds the real corpus lacks), each with the verdict it must get under ``policy``.
package enum AppStoreSyntheticVectors {
    /// One line of `tokens.jsonl`.
    package struct Vector: Sendable, CustomStringConvertible {
        package let id: String
        package let kind: String
        package let token: String
        /// `valid`, or the reason code.
        package let expect: String
        package var description: String { id }
    }

    /// The folder.
    package static let folder = SharedVectors.projectVectors.appendingPathComponent("appstore")
    /// The test root, the chain's only trust anchor.
    package static let rootFile = folder.appendingPathComponent("root.pem")
    /// The bundle ID and app Apple ID the lines are made for.
    package static let bundleID = "com.example.app"
    package static let appAppleID: Int64 = 1_234_567_890
    /// The lines' common `signedDate`, in milliseconds.
    package static let signedDate = 1_767_225_600_000.0

    /// Every line, in file order.
    package static let all: [Vector] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("tokens.jsonl")) else { return [] }
        return data.split(separator: 0x0A).compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: String] else {
                return nil
            }
            return Vector(
                id: object["id"] ?? "", kind: object["kind"] ?? "", token: object["token"] ?? "",
                expect: object["expect"] ?? "")
        }
    }()

    /// The line named `id`.
    package static func token(_ id: String) -> String { all.first { $0.id == id }?.token ?? "" }

    /// Trust in the test root.
    package static func trust() throws -> AppStoreTrust {
        try AppStoreTrust(rootCertificates: [Array(try Data(contentsOf: rootFile))])
    }

    /// The policy the verdicts are for, or one with other app settings.
    package static func policy(
        bundleIDs: [String] = [bundleID], environment: AppStoreEnvironment? = nil, appAppleID: Int64? = appAppleID
    ) throws -> VerificationPolicy {
        .appStore(bundleIDs: bundleIDs, environment: environment, appAppleID: appAppleID, trust: try trust())
    }

    /// The command line's flags for ``policy(bundleIDs:environment:appAppleID:)``'s defaults.
    package static let arguments = [
        "--profile", "app-store", "--bundle-id", bundleID, "--app-apple-id", String(appAppleID), "--apple-root",
        rootFile.path,
    ]
}
