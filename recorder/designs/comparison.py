"""The deterministic comparison behind `wismo check`: every design must return the granular design's evidence.

Every server runs as a child process over stdio and is discovered with tools/list, like any MCP client
would; no tool name is assumed. For each order, each design's records are gathered by following every
ID (recorder.designs.gathering) and collected by kind and ID (recorder.designs.record_diff); each design's collection
is then compared with the reference's (wismo's granular design), record by record, and every
difference names the design, the order and the record. The contract's rules are applied to each
design's evidence, and bad inputs are tried on every tool. Per order and design it also reports the
bytes returned, the tools/call interactions and the backend lookups the servers reported in their
results' `_meta` (the backend work of gathering everything).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.domain.dataset import DELAY_REASONS, Dataset
from core.domain.evidence import derive
from core.domain.fields import ASSESSMENT_FIELDS
from core.errors import WismoError
from recorder.designs.gathering import (
    BAD_IDS,
    DesignProblem,
    EdgeCase,
    Gathered,
    calls_allowed,
    edge_cases,
    gather,
)
from recorder.designs.mcp_client import ServerTarget, ToolServer, server_command, start_servers
from recorder.designs.record_diff import differences

__all__ = ["BAD_IDS", "COMPARED_DESIGNS", "REFERENCE", "ComparisonReport", "EdgeCase", "OrderComparison",
           "design_order", "run_comparison"]

COMPARISON_VERSION = 2  # 2: any designs, each compared record by record with the reference; designProblems
REFERENCE = "granular"  # every design must return what wismo's granular server returns
BUILT_IN = ("granular", "focused")  # designs wismo can start itself
# The designs compared, in `wismo record`'s default order; a run lists them in its manifest's order instead.
COMPARED_DESIGNS = BUILT_IN
FILE_NAME = "deterministic-comparison.json"


@dataclass
class OrderComparison:
    """One order's evidence under every design; the per-design figures list the designs in `designs` order."""

    orderId: str
    matched: bool
    bytes: dict[str, int]
    interactions: dict[str, int]
    # design -> backend reads (orders, payments, reservations, tracking, notFound); None when its server
    # reported none for a call it answered
    lookups: dict[str, dict[str, int] | None] = field(default_factory=dict)
    # "<design>: <orderId>: <kind> <ID>…", one per record (or field of a record) that differs from the reference's
    differences: list[str] = field(default_factory=list)


