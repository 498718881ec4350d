"""What each tools/call was sent as: its JSON-RPC id and, over streamable HTTP, the session it was sent in.

The MCP SDK's client numbers its requests itself and returns a result without its id, and its
streamable HTTP transport keeps the session id it was issued to itself. Both can still be read from
the SDK's public surface, without touching its internals:

- a transport is any async context manager yielding a read and a write stream (`mcp.client.Transport`):
  a write stream wrapped around the SDK's own sees every JSON-RPC message the client sends, in the task
  of the caller that sends it (the client writes a request from its caller's task), so a context
  variable set around one `call_tool` collects the ids of the tools/call requests that call sent,
  however many calls run at once;
- the HTTP client the transport is given runs its request hooks on every request: each tools/call
  POST's Mcp-Session-Id header is filed under the JSON-RPC id of the message it carries. Only that
  header is read: the values of the headers wismo sends (a bearer token) are never looked at.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.client import Transport
from mcp.client.streamable_http import MCP_SESSION_ID
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCRequest, RequestId

from core.runformat.events import McpRequest

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams, WriteStream

TOOLS_CALL = "tools/call"

# The ids of the tools/call requests written from the current task; None outside a ToolServer.call.
_SENT_IDS: ContextVar[list[RequestId] | None] = ContextVar("wismo_tools_call_ids", default=None)


class _NotedWrites:
    """A transport's write stream that notes the id of each tools/call request written through it."""

    def __init__(self, stream: WriteStream[SessionMessage]) -> None:
        self._stream = stream

    async def send(self, item: SessionMessage, /) -> None:
        """Note the id (a started write counts as sent, as the SDK counts it), then write."""
        message = item.message
        sent = _SENT_IDS.get()
        if sent is not None and isinstance(message, JSONRPCRequest) and message.method == TOOLS_CALL:
            sent.append(message.id)
        await self._stream.send(item)

    async def aclose(self) -> None:
        """Close the stream underneath."""
        await self._stream.aclose()

    async def __aenter__(self) -> _NotedWrites:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> bool | None:
        return await self._stream.__aexit__(exc_type, exc_val, exc_tb)


@asynccontextmanager
async def noting_requests(transport: Transport) -> AsyncIterator[TransportStreams]:
    """The SDK transport, its write stream noting the ids of the tools/call requests sent through it."""
    async with transport as (read_stream, write_stream):
        yield read_stream, _NotedWrites(write_stream)


@contextmanager
def sent_tools_calls() -> Iterator[list[RequestId]]:
    """Collect the ids of the tools/call requests this task sends inside the block (several after a retry)."""
    sent: list[RequestId] = []
    token = _SENT_IDS.set(sent)
    try:
        yield sent
    finally:
        _SENT_IDS.reset(token)


class HttpSessions:
    """The Mcp-Session-Id each tools/call POST of one HTTP client carried, by the JSON-RPC id it carried."""

    def __init__(self) -> None:
        self._by_request: dict[RequestId, str] = {}

    def hook(self, http: httpx2.AsyncClient) -> None:
        """Have the HTTP client file every request it sends here."""
        http.event_hooks["request"].append(self._note)

    async def _note(self, request: httpx2.Request) -> None:
        session = request.headers.get(MCP_SESSION_ID)
        if request.method != "POST" or session is None:
            return
        try:
            message: Any = json.loads(request.content)
        except (ValueError, httpx2.RequestNotRead):
            return
        if isinstance(message, dict) and message.get("method") == TOOLS_CALL and "id" in message:
            self._by_request[message["id"]] = session

    def take(self, request_id: RequestId) -> str | None:
        """The session the request was sent in (None: it carried none), forgotten once read."""
        return self._by_request.pop(request_id, None)


def sent_as(sent: list[RequestId], protocol_version: str | None, sessions: HttpSessions | None) -> McpRequest | None:
    """The request a call was answered on (its last tools/call), or None when none was sent."""
    if not sent or protocol_version is None:
        return None
    # every id is forgotten; the last is the one that was answered
    session = [sessions.take(request_id) for request_id in sent][-1] if sessions is not None else None
    return McpRequest(requestId=sent[-1], protocolVersion=protocol_version, sessionId=session)
