"""The client side of MCP: one design's server, a child process over stdio (restarted if it dies) or a
running server reached over streamable HTTP (reconnected if the connection drops)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import ValidationError

from core.domain.linking import ToolSpec
from core.errors import WismoError
from core.runformat.events import BackendLookups, McpRequest
from core.runformat.redact import strip_url_secrets
from core.runformat.write import now_iso
from recorder.designs.mcp_requests import HttpSessions, noting_requests, sent_as, sent_tools_calls
from recorder.servers.lookups import META_KEY

STDERR_TAIL_CHARS = 300  # of a server's stderr, quoted when it fails to start


@dataclass(frozen=True)
class ServerTarget:
    """How to reach one design's MCP server: a command run over stdio, or a streamable HTTP URL.

    `headers` hold resolved values (a bearer token read from the environment): they are sent, never
    written; `describe()` and the manifest name the URL without its secrets and the headers by name.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # The URL as messages show it: as the user wrote it (`${VAR}` unexpanded), key-like segments hidden
    shown_url: str | None = None

    def describe(self) -> str:
        """The command or the URL (secrets stripped), as a message names it."""
        if self.url:
            return self.shown_url or strip_url_secrets(self.url)
        return shlex.join(self.command)


def as_target(target: ServerTarget | Sequence[str]) -> ServerTarget:
    """A target from a target or a plain command."""
    return target if isinstance(target, ServerTarget) else ServerTarget(command=tuple(target))


@dataclass(frozen=True)
class ToolOutcome:
    """What one tools/call returned: the text of its content, whether it is an error, how long it took,
    the backend lookups the server reported in the result's `_meta` (None when it reported none), and
    the request it was sent as (JSON-RPC id, negotiated protocol version, HTTP session)."""

    text: str
    is_error: bool
    latency_ms: float
    lookups: BackendLookups | None = None
    request: McpRequest | None = None


def reported_lookups(meta: dict[str, Any] | None) -> BackendLookups | None:
    """The lookups a result's `_meta` reports under META_KEY; None when absent or not in the expected shape.

    A server that is not one of wismo's may use `_meta` as it likes: what does not read as lookups is
    not reported, never guessed at.
    """
    raw = (meta or {}).get(META_KEY)
    if raw is None:
        return None
    try:
        return BackendLookups.model_validate(raw)
    except ValidationError:
        return None


START_TIMEOUT_S = 60.0  # seconds a server may take to start and list its tools
# After a server that was up went away, it is started (or reconnected to) at once, then after each of
# these waits while it will not come back: 7 tries over 31.5 s of waiting, each try bounded by the
# start-up limit. A server back within that (an HTTP design restarted behind its URL) serves the
# conversations that waited for it; one that is not is gone, and the run stops (`--resume` continues).
RECONNECT_WAITS_S = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


@dataclass
class Outage:
    """One time a server that was up went away: when, the tries that failed, and when (or whether) it was back."""

    lost_at: str
    failed_tries: int = 0
    waits_s: list[float] = field(default_factory=list)
    back_at: str | None = None
    last_error: str | None = None  # why the last failed try failed

    def to_json(self) -> dict[str, Any]:
        """As run_finished.serverOutages lists it."""
        return {"lostAt": self.lost_at, "backAt": self.back_at, "failedTries": self.failed_tries,
                "waitsS": self.waits_s, "lastError": self.last_error}


class NoTools(Exception):
    """The server started but lists no tools: nothing could be recorded with it."""


class ServerDied(Exception):
    """The server process went away during a call; it is being restarted.

    `request`: the tools/call request the call had already sent, if it got that far.
    """

    request: McpRequest | None = None


class ToolsChanged(ServerDied):
    """The server came back listing other tools than the run recorded: one run holds one server version."""


def tools_difference(recorded: Sequence[dict[str, Any]], listed: Sequence[dict[str, Any]]) -> str | None:
    """What differs between two tools/list answers, in a few words; None when they are the same."""
    before = {str(t.get("name")): t for t in recorded}
    after = {str(t.get("name")): t for t in listed}
    gone, new = sorted(set(before) - set(after)), sorted(set(after) - set(before))
    changed = sorted(name for name in set(before) & set(after) if before[name] != after[name])
    parts = ([f"no longer lists {', '.join(gone)}"] if gone else []) + \
        ([f"now lists {', '.join(new)}"] if new else []) + \
        ([f"changed the definition of {', '.join(changed)}"] if changed else [])
    return "; ".join(parts) or None


