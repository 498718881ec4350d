"""The two MCP tool designs over the same lookups: granular (four tools) and focused (one tool)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp.server import MCPServer

from recorder.dataset import load_records
from recorder.servers.focused import build_focused_server
from recorder.servers.granular import build_granular_server

DESIGNS: dict[str, Callable[..., MCPServer]] = {
    "granular": build_granular_server,
    "focused": build_focused_server,
}


def build_server(design: str, dataset_dir: Path | str | None = None) -> MCPServer:
    """Build one design's server over a dataset's records.json (never its cases.json)."""
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r} (known: {', '.join(DESIGNS)})")
    records = load_records(dataset_dir) if dataset_dir is not None else load_records()
    return DESIGNS[design](records)
