"""Charts: Altair specs rendered to SVG at build time with vl-convert, inlined, with a text alternative.

Nothing here is fetched at view time. Values come straight from the conversations' dataclasses; the
only aggregation is counting conversations per value (or per bin, when there are too many values to
draw one mark each), so the overview stays small at any number of conversations.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import altair as alt
import vl_convert
from markupsafe import Markup

from wismo.sitegen.errors import SiteError
from wismo.sitegen.pages import Chart

# Okabe–Ito, then Paul Tol's muted scheme for a site of more designs: distinguishable with the common
# colour-vision deficiencies; designs are also named on the axis or in a legend. Past ten designs colours repeat.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#44AA99", "#999933",
           "#332288"]
Colours: TypeAlias = Mapping[str, str]  # design -> colour
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
# Above this many distinct (row, value) marks a strip would bloat the page: draw a histogram instead.
MAX_POINTS = 600
# What this module draws: one mark layer, a layer of two (strip and medians), or a histogram faceted by row.
AnyChart: TypeAlias = alt.Chart | alt.LayerChart | alt.FacetChart
_UNSAFE_SVG = re.compile(r"<\s*(script|foreignObject|iframe|object|embed)\b"  # elements that run or embed
                         r"|\son[a-z]+\s*="  # event handlers
                         r"|(?:xlink:)?href\s*=\s*\"(?!#)", re.I)  # links anywhere but inside the SVG


def _config(chart: AnyChart) -> AnyChart:
    # One configure() for the whole config: each configure_*() copies the chart, and copying a layered or faceted
    # chart builds its layers again (a sixth of the charts' time at 10,000 conversations). The same spec.
    return chart.configure(font=FONT, background="white", view=alt.ViewConfig(stroke=None),
                           axis=alt.AxisConfig(labelFontSize=12, titleFontSize=12, labelLimit=260),
                           facet=alt.CompositionConfig(spacing=24),
                           title=alt.TitleConfig(fontSize=14, anchor="start", offset=10))


def render_svg(chart: AnyChart, chart_id: str) -> Markup:
    """Render a spec to SVG; refuse output that could run code, and make its ids unique within the page."""
    svg = vl_convert.vegalite_to_svg(_config(chart).to_dict())
    if _UNSAFE_SVG.search(svg):
        raise SiteError(f"chart {chart_id}: the rendered SVG contains a script, event handler or external link")
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{chart_id}-{m.group(1)}"', svg)
    svg = re.sub(r'url\(#([^)]+)\)', lambda m: f"url(#{chart_id}-{m.group(1)})", svg)
    svg = svg.replace("<svg ", f'<svg aria-hidden="true" focusable="false" data-chart="{chart_id}" ', 1)
    # The SVG is markup vl-convert generated from numbers and escaped labels; checked above, not model text.
    return Markup(svg)


def design_colours(designs: Sequence[str]) -> dict[str, str]:
    """One colour per design of the site, in the site's design order: a design has its colour on every chart."""
    return {design: PALETTE[i % len(PALETTE)] for i, design in enumerate(dict.fromkeys(designs))}


def _colour_scale(rows: Sequence[str], colours: Colours | None = None) -> alt.Scale:
    # Without the site's colours (a chart drawn alone), the rows take the palette in their order.
    by_row = {**design_colours(rows), **(colours or {})}
    return alt.Scale(domain=list(rows), range=[by_row[row] for row in rows])


