#!/usr/bin/env python3
"""An HTTP responder on 127.0.0.1 that answers every POST with junk, for the bounded-read tests.

usage: junk_responder.py PORT MODE, MODE one of: big (50 MB claimed and sent, an OCSP response's
content type), endless_head (header lines without end), der_bomb (a DER SEQUENCE header claiming
1 GiB, then filler, no Content-Length)."""
import sys
from http.server import ThreadingHTTPServer

from loopback_http import QuietHandler

port, mode = int(sys.argv[1]), sys.argv[2]


class Handler(QuietHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            if mode == "big":
                self.send_response(200)
                self.send_header("Content-Type", "application/ocsp-response")
                self.send_header("Content-Length", str(50 * 1000 * 1000))
                self.end_headers()
                block = b"\x30" * 65536
                for _ in range(50 * 1000 * 1000 // 65536):
                    self.wfile.write(block)
            elif mode == "endless_head":
                self.send_response(200)
                self.flush_headers()
                for index in range(10_000_000):
                    self.wfile.write(b"X-Filler-%d: %s\r\n" % (index, b"a" * 100))
            else:
                self.send_response(200)
                self.send_header("Content-Type", "application/ocsp-response")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"\x30\x84\x40\x00\x00\x00")
                for _ in range(16 * 1024):
                    self.wfile.write(b"\x00" * 65536)
        except OSError:
            pass
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
print(port, flush=True)
server.serve_forever()
