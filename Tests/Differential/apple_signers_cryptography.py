"""An independent judge of what JWTVerify signs for Apple, on Python 'cryptography' (PyPI).

Reads one JSON case per line on stdin and writes one JSON answer per line:
  {"jws": "h.p.s", "x": B64URL, "y": B64URL}
      -> {"valid": true|false, "header": {...}, "claims": {...}}: the ES256 signature (R||S,
         64 octets, turned into DER here) over "h.p" checked with the P-256 key (x, y); the
         header and claims decoded from base64url as they are.
  {"v1": BASE64_DER, "x": ..., "y": ..., "bundleId": ..., "keyId": ..., "productId": ...,
   "offerId": ..., "appAccountToken": ..., "nonce": ..., "timestamp": N}
      -> {"valid": true|false, "message": HEX}: the original promotional-offer signature,
         standard base64 of a DER ECDSA SHA-256 signature over the UTF-8 of the fields joined
         by U+2063 (appAccountToken and nonce lowercased), the message rebuilt here from the fields.
Exits 3 when 'cryptography' is not installed.
"""
import base64
import json
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
except ImportError:
    sys.exit(3)


def unb64url(text):
    if any(c in text for c in "+/="):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key(case):
    x = int.from_bytes(unb64url(case["x"]), "big")
    y = int.from_bytes(unb64url(case["y"]), "big")
    return ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()


def verify(key, der, message):
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def judge_jws(case):
    header, claims, signature = case["jws"].split(".")
    raw = unb64url(signature)
    valid = False
    if len(raw) == 64:
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        valid = verify(public_key(case), der, (header + "." + claims).encode("ascii"))
    return {
        "valid": valid,
        "header": json.loads(unb64url(header)),
        "claims": json.loads(unb64url(claims)),
    }


def judge_v1(case):
    fields = [
        case["bundleId"], case["keyId"], case["productId"], case["offerId"],
        case["appAccountToken"].lower(), case["nonce"].lower(), str(case["timestamp"]),
    ]
    message = "\u2063".join(fields).encode("utf-8")
    der = base64.b64decode(case["v1"], validate=True)
    return {"valid": verify(public_key(case), der, message), "message": message.hex()}


for line in sys.stdin:
    case = json.loads(line)
    answer = judge_jws(case) if "jws" in case else judge_v1(case)
    print(json.dumps(answer), flush=True)
