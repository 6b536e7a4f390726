#!/usr/bin/env python3
"""A scriptable JWKS origin on 127.0.0.1 for JWTVerify's remote key-set tests.

Prints the port it listens on, then serves:
  GET  /keys     the current behaviour (below)
  GET  /redirect a 302 to /keys (and /loop redirects to itself)
  POST /control  JSON {"mode": ..., "document": ..., "max_age": ..., "etag": ...} sets the behaviour
  GET  /stats    {"requests": n, "conditional": n, "not_modified": n, "if_modified_since": n}
Modes: ok (200, Cache-Control max-age, ETag, Last-Modified; 304 when If-None-Match matches),
hang (answers after 30 s), close (drops the connection), error (500), garbage, empty ({"keys":[]}),
huge (10 MB), no_cache (200 without Cache-Control), gzip (the document gzip-encoded), bomb (a 1 MiB
gzip answer that decodes to 1 GiB), plain50 (a 50 MB answer), endless_head (header lines without
end), drip (the head, then one body octet a second).
"""
import gzip, json, sys, threading, time
from http.server import ThreadingHTTPServer

from loopback_http import QuietHandler, gzip_bomb

state = {"mode": "ok", "document": '{"keys":[]}', "max_age": 600, "etag": '"v1"', "requests": 0, "conditional": 0,
         "not_modified": 0, "if_modified_since": 0}
lock = threading.Lock()


class Handler(QuietHandler):

    def do_GET(self):
        if self.path == "/stats":
            with lock:
                body = json.dumps({k: state[k] for k in ("requests", "conditional", "not_modified", "if_modified_since")}).encode()
            return self.send(200, body, [("Content-Type", "application/json")])
        if self.path == "/redirect":
            return self.send(302, b"", [("Location", "/keys")])
        if self.path == "/loop":
            return self.send(302, b"", [("Location", "/loop")])
        with lock:
            state["requests"] += 1
            mode, document, max_age, etag = state["mode"], state["document"], state["max_age"], state["etag"]
            conditional = self.headers.get("If-None-Match")
            if conditional:
                state["conditional"] += 1
            if self.headers.get("If-Modified-Since") == "Sat, 28 Nov 2026 10:00:00 GMT":
                state["if_modified_since"] += 1
        if mode == "hang":
            time.sleep(30)
        if mode == "close":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if mode == "error":
            return self.send(500, b"internal error")
        if mode == "garbage":
            return self.send(200, b"<html>not a key set</html>", [("Content-Type", "text/html")])
        if mode == "empty":
            return self.send(200, b'{"keys":[]}', [("Cache-Control", "max-age=600")])
        if mode == "bomb":
            return self.send(200, gzip_bomb(), [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
        if mode == "gzip":
            return self.send(200, gzip.compress(document.encode()),
                             [("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                              ("Cache-Control", f"max-age={max_age}")])
        if mode == "plain50":
            return self.send(200, b'{"keys":[' + b" " * (50 * 1000 * 1000) + b"]}")
        if mode == "endless_head":
            try:
                self.send_response(200)
                self.flush_headers()
                for index in range(10_000_000):
                    self.wfile.write(b"X-Filler-%d: %s\r\n" % (index, b"a" * 100))
            except OSError:
                pass
            return
        if mode == "drip":
            try:
                self.send_response(200)
                self.send_header("Content-Length", "100000")
                self.end_headers()
                for _ in range(60):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass
            return
        if mode == "huge":
            return self.send(200, b'{"keys":[' + b" " * (10 * 1024 * 1024) + b"]}")
        headers = [("Content-Type", "application/json"), ("ETag", etag), ("Last-Modified", "Sat, 28 Nov 2026 10:00:00 GMT")]
        if mode != "no_cache":
            headers.append(("Cache-Control", f"public, max-age={max_age}, must-revalidate"))
        if conditional == etag:
            with lock:
                state["not_modified"] += 1
            return self.send(304, b"", headers)
        return self.send(200, document.encode(), headers)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        update = json.loads(self.rfile.read(length) or b"{}")
        with lock:
            state.update(update)
        if update.get("mode") == "bomb":
            gzip_bomb()  # made before the next fetch, so that it is not slow to start
        self.send(200, b"{}")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
