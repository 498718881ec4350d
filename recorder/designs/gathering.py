"""Gather everything one design returns about an order, by following every ID its results link to.

No tool name is assumed: the calls start at every tool taking an `orderId` and follow the IDs in the
results to every tool taking them (core.domain.linking), as the scripted policy does, but without
stopping at what a question needs. Bad inputs are tried on every tool taking one ID.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.domain.evidence import Evidence
from core.domain.linking import Link, ToolSpec, next_links, tools_taking
from core.errors import WismoError
from core.runformat.events import BackendLookups
from recorder.designs.mcp_client import ServerDied, ToolOutcome, ToolServer
from recorder.designs.record_diff import Collection

# A design whose results keep linking to new IDs would never finish: one order never needs this many calls.
MAX_CALLS_PER_ORDER = 200
# Inputs every ID-taking tool must refuse with a clear error, without the server going down.
BAD_IDS = {
    "malformed": "ORD-10O4",
    "empty": "",
    "path": "../x",
    "huge": "ORD-" + "1" * 10_000,
}
UNKNOWN_IDS = {"orderId": "ORD-9999", "paymentId": "PAY-9999", "reservationId": "RSV-9999-Z",
               "trackingId": "TRK-9999-Z"}


class DesignProblem(Exception):
    """A design that cannot be compared at all (no tool takes an orderId, its server stopped); one line."""


@dataclass
class Gathered:
    """One design's results for one order: its records, the evidence the rules read, and what it cost."""

    collection: Collection = field(default_factory=Collection)
    evidence: Evidence = field(default_factory=Evidence)
    results: list[Any] = field(default_factory=list)  # every non-error result, parsed when JSON (for the leak check)
    bytes: int = 0
    calls: int = 0
    # backend reads the server reported in `_meta`; None once a result it answered reported none
    lookups: dict[str, int] | None = field(default_factory=lambda: dict.fromkeys(BackendLookups.model_fields, 0))

    def add(self, link: Link, outcome: ToolOutcome) -> Any:
        """Count and fold in one call's outcome; return its parsed JSON (None for an error or text that is not JSON)."""
        self.calls += 1
        self.bytes += len(outcome.text.encode("utf-8"))
        self.lookups = _add_lookups(self.lookups, outcome)
        self.collection.add(link.parameter, link.value, outcome.text, outcome.is_error)
        self.evidence.add_result(link.parameter, link.value, outcome.text, outcome.is_error)
        if outcome.is_error:
            return None
        try:
            parsed = json.loads(outcome.text)
        except (json.JSONDecodeError, RecursionError):  # nested past any reader: kept as text
            self.results.append(outcome.text)
            return None
        self.results.append(parsed)
        return parsed


def _add_lookups(total: dict[str, int] | None, outcome: ToolOutcome) -> dict[str, int] | None:
    """Add one result's reported lookups; a result answered without them makes the total unknown."""
    if total is None or outcome.lookups is None:
        return None if total is None or not outcome.is_error else total
    return {key: total[key] + value for key, value in outcome.lookups.model_dump().items()}


def _signature(spec: ToolSpec) -> str:
    return f"{spec.name}({', '.join(spec.parameters.get('properties', {}))})"


def order_tools(design: str, tools: list[ToolSpec]) -> list[str]:
    """The tools taking one `orderId` string, where gathering starts; a DesignProblem when there are none."""
    found = tools_taking(tools).get("orderId", [])
    if not found:
        listed = ", ".join(_signature(t) for t in tools) or "none"
        raise DesignProblem(f"design {design}: no tool takes one orderId string, so wismo cannot start from an "
                            f"order (its tools: {listed})")
    return found


async def _call(design: str, server: ToolServer, link: Link) -> ToolOutcome:
    try:
        return await server.call(link.tool, {link.parameter: link.value})
    except (ServerDied, WismoError) as exc:
        raise DesignProblem(f"design {design}: {link.tool}({link.parameter}={link.value!r}) got no answer: "
                            f"{exc}") from None


def calls_allowed(records: int, tools: int) -> int:
    """The calls gathering one order may take: each of the dataset's records through each tool, at most.

    A design that links every record of the dataset to the order needs no more; one whose results
    keep naming new IDs (a runaway) is stopped there. Never below MAX_CALLS_PER_ORDER.
    """
    return max(MAX_CALLS_PER_ORDER, (records + 1) * max(tools, 1))


async def gather(design: str, server: ToolServer, order_id: str, max_calls: int = MAX_CALLS_PER_ORDER) -> Gathered:
    """Call every tool taking the order's ID, then every tool its results link to, until nothing new is linked."""
    tools = server.tool_specs()
    gathered = Gathered()
    pending = [Link(tool, "orderId", order_id) for tool in order_tools(design, tools)]
    made = {(link.tool, link.parameter, link.value) for link in pending}
    while pending:
        parsed = []
        for link in pending:
            if gathered.calls >= max_calls:
                raise DesignProblem(f"design {design}: {order_id}'s results kept linking to new IDs past "
                                    f"{max_calls} calls")
            parsed.append(gathered.add(link, await _call(design, server, link)))
        pending = next_links(tools, [p for p in parsed if p is not None], made)
        made.update((link.tool, link.parameter, link.value) for link in pending)
    return gathered


@dataclass
class EdgeCase:
    """One bad input tried on one tool, and what came back."""

    design: str
    tool: str
    label: str
    argument: str
    isError: bool
    message: str
    serverAlive: bool

    @property
    def ok(self) -> bool:
        """Refused with an error, and the server still answers afterwards."""
        return self.isError and self.serverAlive and bool(self.message)


async def edge_cases(design: str, server: ToolServer, probe_order: str) -> list[EdgeCase]:
    """Try every bad ID and an unknown one on every tool taking one ID; check the server answers after each."""
    tools = server.tool_specs()
    probe = Link(order_tools(design, tools)[0], "orderId", probe_order)
    cases: list[EdgeCase] = []
    for spec in tools:
        parameter = spec.single_parameter()
        if parameter is None:
            continue
        for label, argument in [*BAD_IDS.items(), ("unknown", UNKNOWN_IDS.get(parameter, "X-9999"))]:
            try:
                outcome = await server.call(spec.name, {parameter: argument})
            except ServerDied as exc:  # it is restarted; that it went down is what this case records
                cases.append(EdgeCase(design, spec.name, label, argument, False, str(exc)[:200], False))
                continue
            alive = await _call(design, server, probe)
            cases.append(EdgeCase(design, spec.name, label, argument, outcome.is_error, outcome.text[:200],
                                  not alive.is_error))
    return cases
