"""The deterministic comparison behind `wismo check`: both designs must return the same evidence.

Both servers run as child processes over stdio and are discovered with tools/list, like any MCP
client would. Granular evidence is gathered by following every ID; the focused result comes from one
call. The focused shape is then rebuilt from the granular results and the two JSON objects compared.
Per order and design it also reports the bytes returned, the tools/call interactions and the backend
lookups the servers reported in their results' `_meta` (the backend work of gathering everything).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from recorder.dataset import ASSESSMENT_FIELDS, DELAY_REASONS, Dataset
from recorder.evidence import Evidence, derive
from recorder.linking import ToolSpec, next_links, tools_by_parameter
from recorder.lookups import not_found_marker
from recorder.mcp_client import ToolOutcome, ToolServer, server_command, start_servers
from wismo.runformat.events import BackendLookups

COMPARISON_VERSION = 1
# The designs compared, in `wismo record`'s default order; a run lists them in its manifest's order instead.
COMPARED_DESIGNS = ("granular", "focused")

# Inputs every ID-taking tool must refuse with a clear error, without the server going down.
BAD_IDS = {
    "malformed": "ORD-10O4",
    "empty": "",
    "path": "../x",
    "huge": "ORD-" + "1" * 10_000,
}


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


@dataclass
class OrderComparison:
    """One order's evidence under both designs."""

    orderId: str
    matched: bool
    bytes: dict[str, int]
    interactions: dict[str, int]
    # design -> backend reads (orders, payments, reservations, tracking, notFound); None when its server
    # reported none for a call it answered
    lookups: dict[str, dict[str, int] | None] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)


@dataclass
class ComparisonReport:
    """Everything `wismo check` found; written as deterministic-comparison.json."""

    dataset: str
    datasetHash: str
    orders: list[OrderComparison]
    edgeCases: list[EdgeCase]
    leakedExpectations: list[str]
    ruleMismatches: list[str]
    toolCounts: dict[str, int]

    @property
    def passed(self) -> bool:
        """True when every order matched, every edge case was refused and nothing leaked."""
        return (all(o.matched for o in self.orders) and all(e.ok for e in self.edgeCases)
                and not self.leakedExpectations and not self.ruleMismatches)

    def to_json(self) -> dict[str, Any]:
        """The report as the JSON object stored beside a run."""
        data = asdict(self)
        data["version"] = COMPARISON_VERSION
        data["passed"] = self.passed
        for edge, raw in zip(self.edgeCases, data["edgeCases"], strict=True):
            raw["ok"] = edge.ok
            if len(raw["argument"]) > 60:
                raw["argument"] = raw["argument"][:20] + f"... ({len(edge.argument)} characters)"
        return data


def _diff(path: str, left: Any, right: Any, out: list[str]) -> None:
    if type(left) is not type(right):
        out.append(f"{path}: granular {json.dumps(left)[:80]} vs focused {json.dumps(right)[:80]}")
    elif isinstance(left, dict):
        for key in sorted(set(left) | set(right)):
            if key not in left or key not in right:
                out.append(f"{path}.{key}: only in {'granular' if key in left else 'focused'}")
            else:
                _diff(f"{path}.{key}", left[key], right[key], out)
    elif isinstance(left, list):
        if len(left) != len(right):
            out.append(f"{path}: {len(left)} items in granular, {len(right)} in focused")
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            _diff(f"{path}[{index}]", a, b, out)
    elif left != right:
        out.append(f"{path}: granular {json.dumps(left)[:80]} vs focused {json.dumps(right)[:80]}")


