"""A real HTTP server on 127.0.0.1 that answers like Omnisearch's `/search?q=` API, or misbehaves."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def item(path, score=1.0, excerpt="", vault="vault", basename=None):
    """One result as Omnisearch sends it."""
    name = basename if basename is not None else path.rsplit("/", 1)[-1].removesuffix(".md")
    return {"score": score, "vault": vault, "path": path, "basename": name,
            "foundWords": ["deploy"], "matches": [{"match": "deploy", "offset": 0}], "excerpt": excerpt}


class FakeOmnisearch:
    """`mode`: "ok" (JSON list of `items`), "slow" (sleeps before answering), "drip" (a body sent a
    byte at a time), "garbage" (not JSON), "object" (a JSON object), "500" (server error)."""

    def __init__(self):
        self.items: list[dict] = []
        self.mode = "ok"
        self.delay = 5.0
        self.queries: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                url = urllib.parse.urlsplit(self.path)
                fake.queries.append(urllib.parse.parse_qs(url.query).get("q", [""])[0])
                try:
                    fake.answer(self, url.path)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as it should

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def answer(self, handler, path):
        if path != "/search":  # Omnisearch answers any other path with an empty 200
            return self._send(handler, 200, b"")
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "500":
            return self._send(handler, 500, b"Internal Server Error")
        if self.mode == "garbage":
            return self._send(handler, 200, b"<html>not json</html>")
        if self.mode == "object":
            return self._send(handler, 200, json.dumps({"error": "nope"}).encode())
        body = json.dumps(self.items).encode("utf-8")
        if self.mode == "drip":
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            for byte in body:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(0.05)
            return None
        return self._send(handler, 200, body)

    @staticmethod
    def _send(handler, status, body: bytes):
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Access-Control-Allow-Origin", "*")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
