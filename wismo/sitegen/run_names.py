"""What tells the runs of a site apart: computed once over their RunInfo, printed on every page that names a run.

Two runs of one model with other budgets (or repetitions, dataset, date) must not read alike; a run
alone on its site is named by its model and provider only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analysis.model import RunInfo
from wismo.sitegen import fmt

# How the recorder's budget keys read; a key this version does not know is printed as it is.
BUDGET_WORDS: dict[str, Callable[[object], str]] = {
    "maxTurns": lambda v: f"max {v} turns",
    "maxToolCalls": lambda v: f"max {v} tool calls",
    "requestTimeoutS": lambda v: f"request timeout {_number(v)} s",
    "conversationDeadlineS": lambda v: f"deadline {_number(v)} s",
    "maxOutputTokens": lambda v: f"max {_number(v)} output tokens per reply",
    "maxToolResultBytes": lambda v: f"tool results up to {_number(v)} bytes",
}


# A budget a run's manifest does not hold: recorded by a wismo that had no such budget, so none applied.
UNSET_WORDS = {"maxOutputTokens": "no output-token cap", "maxToolResultBytes": "no tool-result size cap"}


def _number(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _provider(run: RunInfo) -> str:
    return fmt.provider_text(run.provider_label or run.provider, run.is_language_model)


def _dataset(run: RunInfo) -> str:
    return f"dataset {run.dataset_name} ({run.dataset_hash.removeprefix('sha256:')[:12]})"


def _repetitions(run: RunInfo) -> str:
    return f"{run.repetitions} repetition{'s' * (run.repetitions != 1)}"


def _date(run: RunInfo) -> str:
    return f"started {fmt.timestamp(run.started_at)[:10]}"


def _started(run: RunInfo) -> str:
    return f"started {fmt.timestamp(run.started_at)}"


def _budget(key: str) -> Callable[[RunInfo], str]:
    def words(run: RunInfo) -> str:
        value = run.budgets.get(key)
        if value is None:
            return UNSET_WORDS.get(key, f"{key} not set")
        describe = BUDGET_WORDS.get(key)
        return describe(value) if describe else f"{key} {_number(value)}"
    return words


def budget_words(run: RunInfo) -> str:
    """Every budget of a run in words: `max 8 turns · max 20 tool calls · …`."""
    return " · ".join(_budget(key)(run) for key in run.budgets) or fmt.DASH


@dataclass(frozen=True)
class RunName:
    """A run as a site of several runs names it: model and provider, then what differs from the other runs."""

    label: str  # `model · provider`, then the differing facts, joined by " · "
    short: str  # for column heads: the model, then the differing facts (the provider only when it differs)
    differs: tuple[str, ...]  # the facts that differ, in words ("max 4 turns"); empty on a one-run site


def _facts(runs: Sequence[RunInfo]) -> list[tuple[str, Callable[[RunInfo], str]]]:
    keys = list(dict.fromkeys(key for run in runs for key in run.budgets))
    return [("provider", _provider), ("repetitions", _repetitions),
            *[("budgets", _budget(key)) for key in keys], ("dataset", _dataset), ("date", _date)]


def run_names(runs: Sequence[RunInfo]) -> dict[str, RunName]:
    """Each run's name on this site: model and provider, plus every fact whose value is not the same for all runs."""
    names = {}
    facts = _facts(runs)
    varying = [(fact, words) for fact, words in facts if len({words(run) for run in runs}) > 1]
    for run in runs:
        differs = tuple(words(run) for _, words in varying)
        # The label names the provider anyway; the short name only when it is what differs.
        rest = tuple(words(run) for fact, words in varying if fact != "provider")
        names[run.run_id] = RunName(" · ".join((run.model, _provider(run), *rest)),
                                    " · ".join((run.model, *differs)), differs)
    # Runs that differ in nothing above (same day, same settings) are told apart by their start time, then ID;
    # a tiebreak that is the same for every run of a clash tells nothing and is left out.
    for tiebreak in (_started, lambda run: f"run {run.run_id}"):
        clashes: dict[str, list[RunInfo]] = {}
        for run in runs:
            clashes.setdefault(names[run.run_id].label, []).append(run)
        for clash in clashes.values():
            if len(clash) < 2 or len({tiebreak(run) for run in clash}) < 2:
                continue
            for run in clash:
                name, extra = names[run.run_id], tiebreak(run)
                names[run.run_id] = RunName(f"{name.label} · {extra}", f"{name.short} · {extra}",
                                            (*name.differs, extra))
    return names
