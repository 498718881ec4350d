"""`wismo serve --transport streamable-http`: the same tools, texts and `_meta` as over stdio, a clear port error."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from recorder.servers.lookups import META_KEY

READY_SECONDS = 60  # a loaded machine starts Python, the SDK and uvicorn slowly
STOP_SECONDS = 10  # well under uvicorn's wait for a client's open stream it would otherwise keep


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_http(port: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wismo.cli", "serve", "granular", "--transport", "streamable-http",
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_ready(process: subprocess.Popen[str]) -> str:
    """The ready line (read only once the server accepts connections)."""
    assert process.stderr is not None
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if "http://" in line:
            return line.strip()
        if not line and process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode} before it was ready")
    raise AssertionError("the server did not say it was ready")


@contextmanager
def serving_over_http(design: str) -> Iterator[str]:
    """`wismo serve DESIGN --transport streamable-http` in its own process: its URL; stopped with SIGTERM."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "wismo.cli", "serve", design, "--transport",
                                "streamable-http", "--port", str(port)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        wait_ready(process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(15)


async def tools_and_order(server: str | StdioServerParameters) -> tuple[list[dict[str, object]], str, object]:
    async with Client(server) as client:
        tools = [tool.model_dump(mode="json") for tool in (await client.list_tools()).tools]
        result = await client.call_tool("get_order", {"orderId": "ORD-1001"})
        assert not result.is_error
        return tools, result.content[0].text, (result.meta or {}).get(META_KEY)


def test_serve_over_streamable_http_answers_as_over_stdio_and_stops_on_sigterm():
    port = free_port()
    process = start_http(port)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        assert url in wait_ready(process)
        over_http = asyncio.run(tools_and_order(url))
        stdio = StdioServerParameters(command=sys.executable, args=["-m", "wismo.cli", "serve", "granular"],
                                      env={"PYTHONPATH": os.environ["PYTHONPATH"]})
        over_stdio = asyncio.run(tools_and_order(stdio))
        assert over_http == over_stdio
        tools, text, lookups = over_http
        assert [tool["name"] for tool in tools] == ["get_order", "get_payment", "get_reservation", "get_tracking"]
        assert '"orderId": "ORD-1001"' in text
        assert lookups == {"orders": 1, "payments": 0, "reservations": 0, "tracking": 0, "notFound": 0}
        # A second client on the same server: it serves any number, one after the other.
        assert asyncio.run(tools_and_order(url)) == over_http

        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=STOP_SECONDS)
        assert time.monotonic() - started < STOP_SECONDS
        assert code in (0, -signal.SIGTERM)  # uvicorn shuts down, then ends the process as the signal
        assert "Traceback" not in process.stderr.read()  # type: ignore[union-attr]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_port_in_use_is_one_clear_line_and_a_failure():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = start_http(port)
        _out, err = process.communicate(timeout=READY_SECONDS)
    assert process.returncode == 2
    assert err.strip() == f"error: port {port} on 127.0.0.1 is already in use: stop what listens there or choose " \
                          "another --port"


def test_host_and_port_are_refused_over_stdio():
    done = subprocess.run([sys.executable, "-m", "wismo.cli", "serve", "granular", "--port", "9000"],
                          capture_output=True, text=True, timeout=READY_SECONDS)
    assert done.returncode == 2
    assert "--port applies only to --transport streamable-http" in done.stderr
