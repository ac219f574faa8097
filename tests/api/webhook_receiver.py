"""A real webhook receiver for tests: an HTTP server on a free loopback port."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# ---- a real receiver -----------------------------------------------------------------------------


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An HTTP server on a free loopback port, answering POSTs from a script of responses
    (status, headers, delay in seconds); 200 once the script is used up."""

    server: ThreadingHTTPServer
    script: list[tuple[int, dict[str, str], float]] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}/hooks/skillcheck"

    def respond(
        self, *responses: int | tuple[int, dict[str, str]] | tuple[int, dict[str, str], float]
    ) -> None:
        for r in responses:
            if isinstance(r, int):
                self.script.append((r, {}, 0.0))
            elif len(r) == 2:
                self.script.append((r[0], r[1], 0.0))
            else:
                self.script.append(r)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    holder: list[Receiver] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            rec = holder[0]
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with rec.lock:
                rec.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                status, headers, delay = rec.script.pop(0) if rec.script else (200, {}, 0.0)
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except OSError:  # the client gave up (a timeout test)
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    holder.append(Receiver(server))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
