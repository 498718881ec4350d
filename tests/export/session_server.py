"""A design served over streamable HTTP as `wismo serve` serves it, writing down what the server saw.

    python tests/export/session_server.py DESIGN LOG_FILE

The SDK's own Starlette app for the design (the one `wismo serve --transport streamable-http` runs),
wrapped in a middleware that appends one JSON line per POST to LOG_FILE: the JSON-RPC method, id and
tool call of the message, the Mcp-Session-Id and MCP-Protocol-Version headers the request carried, the
session id the response issued, and whether an Authorization header came. So a test can hold what a
client recorded against what the server received, request by request. Prints its URL on stderr once
it listens; runs until SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import uvicorn

from recorder.servers import build_server
from recorder.servers.http import endpoint_url, listen

Message = dict[str, Any]


class SeenRequests:
    """ASGI middleware: one line per POST, written when the response starts."""

    def __init__(self, app: Any, log: Path) -> None:
        self.app, self.log = app, log

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        received: list[Message] = []
        while not received or received[-1].get("more_body", False):
            received.append(await receive())
        body = b"".join(part.get("body", b"") for part in received)
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        try:
            message = json.loads(body)
        except ValueError:
            message = {}
        params = message.get("params") or {}
        seen = {"method": message.get("method"), "id": message.get("id"), "tool": params.get("name"),
                "arguments": params.get("arguments"), "session": headers.get("mcp-session-id"),
                "protocolVersion": headers.get("mcp-protocol-version"),
                "authorization": headers.get("authorization")}
        pending = iter(received)

        async def replay() -> Message:
            return next(pending, None) or await receive()

        async def noting(event: Message) -> None:
            if event["type"] == "http.response.start":
                issued = dict(event.get("headers", [])).get(b"mcp-session-id")
                seen["issued"] = issued.decode() if issued else None
                with self.log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(seen) + "\n")
            await send(event)

        await self.app(scope, replay, noting)


def main() -> None:
    design, log = sys.argv[1], Path(sys.argv[2])
    sock = listen("127.0.0.1", 0)
    app = build_server(design).streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    config = uvicorn.Config(SeenRequests(app, log), log_level="warning", access_log=False,
                            timeout_graceful_shutdown=3)
    print(f"serving {design} at {endpoint_url(sock)}", file=sys.stderr, flush=True)  # it listens already
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
