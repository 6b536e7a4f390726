#!/usr/bin/env python3
"""A stand-in for Apple's Sign in with Apple REST endpoints on 127.0.0.1, strict to Apple's
documented contract, for JWTVerify's tests. It checks what Apple checks and fails as Apple fails.

usage: apple_standin.py CLIENT_ID TEAM_ID:KEY_ID:PUBLIC_KEY_PEM_FILE [TEAM_ID:KEY_ID:PEM ...]

Prints the port it listens on, then serves:
  GET  /auth/keys              its own JWKS (RS256 keys that sign its identity tokens)
  POST /auth/token             authorization_code, refresh_token and client_credentials grants
  POST /auth/revoke            200 whatever the token; a revoked refresh token fails afterwards
  POST /auth/usermigrationinfo TN3159: sub + target -> transfer_sub; transfer_sub -> sub, email
and, for the tests only:
  POST /test/authorize  {"sub", "raw_nonce"? (the id token's nonce is its SHA-256 hex), "redirect_uri"?, "email"?, "team"?} -> {"code"}: what a user's sign-in leaves
  POST /test/age        {"code", "seconds"}: makes a code older
  POST /test/mode       {"mode": ok|error500|unavailable503|hang|html|cut|huge|bomb|bad_signature|other_audience|redirect|
                         revoke_ignored (/auth/revoke answers 200, the token keeps working)}
  GET  /test/stats      {"secrets": distinct client secrets seen, "requests": n, "refused_secrets": n}

Every endpoint takes POST with Content-Type application/x-www-form-urlencoded, client_id and a
client_secret: an ES256 JWT whose header kid is a registered key, signed by that key, with iss
the key's team, sub the client_id, aud https://appleid.apple.com, iat not in the future, exp in
the future and exp - iat <= 15777000; anything else is 400 invalid_client. Codes are single use
and last 300 s; a redirect_uri must equal the authorization request's. Errors are 400 JSON
{"error": ...} with Apple's codes.
"""
import base64, hashlib, json, secrets, sys, threading, time, urllib.parse
from http.server import ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from loopback_http import QuietHandler, gzip_bomb

APPLE = "https://appleid.apple.com"
MAX_SECRET_LIFETIME = 15777000

client_id = sys.argv[1]
registered = {}  # key ID -> (team ID, public key)
for spec in sys.argv[2:]:
    team, kid, path = spec.split(":", 2)
    with open(path, "rb") as f:
        registered[kid] = (team, serialization.load_pem_public_key(f.read()))

signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
stranger_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = "standin-1"

lock = threading.Lock()
state = {"mode": "ok", "requests": 0, "refused_secrets": 0}
secrets_seen = set()
codes = {}           # code -> {"sub", "nonce", "redirect_uri", "email", "issued", "used", "team"}
refresh_tokens = {}  # token -> {"sub", "email", "revoked", "team"}
access_tokens = {}   # token -> {"revoked", "refresh"}
migration_tokens = {}  # token -> team
transfers = {}       # transfer_sub -> sub (in the transferring team)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwks():
    numbers = signing_key.public_key().public_numbers()
    n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    e = numbers.e.to_bytes(3, "big")
    return {"keys": [{"kty": "RSA", "kid": KID, "use": "sig", "alg": "RS256", "n": b64url(n), "e": b64url(e)}]}


