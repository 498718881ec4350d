"""What both designs share: read-only annotations and the translation of lookup failures to tool errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from recorder.lookups import LookupFailure, to_json_text

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

OrderIdParam = Annotated[str, Field(description="The order ID, e.g. ORD-1004 (from the customer).")]


def tool(server: Any, fn: Callable[..., str]) -> None:
    """Register fn as a read-only tool whose description is its docstring on one line (as the model reads it)."""
    description = " ".join((fn.__doc__ or "").split())
    server.add_tool(fn, description=description, annotations=READ_ONLY, structured_output=False)


def answer(lookup: Callable[[str], dict[str, Any]], value: str) -> str:
    """Run one lookup and return its record as one JSON text block, or raise a clear tool error."""
    try:
        return to_json_text(lookup(value))
    except LookupFailure as exc:
        raise ToolError(str(exc)) from None
