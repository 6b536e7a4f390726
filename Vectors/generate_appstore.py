#!/usr/bin/env python3
"""Generates synthetic App Store signed data: a chain shaped like Apple's and tokens of the kinds
the real corpus lacks (RESCIND_CONSENT with its nested AppTransaction, Retention Messaging realtime
requests, the 2.17-2.19 notification types and fields), each line with the verdict it must get.

Usage: python3 Vectors/generate_appstore.py  (make vectors runs it)

Needs Python `cryptography`. Writes Vectors/appstore/root.pem (the test root, the only trust
anchor the tests give) and Vectors/appstore/tokens.jsonl. Every run makes new keys: nothing here
is secret, and the private keys are not kept. The certificates are valid from 2025-01-01 to
2045-01-01; every token is judged at its own signedDate, under the policy of POLICY below.
"""
import base64, datetime, json, os
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "appstore")
BUNDLE_ID = "com.example.app"
APP_APPLE_ID = 1234567890
# The flags every line's verdict is for (with --apple-root Vectors/appstore/root.pem).
POLICY = ["--profile", "app-store", "--bundle-id", BUNDLE_ID, "--app-apple-id", str(APP_APPLE_ID)]
NOT_BEFORE = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
NOT_AFTER = datetime.datetime(2045, 1, 1, tzinfo=datetime.timezone.utc)
SIGNED = 1767225600000  # 2026-01-01T00:00:00Z, in milliseconds, as Apple writes signedDate
LEAF_OID = "1.2.840.113635.100.6.11.1"
INTERMEDIATE_OID = "1.2.840.113635.100.6.2.1"
ASN1_NULL = b"\x05\x00"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def name(common: str):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Inc."),
                      x509.NameAttribute(NameOID.COUNTRY_NAME, "US")])


def certificate(subject, key, issuer, issuer_key, ca: bool, oid: str | None):
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=ca, crl_sign=ca, encipher_only=False,
                                            decipher_only=False), critical=True))
    if oid:
        builder = builder.add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier(oid), ASN1_NULL),
                                        critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


class Chain:
    def __init__(self):
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.root = certificate(name("Test Root CA - G3"), self.root_key, name("Test Root CA - G3"), self.root_key,
                                True, None)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca = certificate(name("Test WWDR - G6"), ca_key, self.root.subject, self.root_key, True,
                              INTERMEDIATE_OID)
        self.leaf_key = ec.generate_private_key(ec.SECP256R1())
        self.leaf = certificate(name("Test Store Signing"), self.leaf_key, self.ca.subject, ca_key, False, LEAF_OID)

    def sign(self, payload: dict) -> str:
        x5c = [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode()
               for c in (self.leaf, self.ca, self.root)]
        header = b64u(json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":")).encode())
        body = b64u(json.dumps(payload, separators=(",", ":")).encode())
        der = self.leaf_key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        r, s = utils.decode_dss_signature(der)
        return f"{header}.{body}.{b64u(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def tampered(token: str) -> str:
    """The token with one payload character changed (still base64url): its signature fails."""
    header, body, signature = token.split(".")
    position = len(body) // 2
    swapped = "A" if body[position] != "A" else "Q"
    return f"{header}.{body[:position]}{swapped}{body[position + 1:]}.{signature}"


def app_transaction(signed=SIGNED - 3_600_000, app_apple_id=APP_APPLE_ID, environment="Production"):
    return {"receiptType": environment, "appAppleId": app_apple_id, "bundleId": BUNDLE_ID,
            "applicationVersion": "1.4", "versionExternalIdentifier": 871234, "receiptCreationDate": SIGNED - 86_400_000,
            "requestDate": signed, "originalPurchaseDate": 1700000000000, "originalApplicationVersion": "1.0",
            "deviceVerification": "dGVzdA==", "deviceVerificationNonce": "6d3c1a7e-1111-4d4f-8a1e-3f1b2c3d4e5f",
            "appTransactionId": "704289572311245678", "originalPlatform": "iOS", "signedDate": signed}


def transaction(extra=None, type_="Auto-Renewable Subscription"):
    payload = {"transactionId": "2000000123", "originalTransactionId": "2000000100", "bundleId": BUNDLE_ID,
               "productId": "pro.monthly", "purchaseDate": SIGNED - 60_000, "originalPurchaseDate": 1700000000000,
               "type": type_, "inAppOwnershipType": "PURCHASED", "environment": "Production",
               "appTransactionId": "704289572311245678", "storefront": "USA", "currency": "USD", "price": 9990,
               "transactionReason": "PURCHASE", "signedDate": SIGNED - 1000}
    if type_ == "Auto-Renewable Subscription":
        payload["expiresDate"] = SIGNED + 30 * 86_400_000
    payload.update(extra or {})
    return payload


def renewal(extra=None):
    payload = {"originalTransactionId": "2000000100", "autoRenewProductId": "pro.yearly.monthly",
               "productId": "pro.yearly.monthly", "autoRenewStatus": 1, "environment": "Production",
               "renewalDate": SIGNED + 30 * 86_400_000, "appTransactionId": "704289572311245678",
               "signedDate": SIGNED - 1000}
    payload.update(extra or {})
    return payload