class _Gatherer:
    """Gathers every record an order links to through one server, counting bytes and calls."""

    def __init__(self, server: ToolServer) -> None:
        self.server = server
        self.tools: list[ToolSpec] = server.tool_specs()

    def order_tool(self) -> tuple[str, str]:
        by_parameter = tools_by_parameter(self.tools)
        if "orderId" not in by_parameter:
            raise RuntimeError(f"no tool of server {self.server.label!r} takes an orderId")
        return by_parameter["orderId"], "orderId"

    async def gather(self, order_id: str) -> tuple[dict[tuple[str, str], Any], int, int, dict[str, int] | None]:
        """Follow every ID from the order; return results by (parameter, value), bytes, calls and lookups."""
        tool, parameter = self.order_tool()
        results: dict[tuple[str, str], Any] = {}
        pending = [(tool, parameter, order_id)]
        total_bytes = calls = 0
        lookups: dict[str, int] | None = dict.fromkeys(BackendLookups.model_fields, 0)
        while pending:
            next_round = []
            for tool, parameter, value in pending:
                outcome = await self.server.call(tool, {parameter: value})
                calls += 1
                total_bytes += len(outcome.text.encode("utf-8"))
                lookups = _add_lookups(lookups, outcome)
                results[(parameter, value)] = ("error", outcome.text) if outcome.is_error else json.loads(outcome.text)
                next_round.append(results[(parameter, value)])
            links = next_links(self.tools, [r for r in next_round if not isinstance(r, tuple)], set(results))
            pending = [(link.tool, link.parameter, link.value) for link in links]
        return results, total_bytes, calls, lookups


def _add_lookups(total: dict[str, int] | None, outcome: ToolOutcome) -> dict[str, int] | None:
    """Add one result's reported lookups; a result answered without them makes the total unknown."""
    if total is None or outcome.lookups is None:
        return None if total is None or not outcome.is_error else total
    return {key: total[key] + value for key, value in outcome.lookups.model_dump().items()}


def _rebuild_focused(order_id: str, results: dict[tuple[str, str], Any]) -> Any:
    """Assemble {order, payment, reservations[], tracking[]} from granular results."""
    order = results[("orderId", order_id)]
    if isinstance(order, tuple):
        return order

    def linked(parameter: str, value: str) -> Any:
        result = results.get((parameter, value))
        if result is None or isinstance(result, tuple):
            return not_found_marker(parameter, value)
        return result

    return {
        "order": order,
        "payment": linked("paymentId", order["paymentId"]),
        "reservations": [linked("reservationId", r) for r in order["reservationIds"]],
        "tracking": [linked("trackingId", t) for t in order["trackingIds"]],
    }


def _evidence(results: dict[tuple[str, str], Any]) -> Evidence:
    evidence = Evidence()
    for (parameter, value), result in results.items():
        if isinstance(result, tuple):
            evidence.add_result(parameter, value, result[1], is_error=True)
        else:
            evidence.add_result(parameter, value, json.dumps(result), is_error=False)
    return evidence


async def _edge_cases(design: str, server: ToolServer, probe_order: str) -> list[EdgeCase]:
    cases: list[EdgeCase] = []
    for spec in server.tool_specs():
        parameter = spec.single_parameter()
        if parameter is None:
            continue
        unknown = {"orderId": "ORD-9999", "paymentId": "PAY-9999", "reservationId": "RSV-9999-Z",
                   "trackingId": "TRK-9999-Z"}.get(parameter, "X-9999")
        for label, argument in [*BAD_IDS.items(), ("unknown", unknown)]:
            outcome = await server.call(spec.name, {parameter: argument})
            alive = await server.call(*_probe(server, probe_order))
            cases.append(EdgeCase(design, spec.name, label, argument, outcome.is_error,
                                  outcome.text[:200], not alive.is_error))
    return cases


def _probe(server: ToolServer, order_id: str) -> tuple[str, dict[str, str]]:
    tool = tools_by_parameter(server.tool_specs())["orderId"]
    return tool, {"orderId": order_id}