@dataclass
class ComparisonReport:
    """Everything `wismo check` found; written as deterministic-comparison.json."""

    dataset: str
    datasetHash: str
    reference: str
    designs: list[str]
    orders: list[OrderComparison]
    edgeCases: list[EdgeCase]
    leakedExpectations: list[str]
    ruleMismatches: list[str]
    toolCounts: dict[str, int]
    # designs that could not be compared at all, one line each (no tool takes an orderId, a server stopped)
    designProblems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every order matched, every edge case was refused, nothing leaked and every design ran."""
        return (all(o.matched for o in self.orders) and all(e.ok for e in self.edgeCases)
                and not self.leakedExpectations and not self.ruleMismatches and not self.designProblems)

    def problem_line(self, where: str = FILE_NAME) -> str | None:
        """One line naming the first problem found (and how many more `where` lists), or None when passed."""
        if self.designProblems:
            return self.designProblems[0] + _more(len(self.designProblems) - 1, "problem", where)
        every = [d for o in self.orders for d in o.differences]
        for design in self.designs:
            prefix = f"{design}: "
            first = next((d for d in every if d.startswith(prefix)), None)
            if first is not None:
                return (f"design {design} returns different evidence: {first[len(prefix):]}"
                        + _more(len(every) - 1, "difference", where))
        if self.ruleMismatches:
            return (f"the rules disagree with cases.json: {self.ruleMismatches[0]}"
                    + _more(len(self.ruleMismatches) - 1, "disagreement", where))
        failed = [e for e in self.edgeCases if not e.ok]
        if failed:
            edge = failed[0]
            tried = f"a {edge.label} ID ({_short(edge.argument)})"
            refused = edge.isError and bool(edge.message)
            what = (f"its server stops answering after {edge.tool} refuses {tried}" if refused
                    else f"{edge.tool} does not refuse {tried} with a clear tool error")
            return f"design {edge.design}: {what}" + _more(len(failed) - 1, "bad input", where)
        if self.leakedExpectations:
            return ("an expectation label appears in a tool result (a tool must not hand the model the answer): "
                    + ", ".join(self.leakedExpectations))
        return None

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


def _more(count: int, noun: str, where: str) -> str:
    return f"; {count} more {noun}{'' if count == 1 else 's'} in {where}" if count else ""


def _short(argument: str) -> str:
    return json.dumps(argument) if len(argument) <= 30 else f"{len(argument)} characters"


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
    """The designs compared: those in `designs`, in its order (a run's manifest order), then the reference."""
    return list(dict.fromkeys([*designs, REFERENCE]))


async def run_comparison(dataset: Dataset, commands: Mapping[str, Sequence[str] | ServerTarget] | None = None,
                         log_dir: Path | None = None, servers: dict[str, ToolServer] | None = None,
                         designs: Sequence[str] = COMPARED_DESIGNS) -> ComparisonReport:
    """Gather every order's evidence through each design's server and compare it with the granular reference's.

    A design's server is taken from `servers` when there, else started here: from `commands` when it
    gives one, else wismo's own (granular and focused only; another name without a command is a
    WismoError). Every per-design figure in the report lists the designs in `designs` order.
    """
    order = design_order(designs)
    given, commands = servers or {}, commands or {}
    to_start = [d for d in order if d not in given]
    homeless = [d for d in to_start if d not in commands and d not in BUILT_IN]
    if homeless:
        raise WismoError(f"design {homeless[0]!r} has no server: give its command as --server {homeless[0]}=COMMAND")
    async with AsyncExitStack() as stack:
        started = await start_servers(
            stack, {d: commands.get(d) or server_command(d, dataset.folder) for d in to_start},
            log_dir, log_prefix="check") if to_start else {}
        return await _compare(dataset, {d: given[d] if d in given else started[d] for d in order})


async def _compare(dataset: Dataset, servers: dict[str, ToolServer]) -> ComparisonReport:
    """Compare order by order; `servers` is in the order every per-design figure is listed in."""
    problems: dict[str, str] = {}  # design -> why it could not be compared; it is left out from then on
    orders: list[OrderComparison] = []
    seen_results: list[Any] = []
    rule_mismatches: list[str] = []
    listed = dataset.records
    records = len(listed.orders) + len(listed.payments) + len(listed.reservations) + len(listed.tracking)
    for order in dataset.records.orders:
        gathered: dict[str, Gathered] = {}
        for design, server in servers.items():
            if design in problems:
                continue
            try:
                gathered[design] = await gather(design, server, order.orderId,
                                                calls_allowed(records, len(server.tool_specs())))
            except DesignProblem as exc:
                problems[design] = str(exc)
        seen_results += [result for g in gathered.values() for result in g.results]
        found: list[str] = []
        reference = gathered.get(REFERENCE)
        for design, mine in gathered.items():
            if design != REFERENCE and reference is not None:
                found += [f"{design}: {order.orderId}: {line}"
                          for line in differences(design, REFERENCE, reference.collection, mine.collection)]
        orders.append(OrderComparison(
            order.orderId, not found and len(gathered) == len(servers),
            {d: g.bytes for d, g in gathered.items()}, {d: g.calls for d, g in gathered.items()},
            {d: g.lookups for d, g in gathered.items()}, found))
        rule_mismatches += _rule_mismatches(dataset, order.orderId, gathered)
    probe = dataset.records.orders[0].orderId
    edges: list[EdgeCase] = []
    for design, server in servers.items():
        if design not in problems:
            try:
                edges += await edge_cases(design, server, probe)
            except DesignProblem as exc:
                problems[design] = str(exc)
    tool_counts = {design: len(server.tools_raw) for design, server in servers.items()}
    return ComparisonReport(dataset.name, dataset.content_hash, REFERENCE, list(servers), orders, edges,
                            _leaks(dataset, seen_results), rule_mismatches, tool_counts, list(problems.values()))


def _rule_mismatches(dataset: Dataset, order_id: str, gathered: dict[str, Gathered]) -> list[str]:
    """The cases about this order whose expectations differ from what the rules derive from each design's evidence."""
    found = []
    for case in (c for c in dataset.cases if c.orderId == order_id):
        expected = case.expectation()
        for design, mine in gathered.items():
            try:
                derived = derive(mine.evidence, order_id).as_dict(case.asks)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:  # records not in the dataset's shape
                found.append(f"{case.caseId} ({design}): the rules cannot read its records "
                             f"({type(exc).__name__}: {str(exc)[:80]})")
                continue
            for name in case.asks:
                got, want = derived[name], expected[name]
                same = sorted(got) == sorted(want) if isinstance(want, list) else got == want
                if not same:
                    found.append(f"{case.caseId} ({design}): {name} by the rules is {json.dumps(got)}, "
                                 f"cases.json expects {json.dumps(want)}")
    return found
