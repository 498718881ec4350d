"""Charts mark failed conversations by shape or outline, keep axis labels apart, and explain dot sizes."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from itertools import pairwise

import pytest

from tests.site import factories
from wismo.sitegen import charts

SVG = "{http://www.w3.org/2000/svg}"
# A rough width of a 12 px label's character in the system sans-serif: enough to see two labels touch.
CHAR_WIDTH = 6.5
# charts.CROSS as Vega scales it: M-a,-aLa,aM-a,aLa,-a
CROSS_PATH = re.compile(r'd="M-([\d.]+),-\1L\1,\1M-\1,\1L\1,-\1"')


def texts(svg: str) -> list[str]:
    return [el.text or "" for el in ET.fromstring(svg).iter(f"{SVG}text")]


def label_extents(svg: str) -> list[list[tuple[float, float, str]]]:
    """Per group of sibling tick labels on one line (an axis), each label's horizontal extent."""
    lines = []
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        by_y: dict[str, list[tuple[float, float, str]]] = {}
        for text in group.findall(f"{SVG}text"):
            move = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", text.get("transform", ""))
            # Labels that Vega's overlap handling hid are drawn with opacity 0: they do not show.
            if not move or not re.fullmatch(r"[\d,.]+", text.text or "") or text.get("opacity") == "0":
                continue
            x, width = float(move.group(1)), CHAR_WIDTH * len(text.text or "")
            start = {"start": x, "end": x - width}.get(text.get("text-anchor", "start"), x - width / 2)
            by_y.setdefault(move.group(2), []).append((start, start + width, text.text or ""))
        lines += [sorted(labels) for labels in by_y.values() if len(labels) > 1]
    return lines


def overlaps(svg: str) -> list[tuple[str, str]]:
    return [(a[2], b[2]) for line in label_extents(svg) for a, b in pairwise(line)
            if b[0] < a[1]]


def sample_like() -> dict[str, list[float | None]]:
    """Total tokens shaped like the committed sample run's: the range that once drew "5,5006,000"."""
    rng = random.Random(3)
    return {"granular": [rng.randint(3426, 5580) for _ in range(36)],
            "focused": [rng.randint(1583, 2888) for _ in range(36)]}


def test_tick_labels_never_touch():
    for top in (5_580, 6_900, 12_400, 98_000, 1_234_567):
        values = {"granular": [top * 0.55, top], "focused": [top * 0.2, top * 0.3]}
        svg = str(charts.distribution("t", "Tokens", "tokens", values, {}, "").svg)
        assert label_extents(svg), "no axis labels found: the test would pass vacuously"
        assert overlaps(svg) == [], top
    svg = str(charts.distribution("t", "Tokens", "tokens", sample_like(), {}, "").svg)
    assert overlaps(svg) == [] and "6,000" in texts(svg)


def test_the_overlap_measure_sees_labels_that_touch():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g>'
           '<text text-anchor="middle" transform="translate(513.3,16)">5,500</text>'
           '<text text-anchor="end" transform="translate(560,16)">6,000</text></g></svg>')
    assert overlaps(svg) == [("5,500", "6,000")]


def test_failed_conversations_are_drawn_as_crosses_with_a_legend():
    values = sample_like()
    failed = {"granular": [i == 3 for i in range(36)], "focused": [False] * 36}
    marked = str(charts.distribution("t", "Tokens", "tokens", values, {}, "", failed).svg)
    assert "failed conversation" in texts(marked)
    assert len(CROSS_PATH.findall(marked)) >= 2  # the mark and its legend symbol
    plain = str(charts.distribution("t", "Tokens", "tokens", values, {}, "",
                                    {"granular": [False] * 36, "focused": [False] * 36}).svg)
    assert "failed conversation" not in texts(plain) and not CROSS_PATH.search(plain)


def test_failed_bars_are_outlined_and_the_chart_says_so():
    failed = {"granular": [False, True, False], "focused": [False, False]}
    svg = str(charts.counts("c", "Turns", "turns", {"granular": [3, 3, 3], "focused": [2, 2]}, "", failed).svg)
    assert charts.FAILED_NOTE in texts(svg)
    assert 'stroke-dasharray="4,2"' in svg
    clean = str(charts.counts("c", "Turns", "turns", {"granular": [3, 3, 3], "focused": [2, 2]}, "").svg)
    assert charts.FAILED_NOTE not in texts(clean) and "stroke-dasharray=\"4,2\"" not in clean


def test_a_histogram_marks_failures_and_keeps_design_names_clear_of_the_axis_title():
    rng = random.Random(1)
    values = {"granular": [rng.randint(3000, 9000) for _ in range(3000)],
              "focused": [rng.randint(1500, 4000) for _ in range(3000)]}
    failed = {"granular": [i % 10 == 0 for i in range(3000)], "focused": [False] * 3000}
    svg = str(charts.distribution("big", "Tokens", "tokens", values, {}, "", failed).svg)
    assert charts.FAILED_NOTE in texts(svg) and overlaps(svg) == []


def test_the_size_legend_says_what_size_means_and_goes_when_sizes_are_all_alike():
    alike = str(charts.distribution("t", "T", "tokens", {"g": [1, 2, 3], "f": [4, 5]}, {}, "").svg)
    assert not any("size" in t or "conversations" in t for t in texts(alike))
    varied = str(charts.distribution("t", "T", "tokens", {"g": [1, 1, 1, 2], "f": [4, 5]}, {}, "").svg)
    assert "dot size: conversations with that value" in texts(varied)


def test_dots_all_of_one_size_say_how_many_conversations_each_stands_for():
    threes = str(charts.distribution("t", "T", "tokens", {"g": [1, 1, 1, 2, 2, 2], "f": [4, 4, 4]}, {}, "").svg)
    assert "each dot: 3 conversations with that value" in texts(threes)
    ones = str(charts.distribution("t", "T", "tokens", {"g": [1, 2], "f": [4]}, {}, "").svg)
    assert not any("each dot" in t for t in texts(ones))


COLLISIONS = """() => Array.from(document.querySelectorAll('svg[data-chart]')).flatMap(svg => {
  const boxes = Array.from(svg.querySelectorAll('text'))
    .filter(t => t.getAttribute('opacity') !== '0' && t.textContent.trim())
    .map(t => [t.textContent, t.getBoundingClientRect()]);
  const hits = [];
  boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1)
      hits.push(svg.dataset.chart + ': ' + a + ' / ' + b);
  }));
  return hits;
})"""


@pytest.mark.browser
@pytest.mark.parametrize("site", [factories.two_run_site, lambda: factories.large_site(1_400)])
def test_no_two_texts_of_a_chart_overlap_in_the_browser(build, open_page, site):
    watch = open_page(viewport=(1440, 900))
    watch.page.goto((build(site()) / "index.html").resolve().as_uri())
    assert watch.page.locator("svg[data-chart] text").count() > 20
    assert watch.page.evaluate(COLLISIONS) == []
