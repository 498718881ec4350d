"""Plain-text tables and prose for the analysis commands (no computing here: values come from the dataclasses).

Terminal output fits in WIDTH columns unless the caller asks for no limit (`--wide`): a table too wide
wraps its columns into blocks, each repeating the first column, and prose wraps at word boundaries.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

WIDTH = 100
GAP = "  "
_KEPT = "\0"  # stands for a space no line may break at


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


def _render(headers: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int], indent: str) -> list[str]:
    lines = []
    for row in (headers, *rows):
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths,
                                                                                            strict=True))]
        lines.append(indent + GAP.join(cells).rstrip())
    return lines


def column_blocks(widths: Sequence[int], width: int | None) -> list[list[int]]:
    """Column indexes per block: the first column in each, then as many others as fit in `width`.

    A column wider than the room left after the first still gets a block of its own: it cannot be cut.
    """
    if width is None or len(widths) < 2:
        return [list(range(len(widths)))]
    blocks: list[list[int]] = []
    block, used = [0], widths[0]
    for index in range(1, len(widths)):
        if len(block) > 1 and used + len(GAP) + widths[index] > width:
            blocks.append(block)
            block, used = [0], widths[0]
        block.append(index)
        used += len(GAP) + widths[index]
    blocks.append(block)
    return blocks


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "",
          width: int | None = None) -> list[str]:
    """Left-aligned first column, right-aligned others, padded to the widest cell.

    With a width, columns that do not fit wrap into further blocks (separated by a blank line), each
    block repeating the first column so every row can still be read on its own.
    """
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows, strict=True)]
    lines: list[str] = []
    room = None if width is None else width - len(indent)
    for number, block in enumerate(column_blocks(widths, room)):
        if number:
            lines.append("")
        lines += _render([headers[i] for i in block], [[row[i] for i in block] for row in rows],
                         [widths[i] for i in block], indent)
    return lines


def wrap(text: str, width: int | None, first: str = "", rest: str = GAP) -> list[str]:
    """A paragraph as lines of at most `width` (None: one line), later lines indented by `rest`.

    Words are never broken, so a path longer than the width stays whole on a line of its own.
    """
    if width is None:
        return [first + text]
    # "95 %" must not break before its sign: a placeholder of the same length hides that space from textwrap.
    lines = textwrap.wrap(text.replace(" %", f"{_KEPT}%"), width, initial_indent=first, subsequent_indent=rest,
                          break_long_words=False, break_on_hyphens=False)
    return [line.replace(_KEPT, " ") for line in lines] or [first.rstrip()]
