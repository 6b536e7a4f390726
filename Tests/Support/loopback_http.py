"""What the tests' loopback HTTP scripts share: a quiet HTTP/1.1 handler that answers with a body
and its length, and a decompression bomb."""
import threading, zlib
from http.server import BaseHTTPRequestHandler

_bomb = []
_bomb_lock = threading.Lock()


def gzip_bomb():
    """A JSON object holding 1 GiB of spaces, gzip-encoded (about 1 MiB), made once per process."""
    with _bomb_lock:
        if not _bomb:
            packer = zlib.compressobj(9, zlib.DEFLATED, 31)
            parts = [packer.compress(b'{"keys":[')]
            block = b" " * (1 << 20)
            parts += [packer.compress(block) for _ in range(1024)]
            parts.append(packer.compress(b"]}") + packer.flush())
            _bomb.append(b"".join(parts))
        return _bomb[0]


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        """Answers `status` with `body` (bytes) and `headers` (name, value pairs)."""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)
