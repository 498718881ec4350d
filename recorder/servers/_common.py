"""What both designs share: read-only annotations, and one result shape for every call, its backend work in `_meta`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from recorder.servers.lookups import META_KEY, LookupFailure, LookupTally, to_json_text

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

OrderIdParam = Annotated[str, Field(description="The order ID, e.g. ORD-1004 (from the customer).")]

logger = logging.getLogger(__name__)


def tool(server: Any, fn: Callable[..., CallToolResult]) -> None:
    """Register fn as a read-only tool whose description is its docstring on one line (as the model reads it)."""
    description = " ".join((fn.__doc__ or "").split())
    server.add_tool(fn, description=description, annotations=READ_ONLY, structured_output=False)


def answer(name: str, lookup: Callable[[str, LookupTally], dict[str, Any]], value: str) -> CallToolResult:
    """Run one lookup: its record as one JSON text block, or a clear tool error; its backend work in `_meta`.

    The result is built here rather than by the SDK (from a returned string or a raised ToolError)
    because only a CallToolResult carries `_meta`, which the client keeps apart from the content the
    model reads. An error's text and log line are the ones the SDK gives a raised ToolError, so the
    model reads exactly what it read before the servers reported their lookups.
    """
    tally = LookupTally()
    try:
        text, is_error = to_json_text(lookup(value, tally)), False
    except LookupFailure as exc:
        text, is_error = f"Error executing tool {name}: {exc}", True
        logger.info("Tool %r failed: %r", name, text)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error,
                          _meta={META_KEY: tally.to_meta()})
