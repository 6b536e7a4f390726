#!/usr/bin/env python3
"""Writes seed inputs for a fuzz target (make fuzz TARGET=...): sample tokens, attack cases, JWKS files."""
import base64, json, os, sys

target, out = sys.argv[1], sys.argv[2]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.path.join(os.path.dirname(root), "shared", "vectors")
seeds = []
samples = [json.loads(l) for l in open(os.path.join(root, "Vectors", "samples", "apple-identity-tokens.jsonl"))]
tokens = [s["token"] for s in samples if len(s["token"]) < 8000]
cases = os.path.join(shared, "attacks", "cases.jsonl")
if os.path.exists(cases):
    tokens += [c["token"] for c in map(json.loads, open(cases)) if len(c["token"]) < 8000]
if target == "json":
    for t in tokens:
        for segment in t.split(".")[:2]:
            try:
                seeds.append(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
            except Exception:
                pass
elif target in ("token", "mutation"):
    seeds = [t.encode() for t in tokens] if target == "token" else [bytes([i, 7, 65, 200, 66]) for i in range(8)]
elif target == "input":
    seeds = [json.dumps({"token": t, "id": i, "nonce": "n"}).encode() for i, t in enumerate(tokens[:40])]
    seeds += [("GET /cb?id_token=" + t + "&x=1 Authorization: Bearer " + t).encode() for t in tokens[:20]]
elif target == "appstorebatch":
    # Knob byte (chain memory, cache), then lines: placeholders (@T transaction, @R renewal, @X
    # tampered, @F another bundle's) and N-lines that become signed notifications around them.
    seeds = [bytes([knob]) + body for knob in range(4) for body in (
        b"@T\nN@T|@R\n@X\nN@X|@R", b"N@T|@R\nN@T|@R\nN@F\n@R", b"NN@T|@R\nN|@X\nN\n@T", b"N@T|@R\n" * 40)]
elif target == "cache":
    # Step streams: (token choice, time and nonce knobs) pairs, some with a mutation position.
    seeds = [bytes((i * 37 + k * 11) % 256 for k in range(60)) for i in range(24)]
elif target == "http":
    # Mode byte (0 Authorization, 1 plain header/cookie value, 2 /verify body, 3 claim text), then bytes.
    seeds = [bytes([0]) + b"Bearer " + t.encode() for t in tokens[:10]] + [bytes([1]) + b" " + t.encode() + b" " for t in tokens[:5]]
    seeds += [bytes([2]) + "\n".join(json.dumps({"token": t, "id": i}) for i, t in enumerate(tokens[:8])).encode()]
    seeds += [bytes([3]) + "Zo\u00eb\r\nX-Evil: 1 %".encode(), bytes([2]) + b'{\n "token": "a.b.c"\n}']
elif target == "es256":
    # Key choice, signature kind (valid, flipped bit, random, near 0, near n, other key, s = r,
    # swapped), then message bytes.
    seeds = [bytes([k, kind]) + f"message {k} {kind}".encode() + bytes(range(70)) for k in range(6) for kind in range(8)]
elif target == "rsa":
    # Key and algorithm, signature kind (valid, flipped bit, random, near 0, near n, other key,
    # other digest, other hash), then message bytes.
    seeds = [bytes([k, kind]) + f"message {k} {kind}".encode() + bytes(range(70)) for k in range(12) for kind in range(9)]
elif target == "mb":
    # Modulus size, then lanes of 24 bytes: key and algorithm, signature kind (as for rsa, plus
    # s + n), message bytes.
    seeds = [bytes([size]) + b"".join(bytes([k + lane, (kind + lane) % 9]) + bytes(range(lane, lane + 22)) for lane in range(8))
             for size in range(3) for k in range(4) for kind in range(9)]
elif target == "transport":
    # Knob byte (chunk size, key origin or Apple, object or not), then a raw HTTP answer.
    jwks = open(os.path.join(root, "Vectors", "jwks.json"), "rb").read()
    heads = [b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=600\r\nETag: \"v1\"\r\n\r\n",
             b"HTTP/1.1 304 Not Modified\r\nCache-Control: no-cache\r\n\r\n",
             b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A: b\r\n\r\n",
             b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n",
             b"HTTP/1.1 429 Too Many\r\nRetry-After: 120\r\n\r\n"]
    bodies = [jwks, b'{"access_token":"a","token_type":"Bearer","expires_in":3600,"id_token":"x.y.z"}',
              b'{"error":"invalid_grant","error_description":"secret-1 was used"}', b"<html>", b"{" * 300]
    seeds = [bytes([k]) + h + b for k in (0, 1, 6, 67, 130) for h in heads for b in bodies]
elif target == "storeapi":
    # Call byte (call % 6, chunk size), then raw answers split at "\n--page--\n"; @T @R @N @X @F stand
    # for a transaction, a renewal info, a notification, a tampered and another bundle's transaction.
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
    bodies = [
        [{"signedTransactionInfo": "@T"}],
        [{"revision": "r1", "hasMore": True, "signedTransactions": ["@T", "@T"]},
         {"revision": "r2", "hasMore": False, "bundleId": "com.example.app", "signedTransactions": ["@T", "@X"]}],
        [{"environment": "Sandbox", "data": [{"subscriptionGroupIdentifier": "g", "lastTransactions": [
            {"status": 1, "originalTransactionId": "1", "signedTransactionInfo": "@T", "signedRenewalInfo": "@R"}]}]}],
        [{"notificationHistory": [{"signedPayload": "@N", "sendAttempts": [{"attemptDate": 1, "sendAttemptResult": "SUCCESS"}]}],
          "hasMore": True, "paginationToken": "p1"}, {"notificationHistory": [{"signedPayload": "@N"}], "hasMore": False}],
        [{"signedPayload": "@N", "sendAttempts": []}],
        [{"status": 0, "signedTransactions": ["@T", "@F"]}],
    ]
    for call, pages in enumerate(bodies):
        for chunk in (0, 8, 200):
            seeds.append(bytes([call + chunk]) + "\n--page--\n".join(head + json.dumps(p) for p in pages).encode())
    errors = ["HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n" + json.dumps({"errorCode": 4040010, "errorMessage": "Transaction id not found."}),
              "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n\r\n" + json.dumps({"errorCode": 4290000, "errorMessage": "x"}),
              "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n\r\nUnauthenticated"]
    seeds += [bytes([k]) + e.encode() for k in range(6) for e in errors]
elif target == "discovery":
    # Mode byte: even, a document checked against issuer (byte >> 1) % 5 of the target's list;
    # odd, an issuer whose well-known URLs are built.
    issuers = ["https://id.example", "https://id.example/tenant/1", "https://id.example/", "http://127.0.0.1:8080",
               "https://id.example/caf\u00e9"]
    for index, issuer in enumerate(issuers):
        for uri in ["https://id.example/jwks", "http://127.0.0.1:8080/keys", "http://keys.example/jwks", "/keys", 42]:
            document = {"issuer": issuer, "jwks_uri": uri, "response_types_supported": ["code"],
                        "id_token_signing_alg_values_supported": ["RS256"]}
            seeds.append(bytes([index << 1]) + json.dumps(document).encode())
            seeds.append(bytes([index << 1]) + json.dumps(document, ensure_ascii=False).encode())
        seeds.append(bytes([1]) + issuer.encode())
    seeds += [bytes([0]) + b'{"issuer":"https://id.example","issuer":"https://id.example","jwks_uri":"https://a/b"}',
              bytes([8]) + b'{"issuer":"https://id.example/cafe\\u0301","jwks_uri":"https://a/b"}',
              bytes([1]) + b"https://id.example:8443/a/b/", bytes([1]) + b"https://id.example/tenant//", bytes([1]) + b"https://id.example/?x#y", bytes([1]) + b"http://[::1]/t"]
elif target == "serve":
    # A request line, header lines ("@" stands for a valid token), a blank line, a body.
    paths = ["/auth", "/auth/apple", "/auth/default", "/auth/nope", "/auth/..", "/auth/a/../b", "/auth/%2F", "/auth//x",
             "/verify", "/verify/apple", "/notifications/apple", "/healthz?x=1", "/auth/\u212a", "/metrics",
             "/ext-authz/default/app", "/ext-authz/apple", "/ext-authz/nope/x", "/ext-authz/%61pple"]
    headers = ["Authorization: Bearer @", "Authorization: Bearer @\nAuthorization: Bearer @", "X-Token: @",
               "Authorization: Bearer @\nX-Token: @", "Cookie: session=@", "Cookie: session=@; session=@", "Authorization: Basic YQ=="]
    seeds = [f"{m} {p}\n{h}\n\n{b}".encode() for m, p in [("GET", x) for x in paths] + [("POST", "/verify")]
             for h in headers for b in ["", "@"]]
elif target == "notification":
    seeds = [bytes([0]) + b'{"payload":"a.b.c"}', bytes([1]) + b"x.y.z", bytes([2]) + b'"{\"type\":\"consent-revoked\",\"sub\":\"s\",\"event_time\":1700000000}"',
             bytes([2]) + b'"{\"type\":\"email-disabled\",\"sub\":\"s\",\"email\":\"a@b\",\"is_private_email\":\"true\",\"event_time\":1}"',
             bytes([0]) + b'{"signedPayload":"a.b.c"}', bytes([0]) + b"[" * 200]
elif target == "dpop":
    header = '{"typ":"dpop+jwt","alg":"ES256","jwk":@jwk}'
    claims = '{"jti":"%s","htm":"%s","htu":"%s","iat":1700001000,"ath":"@ath"}'
    uris = ["https://api.example.com/orders", "HTTPS://API.example.COM:443/a/../orders?x#y", "https://api.example.com/%6Frders"]
    seeds = [b"\x00" + "\n".join([header, claims % (i, m, u), m, "https://api.example.com/orders"]).encode()
             for i, (m, u) in enumerate([(m, u) for m in ["GET", "POST"] for u in uris])]
    seeds += [b"\x00" + "\n".join(['{"typ":"dpop+jwt","alg":"ES256"}', claims % ("n", "GET", uris[0]), "GET", uris[0]]).encode(),
              b"\x01" + b"eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.AA\nGET\nhttps://api.example.com/orders"]
elif target == "htu":
    seeds = [u.encode() for u in ["https://api.example.com/orders", "HTTPS://Api.Example.COM:443", "http://a:80/b/./c/../d?q#f",
             "https://[2001:DB8::1]:8443/%7euser/%2fx", "https://u:p@h/%41%2F..%2E/", "wss://h:0443/./../a", "https://h:/"]]
elif target == "jwks":
    for name in ["jwks.json", "google-x509-keys.json"]:
        seeds.append(open(os.path.join(root, "Vectors", name), "rb").read())
    for name in ["jwks.json", "jwks_alg_variants.json", "jwks_no_alg.json"]:
        path = os.path.join(shared, "attacks", name)
        if os.path.exists(path):
            seeds.append(open(path, "rb").read())
for i, seed in enumerate(seeds):
    with open(os.path.join(out, f"seed-{i}"), "wb") as f:
        f.write(seed)
print(f"{len(seeds)} seeds for {target}")