def server_command(design: str, dataset_dir: Path | str | None) -> list[str]:
    """The command that runs one of wismo's own designs on stdio with this interpreter."""
    command = [sys.executable, "-m", "recorder.servers", design]
    if dataset_dir is not None:
        command += ["--dataset", str(dataset_dir)]
    return command


def _child_environment() -> dict[str, str]:
    # The SDK passes only a safe minimum of variables to the child (never API keys); the child still
    # needs to import wismo when it runs from a source checkout.
    env = {}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _innermost(error: BaseException) -> BaseException:
    """The innermost error of an exception group (anyio wraps a child's failure in several)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _root_cause(error: BaseException) -> str:
    error = _innermost(error)
    return f"{type(error).__name__}: {error}"


def tool_definition(tool: Any) -> dict[str, Any]:
    """A tools/list entry as plain JSON, annotations included (the manifest keeps everything)."""
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)


class ToolServer:
    """A running MCP server: list its tools, call them, and survive the process dying or stalling.

    The SDK's client holds task-bound cancel scopes, so one supervisor task owns it (start, restart,
    stop) while any conversation task may send calls through it. Each started process is an
    *instance* with its own number: a failed call restarts the server only when the instance it was
    sent to is still the current one, so the errors of calls stranded on an instance already being
    replaced (they all fail as it is torn down) never restart the fresh one.
    """

    def __init__(self, target: ServerTarget | Sequence[str], *, label: str, log_path: Path | None = None,
                 call_timeout_s: float = 30.0, start_timeout_s: float = START_TIMEOUT_S,
                 expected_tools: Sequence[dict[str, Any]] | None = None) -> None:
        self.target = as_target(target)
        self.command = list(self.target.command)
        self.label = label
        self.log_path = log_path
        self.call_timeout_s = call_timeout_s
        # Start-up (imports, initialize, tools/list) has its own limit: a busy machine must not make a
        # server that is still importing look dead, nor a stalled one wait as long as a start-up.
        self.start_timeout_s = max(start_timeout_s, call_timeout_s)
        self.tools_raw: list[dict[str, Any]] = []
        # The tools this server must keep listing: the run's recorded ones (a resume), else the first
        # instance's. An instance listing others is never called: `changed` says what differs.
        self.expected_tools: list[dict[str, Any]] | None = \
            json.loads(json.dumps(list(expected_tools))) if expected_tools is not None else None
        self.changed: str | None = None
        self.server_name: str | None = None  # as the server gave them in its initialize result
        self.server_version: str | None = None
        # What the running instance negotiated at initialize (a restart negotiates again), and over
        # streamable HTTP the session each of its tools/call requests carried.
        self.protocol_version: str | None = None
        self._sessions: HttpSessions | None = None
        self.calls = 0
        self.restarts = 0  # instances started after the first: restarts of a process, reconnections to a URL
        self.outages: list[Outage] = []
        # Set when the server went away and did not come back within RECONNECT_WAITS_S: the run stops.
        self.gone: str | None = None
        self._instance = 0  # the number of the instance now running (or starting)
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._restart = asyncio.Event()
        self._stopping = False
        self._start_error: BaseException | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._log: TextIO | None = None

    async def __aenter__(self) -> ToolServer:
        # Without a log file the server's stderr still goes to a file: a failed start-up quotes its tail.
        self._log = (open(self.log_path, "a+", encoding="utf-8") if self.log_path  # noqa: SIM115
                     else tempfile.TemporaryFile("w+", encoding="utf-8"))  # noqa: SIM115
        self._supervisor = asyncio.create_task(self._supervise(self._log), name=f"mcp-{self.label}")
        await self._wait_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._stopping = True
        self._restart.set()
        if self._supervisor:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._supervisor, timeout=10)
        if self._log:
            self._log.close()

    async def _wait_ready(self) -> None:
        await self._ready.wait()
        if self.gone is not None:
            raise ServerDied(self.gone)
        if self._start_error is not None:
            status = await self._http_status() if self.target.url else None
            raise WismoError(self._start_failure(status)) from None

    async def _http_status(self) -> str | None:
        """What the URL answers a plain initialize with, when that is an HTTP error (the SDK's error hides it)."""
        body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "wismo", "version": "probe"}}}
        headers = {"Accept": "application/json, text/event-stream", **self.target.headers}
        try:
            async with httpx2.AsyncClient(timeout=10) as http:
                response = await http.post(self.target.url or "", json=body, headers=headers)
        except httpx2.HTTPError:
            return None
        if response.status_code < 400:
            return None
        hint = " (check its --header)" if response.status_code in (401, 403) else ""
        return f"HTTP {response.status_code} {response.reason_phrase}{hint}"

    def _start_failure(self, http_status: str | None = None) -> str:
        """One line: which design, what was run or reached, why it failed, and the tail of its stderr."""
        error = _innermost(self._start_error or RuntimeError("unknown"))
        where = self.target.describe()
        if isinstance(error, NoTools | ToolsChanged):
            return f"design {self.label!r} ({where}): {error}"
        if self.target.url and http_status:
            return f"design {self.label!r}: the MCP server at {where} refused to start a session: {http_status}"
        if self.target.url:
            return f"design {self.label!r}: the MCP server at {where} did not answer: {_root_cause(error)}"
        message = f"design {self.label!r}: its MCP server ({where}) did not start: {_root_cause(error)}"
        tail = self._stderr_tail()
        return f"{message}; its stderr ends: {tail}" if tail else message

    def _stderr_tail(self) -> str:
        """The last characters the server wrote to stderr, on one line."""
        if self._log is None or self._log.closed:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._log.flush()
            fd = self._log.fileno()
            size = os.fstat(fd).st_size
            raw = os.pread(fd, 4 * STDERR_TAIL_CHARS, max(0, size - 4 * STDERR_TAIL_CHARS))
            text = " | ".join(line.strip() for line in raw.decode("utf-8", "replace").splitlines() if line.strip())
            return text if len(text) <= STDERR_TAIL_CHARS else "…" + text[-STDERR_TAIL_CHARS:]
        return ""

    def _transport(self, errlog: TextIO) -> tuple[Any, Any, HttpSessions | None]:
        """The SDK transport to this server (noting each tools/call's id), the HTTP client it needs entered
        and the sessions its requests carried (both None over stdio)."""
        if self.target.url:
            # The SDK closes only an HTTP client it made itself; this one carries the headers.
            http = create_mcp_http_client(headers=self.target.headers or None)
            sessions = HttpSessions()
            sessions.hook(http)
            return noting_requests(streamable_http_client(self.target.url, http_client=http)), http, sessions
        # Bytes that are not UTF-8 arrive as U+FFFD: the message is read (the comparison names the field
        # that differs, the trace shows what came), where strict decoding lost it and the call timed out.
        params = StdioServerParameters(command=self.command[0], args=self.command[1:], env=_child_environment(),
                                       encoding_error_handler="replace")
        return noting_requests(stdio_client(params, errlog=errlog)), None, None

    async def _supervise(self, errlog: TextIO) -> None:
        while not self._stopping:
            up = False
            try:
                async with AsyncExitStack() as stack:
                    transport, http, sessions = self._transport(errlog)
                    if http is not None:
                        await stack.enter_async_context(http)
                    client = await stack.enter_async_context(
                        Client(transport, mode="legacy", read_timeout_seconds=self.start_timeout_s))
                    listing = await client.list_tools()
                    if not listing.tools:
                        raise NoTools("its server lists no tools (tools/list is empty)")
                    listed = [tool_definition(t) for t in listing.tools]
                    self._check_tools(listed)
                    self.tools_raw = listed
                    info = client.server_info
                    self.server_name = info.name if info else None
                    self.server_version = info.version if info else None
                    if not self._stopping:
                        self._restart.clear()  # a restart asked of an earlier instance is void
                    self._client = client
                    self.protocol_version, self._sessions = client.protocol_version, sessions
                    self._came_up()
                    up = True
                    await self._restart.wait()
                    # From here the instance is being replaced: calls still on it fail as it is torn
                    # down, and their errors must not ask for another restart.
                    self._client = None
            except Exception as exc:
                if not up and not await self._try_again(exc):
                    return
                # An instance that was up may fail as it is torn down (a dropped HTTP connection does):
                # it is being replaced either way.
            finally:
                self._client = None
            if up and not self._stopping:
                self.outages.append(Outage(lost_at=now_iso()))
                self._ready.clear()
                self._restart.clear()  # set to replace the instance; from now on only closing the server sets it

    def _came_up(self) -> None:
        """A new instance serves: count a restart (or reconnection), close the outage, wake the callers."""
        if self._instance > 0:
            self.restarts += 1
            if self.outages and self.outages[-1].back_at is None:
                self.outages[-1].back_at = now_iso()
        self._instance += 1
        self._start_error = None
        self._ready.set()

    async def _try_again(self, error: Exception) -> bool:
        """After a failed start: wait the next backoff and return True to try again, or report it and return False.

        The first start is never retried (a design that does not start is one line before any
        conversation); a server that was up is tried again RECONNECT_WAITS_S times, then it is gone.
        """
        outage = self.outages[-1] if self._instance > 0 and self.outages else None
        if outage is not None:
            outage.failed_tries += 1
            outage.last_error = _root_cause(error)[:300]
        if outage is None or outage.failed_tries > len(RECONNECT_WAITS_S) or self._stopping:
            self._start_error = error
            if outage is not None:
                waited = sum(outage.waits_s)
                tail = "" if self.target.url else self._stderr_tail()
                self.gone = (f"design {self.label!r}: its MCP server ({self.target.describe()}) went away and did not "
                             f"come back after {outage.failed_tries} tries over {waited:g} s: {outage.last_error}"
                             + (f"; its stderr ends: {tail}" if tail else ""))
            self._ready.set()
            return False
        wait = RECONNECT_WAITS_S[outage.failed_tries - 1]
        outage.waits_s.append(wait)
        with contextlib.suppress(TimeoutError):  # the run closing the server ends the wait
            await asyncio.wait_for(self._restart.wait(), timeout=wait)
        return not self._stopping

    def _check_tools(self, listed: list[dict[str, Any]]) -> None:
        """Hold every instance to the same tools: the first start (or a resume's) fails, a restart is never used."""
        if self.expected_tools is None:
            self.expected_tools = listed
            return
        difference = tools_difference(self.expected_tools, listed)
        if difference is None:
            return
        if self._instance == 0:  # the first start of a resumed run: refuse it
            raise ToolsChanged(f"its server's tools are not those the run recorded: it {difference}")
        self.changed = (f"design {self.label!r}: its MCP server came back after a restart with other tools than "
                        f"the run recorded (it {difference}); one run holds one server version, so the run stops")

    def _instance_failed(self, instance: int) -> None:
        """Restart the server if `instance` is the one running; a stale failure of an older one changes nothing."""
        if instance == self._instance and self._client is not None and not self._restart.is_set():
            self._ready.clear()
            self._restart.set()

    def tool_specs(self) -> list[ToolSpec]:
        """The tools as the model sees them: name, description verbatim, inputSchema as parameters."""
        return [ToolSpec(t["name"], t.get("description", ""), t.get("inputSchema", {})) for t in self.tools_raw]

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Send one tools/call; raise ServerDied (and restart the server) when the process is gone."""
        await self._wait_ready()
        if self.changed is not None:
            raise ToolsChanged(self.changed)
        client, instance = self._client, self._instance
        version, sessions = self.protocol_version, self._sessions  # of the same instance as the client
        if client is None:
            raise ServerDied(f"MCP server {self.label!r} is not running")
        self.calls += 1
        started = time.perf_counter()
        with sent_tools_calls() as sent:
            try:
                result = await client.call_tool(name, arguments, read_timeout_seconds=self.call_timeout_s)
            except Exception as exc:
                self._instance_failed(instance)
                died = ServerDied(f"MCP server {self.label!r} failed during {name}: {type(exc).__name__}: {exc}")
                died.request = sent_as(sent, version, sessions)
                raise died from exc
        latency = (time.perf_counter() - started) * 1000
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        # `_meta` stays with the recorder: only the text goes into the model's history.
        return ToolOutcome(text=text, is_error=bool(result.is_error), latency_ms=latency,
                           lookups=reported_lookups(result.meta), request=sent_as(sent, version, sessions))


async def start_servers(stack: AsyncExitStack, commands: Mapping[str, ServerTarget | Sequence[str]],
                        log_dir: Path | None = None,
                        call_timeout_s: float = 30.0, log_prefix: str = "server",
                        start_timeout_s: float = START_TIMEOUT_S,
                        expected_tools: Mapping[str, Sequence[dict[str, Any]]] | None = None) -> dict[str, ToolServer]:
    """Start several servers at once (each spawn costs about a second of imports) and keep them open.

    `expected_tools` holds, per label, the tools a server must list (a resumed run's); see ToolServer.
    """
    expected = expected_tools or {}
    servers = {label: ToolServer(command, label=label, call_timeout_s=call_timeout_s, start_timeout_s=start_timeout_s,
                                 log_path=log_dir / f"{log_prefix}-{label}.log" if log_dir else None,
                                 expected_tools=expected.get(label))
               for label, command in commands.items()}
    entered = await asyncio.gather(*(stack.enter_async_context(s) for s in servers.values()),
                                   return_exceptions=True)
    failures = [e for e in entered if isinstance(e, BaseException)]
    if failures:
        raise failures[0]
    return servers
