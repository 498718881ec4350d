"""The overview's crossover section of each valid run over several order sizes or question kinds.

Page dataclasses built from analysis.crossover.CrossoverView; the sentences are analysis.crossover's, so the
site and `wismo summarize --crossover` say the same. One chart per measure (x: order lines, y: the median,
a line per design, one panel per question kind), the crossings marked by a dashed rule, the pass rate written
beside every point and a failing point drawn hollow; the text table repeats every figure for screen readers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import altair as alt

from analysis.crossover import MEASURE_WORDS, shows_crossover
from analysis.model import CROSSOVER_MEASURES, CrossoverView
from analysis.money_words import UNKNOWN, usd
from wismo.sitegen import fmt
from wismo.sitegen.charts import NARROW, Colours, _colour_scale, render_svg, wrap_title
from wismo.sitegen.pages import Chart

HEADERS = ("Order lines", "Design", "Conversations", "Passed",
           *(MEASURE_WORDS[m][0][0].upper() + MEASURE_WORDS[m][0][1:] for m in CROSSOVER_MEASURES))

SUBTITLE = ("a line joins the sizes where the design was right as often as the best design there; hollow diamond, "
            "off the line: right less often (or never), its pass rate beside it, \"budget\" where a turn or "
            "tool-call budget stopped some; dashed rule: from this size the other design uses less")
SUBTITLE_SEVERAL = ("a line joins the sizes where the design was right as often as the best design there; hollow "
                    "diamond, off the line: right less often (or never), its pass rate beside it, \"budget\" where a "
                    "turn or tool-call budget stopped some; dashed rule, in a design's colour: from this size that "
                    "design and the baseline swap which uses less")


@dataclass(frozen=True)
class CrossoverKind:
    """One question kind: its table rows (every figure as text) and its sentences."""

    kind: str
    rows: list[list[str]]
    sentences: list[str]
    failures: str


@dataclass(frozen=True)
class CrossoverSection:
    """One run's crossover section on the overview."""

    run_id: str
    designs: list[str]
    sizes: str
    headers: list[str]
    kinds: list[CrossoverKind]
    charts: list[Chart]
    money_note: str
    unsized: int


def _figure(view: CrossoverView, measure: str, value: float | None) -> str:
    if measure == "costUsd":
        # Never 0 for a missing price: unknown, as everywhere money is shown.
        return UNKNOWN if value is None else usd(Decimal(str(value)), estimated=view.money_estimated)
    return fmt.metric(measure, value)


def on_line(view: CrossoverView) -> dict[tuple[str, str, int], bool]:
    """(design, kind, order lines) -> whether the point joins its design's line: right as often as the best
    design at that kind and size, and right at all. A design that fails more is never drawn as the cheap one."""
    best: dict[tuple[str, int], float] = {}
    for p in view.points:
        best[(p.kind, p.order_lines)] = max(best.get((p.kind, p.order_lines), 0.0), p.pass_rate)
    return {(p.design, p.kind, p.order_lines): p.passed > 0 and p.pass_rate >= best[(p.kind, p.order_lines)]
            for p in view.points}


def _segments(view: CrossoverView, joined: dict[tuple[str, str, int], bool]) -> dict[tuple[str, str, int], int]:
    """Number each run of consecutive joined sizes per design and kind: the line is drawn per segment, so it
    breaks at every point left off it."""
    segment: dict[tuple[str, str, int], int] = {}
    number = 0
    for design in view.designs:
        for kind in view.kinds:
            number += 1
            for size in view.sizes:
                key = (design, kind, size)
                if key not in joined:
                    continue
                if joined[key]:
                    segment[key] = number
                else:
                    number += 1
    return segment


