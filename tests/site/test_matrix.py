"""The results matrix (issue 25): every failing cell marked in text, the fields each question asks, switches."""

from __future__ import annotations

import re

import pytest

from tests.site import factories
from tests.site.real_sites import SITES, WIDTHS
from tests.site.test_pages import data_for
from wismo.sitegen.overview import case_rows


def test_a_failing_cell_is_marked_and_counts_the_fields_its_question_asks():
    rows = {row.case_id: row for row in case_rows(data_for(factories.offline_site()))}
    failing = rows["tracking-unavailable"]
    assert failing.passes == ["2/3", "3/3"]
    assert [c.mark for c in failing.cells] == ["✗", "✓"] and failing.cells[0].failed and failing.failing
    assert failing.differ and "2 of 3 passed (some failed)" in failing.cells[0].title
    for case in factories.offline_site()["summaries"][0].run.cases:
        assert rows[case["caseId"]].asked == len(case.get("asks") or ["x"] * 5)
    same = [r for r in rows.values() if not r.failing]
    assert same and all(not r.differ and {c.mark for c in r.cells} == {"✓"} for r in same)


@pytest.mark.browser
@pytest.mark.parametrize("width", sorted(WIDTHS))
@pytest.mark.parametrize("name", SITES)
def test_every_failing_cell_is_marked_without_colour(real_sites, open_page, name, width):
    watch = open_page(java_script=False, viewport=WIDTHS[width])
    page = watch.page
    page.goto((real_sites[name] / "cases.html").as_uri())
    assert "all five fields" not in page.content()
    cells = page.locator("td.cell").all_inner_texts()
    assert cells
    failing = 0
    for text in cells:
        passed, total = map(int, re.search(r"(\d+)/(\d+)", text).groups())
        assert ("✗" in text) == (passed < total) and ("✓" in text) == (passed == total), text
        failing += passed < total
    assert (failing > 0) == (name == "study")  # granular runs out of its budget on the 25-line orders
    # "failures only" hides every row where all passed, with JavaScript off
    rows = page.locator("tbody tr")
    page.locator(".only-failures").first.check()
    visible = [rows.nth(i) for i in range(rows.count()) if rows.nth(i).is_visible()]
    assert len(visible) == (failing and len({i for i in range(rows.count())
                                             if "✗" in rows.nth(i).inner_text()}))
    page.locator(".only-failures").first.uncheck()
    # The case and the first design's column are on screen without scrolling sideways.
    head = page.locator("thead th.column-head").first.bounding_box()
    assert head is not None and head["x"] + head["width"] <= WIDTHS[width][0]
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width][0]
    watch.shot(f"{name}-{width}")
    watch.assert_clean()


@pytest.mark.browser
def test_the_fields_asked_are_the_question_s_own(real_sites, open_page):
    watch = open_page(viewport=WIDTHS["desktop"])
    page = watch.page
    page.goto((real_sites["study"] / "cases.html").as_uri())
    metas = page.locator(".case-meta").all_inner_texts()
    assert any(m.startswith("was my payment taken · 1 field asked") for m in metas)
    assert any(m.startswith("has everything arrived · 2 fields asked") for m in metas)
    assert any(m.startswith("full · 5 fields asked") for m in metas)
    page.locator(".only-differ").first.check()
    shown = [t for t in page.locator("tbody tr").all_inner_texts() if t]
    assert shown and all("✗" in t for t in page.locator("tbody tr:visible").all_inner_texts())
    watch.assert_clean()
