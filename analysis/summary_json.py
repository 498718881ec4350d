"""A RunSummary as plain JSON-ready dicts: what `wismo summarize --json` prints.

The keys and values are those `dataclasses.asdict` gives (tests hold the two equal), built directly:
asdict deep-copies every nested value through a generic recursion, which took longer than the analysis
itself on a large run. The two per-row lists are optional, as they grow with the run: `run.cases`
(one entry per case) and `paired` (one row per case and repetition) are null unless asked for.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from analysis.model import DesignMetrics, RunInfo, RunSummary

_NAMES: dict[type, tuple[str, ...]] = {}  # a dataclass's field names, looked up once per class


def _flat(value: Any) -> dict[str, Any]:
    """A dataclass whose fields hold only JSON values (or dicts and lists of them) as a dict, not copied."""
    names = _NAMES.get(type(value))
    if names is None:
        names = _NAMES[type(value)] = tuple(f.name for f in fields(value))
    return {name: getattr(value, name) for name in names}


def _run(run: RunInfo, cases: bool) -> dict[str, Any]:
    return {**_flat(run), "run_dir": str(run.run_dir), "cases": run.cases if cases else None}


def _design(design: DesignMetrics) -> dict[str, Any]:
    return {**_flat(design), "stats": {metric: _flat(stat) for metric, stat in design.stats.items()}}


def summary_to_json(summary: RunSummary, *, cases: bool = False) -> dict[str, Any]:
    """One run's summary as JSON-ready dicts; `run.cases` only with cases, `paired` when the summary has it."""
    return {
        "run": _run(summary.run, cases),
        "designs": [_design(design) for design in summary.designs],
        "comparisons": [_flat(comparison) for comparison in summary.comparisons],
        "paired": None if summary.paired is None else [_flat(row) for row in summary.paired],
        "deterministic": [_flat(order) for order in summary.deterministic],
        "deterministic_passed": summary.deterministic_passed,
        "claim_findings": summary.claim_findings,
        # Small and of a fixed size: copied the generic way.
        "pairs": [asdict(pairs) for pairs in summary.pairs],
        "faults": asdict(summary.faults),
        "warnings": list(summary.warnings),
        "lookups": [asdict(lookups) for lookups in summary.lookups],
    }