def realtime(app_apple_id=APP_APPLE_ID, environment="Production"):
    return {"originalTransactionId": "2000000100", "appAppleId": app_apple_id, "productId": "pro.monthly",
            "userLocale": "en-US", "requestIdentifier": "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9",
            "signedDate": SIGNED, "environment": environment}


def notification(type_, subtype=None, data=None, **parts):
    payload = {"notificationType": type_, "notificationUUID": f"uuid-{type_.lower()}-{subtype or 'none'}",
               "version": "2.0", "signedDate": SIGNED}
    if subtype:
        payload["subtype"] = subtype
    if data is not None:
        payload["data"] = {"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "bundleVersion": "1.4",
                           "environment": "Production", **data}
    payload.update(parts)
    return payload


def app_data(signed_app_transaction):
    return {"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID, "environment": "Production",
            "signedAppTransactionInfo": signed_app_transaction}


def main():
    chain = Chain()
    sign = chain.sign
    app = sign(app_transaction())
    monthly = {"billingPlanType": "MONTHLY",
               "commitmentInfo": {"billingPeriodNumber": 2, "totalBillingPeriods": 12,
                                  "commitmentExpiresDate": SIGNED + 300 * 86_400_000, "commitmentPrice": 99990}}
    renewal_monthly = {"renewalBillingPlanType": "MONTHLY",
                       "commitmentInfo": {"commitmentAutoRenewProductId": "pro.yearly.monthly",
                                          "commitmentAutoRenewStatus": 1,
                                          "commitmentRenewalBillingPlanType": "MONTHLY",
                                          "commitmentRenewalDate": SIGNED + 300 * 86_400_000,
                                          "commitmentRenewalPrice": 99990}}
    lines = [
        ("rescind-consent", "notification", "valid",
         sign(notification("RESCIND_CONSENT", appData=app_data(app)))),
        ("rescind-consent-nested-tampered", "notification", "bad_signature",
         sign(notification("RESCIND_CONSENT", appData=app_data(tampered(app))))),
        ("rescind-consent-nested-other-app", "notification", "app_apple_id_mismatch",
         sign(notification("RESCIND_CONSENT", appData=app_data(sign(app_transaction(app_apple_id=999)))))),
        ("rescind-consent-nested-outside-chain", "notification", "untrusted_chain",
         sign(notification("RESCIND_CONSENT",
                           appData=app_data(sign(app_transaction(signed=2_400_000_000_000)))))),
        ("rescind-consent-nested-not-app-transaction", "notification", "claim_type",
         sign(notification("RESCIND_CONSENT", appData=app_data(sign(transaction()))))),
        ("realtime-request", "realtime_request", "valid", sign(realtime())),
        ("realtime-request-sandbox", "realtime_request", "valid", sign(realtime(environment="Sandbox"))),
        ("realtime-request-wrong-app", "realtime_request", "app_apple_id_mismatch",
         sign(realtime(app_apple_id=9876543210))),
        ("realtime-request-tampered", "realtime_request", "bad_signature", tampered(sign(realtime()))),
        ("one-time-charge", "notification", "valid",
         sign(notification("ONE_TIME_CHARGE",
                           data={"signedTransactionInfo": sign(transaction(type_="Consumable"))}))),
        ("subscribed-monthly-commitment", "notification", "valid",
         sign(notification("SUBSCRIBED", "INITIAL_BUY",
                           data={"signedTransactionInfo": sign(transaction(monthly)),
                                 "signedRenewalInfo": sign(renewal(renewal_monthly)), "status": 1}))),
        ("metadata-update", "notification", "valid",
         sign(notification("METADATA_UPDATE", data={"signedTransactionInfo": sign(transaction())}))),
        ("migration", "notification", "valid",
         sign(notification("MIGRATION", data={"signedTransactionInfo": sign(transaction())}))),
        ("price-change", "notification", "valid",
         sign(notification("PRICE_CHANGE", data={"signedRenewalInfo": sign(renewal())}))),
        ("external-purchase-token", "notification", "valid",
         sign(notification("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED",
                           externalPurchaseToken={"externalPurchaseId": "b2a1c3d4-0000-4e5f-9a8b-7c6d5e4f3a2b",
                                                  "tokenCreationDate": SIGNED - 7_200_000,
                                                  "appAppleId": APP_APPLE_ID, "bundleId": BUNDLE_ID}))),
        ("unknown-type", "notification", "valid",
         sign(notification("SOMETHING_NEW", "NEWER_STILL", data={"signedTransactionInfo": sign(transaction())}))),
        ("commitment-info-not-object", "transaction", "claim_type",
         sign(transaction({"commitmentInfo": "monthly"}))),
    ]
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "root.pem"), "wb") as f:
        f.write(chain.root.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(OUT, "tokens.jsonl"), "w") as f:
        for id_, kind, expect, token in lines:
            f.write(json.dumps({"id": id_, "kind": kind, "expect": expect, "token": token},
                               separators=(",", ":")) + "\n")
    print(f"wrote {len(lines)} tokens to {os.path.relpath(OUT)}/tokens.jsonl under: {' '.join(POLICY)}")


if __name__ == "__main__":
    main()
