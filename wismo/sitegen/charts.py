"""Charts: Altair specs rendered to SVG at build time with vl-convert, inlined, with a text alternative.

Nothing here is fetched at view time. Values come straight from the conversations' dataclasses; the
only aggregation is counting conversations per value (or per bin, when there are too many values to
draw one mark each), so the overview stays small at any number of conversations.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypeAlias

import altair as alt
import vl_convert
from markupsafe import Markup

from wismo.sitegen.errors import SiteError
from wismo.sitegen.pages import Chart

# Okabe–Ito: distinguishable with the common colour-vision deficiencies; designs are also named on the axis.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
# Above this many distinct (row, value) marks a strip would bloat the page: draw a histogram instead.
MAX_POINTS = 600
# What this module draws: one mark layer, a layer of two (strip and medians), or a histogram faceted by row.
AnyChart: TypeAlias = alt.Chart | alt.LayerChart | alt.FacetChart
_UNSAFE_SVG = re.compile(r"<\s*(script|foreignObject|iframe|object|embed)\b"  # elements that run or embed
                         r"|\son[a-z]+\s*="  # event handlers
                         r"|(?:xlink:)?href\s*=\s*\"(?!#)", re.I)  # links anywhere but inside the SVG


def _config(chart: AnyChart) -> AnyChart:
    return chart.configure(font=FONT, background="white").configure_view(stroke=None) \
        .configure_axis(labelFontSize=12, titleFontSize=12, labelLimit=260) \
        .configure_title(fontSize=14, anchor="start", offset=10)


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


def _colour_scale(rows: Sequence[str]) -> alt.Scale:
    return alt.Scale(domain=list(rows), range=[PALETTE[i % len(PALETTE)] for i in range(len(rows))])


def _legend_values(sizes: set[int]) -> list[int]:
    ordered = sorted(sizes)
    if len(ordered) <= 4:
        return ordered
    return sorted({ordered[0], ordered[len(ordered) // 3], ordered[2 * len(ordered) // 3], ordered[-1]})


def distribution(chart_id: str, title: str, axis_title: str, values: Mapping[str, Sequence[float | None]],
                 medians: Mapping[str, float | None], alt_text: str) -> Chart:
    """Per-conversation values by row (design): dots sized by how many share a value, a black tick at the median."""
    rows = list(values)
    counted = {row: Counter(v for v in vs if v is not None) for row, vs in values.items()}
    points = sum(len(c) for c in counted.values())
    height = max(60, 44 * len(rows))
    if points <= MAX_POINTS:
        data = [{"row": row, "value": value, "conversations": n}
                for row in rows for value, n in sorted(counted[row].items())]
        sizes = {n for c in counted.values() for n in c.values()}
        dots = alt.Chart(alt.Data(values=data)).mark_circle(opacity=0.75, aria=False).encode(
            x=alt.X("value:Q", title=axis_title, scale=alt.Scale(zero=True)),
            y=alt.Y("row:N", title=None, sort=rows),
            size=alt.Size("conversations:Q", title="conversations with that value",
                          scale=alt.Scale(range=[40, 400], domain=[0, max(sizes or {1})]),
                          legend=alt.Legend(orient="bottom", values=_legend_values(sizes or {1}), format="d")),
            color=alt.Color("row:N", scale=_colour_scale(rows), legend=None),
        )
        median_data = [{"row": row, "median": m} for row, m in medians.items() if m is not None]
        ticks = alt.Chart(alt.Data(values=median_data)).mark_tick(color="#111", thickness=2, size=30,
                                                                  aria=False).encode(
            x=alt.X("median:Q"), y=alt.Y("row:N", sort=rows))
        chart = alt.layer(dots, ticks).properties(title=title, width=560, height=height)
    else:
        data = [{"row": row, "value": v} for row in rows for v in values[row] if v is not None]
        chart = alt.Chart(alt.Data(values=data)).mark_bar(aria=False).encode(
            x=alt.X("value:Q", bin=alt.Bin(maxbins=40), title=axis_title),
            y=alt.Y("count():Q", title="conversations"),
            color=alt.Color("row:N", scale=_colour_scale(rows), legend=None),
            row=alt.Row("row:N", title=None, sort=rows, header=alt.Header(labelAngle=0, labelAlign="left")),
        ).properties(title=title, width=560, height=70)
    return Chart(chart_id, title, alt_text, render_svg(chart, chart_id))


def counts(chart_id: str, title: str, axis_title: str, values: Mapping[str, Sequence[int]], alt_text: str) -> Chart:
    """Conversations per integer value (turns), grouped bars by row (design)."""
    rows = list(values)
    data = [{"row": row, "value": value, "conversations": n}
            for row in rows for value, n in sorted(Counter(v for v in values[row] if v is not None).items())]
    chart = alt.Chart(alt.Data(values=data)).mark_bar(aria=False).encode(
        x=alt.X("value:O", title=axis_title, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("row:N", sort=rows),
        y=alt.Y("conversations:Q", title="conversations", axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color("row:N", scale=_colour_scale(rows), title=None, sort=rows,
                        legend=alt.Legend(orient="bottom")),
    ).properties(title=title, width=560, height=180)
    return Chart(chart_id, title, alt_text, render_svg(chart, chart_id))
