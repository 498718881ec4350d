"""Charts: SVG rendered offline from Altair specs, titled, labelled, escaped, small at any size."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import altair as alt
import pytest

from wismo.sitegen import charts
from wismo.sitegen.errors import SiteError


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [el.text or "" for el in root.iter("{http://www.w3.org/2000/svg}text")]


def test_distribution_has_title_axis_titles_and_design_labels():
    chart = charts.distribution("t", "Total tokens per conversation", "total tokens",
                                {"granular": [4000, 4100, 4100], "focused": [2300, 2400]},
                                {"granular": 4100, "focused": 2350}, "alt text")
    labels = texts(str(chart.svg))
    assert "Total tokens per conversation" in labels and "total tokens" in labels
    assert {"granular", "focused"} <= set(labels)
    assert chart.alt_text == "alt text" and chart.title == "Total tokens per conversation"


def test_design_names_are_escaped_inside_the_svg():
    hostile = "<script>alert(1)</script>"
    chart = charts.counts("c", "Turns", "turns", {hostile: [3, 3], "focused": [2]}, "alt")
    svg = str(chart.svg)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert hostile in texts(svg)


def test_ids_are_prefixed_so_two_charts_share_a_page():
    a = charts.counts("first", "A", "x", {"g": [1]}, "")
    b = charts.counts("second", "B", "x", {"g": [1]}, "")
    ids_a = {el.get("id") for el in ET.fromstring(str(a.svg)).iter() if el.get("id")}
    ids_b = {el.get("id") for el in ET.fromstring(str(b.svg)).iter() if el.get("id")}
    assert not ids_a & ids_b
    assert all(i.startswith("first-") for i in ids_a)


def test_many_conversations_become_a_histogram_of_bounded_size():
    rng = random.Random(1)
    values = {"granular": [rng.randint(3000, 9000) for _ in range(5000)],
              "focused": [rng.randint(1500, 4000) for _ in range(5000)]}
    chart = charts.distribution("big", "Total tokens", "tokens", values, {"granular": 6000, "focused": 2700}, "")
    assert len(str(chart.svg)) < 60_000
    assert "conversations" in texts(str(chart.svg))


def test_unsafe_svg_is_refused(monkeypatch):
    monkeypatch.setattr(charts.vl_convert, "vegalite_to_svg", lambda spec: '<svg onload="x()"></svg>')
    with pytest.raises(SiteError, match="event handler"):
        charts.render_svg(alt.Chart(alt.Data(values=[])).mark_bar(), "x")
