"""Runs compared on one site must share a dataset and tool definitions, or say loudly that they do not."""

from __future__ import annotations

import json
from collections.abc import Sequence

from analysis.model import RunInfo
from core.errors import WismoError


def run_differences(runs: Sequence[RunInfo]) -> list[str]:
    """How the runs differ in dataset or in the tools each design gave the model (empty when alike)."""
    if len(runs) < 2:
        return []
    differences = []
    datasets = {run.dataset_hash for run in runs}
    if len(datasets) > 1:
        listed = "; ".join(f"{run.run_id}: {run.dataset_name} ({run.dataset_hash.removeprefix('sha256:')[:12]})"
                           for run in runs)
        differences.append(f"datasets differ ({listed})")
    designs = dict.fromkeys(design for run in runs for design in run.designs)
    for design in designs:
        definitions = {run.run_id: json.dumps(run.tools.get(design), sort_keys=True) for run in runs
                       if design in run.designs}
        if len(set(definitions.values())) > 1:
            groups: dict[str, list[str]] = {}
            for run_id, text in definitions.items():
                groups.setdefault(text, []).append(run_id)
            listed = " vs ".join(", ".join(ids) for ids in groups.values())
            differences.append(f"the {design} design's tool definitions differ ({listed})")
    return differences


def check_mixing(runs: Sequence[RunInfo], allow_mixed: bool) -> list[str]:
    """Refuse runs that are not like for like unless allowed; return the differences to mark the site with."""
    differences = run_differences(runs)
    if differences and not allow_mixed:
        raise WismoError("these runs cannot be compared like for like: " + "; ".join(differences)
                         + ". Build anyway with --allow-mixed (the site will say so on every page that "
                           "compares them), or build one site per dataset and tool set")
    return differences