def id_token(sub, email, nonce, audience):
    now = int(time.time())
    claims = {"iss": APPLE, "aud": audience, "exp": now + 600, "iat": now, "sub": sub, "c_hash": "x", "email": email,
              "email_verified": "true", "is_private_email": "true" if email.endswith("privaterelay.appleid.com") else "false",
              "auth_time": now, "nonce_supported": True}
    if nonce is not None:
        claims["nonce"] = nonce
    header = b64url(json.dumps({"kid": KID, "alg": "RS256"}).encode())
    payload = b64url(json.dumps(claims).encode())
    key = stranger_key if state["mode"] == "bad_signature" else signing_key
    signature = key.sign(f"{header}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{header}.{payload}.{b64url(signature)}"


def client_team(form):
    """The team whose key signed a valid client secret for form's client_id, or None."""
    secret = form.get("client_secret", "")
    try:
        header_text, payload_text, signature_text = secret.split(".")
        header = json.loads(b64url_decode(header_text))
        claims = json.loads(b64url_decode(payload_text))
        signature = b64url_decode(signature_text)
        if header.get("alg") != "ES256" or header.get("kid") not in registered or len(signature) != 64:
            return None
        team, public_key = registered[header["kid"]]
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        public_key.verify(der, f"{header_text}.{payload_text}".encode(), ec.ECDSA(hashes.SHA256()))
    except (ValueError, KeyError, InvalidSignature, TypeError, AttributeError):
        return None
    now = time.time()
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int) or not isinstance(exp, int):
        return None
    if claims.get("iss") != team or claims.get("sub") != form.get("client_id") or claims.get("aud") != APPLE:
        return None
    if iat > now + 60 or exp <= now or exp - iat > MAX_SECRET_LIFETIME:
        return None
    with lock:
        secrets_seen.add(secret)
    return team


