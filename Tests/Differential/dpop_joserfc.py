"""An independent judge of DPoP proofs (RFC 9449) and RFC 7638 thumbprints, on joserfc.

Reads one JSON case per line on stdin and writes one JSON answer per line:
  {"jwk": {...}}                                   -> {"thumbprint": "..."}
  {"proof": "...", "method": "...", "uri": "...",  -> {"accepted": true|false, "why": "..."}
   "token": "...", "jkt": "...", "now": N, "window": W, "leeway": L}
The request URIs of the cases are already normalised, so htu is compared exactly here.
Exits 3 when joserfc is not installed.
"""
import base64
import hashlib
import json
import sys

try:
    from joserfc import jws
    from joserfc.jwk import import_key
except ImportError:
    sys.exit(3)

PRIVATE = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}
ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

# joserfc refuses protected headers over 512 bytes by default; a proof's header carries its
# public key, and an RSA key makes it longer.
REGISTRY = jws.JWSRegistry(algorithms=sorted(ASYMMETRIC))
REGISTRY.max_header_length = 4096


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def judge(case):
    parts = case["proof"].split(".")
    if len(parts) != 3:
        return "segments"
    header = json.loads(unb64(parts[0]))
    if header.get("typ") != "dpop+jwt":
        return "typ"
    alg = header.get("alg")
    if alg not in ASYMMETRIC:
        return "alg"
    jwk = header.get("jwk")
    if not isinstance(jwk, dict) or PRIVATE & set(jwk):
        return "jwk"
    key = import_key(jwk)
    try:
        obj = jws.deserialize_compact(case["proof"], key, algorithms=[alg], registry=REGISTRY)
    except Exception:
        return "signature"
    claims = json.loads(obj.payload)
    if claims.get("htm") != case["method"]:
        return "htm"
    if claims.get("htu") != case["uri"]:
        return "htu"
    iat = claims.get("iat")
    if not isinstance(iat, (int, float)) or iat > case["now"] + case["leeway"] \
            or iat < case["now"] - case["window"] - case["leeway"]:
        return "iat"
    if not isinstance(claims.get("jti"), str) or not claims["jti"]:
        return "jti"
    if claims.get("ath") != b64(hashlib.sha256(case["token"].encode()).digest()):
        return "ath"
    if case.get("jkt") != key.thumbprint():
        return "jkt"
    return None


for line in sys.stdin:
    case = json.loads(line)
    if "jwk" in case:
        answer = {"thumbprint": import_key(case["jwk"]).thumbprint()}
    else:
        why = judge(case)
        answer = {"accepted": why is None, "why": why or ""}
    print(json.dumps(answer), flush=True)
