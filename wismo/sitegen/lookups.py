"""Why a design's backend lookups are "not recorded", in the run's own terms.

Backend lookups come from the `_meta` each tool result carries. A run whose manifest names where each
design's server came from (designSources) was recorded by a wismo that asks for them: a design without
them there has a server that sends no `_meta`. A run without designSources predates both.
"""

from __future__ import annotations

from analysis.model import RunInfo, RunSummary


def missing_reason(info: RunInfo, design: str) -> str:
    """Why `design`'s lookups are missing in this run, as a clause ("its server sends no `_meta` …")."""
    if info.design_sources:
        return f"{design}'s server sends no _meta with its tool results, so it reported no backend reads"
    return "the run was recorded before wismo's servers reported their backend reads"


def lookups_note(summary: RunSummary) -> str:
    """The headline row's note: what the figure counts and, where a design has none, why."""
    counts = ("records the servers read (orders, payments, reservations, tracking), from each tool result's "
              "_meta")
    missing = [m for m in summary.lookups if m.conversations and m.recorded == 0]
    partial = [m for m in summary.lookups if 0 < m.recorded < m.conversations]
    reasons = [f"– for {m.design}: {missing_reason(summary.run, m.design)}" for m in missing]
    reasons += [f"{m.design}: reported in {m.recorded} of {m.conversations} conversations" for m in partial]
    return "; ".join([counts, *reasons])