def _legend_values(sizes: set[int]) -> list[int]:
    ordered = sorted(sizes)
    if len(ordered) <= 4:
        return ordered
    return sorted({ordered[0], ordered[len(ordered) // 3], ordered[2 * len(ordered) // 3], ordered[-1]})


# A failed conversation is drawn as a ×, not only in another colour: a stroked path in Vega's unit square.
CROSS = "M-0.7,-0.7L0.7,0.7M-0.7,0.7L0.7,-0.7"
FAILED = "failed conversation"
# Few ticks, and labels that would touch are dropped: "5,5006,000" must never be drawn.
def _quantitative_axis(width: int = 560) -> alt.Axis:
    return alt.Axis(tickCount=6 if width > 400 else 3, labelOverlap="greedy", labelFlush=False)


def _results(values: Mapping[str, Sequence[float | None]],
             failed: Mapping[str, Sequence[bool]] | None) -> dict[str, list[tuple[float | None, bool]]]:
    """Each row's values paired with whether that conversation failed (none failed when not given)."""
    return {row: list(zip(vs, failed.get(row, [False] * len(vs)) if failed else [False] * len(vs), strict=True))
            for row, vs in values.items()}


def _failed_legend() -> alt.Shape:
    return alt.Shape("result:N", title=None, scale=alt.Scale(domain=[FAILED], range=[CROSS]),
                     # Above the plot: below it, the size legend's title would run into it.
                     legend=alt.Legend(orient="top", symbolStrokeWidth=2.5, symbolStrokeColor="#111"))


WIDE, NARROW = 560, 250  # plot widths: a desktop column, and a phone (drawn again, never shrunk)


def _both(chart_id: str, title: str, alt_text: str, make: Callable[[int], AnyChart]) -> Chart:
    """A chart drawn at both widths: the page shows the narrow one on a phone, where the wide one would not fit."""
    return Chart(chart_id, title, alt_text, render_svg(make(WIDE), chart_id),
                 render_svg(make(NARROW), f"{chart_id}-narrow"))


def distribution(chart_id: str, title: str, axis_title: str, values: Mapping[str, Sequence[float | None]],
                 medians: Mapping[str, float | None], alt_text: str,
                 failed: Mapping[str, Sequence[bool]] | None = None, colours: Colours | None = None) -> Chart:
    """Per-conversation values by row (design): a dot per value (sized by how many share it when that varies),
    a × over each value a failed conversation had, a black tick at the median."""
    return _both(chart_id, title, alt_text, lambda width: _distribution(
        title, axis_title, values, medians, failed, colours, width))


def _distribution(title: str, axis_title: str, values: Mapping[str, Sequence[float | None]],
                  medians: Mapping[str, float | None], failed: Mapping[str, Sequence[bool]] | None,
                  colours: Colours | None, width: int) -> AnyChart:
    rows = list(values)
    paired = _results(values, failed)
    counted = {row: Counter(v for v, _ in vs if v is not None) for row, vs in paired.items()}
    points = sum(len(c) for c in counted.values())
    height = max(60, 44 * len(rows))
    x_axis = _quantitative_axis(width)
    if points <= MAX_POINTS:
        data = [{"row": row, "value": value, "conversations": n}
                for row in rows for value, n in sorted(counted[row].items())]
        sizes = {n for c in counted.values() for n in c.values()}
        # A size scale only says something when the counts differ; then its legend says what the size means.
        size: alt.Size | alt.SizeValue = (
            alt.Size("conversations:Q", title="dot size: conversations with that value",
                     scale=alt.Scale(range=[40, 400], domain=[0, max(sizes)]),
                     legend=alt.Legend(orient="bottom", values=_legend_values(sizes), format="d",
                                       titleLimit=400))
            if len(sizes) > 1 else alt.SizeValue(120))
        dots = alt.Chart(alt.Data(values=data)).mark_circle(opacity=0.75, aria=False).encode(
            x=alt.X("value:Q", title=axis_title, scale=alt.Scale(zero=True), axis=x_axis),
            y=alt.Y("row:N", title=None, sort=rows),
            size=size,
            color=alt.Color("row:N", scale=_colour_scale(rows, colours), legend=None),
        )
        failures = sorted({(row, v) for row in rows for v, bad in paired[row] if bad and v is not None},
                          key=lambda item: (rows.index(item[0]), item[1]))
        crosses = alt.Chart(alt.Data(values=[{"row": row, "value": v, "result": FAILED} for row, v in failures])) \
            .mark_point(filled=False, size=110, strokeWidth=2.5, color="#111", opacity=1, aria=False).encode(
                x=alt.X("value:Q"), y=alt.Y("row:N", sort=rows), shape=_failed_legend())
        median_data = [{"row": row, "median": m} for row, m in medians.items() if m is not None]
        ticks = alt.Chart(alt.Data(values=median_data)).mark_tick(color="#111", thickness=2, size=30,
                                                                  aria=False).encode(
            x=alt.X("median:Q"), y=alt.Y("row:N", sort=rows))
        layers = [dots, ticks, crosses] if failures else [dots, ticks]
        # Dots all of one size stand for the same number of conversations each: say it when that is not one.
        [alike] = sizes if len(sizes) == 1 else [1]
        heading = alt.TitleParams(wrap_title(title, width), subtitle=f"each dot: {alike} conversations with that value",
                                  subtitleFontSize=11, subtitleColor="#444") if alike > 1 else wrap_title(title, width)
        return alt.layer(*layers).resolve_legend(size="independent", shape="independent") \
            .properties(title=heading, width=width, height=height)
    # Too many values for a mark each: a histogram per row, failed conversations as an outlined stack on top.
    data = [{"row": row, "value": v, "result": "failed" if bad else "passed"}
            for row in rows for v, bad in paired[row] if v is not None]
    any_failed = any(d["result"] == "failed" for d in data)
    return alt.Chart(alt.Data(values=data)).mark_bar(aria=False, strokeWidth=1.5).encode(
        x=alt.X("value:Q", bin=alt.Bin(maxbins=40), title=axis_title, axis=x_axis),
        y=alt.Y("count():Q", title="conversations", axis=alt.Axis(tickCount=4, format="d", labelFlush=True)),
        color=alt.Color("row:N", scale=_colour_scale(rows, colours), legend=None),
        **(_failed_bars() if any_failed else {}),
        # The design's name above its histogram, where it cannot run into the y axis title.
        row=alt.Row("row:N", title=None, sort=rows,
                    header=alt.Header(labelAngle=0, labelAlign="left", labelOrient="top", labelAnchor="start",
                                      labelFontWeight="bold")),
    ).properties(title=_title(wrap_title(title, width), any_failed, width), width=width, height=70)


FAILED_TEST = "datum.result === 'failed'"
FAILED_NOTE = "failed conversations: pale, with a dashed dark outline"


def _failed_bars() -> dict[str, Any]:
    """Bars of failed conversations: pale with a dashed dark outline, stacked above the passed ones."""
    return {
        "fillOpacity": {"condition": {"test": FAILED_TEST, "value": 0.2}, "value": 1},
        "stroke": {"condition": {"test": FAILED_TEST, "value": "#111"}, "value": "transparent"},
        "strokeDash": {"condition": {"test": FAILED_TEST, "value": [4, 2]}, "value": [1, 0]},
        "order": alt.Order("result:N", sort="descending"),
    }


def wrap_title(text: str, width: int) -> str | list[str]:
    """A title or subtitle broken into lines that fit `width` (at about 6.5 px a character), so none is cut off."""
    limit = max(20, int(width / 6.5))
    words, lines = text.split(), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > limit:
            lines.append(word)
        else:
            lines[-1] = f"{lines[-1]} {word}".strip()
    return lines[0] if len(lines) == 1 else lines


def _title(title: str | list[str], any_failed: bool, width: int = 560) -> alt.TitleParams | str | list[str]:
    # Bars have no shape to vary, so the chart says how a failed conversation looks.
    return alt.TitleParams(title, subtitle=wrap_title(FAILED_NOTE, width), subtitleFontSize=11, subtitleColor="#444") \
        if any_failed else title


def counts(chart_id: str, title: str, axis_title: str, values: Mapping[str, Sequence[int]], alt_text: str,
           failed: Mapping[str, Sequence[bool]] | None = None, colours: Colours | None = None) -> Chart:
    """Conversations per integer value (turns), grouped bars by row (design); failed ones outlined on top."""
    return _both(chart_id, title, alt_text, lambda width: _counts(title, axis_title, values, failed, colours, width))


def _counts(title: str, axis_title: str, values: Mapping[str, Sequence[int]],
            failed: Mapping[str, Sequence[bool]] | None, colours: Colours | None, width: int) -> AnyChart:
    rows = list(values)
    paired = _results(values, failed)
    tally = Counter((row, v, bad) for row in rows for v, bad in paired[row] if v is not None)
    data = [{"row": row, "value": v, "result": "failed" if bad else "passed", "conversations": n}
            for (row, v, bad), n in sorted(tally.items(), key=lambda item: (rows.index(item[0][0]), item[0][1:]))]
    any_failed = any(bad for vs in paired.values() for _, bad in vs)
    return alt.Chart(alt.Data(values=data)).mark_bar(aria=False, strokeWidth=1.5).encode(
        x=alt.X("value:O", title=axis_title, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("row:N", sort=rows),
        y=alt.Y("sum(conversations):Q", title="conversations",
                axis=alt.Axis(tickMinStep=1, format="d", tickCount=5, labelOverlap="greedy")),
        color=alt.Color("row:N", scale=_colour_scale(rows, colours), title=None, sort=rows,
                        legend=alt.Legend(orient="bottom")),
        **(_failed_bars() if any_failed else {}),
    ).properties(title=_title(wrap_title(title, width), any_failed, width), width=width, height=180)