def _chart_spec(view: CrossoverView, measure: str, colours: Colours | None, width: int) -> alt.FacetChart | None:
    """One measure's medians against order lines, a panel per kind, `width` px per panel (one column when narrow)."""
    label = MEASURE_WORDS[measure][0]
    designs = list(view.designs)
    joined = on_line(view)
    segments = _segments(view, joined)
    data: list[dict[str, object]] = []
    for p in view.points:
        if p.design not in designs or p.medians.get(measure) is None:
            continue
        key = (p.design, p.kind, p.order_lines)
        data.append({"kind": p.kind, "lines": p.order_lines, "design": p.design, "median": p.medians[measure],
                     "pass": f"{round(p.pass_rate * 100)} %" + (", budget" if p.budget_stopped else ""),
                     "result": "on the line" if joined[key] else "right less often",
                     "segment": f"{p.design}-{segments.get(key, 0)}", "layer": "point"})
    if not data:
        return None
    crossings = [c for c in view.crossovers if c.measure == measure]
    data += [{"kind": c.kind, "lines": size, "layer": "crossing", "design": c.other}
             for c in crossings for size in c.crossings]
    sizes = list(view.sizes)
    # One size alone would sit on the edge of a log scale with no room: give it an octave either side.
    domain = [sizes[0] / 2, sizes[0] * 2] if len(sizes) == 1 else [sizes[0], sizes[-1]]
    x = alt.X("lines:Q", title="order lines", scale=alt.Scale(type="log", nice=False, domain=domain),
              axis=alt.Axis(values=sizes, format="d", labelOverlap="greedy"))
    y = alt.Y("median:Q", title=f"median {label}", axis=alt.Axis(tickCount=5, labelOverlap="greedy"))
    colour = alt.Color("design:N", scale=_colour_scale(designs, colours), sort=designs, title=None,
                       legend=alt.Legend(orient="top"))
    points_only = alt.Chart().transform_filter("datum.layer === 'point'")
    # The line joins only the points where the design was right as often as the best: a segment per run of them.
    lines = points_only.transform_filter("datum.result === 'on the line'").mark_line(aria=False).encode(
        x=x, y=y, color=colour, detail="segment:N")
    points = points_only.mark_point(size=70, strokeWidth=2, aria=False).encode(
        x=x, y=y, color=colour,
        # Off the line is hollow too, not only apart: a cheap design that fails is not cheaper.
        fill=alt.condition("datum.result === 'on the line'",
                           alt.Color("design:N", scale=_colour_scale(designs, colours), legend=None),
                           alt.value("white")),
        shape=alt.Shape("result:N", title=None, scale=alt.Scale(domain=["on the line", "right less often"],
                                                                 range=["circle", "diamond"]),
                        legend=None),  # the subtitle says what a hollow diamond is
        tooltip=[alt.Tooltip("design:N"), alt.Tooltip("lines:Q", title="order lines"),
                 alt.Tooltip("median:Q", title=f"median {label}"), alt.Tooltip("pass:N", title="passed")])
    # Only a point off the line carries its pass rate: 100 % everywhere would hide the lines.
    # Left of the point at the largest size, right of it elsewhere, so no label runs past the plot's edge.
    off_line = points_only.transform_filter("datum.result !== 'on the line'")
    last = f"datum.lines === {sizes[-1]}"
    passes = alt.layer(
        off_line.transform_filter(f"!({last})").mark_text(
            align="left", dx=7, dy=-9, fontSize=11, fontWeight="bold", aria=False).encode(
            x=x, y=y, text="pass:N", color=colour),
        off_line.transform_filter(last).mark_text(
            align="right", dx=-7, dy=-9, fontSize=11, fontWeight="bold", aria=False).encode(
            x=x, y=y, text="pass:N", color=colour))
    rules = alt.Chart().transform_filter("datum.layer === 'crossing'").mark_rule(
        strokeDash=[4, 3], color="#111", aria=False).encode(x=x)
    subtitle = SUBTITLE
    if len({c.other for c in crossings}) > 1:
        # Several designs against the baseline: a crossing is drawn in the colour of the design whose line
        # crosses the baseline's there, so the rules can be told apart.
        rules = rules.encode(color=alt.Color("design:N", scale=_colour_scale(designs, colours), legend=None))
        subtitle = SUBTITLE_SEVERAL
    narrow = width < 300
    panel = width if narrow else 300
    # Every property given where the chart is made, none set afterwards: each .properties(), .resolve_axis() or a
    # facet of a chart holding its data copies the chart, and copying layers builds them again (deep copies).
    return alt.layer(lines, points, passes, rules, width=panel, height=150 if narrow else 160).facet(
        facet=alt.Facet("kind:N", title=None, sort=list(view.kinds), header=alt.Header(labelFontWeight="bold")),
        data=alt.Data(values=data), columns=1 if narrow else 2,
        resolve=alt.Resolve(axis=alt.AxisResolveMap(x="independent", y="independent")),
        title=alt.TitleParams(wrap_title(f"Median {label} by order size", 2 * panel),
                              subtitle=wrap_title(subtitle, panel if narrow else 2 * panel + 60),
                              subtitleFontSize=11, subtitleColor="#444"))


