"""The two MCP tool designs over the same lookups: granular (four tools) and focused (one tool)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from mcp.server import MCPServer

from core.domain.dataset import load_records
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


def serve_stdio(server: MCPServer) -> NoReturn:
    """Serve over stdio until the client closes stdin, then flush the output and exit at once with code 0.

    By then the SDK has written and flushed every reply; what a normal interpreter shutdown would still
    do (garbage collection, tearing down the SDK's modules) takes 0.2–1 s that every client starting a
    server per session would wait for. An exception from the session propagates as usual (traceback on
    stderr, exit code 1), and a signal still ends the process as that signal.
    """
    server.run("stdio")
    _flush_output()
    os._exit(0)


def _flush_output() -> None:
    """Flush every logging handler (the SDK logs tool errors to stderr), then stdout and stderr."""
    loggers = [logging.getLogger(), *(logger for logger in logging.Logger.manager.loggerDict.values()
                                      if isinstance(logger, logging.Logger))]
    for handler in {handler for logger in loggers for handler in logger.handlers}:
        with contextlib.suppress(Exception):  # a handler that cannot flush must not keep the others from it
            handler.flush()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a client may have closed its end already
            stream.flush()
