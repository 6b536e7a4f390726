#!/usr/bin/env python3
"""A scriptable JWKS origin on 127.0.0.1 for JWTVerify's remote key-set tests.

Prints the port it listens on, then serves:
  GET  /keys     the current behaviour (below)
  GET  /redirect a 302 to /keys (and /loop redirects to itself)
  POST /control  JSON {"mode": ..., "document": ..., "max_age": ..., "etag": ...} sets the behaviour
  GET  /stats    {"requests": n, "conditional": n, "not_modified": n, "if_modified_since": n}
Modes: ok (200, Cache-Control max-age, ETag, Last-Modified; 304 when If-None-Match matches),
hang (answers after 30 s), close (drops the connection), error (500), garbage, empty ({"keys":[]}),
huge (10 MB), no_cache (200 without Cache-Control).
"""
import json, sys, threading, time
from http.server import ThreadingHTTPServer

from loopback_http import QuietHandler

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
        self.send(200, b"{}")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
