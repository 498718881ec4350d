"""What `wismo compare` finds, as plain dataclasses: the changes between two runs, every paired figure with
its interval and verdict, and the tolerances that decide a regression."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# The figures compared, in display order: name -> (label, tolerance key). Every one but `passed` is worse
# when it grows; `passed` is worse when it falls.
FIGURES: dict[str, tuple[str, str]] = {
    "passed": ("pass rate", "passed"),
    "totalTokens": ("total tokens", "tokens"),
    "turns": ("turns", "turns"),
    "toolCalls": ("tool calls", "calls"),
    "backendLookups": ("backend lookups", "lookups"),
    "costUsd": ("cost (USD)", "money"),
}
# tolerance key -> the change tolerated before a figure is a regression: for `passed` a drop in pass rate
# (a share: 0.05 = 5 points), for the others a relative growth (0.05 = +5 %). Zero for `passed`: any drop
# beyond the noise is a regression, since a wrong answer is never a saving.
DEFAULT_TOLERANCES: dict[str, float] = {"passed": 0.0, "tokens": 0.05, "turns": 0.05, "calls": 0.05,
                                        "lookups": 0.05, "money": 0.05}
EVERY_KIND = "every kind"

REGRESSION, IMPROVEMENT, WITHIN, UNDECIDED = "regression", "improvement", "within tolerance", "undecided"


class ToleranceError(ValueError):
    """A --tolerance text that cannot be read; the message says which part and why."""


def parse_tolerances(text: str | None) -> dict[str, float]:
    """`tokens=5%,passed=0` over the defaults; a percentage or a share (0.05) for every key."""
    tolerances = dict(DEFAULT_TOLERANCES)
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in tolerances:
            raise ToleranceError(f"--tolerance: {part!r} is not KEY=VALUE with KEY one of "
                                 f"{', '.join(DEFAULT_TOLERANCES)}")
        try:
            amount = float(value[:-1]) / 100 if value.endswith("%") else float(value)
        except ValueError:
            raise ToleranceError(f"--tolerance: {key}'s value {value!r} is not a number or a percentage") from None
        if not amount >= 0:
            raise ToleranceError(f"--tolerance: {key}'s value {value!r} is negative")
        tolerances[key] = amount
    return tolerances


@dataclass(frozen=True)
class RunRef:
    """One side of the comparison."""

    run_id: str
    run_dir: Path
    provider: str
    model: str
    is_language_model: bool
    conversations: int


@dataclass(frozen=True)
class Change:
    """One thing that differs between the runs' manifests (design None: the whole run)."""

    design: str | None
    what: str  # "tool get_order description", "server version", "model", "instructions", ...
    baseline: str
    candidate: str


@dataclass(frozen=True)
class FigureChange:
    """One figure of one design on one question kind (or every kind), candidate against baseline."""

    design: str
    kind: str  # the question kind's name, or EVERY_KIND
    asks: tuple[str, ...]  # the fields that kind asks; () for every kind
    figure: str  # a key of FIGURES
    pairs: int
    cases: int
    fewest_repetitions: int  # the fewest pairs any case has in this figure
    changed_pairs: int  # pairs whose two values differ
    baseline_mean: float
    candidate_mean: float
    mean_difference: float  # candidate - baseline, per conversation
    change: float | None  # pass rate: the difference of shares; others: relative change; None: base total 0
    ci_low: float | None  # None: no interval (a model's case with one repetition, or no change to bound)
    ci_high: float | None
    exact: bool  # both runs deterministic: the change is exact, no interval needed
    tolerance: float
    verdict: str  # REGRESSION, IMPROVEMENT, WITHIN or UNDECIDED

    @property
    def label(self) -> str:
        """The figure's name in words."""
        return FIGURES[self.figure][0]

    def words(self) -> str:
        """'middle: total tokens +41 % [+39, +44] on every kind' (pass rate in points)."""
        return f"{self.design}: {self.label} {size_words(self)} on {self.kind_words()}"

    def kind_words(self) -> str:
        """'every kind' or "'payment' questions"."""
        return self.kind if self.kind == EVERY_KIND else f"'{self.kind}' questions"


def _number(value: float) -> str:
    """A share as a signed percentage: one decimal below 10, none above; a rounded zero is +0, never −0.0."""
    scaled = value * 100
    text = f"{scaled:+.0f}" if abs(scaled) >= 9.5 else f"{scaled:+.1f}"
    if float(text) == 0:
        return "+0"
    return text.replace("-", "−")


def size_words(figure: FigureChange) -> str:
    """The change and its interval: '+41 % [+39, +44]', '−50 points [−83, −17]', '+12 % (exact)'."""
    points = figure.figure == "passed"
    unit = " points" if points else " %"
    if figure.change is None:
        return f"from 0 to {figure.candidate_mean:g} per conversation"
    size = _number(figure.change) + unit
    if figure.exact:
        return f"{size} (exact)"
    if figure.ci_low is None or figure.ci_high is None:
        return f"{size} (no interval: a case with one repetition)"
    return f"{size} [{_number(figure.ci_low)}, {_number(figure.ci_high)}]"


@dataclass(frozen=True)
class Comparison:
    """Everything `wismo compare` says: what changed, then every figure; regressions() decides the exit code."""

    baseline: RunRef
    candidate: RunRef
    designs: list[str]
    exact: bool
    confidence: float
    resamples: int
    seed: int
    tolerances: dict[str, float]
    changes: list[Change]
    figures: list[FigureChange]
    unpaired: dict[str, tuple[int, int]] = field(default_factory=dict)  # design -> (baseline only, candidate only)
    priced: bool = False  # some pair had a cost on both sides

    def regressions(self) -> list[FigureChange]:
        """The figures beyond tolerance on the worse side, every-kind figures of a design first."""
        found = [f for f in self.figures if f.verdict == REGRESSION]
        return sorted(found, key=lambda f: (self.designs.index(f.design) if f.design in self.designs else 0,
                                            f.kind != EVERY_KIND, list(FIGURES).index(f.figure)))
