#!/usr/bin/env python3
"""A chain shaped like Apple's and App Store transactions signed by its leaf, for the benchmarks.

The chain is made with the openssl command in OUT: a P-256 root (root.pem), an intermediate with
Apple's extension 1.2.840.113635.100.6.2.1 and a P-256 leaf with 1.2.840.113635.100.6.11.1, valid
for 30 days. COUNT distinct transactions (bundle ID com.example.app, Sandbox, signed two minutes
from now, one millisecond apart), ES256 with Python's cryptography, each carrying the whole chain
in its x5c, are written one per line to OUT/transactions.txt.

    appstore_corpus.py OUT COUNT       (or, from Python: generate(out, count) -> the tokens)
"""
import base64
import json
import subprocess
import sys
import time


def generate(out, count):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=out, check=True, capture_output=True)

    with open(f"{out}/ext.cnf", "w") as f:
        f.write("[ca]\nbasicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
                "1.2.840.113635.100.6.2.1=ASN1:NULL\n"
                "[leaf]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "1.2.840.113635.100.6.11.1=ASN1:NULL\n")
    for name in ("root", "ca", "leaf"):
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key")
    openssl("req", "-x509", "-new", "-key", "root.key", "-subj", "/CN=Bench Root", "-days", "30", "-addext",
            "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "root.pem")
    for name, issuer in (("ca", "root"), ("leaf", "ca")):
        openssl("req", "-new", "-key", f"{name}.key", "-subj", f"/CN=Bench {name}", "-out", f"{name}.csr")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{issuer}.pem", "-CAkey", f"{issuer}.key",
                "-CAcreateserial", "-days", "30", "-extfile", "ext.cnf", "-extensions", name, "-out", f"{name}.pem")

    def der(name):
        return subprocess.run(["openssl", "x509", "-in", f"{name}.pem", "-outform", "DER"], cwd=out, check=True,
                              capture_output=True).stdout

    chain = [base64.b64encode(der(name)).decode() for name in ("leaf", "ca", "root")]
    with open(f"{out}/root.der", "wb") as f:
        f.write(der("root"))
    key = serialization.load_pem_private_key(open(f"{out}/leaf.key", "rb").read(), None)
    b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    header = b64(json.dumps({"alg": "ES256", "x5c": chain}, separators=(",", ":")).encode())
    signed_at = int((time.time() + 120) * 1000)
    tokens = []
    for i in range(count):
        payload = {"transactionId": str(2000000000 + i), "originalTransactionId": "2000000000",
                   "bundleId": "com.example.app", "productId": "pro.monthly", "purchaseDate": signed_at - 1000,
                   "type": "Auto-Renewable Subscription", "environment": "Sandbox", "signedDate": signed_at + i}
        signing_input = header + "." + b64(json.dumps(payload, separators=(",", ":")).encode())
        r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        tokens.append(signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
    with open(f"{out}/transactions.txt", "w") as f:
        f.write("\n".join(tokens) + "\n")
    return tokens


if __name__ == "__main__":
    generate(sys.argv[1], int(sys.argv[2]))
