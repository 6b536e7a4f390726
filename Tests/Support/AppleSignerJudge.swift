import Foundation
import JWTVerify

/// `Tests/Differential/apple_signers_cryptography.py`: Python `cryptography`, an implementation
/// independent of ours, judging the ES256 JWS and the original promotional-offer signatures the
/// library and `jwtverify apple` make. It needs `python3` with `cryptography` (the App Store
/// stand-ins need it too): a test using it fails, saying so, without them.
package enum AppleSignerJudge {
    static let script = JSONLinesScript("Differential/apple_signers_cryptography.py")

    /// What the script could not do.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The script's answers to `cases` (one JSON object each), one per case, in order.
    package static func judge(_ cases: [[String: Any]]) throws -> [[String: Any]] {
        let (status, answers) = try script.run(cases)
        guard status == 0 else {
            throw Failure(
                description: status == 3
                    ? "python3 cannot import cryptography (pip install cryptography)"
                    : "apple_signers_cryptography.py exited \(status)")
        }
        guard answers.count == cases.count else {
            throw Failure(description: "\(answers.count) answers to \(cases.count) cases")
        }
        return answers
    }

    /// The `x` and `y` members of a P-256 public JWK, for a case.
    package static func publicKey(jwkJSON: String) throws -> [String: Any] {
        let jwk = try JSONSerialization.jsonObject(with: Data(jwkJSON.utf8)) as? [String: Any] ?? [:]
        return ["x": jwk["x"] as? String ?? "", "y": jwk["y"] as? String ?? ""]
    }

    /// A JWS case: `token` checked with the key of `jwkJSON`.
    package static func jwsCase(_ token: String, jwkJSON: String) throws -> [String: Any] {
        var item = try publicKey(jwkJSON: jwkJSON)
        item["jws"] = token
        return item
    }
}
