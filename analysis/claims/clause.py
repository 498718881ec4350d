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
    # How a date about several items is read: "estimate" ("the remaining items": their latest estimate) or "any"
    # ("the last of them on 16 March"): it need only be one item's; "" means every item's.
    group: str = ""
    counts: dict[str, int] = field(default_factory=dict)  # "two of the four chairs": units stated per SKU
    # Why its claims cannot be checked ("'keyboard' could be KEYBOARD-TKL or KEYBOARD-TKL-BLK"); "" when they can.
    unsure: str = ""
    # The list leading into the claim opens with "none of", "neither", "nothing": every claim of the clause is denied
    # ("None of the items - the kettle, the cups and the tray - were shipped").
    denied: bool = False
