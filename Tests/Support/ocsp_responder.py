"""An OCSP responder on 127.0.0.1 for the tests: each POSTed request is answered by the real
`openssl ocsp` (responder mode over files: -index, -rsigner, -reqin, -respout), so the answers are
OpenSSL's own while the socket stays on loopback (`openssl ocsp -port` binds every interface).

usage: ocsp_responder.py PORT FOLDER ISSUER INDEX
"""
import http.server
import os
import subprocess
import sys
import tempfile

port, folder, issuer, index = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]


class Responder(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with tempfile.TemporaryDirectory() as scratch:
            request, response = os.path.join(scratch, "req.der"), os.path.join(scratch, "resp.der")
            with open(request, "wb") as f:
                f.write(body)
            subprocess.run(
                ["openssl", "ocsp", "-index", index, "-rsigner", issuer + ".pem", "-rkey", issuer + ".key", "-CA", issuer + ".pem",
                 "-nmin", "10", "-reqin", request, "-respout", response],
                cwd=folder, check=True, capture_output=True)
            with open(response, "rb") as f:
                answer = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/ocsp-response")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", port), Responder).serve_forever()
