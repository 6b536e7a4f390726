#!/usr/bin/env python3
"""A stand-in for Apple's App Store Server API on 127.0.0.1, strict to Apple's documented contract,
for JWTVerify's tests. It checks the bearer token as Apple does and fails as Apple documents.

usage: app_store_server_standin.py BUNDLE_ID ISSUER_ID KEY_ID:PUBLIC_KEY_PEM_FILE ENVIRONMENT SIGNER_KEY_PEM CHAIN_FILE

The signed items it serves are ES256 JWS whose x5c is CHAIN_FILE's three lines (standard base64
DER: leaf, intermediate, root), signed with SIGNER_KEY_PEM (the leaf's key): a chain the test made.

Prints the port it listens on, then serves, for the customer of original transaction 2000000100
(45 transactions, 2000000100 to 2000000144) and 25 notifications:
  GET  /inApps/v1/transactions/{id}        {"signedTransactionInfo"}; 404 4040010 for an unknown ID
  GET  /inApps/v2/history/{id}             pages of 20 {"revision", "hasMore", "bundleId", "appAppleId",
                                           "environment", "signedTransactions"}; the revision names the next page
  GET  /inApps/v1/subscriptions/{id}       {"data": [{"subscriptionGroupIdentifier", "lastTransactions": [{"status",
                                           "originalTransactionId", "signedTransactionInfo", "signedRenewalInfo"}]}]};
                                           ?status=N filters
  POST /inApps/v1/notifications/history    JSON {"startDate", "endDate", ...}: pages of 20 {"notificationHistory":
                                           [{"signedPayload", "sendAttempts"}], "hasMore", "paginationToken"}
  POST /inApps/v1/notifications/test       {"testNotificationToken"}
  GET  /inApps/v1/notifications/test/{t}   {"signedPayload" (a TEST notification), "sendAttempts"}; 404 4040008
  GET  /inApps/v1/lookup/{orderId}         MQ12345678: {"status": 0, "signedTransactions"}; else {"status": 1}
and, for the tests only:
  POST /test/mode   {"mode": ok|rate_limit (429, Retry-After: 7)|error500|hang|html|huge|redirect|tamper (one item of
                     each answer, the 4th of history page 2, has a broken signature)|wrong_bundle (items name
                     com.example.other)|wrong_kind (a renewal info where a transaction belongs)|endless (history
                     never ends)|stale_revision (hasMore with the same revision)}
  GET  /test/stats  {"tokens": distinct bearer tokens accepted, "refused": n, "requests": n, "history_queries": [...]}

Every API request needs "Authorization: Bearer JWT": an ES256 JWT whose header has typ JWT and the
registered kid, signed by that key (64-octet r||s), with iss the issuer ID, aud appstoreconnect-v1,
bid the bundle ID, integer iat not in the future and exp in the future, exp - iat <= 3600; anything
else is 401 with a plain-text body, as Apple answers. Errors are JSON {"errorCode", "errorMessage"}.
"""
import base64, json, sys, threading, time, urllib.parse, uuid
from http.server import ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from loopback_http import QuietHandler

AUDIENCE = "appstoreconnect-v1"
MAX_LIFETIME = 3600
ORIGINAL = 2000000100
COUNT = 45
NOTIFICATIONS = 25
PAGE = 20
APP_APPLE_ID = 1234567890

bundle_id, issuer_id, key_spec, environment, signer_path, chain_path = sys.argv[1:7]
kid, public_path = key_spec.split(":", 1)
with open(public_path, "rb") as f:
    registered_key = serialization.load_pem_public_key(f.read())
with open(signer_path, "rb") as f:
    signer = serialization.load_pem_private_key(f.read(), password=None)
with open(chain_path) as f:
    chain = [line.strip() for line in f if line.strip()]

