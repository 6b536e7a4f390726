#!/usr/bin/env python3
"""Generates JWTVerify's own test data: keys, a public JWKS, and Apple-shaped sample tokens.

Usage: python3 Vectors/generate.py [--new-keys]

Needs Python `cryptography` (pip install cryptography). Keys in Vectors/keys/ are reused unless
--new-keys is given, so regenerating the samples does not churn the key files. Every sample line
carries the verdict it must get ("expect": "valid" or a reason code) at the fixed evaluation time
EVALUATION_TIME, with the flags shown in Vectors/README.md.
"""
import base64, hashlib, json, os, sys
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

HERE = os.path.dirname(os.path.abspath(__file__))
EVALUATION_TIME = 1767225600  # 2026-01-01T00:00:00Z
ISSUER = "https://appleid.apple.com"
AUDIENCE = "com.example.app"
RAW_NONCE = "demo-raw-nonce-0f4e2a"

KEYS = {  # file stem -> (kid, alg)
    "rsa-1": ("W6WcOKB6X1", "RS256"),
    "rsa-2": ("fh6Bs8C7dQ", "RS256"),
    "ec-1": ("Tq3Lc1mPz8", "ES256"),
    "ec-2": ("Ub9XwV0kRa", "ES256"),
    "rsa-retired": ("86D88Kf0Rt", "RS256"),  # signs tokens whose key is no longer published
}


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64u_int(value: int, length: int = 0) -> str:
    return b64u(value.to_bytes(length or (value.bit_length() + 7) // 8, "big"))


def load_or_make_keys(new: bool):
    keys = {}
    os.makedirs(os.path.join(HERE, "keys"), exist_ok=True)
    for stem in KEYS:
        path = os.path.join(HERE, "keys", stem + ".pem")
        if os.path.exists(path) and not new:
            with open(path, "rb") as f:
                keys[stem] = serialization.load_pem_private_key(f.read(), password=None)
            continue
        key = rsa.generate_private_key(65537, 2048) if stem.startswith("rsa") else ec.generate_private_key(ec.SECP256R1())
        with open(path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        keys[stem] = key
    return keys


def public_jwk(stem, key):
    kid, alg = KEYS[stem]
    pub = key.public_key().public_numbers()
    if stem.startswith("rsa"):
        return {"kty": "RSA", "kid": kid, "use": "sig", "alg": alg, "n": b64u_int(pub.n), "e": b64u_int(pub.e)}
    return {"kty": "EC", "kid": kid, "use": "sig", "alg": alg, "crv": "P-256",
            "x": b64u_int(pub.x, 32), "y": b64u_int(pub.y, 32)}


def sign(key, alg, signing_input: bytes) -> bytes:
    if alg == "RS256":
        return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    if alg == "ES256":
        r, s = utils.decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
    raise ValueError(alg)


def compact(header: dict, claims: dict, key=None, alg=None, signature: bytes = None) -> str:
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode())
    signing_input = f"{h}.{p}".encode()
    if signature is None:
        signature = sign(key, alg, signing_input)
    return f"{h}.{p}.{b64u(signature)}"


def apple_claims(**changes):
    claims = {
        "iss": ISSUER, "aud": AUDIENCE, "exp": EVALUATION_TIME + 300, "iat": EVALUATION_TIME - 300,
        "sub": "001234.5f0a2b9c8d7e4f61a3b2c1d0e9f8a7b6.1234",
        "nonce": hashlib.sha256(RAW_NONCE.encode()).hexdigest(),
        "c_hash": "Q2hhbGxlbmdlSGFzaDEyMw", "email": "x7q2kd9p4m@privaterelay.appleid.com",
        "email_verified": "true", "is_private_email": "true", "auth_time": EVALUATION_TIME - 310,
        "nonce_supported": True,
    }
    for name, value in changes.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


def samples(keys):
    def token(stem, claims=None, header=None, alg=None):
        kid, key_alg = KEYS[stem]
        alg = alg or key_alg
        return compact(header or {"kid": kid, "alg": alg}, claims or apple_claims(), keys[stem], alg)

    rsa1 = KEYS["rsa-1"][0]
    valid = token("rsa-1")
    h, p, s = valid.split(".")
    tampered_claims = b64u(json.dumps(apple_claims(sub="000000.attacker.0000"), separators=(",", ":")).encode())
    hs256_input = b64u(json.dumps({"kid": rsa1, "alg": "HS256"}).encode()) + "." + p
    import hmac
    hs256 = hs256_input + "." + b64u(hmac.new(json.dumps(public_jwk("rsa-1", keys["rsa-1"])).encode(),
                                              hs256_input.encode(), hashlib.sha256).digest())
    none = b64u(b'{"alg":"none"}') + "." + p + "."
    rows = [
        ("valid-rs256-key1", valid, RAW_NONCE, "valid"),
        ("valid-rs256-key2", token("rsa-2"), RAW_NONCE, "valid"),
        ("valid-24h-lifetime", token("rsa-1", apple_claims(exp=EVALUATION_TIME + 86000, iat=EVALUATION_TIME - 400)), RAW_NONCE, "valid"),
        ("valid-bool-email-verified", token("rsa-2", apple_claims(email_verified=True, is_private_email=False)), RAW_NONCE, "valid"),
        ("valid-es256", token("ec-1"), RAW_NONCE, "valid"),
        ("valid-no-nonce-check", token("ec-2", apple_claims(nonce=None, nonce_supported=False)), None, "valid"),
        ("valid-within-leeway", token("rsa-1", apple_claims(exp=EVALUATION_TIME - 30)), RAW_NONCE, "valid"),
        ("expired", token("rsa-1", apple_claims(exp=EVALUATION_TIME - 3600, iat=EVALUATION_TIME - 4200)), RAW_NONCE, "expired"),
        ("issued-in-future", token("rsa-2", apple_claims(iat=EVALUATION_TIME + 600, exp=EVALUATION_TIME + 1200)), RAW_NONCE, "issued_in_future"),
        ("not-yet-valid", token("rsa-1", apple_claims(nbf=EVALUATION_TIME + 900)), RAW_NONCE, "not_yet_valid"),
        ("wrong-issuer", token("rsa-1", apple_claims(iss="https://accounts.google.com")), RAW_NONCE, "issuer_mismatch"),
        ("wrong-audience", token("rsa-1", apple_claims(aud="com.attacker.app")), RAW_NONCE, "audience_mismatch"),
        ("nonce-replayed-from-other-login", token("rsa-1", apple_claims(nonce=hashlib.sha256(b"another-raw-nonce").hexdigest())), RAW_NONCE, "nonce_mismatch"),
        ("nonce-unhashed", token("rsa-2", apple_claims(nonce=RAW_NONCE)), RAW_NONCE, "nonce_mismatch"),
        ("nonce-missing", token("rsa-1", apple_claims(nonce=None)), RAW_NONCE, "nonce_missing"),
        ("tampered-subject", f"{h}.{tampered_claims}.{s}", RAW_NONCE, "bad_signature"),
        ("signed-by-wrong-key", token("rsa-2", header={"kid": rsa1, "alg": "RS256"}), RAW_NONCE, "bad_signature"),
        ("rotated-away-key", token("rsa-retired"), RAW_NONCE, "unknown_kid"),
        ("alg-none", none, RAW_NONCE, "alg_none"),
        ("hs256-key-confusion", hs256, RAW_NONCE, "unsupported_alg"),
        ("es256-header-on-rsa-key", compact({"kid": rsa1, "alg": "ES256"}, apple_claims(), keys["ec-1"], "ES256"), RAW_NONCE, "key_alg_mismatch"),
        ("exp-as-string", token("rsa-1", apple_claims(exp=str(EVALUATION_TIME + 300))), RAW_NONCE, "claim_type"),
        ("crit-header", token("rsa-1", header={"kid": rsa1, "alg": "RS256", "crit": ["exp"], "exp": 1}), RAW_NONCE, "crit_unsupported"),
        ("access-token-typ", token("rsa-1", header={"kid": rsa1, "alg": "RS256", "typ": "at+jwt"}), RAW_NONCE, "header_invalid"),
        ("truncated", valid[: len(valid) - 40], RAW_NONCE, "malformed"),
        ("padded-base64", f"{h}.{p}==.{s}", RAW_NONCE, "malformed"),
        ("oversized", token("rsa-1", apple_claims(padding="x" * 70000)), RAW_NONCE, "too_large"),
    ]
    return [{"id": i, "token": t, **({"nonce": n} if n else {}), "expect": e, "expect_apple": apple_verdict(t, e)}
            for i, t, n, e in rows]


def apple_verdict(token, expect):
    """The verdict under `--profile apple` (`.appleIdentityToken`), where `expect` is the one under
    the generic policy of `make demo`: the preset allows RS256 only, and the allow-list is checked
    right after the size and the structure, so an ES256 header is `unsupported_alg` from there on."""
    if expect in ("too_large", "malformed", "alg_none", "unsupported_alg"):
        return expect
    try:
        header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=" * (-len(token.split(".")[0]) % 4)))
    except ValueError:
        return expect
    return "unsupported_alg" if header.get("alg") == "ES256" else expect


def write_x509_map(keys):
    """Google's x509 key-map format (kid -> PEM certificate) for the two published RSA keys."""
    import datetime
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    certificates = {}
    for stem in ("rsa-1", "rsa-2"):
        kid = KEYS[stem][0]
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "securetoken.system.gserviceaccount.com")])
        start = datetime.datetime(2025, 12, 20, tzinfo=datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(keys[stem].public_key())
                .serial_number(int.from_bytes(hashlib.sha256(kid.encode()).digest()[:8], "big"))
                .not_valid_before(start).not_valid_after(start + datetime.timedelta(days=30))
                .sign(keys[stem], hashes.SHA256()))
        certificates[kid] = cert.public_bytes(serialization.Encoding.PEM).decode()
    with open(os.path.join(HERE, "google-x509-keys.json"), "w") as f:
        json.dump(certificates, f, indent=2)
        f.write("\n")


def main():
    keys = load_or_make_keys("--new-keys" in sys.argv)
    write_x509_map(keys)
    if "--x509-only" in sys.argv:
        return
    published = [public_jwk(stem, keys[stem]) for stem in KEYS if stem != "rsa-retired"]
    with open(os.path.join(HERE, "jwks.json"), "w") as f:
        json.dump({"keys": published}, f, indent=2)
        f.write("\n")
    rows = samples(keys)
    with open(os.path.join(HERE, "samples", "apple-identity-tokens.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row, separators=(",", ":")) + "\n")
    with open(os.path.join(HERE, "samples", "tokens.txt"), "w") as f:
        for row in rows:
            if row["expect"] != "too_large":
                f.write(row["token"] + "\n")
    print(f"wrote {len(published)} keys to Vectors/jwks.json and {len(rows)} samples to Vectors/samples/")


if __name__ == "__main__":
    main()
