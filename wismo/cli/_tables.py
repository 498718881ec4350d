"""Plain-text tables for the analysis commands (no computing here: values come from the dataclasses)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cell(value: Any, decimals: int = 0) -> str:
    """A value as a table cell: thousands separators for numbers, – for missing values."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.{decimals}f}"
    text = str(value)
    return text if len(text) <= 70 else text[:67] + "..."


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Left-aligned first column, right-aligned others, padded to the widest cell."""
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows, strict=True)]
    lines = []
    for row in (headers, *rows):
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths,
                                                                                            strict=True))]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines
