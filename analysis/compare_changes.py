"""What differs between two runs' manifests: model, provider, instructions, budgets, each design's tool
definitions and server. `wismo compare` lists these first, so a changed figure can be read beside its cause."""

from __future__ import annotations

import json
from typing import Any

from analysis.compare_model import Change
from analysis.model import RunInfo


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_changes(baseline: RunInfo, candidate: RunInfo) -> list[Change]:
    """Every difference, the run's first, then per design in the baseline's design order."""
    changes = []
    for what, before, after in (("provider", baseline.provider, candidate.provider),
                                ("model", baseline.model, candidate.model),
                                ("repetitions", baseline.repetitions, candidate.repetitions),
                                ("budgets", baseline.budgets, candidate.budgets),
                                ("tool choice", baseline.tool_choice, candidate.tool_choice)):
        if before != after:
            changes.append(Change(None, what, _short(_text(before)), _short(_text(after))))
    if baseline.instructions != candidate.instructions:
        changes.append(Change(None, "instructions", f"{len(baseline.instructions)} characters",
                              f"{len(candidate.instructions)} characters"))
    for design in baseline.designs:
        changes += _server_changes(design, baseline.design_sources.get(design) or {},
                                   candidate.design_sources.get(design) or {})
        changes += _tool_changes(design, baseline.tools.get(design) or [], candidate.tools.get(design) or [])
    return changes


def _server_changes(design: str, before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    changes = []
    for key, what in (("serverName", "server name"), ("serverVersion", "server version"),
                      ("command", "server command"), ("url", "server URL")):
        if before.get(key) != after.get(key):
            changes.append(Change(design, what, _short(_text(before.get(key) or "–")),
                                  _short(_text(after.get(key) or "–"))))
    return changes


def _tool_changes(design: str, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[Change]:
    old = {t.get("name"): t for t in before}
    new = {t.get("name"): t for t in after}
    changes = [Change(design, f"tool {name}", "–", "added") for name in new if name not in old]
    changes += [Change(design, f"tool {name}", "present", "removed") for name in old if name not in new]
    for name in (n for n in old if n in new):
        was, now = old[name].get("description") or "", new[name].get("description") or ""
        if was != now:
            changes.append(Change(design, f"tool {name} description", f"{len(was)} characters",
                                  f"{len(now)} characters"))
        if _text(old[name].get("parameters")) != _text(new[name].get("parameters")):
            changes.append(Change(design, f"tool {name} parameters", f"{len(_text(old[name].get('parameters')))} "
                                  "characters of schema", f"{len(_text(new[name].get('parameters')))} characters "
                                  "of schema"))
    return changes
