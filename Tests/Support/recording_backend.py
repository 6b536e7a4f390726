#!/usr/bin/env python3
"""A backend behind the gateway tests' nginx and Caddy, on 127.0.0.1: it prints its port, then
answers every request with 200 and a JSON body recording what reached it:
  {"method": ..., "path": ..., "headers": [[name, value], ...]}
with each header line as it arrived (the name's spelling and letter case kept, repeats kept, in
order). The tests read it through the gateway and assert exactly what the backend was given.
"""
import json
from http.server import ThreadingHTTPServer

from loopback_http import QuietHandler


class Handler(QuietHandler):

    def record(self):
        length = int(self.headers.get("Content-Length", "0") or "0")
        if length:
            self.rfile.read(length)
        headers = [[name, value] for name, value in self.headers.items()]
        seen = {"method": self.command, "path": self.path, "headers": headers}
        self.send(200, json.dumps(seen).encode(), [("Content-Type", "application/json")])

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = record


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
