"""Serve one design over the MCP SDK's streamable HTTP transport, at http://HOST:PORT/mcp.

The SDK's own `MCPServer.run("streamable-http")` binds inside uvicorn, which logs a failed bind and
exits without saying which option to change, and announces readiness in its own log format. So the
socket is bound here first (a port in use is one clear WismoError), and uvicorn serves the SDK's
Starlette app on that socket, quietly, with one line on stderr once it accepts connections.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import socket
import sys

import uvicorn
from mcp.server import MCPServer

from core.errors import WismoError

ENDPOINT_PATH = "/mcp"  # the SDK's default, and the path MCP clients are usually told
# Their INFO lines (manager started, each session created and ended) would bury the one ready line;
# their warnings and the SDK's tool-failure lines (as on stdio) still reach stderr.
QUIET_LOGGERS = ("mcp.server.streamable_http_manager", "mcp.server.streamable_http")
# A client that keeps its event stream open must not keep a stopped server alive for long.
GRACEFUL_SHUTDOWN_SECONDS = 3


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port), or a WismoError saying what to change."""
    try:
        family, _type, _proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise WismoError(f"cannot serve on --host {host}: {exc.strerror}") from None
    try:
        return socket.create_server(address, family=family)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise WismoError(f"port {port} on {host} is already in use: stop what listens there "
                             "or choose another --port") from None
        raise WismoError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None


def endpoint_url(sock: socket.socket) -> str:
    """The URL a client connects to, with the port actually bound."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{ENDPOINT_PATH}"


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that says, in one line on stderr, where it listens once it accepts connections."""

    def __init__(self, config: uvicorn.Config, announcement: str) -> None:
        super().__init__(config)
        self.announcement = announcement

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start as uvicorn does, then announce."""
        await super().startup(sockets)
        if self.started:
            print(self.announcement, file=sys.stderr, flush=True)


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable only from this machine (the SDK protects only such a host's headers)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_http(server: MCPServer, design: str, host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT; uvicorn raises the signal again once open requests are done (or 3 s pass).

    Raises a WismoError, before anything is served, when host:port cannot be bound.
    """
    sock = listen(host, port)
    if not is_loopback(host):
        print(f"warning: listening on {host}: any machine that can reach it may read the dataset, with no "
              "authentication and no check of the Host or Origin header; serve on 127.0.0.1 (the default) "
              "unless that is what you want", file=sys.stderr, flush=True)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    url = endpoint_url(sock)
    # The SDK turns on its DNS-rebinding protection (allowed Host and Origin headers) for a loopback host.
    app = server.streamable_http_app(streamable_http_path=ENDPOINT_PATH, host=host)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS)
    announcing = _AnnouncingServer(config, f"serving the {design} design at {url} (streamable HTTP; Ctrl+C stops it)")
    asyncio.run(announcing.serve(sockets=[sock]))