def _strings_and_keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value.keys(), *(s for item in value.values() for s in _strings_and_keys(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings_and_keys(item)]
    return [value] if isinstance(value, str) else []


def _leaks(dataset: Dataset, results: list[Any]) -> list[str]:
    """Labels that only a derivation may produce must never appear as a key or value in a tool result."""
    forbidden = set(ASSESSMENT_FIELDS) | set(DELAY_REASONS) | {"expected"}
    for case in dataset.cases:
        forbidden.update(case.expected.missingEvidence or ())
    found = {s for result in results for s in _strings_and_keys(result)}
    return sorted(forbidden & found)


def design_order(designs: Sequence[str] = COMPARED_DESIGNS) -> list[str]:
    """Both compared designs, those in `designs` first in its order (a run's manifest order)."""
    return list(dict.fromkeys([*(d for d in designs if d in COMPARED_DESIGNS), *COMPARED_DESIGNS]))


async def run_comparison(dataset: Dataset, commands: dict[str, list[str]] | None = None,
                         log_dir: Path | None = None, servers: dict[str, ToolServer] | None = None,
                         designs: Sequence[str] = COMPARED_DESIGNS) -> ComparisonReport:
    """Gather every order's evidence through both designs' servers (started here unless given) and compare.

    Every per-design figure in the report lists the designs in `designs` order (a run passes its own).
    """
    order = design_order(designs)
    if servers is not None and set(servers) >= set(COMPARED_DESIGNS):
        return await _compare(dataset, {d: servers[d] for d in order})
    commands = commands or {}
    async with AsyncExitStack() as stack:
        started = await start_servers(
            stack, {d: commands.get(d) or server_command(d, dataset.folder) for d in order},
            log_dir, log_prefix="check")
        return await _compare(dataset, started)


async def _compare(dataset: Dataset, servers: dict[str, ToolServer]) -> ComparisonReport:
    """Compare order by order; `servers` is in the order every per-design figure is listed in."""
    orders: list[OrderComparison] = []
    seen_results: list[Any] = []
    rule_mismatches: list[str] = []
    granular, focused = _Gatherer(servers["granular"]), _Gatherer(servers["focused"])
    for order in dataset.records.orders:
        g_results, g_bytes, g_calls, g_lookups = await granular.gather(order.orderId)
        f_results, f_bytes, f_calls, f_lookups = await focused.gather(order.orderId)
        seen_results += [*g_results.values(), *f_results.values()]
        rebuilt = _rebuild_focused(order.orderId, g_results)
        served = f_results[("orderId", order.orderId)]
        differences: list[str] = []
        _diff("$", rebuilt, served, differences)
        sizes, calls = {"granular": g_bytes, "focused": f_bytes}, {"granular": g_calls, "focused": f_calls}
        lookups = {"granular": g_lookups, "focused": f_lookups}
        orders.append(OrderComparison(order.orderId, not differences, {d: sizes[d] for d in servers},
                                      {d: calls[d] for d in servers}, {d: lookups[d] for d in servers},
                                      differences))
        for case in (c for c in dataset.cases if c.orderId == order.orderId):
            expected = case.expectation()
            for design, results in ((d, {"granular": g_results, "focused": f_results}[d]) for d in servers):
                derived = derive(_evidence(results), order.orderId).as_dict(case.asks)
                for name in case.asks:
                    got, want = derived[name], expected[name]
                    same = sorted(got) == sorted(want) if isinstance(want, list) else got == want
                    if not same:
                        rule_mismatches.append(f"{case.caseId} ({design}): {name} by the rules is "
                                               f"{json.dumps(got)}, cases.json expects {json.dumps(want)}")
    probe = dataset.records.orders[0].orderId
    edges = [e for design, server in servers.items() for e in await _edge_cases(design, server, probe)]
    tool_counts = {design: len(server.tools_raw) for design, server in servers.items()}
    return ComparisonReport(dataset.name, dataset.content_hash, orders, edges, _leaks(dataset, seen_results),
                            rule_mismatches, tool_counts)