lock = threading.Lock()
state = {"mode": "ok", "requests": 0, "refused": 0}
tokens_seen = set()
history_queries = []
test_tokens = set()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jws(payload, tampered=False):
    """payload signed with the leaf's key, the chain in x5c; with tampered, its signature broken."""
    header = b64url(json.dumps({"alg": "ES256", "x5c": chain}).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    r, s = decode_dss_signature(signer.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256())))
    signature = bytearray(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    if tampered:
        signature[10] ^= 0x01
    return f"{header}.{body}.{b64url(bytes(signature))}"


def now_ms():
    return int(time.time() * 1000)


def item_bundle():
    return "com.example.other" if state["mode"] == "wrong_bundle" else bundle_id


def transaction(number):
    return {"transactionId": str(number), "originalTransactionId": str(ORIGINAL), "bundleId": item_bundle(),
            "productId": "pro.monthly", "subscriptionGroupIdentifier": "21000001",
            "purchaseDate": 1700000000000 + (number - ORIGINAL) * 2592000000,
            "originalPurchaseDate": 1700000000000,
            "expiresDate": 1700000000000 + (number - ORIGINAL + 1) * 2592000000, "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": now_ms(),
            "environment": environment, "transactionReason": "RENEWAL", "storefront": "USA", "storefrontId": "143441"}


def renewal_info():
    return {"originalTransactionId": str(ORIGINAL), "autoRenewProductId": "pro.monthly", "productId": "pro.monthly",
            "autoRenewStatus": 1, "signedDate": now_ms(), "environment": environment,
            "recentSubscriptionStartDate": 1700000000000, "renewalDate": 1816640000000}


def notification(index, kind="DID_RENEW"):
    data = {"bundleId": item_bundle(), "appAppleId": APP_APPLE_ID, "environment": environment,
            "bundleVersion": "1.0"}
    if kind != "TEST":
        data["signedTransactionInfo"] = jws(transaction(ORIGINAL + index % COUNT))
        data["signedRenewalInfo"] = jws(renewal_info())
        data["status"] = 1
    return {"notificationType": kind, "notificationUUID": str(uuid.UUID(int=index + 1)), "version": "2.0",
            "signedDate": now_ms(), "data": data}


def known(identifier):
    return identifier.isdigit() and ORIGINAL <= int(identifier) < ORIGINAL + COUNT


def token_refusal(header_value):
    """Why Apple would refuse the bearer token (None: accepted)."""
    if not header_value.startswith("Bearer "):
        return "no bearer token"
    token = header_value[7:]
    try:
        header_text, payload_text, signature_text = token.split(".")
        header = json.loads(b64url_decode(header_text))
        claims = json.loads(b64url_decode(payload_text))
        signature = b64url_decode(signature_text)
    except (ValueError, TypeError):
        return "not a JWT"
    if header.get("alg") != "ES256" or header.get("typ") != "JWT":
        return "header"
    if header.get("kid") != kid:
        return "kid"
    if len(signature) != 64:
        return "signature length"
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        registered_key.verify(der, f"{header_text}.{payload_text}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "signature"
    now = time.time()
    iat, exp = claims.get("iat"), claims.get("exp")
    if type(iat) is not int or type(exp) is not int:
        return "iat/exp"
    if claims.get("iss") != issuer_id or claims.get("aud") != AUDIENCE or claims.get("bid") != bundle_id:
        return "claims"
    if iat > now + 60 or exp <= now or exp - iat > MAX_LIFETIME:
        return "lifetime"
    with lock:
        tokens_seen.add(token)
    return None


class Handler(QuietHandler):
    def send(self, status, body=b"", content_type="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        super().send(status, body, [("Content-Type", content_type)] + list(headers))

    def apple_error(self, status, code, message):
        return self.send(status, {"errorCode": code, "errorMessage": message})

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        path = url.path
        if path.startswith("/test/"):
            return self.control(method, path, raw)
        if not path.startswith("/inApps/"):
            return self.send(404, b"not found", "text/plain")
        with lock:
            state["requests"] += 1
            mode = state["mode"]
        refusal = token_refusal(self.headers.get("Authorization", ""))
        if refusal is not None:
            with lock:
                state["refused"] += 1
            return self.send(401, b"Unauthenticated\n\nRequest ID: STANDIN.0.1\n", "text/plain")
        if mode == "hang":
            time.sleep(30)
            return
        if mode == "rate_limit":
            return self.send(429, {"errorCode": 4290000, "errorMessage": "Rate limit exceeded."}, headers=[("Retry-After", "7")])
        if mode == "error500":
            return self.apple_error(500, 5000001, "An unknown error occurred. Please try again.")
        if mode == "html":
            return self.send(200, b"<!DOCTYPE html><html><body>Maintenance</body></html>", "text/html")
        if mode == "huge":
            return self.send(200, b'{"padding":"' + b"x" * (2 << 20) + b'"}')
        if mode == "redirect":
            return self.send(307, b"", "text/plain", [("Location", "http://127.0.0.1:9" + self.path)])
        parts = path.split("/")[1:]  # inApps, v1, ...
        if method == "GET" and parts[1:3] == ["v1", "transactions"] and len(parts) == 4:
            if not known(parts[3]):
                return self.apple_error(404, 4040010, "Transaction id not found.")
            item = transaction(int(parts[3]))
            if mode == "wrong_kind":
                return self.send(200, {"signedTransactionInfo": jws(renewal_info())})
            return self.send(200, {"signedTransactionInfo": jws(item, tampered=mode == "tamper")})
        if method == "GET" and parts[1:3] == ["v2", "history"] and len(parts) == 4:
            return self.history(parts[3], query, mode)
        if method == "GET" and parts[1:3] == ["v1", "subscriptions"] and len(parts) == 4:
            return self.statuses(parts[3], query, mode)
        if method == "POST" and path == "/inApps/v1/notifications/history":
            return self.notification_history(raw, query, mode)
        if method == "POST" and path == "/inApps/v1/notifications/test":
            token = f"{uuid.uuid4()}_{now_ms()}"
            with lock:
                test_tokens.add(token)
            return self.send(200, {"testNotificationToken": token})
        if method == "GET" and parts[1:4] == ["v1", "notifications", "test"] and len(parts) == 5:
            with lock:
                found = parts[4] in test_tokens
            if not found:
                return self.apple_error(404, 4040008, "Either the test notification token is expired or the notification and status are not yet available.")
            return self.send(200, {"signedPayload": jws(notification(0, "TEST"), tampered=mode == "tamper"),
                                   "sendAttempts": [{"attemptDate": now_ms(), "sendAttemptResult": "SUCCESS"}]})
        if method == "GET" and parts[1:3] == ["v1", "lookup"] and len(parts) == 4:
            if parts[3] != "MQ12345678":
                return self.send(200, {"status": 1})
            return self.send(200, {"status": 0, "signedTransactions": [
                jws(transaction(ORIGINAL), tampered=mode == "tamper"), jws(transaction(ORIGINAL + 1))]})
        return self.send(404, b"not found", "text/plain")

    def history(self, identifier, query, mode):
        if not known(identifier):
            return self.apple_error(404, 4040010, "Transaction id not found.")
        with lock:
            history_queries.append(urllib.parse.urlsplit(self.path).query)
        revision = query.get("revision", [None])[0]
        if revision is None:
            start = 0
        else:
            try:
                start = int(b64url_decode(revision).decode().split(":")[1])
            except (ValueError, IndexError, UnicodeDecodeError):
                return self.apple_error(400, 4000005, "Invalid request revision.")
        numbers = [n for n in range(ORIGINAL, ORIGINAL + COUNT)]
        if query.get("productId") and "pro.monthly" not in query["productId"]:
            numbers = []
        page = numbers[start:start + PAGE]
        end = start + len(page)
        more = end < len(numbers) or mode == "endless"
        signed = [jws(transaction(n), tampered=mode == "tamper" and start == PAGE and i == 3) for i, n in enumerate(page)]
        next_revision = b64url(f"rev:{end if mode != 'endless' else end + start + 1}".encode())
        if mode == "stale_revision" and revision is not None:
            next_revision, more = revision, True
        return self.send(200, {"revision": next_revision, "hasMore": more, "bundleId": bundle_id,
                               "appAppleId": APP_APPLE_ID, "environment": environment, "signedTransactions": signed})

    def statuses(self, identifier, query, mode):
        if not known(identifier):
            return self.apple_error(404, 4040010, "Transaction id not found.")
        wanted = [int(s) for s in query.get("status", []) if s.isdigit()]
        if any(s not in (1, 2, 3, 4, 5) for s in wanted) or len(wanted) != len(query.get("status", [])):
            return self.apple_error(400, 4000031, "Invalid status.")
        last = [{"status": 1, "originalTransactionId": str(ORIGINAL),
                 "signedTransactionInfo": jws(transaction(ORIGINAL + COUNT - 1)),
                 "signedRenewalInfo": jws(renewal_info(), tampered=mode == "tamper")},
                {"status": 2, "originalTransactionId": "2000000900",
                 "signedTransactionInfo": jws(dict(transaction(ORIGINAL), originalTransactionId="2000000900",
                                                   transactionId="2000000900", productId="pro.yearly")),
                 "signedRenewalInfo": jws(dict(renewal_info(), originalTransactionId="2000000900",
                                               autoRenewStatus=0, productId="pro.yearly"))}]
        if wanted:
            last = [item for item in last if item["status"] in wanted]
        return self.send(200, {"environment": environment, "bundleId": bundle_id, "appAppleId": APP_APPLE_ID,
                               "data": [{"subscriptionGroupIdentifier": "21000001", "lastTransactions": last}]})

    def notification_history(self, raw, query, mode):
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            return self.apple_error(400, 4000000, "Bad request.")
        try:
            request = json.loads(raw)
        except ValueError:
            return self.apple_error(400, 4000000, "Bad request.")
        start, end = request.get("startDate"), request.get("endDate")
        if type(start) is not int:
            return self.apple_error(400, 4000015, "Invalid start date.")
        if type(end) is not int:
            return self.apple_error(400, 4000016, "Invalid end date.")
        if start > end:
            return self.apple_error(400, 4000013, "Start date after end date.")
        if now_ms() - start > 180 * 86400 * 1000:
            return self.apple_error(400, 4000012, "Start date too far in past.")
        if "notificationType" in request and "transactionId" in request:
            return self.apple_error(400, 4000019, "Multiple filters supplied.")
        token = query.get("paginationToken", [None])[0]
        offset = 0
        if token is not None:
            try:
                offset = int(b64url_decode(token).decode().split(":")[1])
            except (ValueError, IndexError, UnicodeDecodeError):
                return self.apple_error(400, 4000014, "Invalid pagination token.")
        indices = list(range(NOTIFICATIONS))[offset:offset + PAGE]
        entries = [{"signedPayload": jws(notification(i), tampered=mode == "tamper" and i == NOTIFICATIONS - 1),
                    "sendAttempts": [{"attemptDate": now_ms() - 1000, "sendAttemptResult": "TIMED_OUT"},
                                     {"attemptDate": now_ms(), "sendAttemptResult": "SUCCESS"}]} for i in indices]
        answer = {"notificationHistory": entries, "hasMore": offset + PAGE < NOTIFICATIONS}
        if answer["hasMore"]:
            answer["paginationToken"] = b64url(f"page:{offset + PAGE}".encode())
        return self.send(200, answer)

    def control(self, method, path, raw):
        if path == "/test/mode" and method == "POST":
            with lock:
                state["mode"] = json.loads(raw)["mode"]
            return self.send(200, {})
        if path == "/test/stats":
            with lock:
                return self.send(200, {"tokens": len(tokens_seen), "refused": state["refused"],
                                       "requests": state["requests"], "history_queries": list(history_queries)})
        return self.send(404, b"not found", "text/plain")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
