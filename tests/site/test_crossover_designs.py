"""Crossover charts of three designs: each other design's crossing of the baseline is drawn in its colour."""

from __future__ import annotations

import re

from analysis.model import Crossover, CrossoverPoint, CrossoverView
from wismo.sitegen.charts import design_colours
from wismo.sitegen.crossover import crossover_section

DESIGNS = ("granular", "focused", "middle")
# total tokens per order size: focused is cheaper up to 10 lines, middle up to 25, granular after
TOKENS = {"granular": {1: 4000, 10: 9000, 25: 12000, 50: 15000},
          "focused": {1: 2000, 10: 8000, 25: 14000, 50: 30000},
          "middle": {1: 3000, 10: 8500, 25: 11000, 50: 20000}}


def _view(others: tuple[str, ...]) -> CrossoverView:
    points = [CrossoverPoint(design, "full question", (), lines, 3, 3, 1.0, 0,
                             {"totalTokens": float(tokens), "toolCalls": 1.0})
              for design, sizes in TOKENS.items() if design in ("granular", *others)
              for lines, tokens in sizes.items()]
    crossings = {"focused": (25,), "middle": (50,)}
    crossovers = [Crossover("full question", "totalTokens", f"{other} crosses", crossings[other], (1, 10, 25, 50),
                            "granular", other) for other in others]
    return CrossoverView("r", ("granular", *others), ("full question",), (1, 10, 25, 50), points, crossovers,
                         {"full question": ""}, 0, "no prices", baseline="granular")


def _rule_colours(svg: str) -> set[str]:
    """The stroke colours of the dashed rules (the crossings) in a rendered chart."""
    rule = r'<line[^>]*stroke="(#[0-9a-fA-F]{3,6})"[^>]*stroke-dasharray'
    return {m.group(1).lower() for m in re.finditer(rule, svg)}


def test_each_other_design_s_crossing_is_drawn_in_its_colour():
    colours = design_colours(DESIGNS)
    section = crossover_section(_view(("focused", "middle")), colours=colours)
    assert section is not None
    [tokens] = [c for c in section.charts if "total tokens" in c.title.lower()]
    assert _rule_colours(tokens.svg) == {colours["focused"].lower(), colours["middle"].lower()}
    assert "in a design's colour" in tokens.alt_text


def test_a_single_comparison_keeps_its_crossing_black():
    section = crossover_section(_view(("focused",)), colours=design_colours(DESIGNS))
    assert section is not None
    [tokens] = [c for c in section.charts if "total tokens" in c.title.lower()]
    assert _rule_colours(tokens.svg) == {"#111"}
    assert "the other design uses less" in tokens.alt_text
