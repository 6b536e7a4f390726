#!/usr/bin/env python3
"""A scriptable issuer on 127.0.0.1 for JWTVerify's discovery tests: any path, any answer.

Prints the port it listens on, then serves:
  POST /control  JSON {"routes": {PATH: {"status": n, "body": TEXT, "size": n, "max_age": n, "etag": TEXT}}}
                 replaces every route (a "size" answers that many spaces inside a JSON object)
  GET  /stats    {"hits": {PATH: n}, "conditional": {PATH: n}, "not_modified": {PATH: n}}: every GET
                 counted by its raw path (as sent, percent-escapes kept), routed or not
  GET  PATH      the route's answer: its status and body, Cache-Control max-age and ETag when given,
                 a 304 when If-None-Match matches the ETag; a path without a route answers 404
"""
import json, sys, threading
from http.server import ThreadingHTTPServer

from loopback_http import QuietHandler

state = {"routes": {}, "hits": {}, "conditional": {}, "not_modified": {}}
lock = threading.Lock()


def count(table, path):
    state[table][path] = state[table].get(path, 0) + 1


class Handler(QuietHandler):

    def do_GET(self):
        if self.path == "/stats":
            with lock:
                body = json.dumps({k: state[k] for k in ("hits", "conditional", "not_modified")}).encode()
            return self.send(200, body, [("Content-Type", "application/json")])
        with lock:
            count("hits", self.path)
            route = state["routes"].get(self.path)
            conditional = self.headers.get("If-None-Match")
            if conditional:
                count("conditional", self.path)
            if route and route.get("etag") and conditional == route["etag"]:
                count("not_modified", self.path)
                route = dict(route, status=304, body="")
        if route is None:
            return self.send(404, b"not found")
        headers = [("Content-Type", "application/json")]
        if "max_age" in route:
            headers.append(("Cache-Control", "max-age=%d" % route["max_age"]))
        if route.get("etag"):
            headers.append(("ETag", route["etag"]))
        body = route.get("body", "").encode()
        if "size" in route:
            body = b'{"x":"' + b" " * route["size"] + b'"}'
        self.send(route.get("status", 200), b"" if route.get("status") == 304 else body, headers)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        settings = json.loads(self.rfile.read(length) or b"{}")
        with lock:
            state["routes"] = settings.get("routes", {})
        self.send(200, b"{}")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