def _chart(view: CrossoverView, measure: str, number: int, colours: Colours | None = None) -> Chart | None:
    """The medians of one measure against order lines, drawn wide and narrow; None when no point has it."""
    wide = _chart_spec(view, measure, colours, 600)
    narrow = _chart_spec(view, measure, colours, NARROW - 40)  # room for the y axis and its title
    if wide is None or narrow is None:
        return None
    label = MEASURE_WORDS[measure][0]
    subtitle = SUBTITLE_SEVERAL if len({c.other for c in view.crossovers if c.measure == measure}) > 1 else SUBTITLE
    words = [c.sentence for c in view.crossovers if c.measure == measure]
    alt_text = " ".join(words) + " " + subtitle[0].upper() + subtitle[1:] + "."
    chart_id = f"crossover-{number}-{measure}"
    return Chart(chart_id, f"Median {label} by order size", alt_text, render_svg(wide, chart_id),
                 render_svg(narrow, f"{chart_id}-narrow"))


def crossover_section(view: CrossoverView, number: int = 0,
                      colours: Colours | None = None) -> CrossoverSection | None:
    """The section of one run, or None when the run spans one order size and one question kind.

    `colours` (design -> colour) are the site's, so a design is drawn as on the overview's other charts.
    """
    if not shows_crossover(view):
        return None
    kinds = []
    for kind in view.kinds:
        rows = [[str(p.order_lines), p.design, fmt.count(p.conversations), fmt.share(p.pass_rate),
                 *(_figure(view, m, p.medians.get(m)) for m in CROSSOVER_MEASURES)]
                for p in view.points if p.kind == kind]
        kinds.append(CrossoverKind(kind, rows, [c.sentence for c in view.crossovers if c.kind == kind],
                                   view.failures.get(kind, "")))
    charts = [chart for m in CROSSOVER_MEASURES if (chart := _chart(view, m, number, colours)) is not None]
    sizes = f"{view.sizes[0]}–{view.sizes[-1]}" if len(view.sizes) > 1 else str(view.sizes[0]) if view.sizes else ""
    return CrossoverSection(view.run_id, list(view.designs), sizes, list(HEADERS), kinds, charts, view.money_note,
                            view.unsized_conversations)


def crossover_sections(views: Sequence[CrossoverView] | None, valid_ids: Sequence[str],
                       colours: Colours | None = None) -> Mapping[str, CrossoverSection]:
    """run_id -> its crossover section, for the valid runs that span several sizes or kinds."""
    by_id = {view.run_id: view for view in views or ()}
    sections = {}
    for number, run_id in enumerate(valid_ids):
        if run_id in by_id and (section := crossover_section(by_id[run_id], number, colours)) is not None:
            sections[run_id] = section
    return sections
