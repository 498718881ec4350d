"""A scripted loopback HTTP server: real sockets and real wire formats, replies decided by the test.

Each POST takes the next scripted Reply (or asks a responder function); every POST's path, headers
and JSON body are recorded in `requests` so tests can assert what the SDKs actually sent. A GET (a
model list, or the Models API an adapter may ask for a model's capabilities) is answered by path from
`on_get`, else by the `get` function, else 404, and recorded apart in `gets`, so it never takes a
scripted POST reply.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NOT_SCRIPTED_STATUS = 418


@dataclass
class Reply:
    """One scripted answer: a status, headers and a JSON (or text) body, sent after `delay_s`.

    `drop` closes the connection instead of answering (the client sees a broken connection).
    `stop_on_disconnect` makes the delay a generation that watches its client, as llama-server does:
    when the client closes the connection during it, the server stops, records the request in
    `FakeServer.disconnects` and sends nothing. Without it the delay runs to its end whatever the
    client did (a server that keeps generating for an abandoned request).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str = "application/json"
    drop: bool = False
    stop_on_disconnect: bool = False

    def encoded(self) -> bytes:
        """The body bytes as sent."""
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


@dataclass(frozen=True)
class Received:
    """One request as the server got it."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        """The JSON body."""
        return json.loads(self.raw) if self.raw else None

    def header(self, name: str) -> str | None:
        """A header by case-insensitive name."""
        return next((value for key, value in self.headers.items() if key.lower() == name.lower()), None)


Responder = Callable[[Received], Reply]

HOST = "127.0.0.1"  # loopback only: nothing here may be reachable from another machine


class _Listener(ThreadingHTTPServer):
    # The default listen backlog of 5 drops connection attempts when many clients connect at once, and
    # a dropped SYN costs the client a one-second retransmit: a fake that answers in 200 ms must not.
    request_queue_size = 128


class FakeServer:
    """A ThreadingHTTPServer on 127.0.0.1 with a free port; use as a context manager."""

    def __init__(self, responder: Responder | None = None, *, get: Responder | None = None) -> None:
        self.requests: list[Received] = []
        self._get = get
        self.unscripted: list[Received] = []
        self.gets: list[Received] = []
        # (request, seconds into its generation) for every request whose client left before its reply.
        self.disconnects: list[tuple[Received, float]] = []
        # (request, seconds) for every delayed reply generated to its end: what a slot was busy with.
        self.generated: list[tuple[Received, float]] = []
        self._get_replies: dict[str, Reply] = {}
        self._script: deque[Reply] = deque()
        self._responder = responder
        self._lock = threading.Lock()
        self._httpd = _Listener((HOST, 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval makes stop() quick; the default 0.5 s would add that to every test.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-api", daemon=True)

    @property
    def url(self) -> str:
        """The server root, e.g. http://127.0.0.1:54321."""
        return f"http://{HOST}:{self._httpd.server_port}"

    def script(self, *replies: Reply | Iterable[Reply]) -> FakeServer:
        """Queue replies, one per coming request, in order."""
        with self._lock:
            for reply in replies:
                self._script.extend([reply] if isinstance(reply, Reply) else reply)
        return self

    def on_get(self, path: str, reply: Reply) -> FakeServer:
        """Answer every GET of `path` (query string ignored) with `reply`."""
        with self._lock:
            self._get_replies[path] = reply
        return self

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._script)

    def start(self) -> FakeServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (if it ever started) and release the port."""
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, received: Received) -> Reply:
        """The reply for one request: the next scripted one, else the responder, else a loud 418."""
        with self._lock:
            self.requests.append(received)
            if self._script:
                return self._script.popleft()
        if self._responder is not None:
            return self._responder(received)
        self.unscripted.append(received)
        return Reply(NOT_SCRIPTED_STATUS, {"error": {"message": "fake server: no scripted reply left",
                                                     "type": "not_scripted"}})

    def _answer_get(self, received: Received) -> Reply:
        """The reply to a GET: the one registered for its path, else the `get` function's, else a 404."""
        with self._lock:
            self.gets.append(received)
            reply = self._get_replies.get(received.path.split("?", 1)[0])
        if reply is None and self._get is not None:
            reply = self._get(received)
        return reply or Reply(404, {"type": "error", "error": {"type": "not_found_error",
                                                               "message": f"fake server: nothing at {received.path}"}})


def _handler_for(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one FakeServer."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
        disable_nagle_algorithm = True  # else every small response waits ~40 ms for a delayed ACK

        def do_GET(self) -> None:
            self._send(server._answer_get(Received("GET", self.path, dict(self.headers.items()), b"")))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            received = Received("POST", self.path, dict(self.headers.items()), raw)
            self._send(server._answer(received), received)

        def _generate(self, reply: Reply, received: Received | None) -> bool:
            """Spend the reply's delay; False when the client left during it (and the reply is watched)."""
            started = time.monotonic()
            if not reply.stop_on_disconnect:
                time.sleep(reply.delay_s)
                if received is not None:
                    with server._lock:
                        server.generated.append((received, time.monotonic() - started))
                return True
            while (elapsed := time.monotonic() - started) < reply.delay_s:
                readable, _, _ = select.select([self.connection], [], [], min(0.02, reply.delay_s - elapsed))
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    with server._lock:  # EOF: the client closed its end
                        if received is not None:
                            server.disconnects.append((received, elapsed))
                    self.close_connection = True
                    return False
            if received is not None:
                with server._lock:
                    server.generated.append((received, time.monotonic() - started))
            return True

        def _send(self, reply: Reply, received: Received | None = None) -> None:
            if reply.delay_s and not self._generate(reply, received):
                return
            if reply.drop:
                self.close_connection = True
                return
            payload = reply.encoded()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(payload)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing left to tell it

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output quiet

    return Handler
