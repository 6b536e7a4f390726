/// Apple Root CA - G3, the trust anchor of App Store signed data, as Apple publishes it
/// (https://www.apple.com/certificateauthority/AppleRootCA-G3.cer), DER in standard base64.
enum AppleRootCertificate {
    /// The DER certificate, base64.
    static let base64 =
        "MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYD"
        + "VQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN"
        + "MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFw"
        + "cGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49"
        + "AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA"
        + "/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr"
        + "MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZL"
        + "uN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM"
        + "6BgD56KyKA=="

    /// The SHA-256 of the DER, as Apple publishes it: checked whenever the certificate is loaded.
    static let sha256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// The certificate's DER octets, after its fingerprint is checked.
    static func der() -> [UInt8] {
        let der = StandardBase64.decode(Array(base64.utf8))!
        var hex = OutputText()
        hex.hexString(MessageDigest.sha256.hash(der))
        precondition(hex.string == "\"" + sha256 + "\"", "the bundled Apple Root CA - G3 is not Apple's")
        return der
    }
}