class Handler(QuietHandler):
    def send(self, status, body=b"", content_type="application/json;charset=UTF-8", headers=()):
        """Answers as Apple does: JSON (a dict or list is serialised), never cached."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        super().send(status, body, [("Content-Type", content_type), ("Cache-Control", "no-store")] + list(headers))

    def error(self, code, description=None):
        body = {"error": code}
        if description:
            body["error_description"] = description
        return self.send(400, body)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_GET(self):
        if self.path == "/auth/keys":
            return self.send(200, jwks())
        if self.path == "/test/stats":
            with lock:
                return self.send(200, {"secrets": len(secrets_seen), "requests": state["requests"], "refused_secrets": state["refused_secrets"]})
        self.send(404, b"not found", "text/plain")

    def do_POST(self):
        raw = self.body()
        if self.path.startswith("/test/"):
            return self.control(json.loads(raw or b"{}"))
        if self.path not in ("/auth/token", "/auth/revoke", "/auth/usermigrationinfo"):
            return self.send(404, b"not found", "text/plain")
        with lock:
            state["requests"] += 1
            mode = state["mode"]
        if mode == "hang":
            time.sleep(30)
            return
        if mode == "error500":
            return self.send(500, b"<html><body>Internal Server Error</body></html>", "text/html")
        if mode == "unavailable503":
            return self.send(503, b"", "text/plain", [("Retry-After", "120")])
        if mode == "redirect":
            return self.send(307, b"", "text/plain", [("Location", "http://127.0.0.1:9/auth/token")])
        if mode == "html":
            return self.send(200, b"<!DOCTYPE html><html><body>Sign in</body></html>", "text/html")
        if mode == "cut":
            return self.send(200, b'{"access_token":"a1","token_type":"Bearer","expires_in":3600,"refresh_tok')
        if mode == "huge":
            return self.send(200, b'{"padding":"' + b"x" * (2 << 20) + b'"}')
        if mode == "bomb":
            return self.send(200, gzip_bomb(), "application/json", [("Content-Encoding", "gzip")])
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            return self.error("invalid_request", "Content-Type must be application/x-www-form-urlencoded")
        try:
            form = {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode(), keep_blank_values=True, strict_parsing=True).items()}
        except (ValueError, UnicodeDecodeError):
            return self.error("invalid_request")
        if not form.get("client_id") or not form.get("client_secret"):
            return self.error("invalid_request")
        team = client_team(form)
        if team is None:
            with lock:
                state["refused_secrets"] += 1
            return self.error("invalid_client")
        if form["client_id"] != client_id:
            return self.error("invalid_client")
        if self.path == "/auth/token":
            return self.token(form, team)
        if self.path == "/auth/revoke":
            return self.revoke(form)
        return self.migrate(form, team)

    def token(self, form, team):
        grant = form.get("grant_type")
        audience = "com.example.other" if state["mode"] == "other_audience" else client_id
        if grant == "authorization_code":
            code = form.get("code")
            if not code:
                return self.error("invalid_request")
            with lock:
                entry = codes.get(code)
                if entry is None or entry["used"] or time.time() - entry["issued"] > 300 or entry["team"] != team:
                    return self.error("invalid_grant", "The code has expired or has been revoked.")
                if form.get("redirect_uri") != entry["redirect_uri"]:
                    return self.error("invalid_grant", "The redirect_uri does not match.")
                entry["used"] = True
                refresh = "r" + secrets.token_hex(16) + "." + team
                access = "a" + secrets.token_hex(16)
                refresh_tokens[refresh] = {"sub": entry["sub"], "email": entry["email"], "revoked": False, "team": team}
                access_tokens[access] = {"revoked": False, "refresh": refresh}
            return self.send(200, {"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refresh,
                                   "id_token": id_token(entry["sub"], entry["email"], entry["nonce"], audience)})
        if grant == "refresh_token":
            token = form.get("refresh_token")
            if not token:
                return self.error("invalid_request")
            with lock:
                entry = refresh_tokens.get(token)
                if entry is None or entry["revoked"] or entry["team"] != team:
                    return self.error("invalid_grant", "The refresh token is invalid.")
                access = "a" + secrets.token_hex(16)
                access_tokens[access] = {"revoked": False, "refresh": token}
            return self.send(200, {"access_token": access, "token_type": "Bearer", "expires_in": 3600,
                                   "id_token": id_token(entry["sub"], entry["email"], None, audience)})
        if grant == "client_credentials":
            if form.get("scope") != "user.migration":
                return self.error("invalid_scope")
            access = "m" + secrets.token_hex(16)
            with lock:
                migration_tokens[access] = team
            return self.send(200, {"access_token": access, "token_type": "Bearer", "expires_in": 3600})
        if grant is None:
            return self.error("invalid_request")
        return self.error("unsupported_grant_type")

    def revoke(self, form):
        token = form.get("token")
        if not token:
            return self.error("invalid_request")
        hint = form.get("token_type_hint")
        if hint not in (None, "refresh_token", "access_token"):
            return self.error("invalid_request")
        with lock:
            if state["mode"] == "revoke_ignored":
                pass  # Apple's 200, but the revocation does not take (yet): the token keeps working
            elif token in refresh_tokens:
                refresh_tokens[token]["revoked"] = True
                for access in access_tokens.values():
                    if access["refresh"] == token:
                        access["revoked"] = True
            elif token in access_tokens:
                access_tokens[token]["revoked"] = True
        return self.send(200, b"", "text/plain")

    def migrate(self, form, team):
        bearer = self.headers.get("Authorization", "")
        with lock:
            granted = migration_tokens.get(bearer[7:]) if bearer.startswith("Bearer ") else None
        if granted != team:
            return self.error("invalid_grant", "The access token is not valid for user migration.")
        if "transfer_sub" in form:
            with lock:
                original = transfers.get(form["transfer_sub"])
            if original is None or original[1] != team:
                return self.error("invalid_request")
            sub = "t" + hashlib.sha256((team + original[0]).encode()).hexdigest()[:24]
            return self.send(200, {"sub": sub, "email": sub[:8] + "@privaterelay.appleid.com", "is_private_email": True})
        if not form.get("sub") or not form.get("target"):
            return self.error("invalid_request")
        transfer = "x" + hashlib.sha256((form["sub"] + form["target"]).encode()).hexdigest()[:24]
        with lock:
            transfers[transfer] = (form["sub"], form["target"])
        return self.send(200, {"transfer_sub": transfer})

    def control(self, request):
        if self.path == "/test/authorize":
            code = "c" + secrets.token_hex(16)
            raw = request.get("raw_nonce")
            nonce = hashlib.sha256(raw.encode()).hexdigest() if raw is not None else None
            team = request.get("team") or next(iter(registered.values()))[0]
            with lock:
                codes[code] = {"sub": request["sub"], "nonce": nonce, "redirect_uri": request.get("redirect_uri"),
                               "email": request.get("email", "user@privaterelay.appleid.com"), "issued": time.time(),
                               "used": False, "team": team}
            return self.send(200, {"code": code})
        if self.path == "/test/age":
            with lock:
                codes[request["code"]]["issued"] -= request["seconds"]
            return self.send(200, {})
        if self.path == "/test/mode":
            with lock:
                state["mode"] = request["mode"]
            if request["mode"] == "bomb":
                gzip_bomb()  # made now, so that the next answer is not slow to start
            return self.send(200, {})
        self.send(404, b"not found", "text/plain")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
