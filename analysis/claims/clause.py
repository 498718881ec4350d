"""A clause of a summary and the items its claims are about."""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis.claims.text import Span


@dataclass(frozen=True)
class Clause:
    """A clause and the items its claims are about; `whole` means the order as a whole."""

    span: Span
    sentence: Span
    skus: tuple[str, ...]
    whole: bool
    partial: bool = False  # "part of your order": true if true of any item
    group: bool = False  # "the remaining items": an estimate for the group is one of theirs (the latest)
    counts: dict[str, int] = field(default_factory=dict)  # "two of the four chairs": units stated per SKU
