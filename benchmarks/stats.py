"""Figures as median with min and max over repeated measurements."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """One benchmark figure over `n` measurements, in `unit`, with an optional goal."""

    name: str
    unit: str
    median: float
    min: float
    max: float
    n: int
    goal: str | None = None
    met: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """As written to the results file."""
        return asdict(self)

    def line(self) -> str:
        """One printed line."""
        goal = f"  goal {self.goal}: {'met' if self.met else 'MISSED'}" if self.goal else ""
        return (f"{self.name:<58} {self.median:>10.3f} {self.unit:<4} "
                f"(min {self.min:.3f}, max {self.max:.3f}, n={self.n}){goal}")


def figure(name: str, unit: str, samples: list[float], goal: str | None = None,
           limit: float | None = None) -> Figure:
    """Summarize samples; when `limit` is given the goal is met if the median is at or under it."""
    median = statistics.median(samples)
    met = None if limit is None else median <= limit
    return Figure(name, unit, median, min(samples), max(samples), len(samples), goal, met)
