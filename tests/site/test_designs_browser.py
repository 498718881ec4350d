"""A run of three designs in Debian's Chromium: the case page's columns, the baseline, and no sideways scrolling."""

from __future__ import annotations

import re

import pytest

from tests.site import factories
from tests.site.test_browser import url, wait_for_review

pytestmark = pytest.mark.browser

CASE = "cases/carrier-delay.html"
# Everything but a wide table (or code) in its own box: nothing may scroll sideways.
SCROLLERS = """Array.from(document.querySelectorAll('main *'))
    .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
                 && !e.closest('.table-wrap, pre, figure .chart'))
    .map(e => e.tagName + '.' + e.className)"""


@pytest.fixture(scope="module")
def three_sites(tmp_path_factory):
    """The three-design run built twice: compared with granular (its first design), and with focused."""
    from tests.site.conftest import BUILT_AT
    from wismo.sitegen import build_site

    tmp = tmp_path_factory.mktemp("designs")
    built = {}
    for name, site in (("granular", factories.three_design_site()), ("focused", factories.baseline_not_first_site())):
        build_site(**site, out_dir=tmp / name, built_at=BUILT_AT)
        built[name] = tmp / name
    return built


def folded(texts: list[str]) -> list[str]:
    return [re.sub(r"\s+", " ", t).strip() for t in texts]


def assert_no_sideways_scroll(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(SCROLLERS) == []


@pytest.mark.parametrize("width", [1440, 1024, 390])
def test_a_three_design_case_page_shows_three_labelled_columns(three_sites, open_page, width):
    watch = open_page(viewport=(width, 900))
    page = watch.page
    page.goto(url(three_sites["granular"], CASE))
    columns = page.locator(".column").all()
    assert len(columns) == 3
    # In design order, each headed by its design and saying its role.
    assert folded([c.locator("h3").text_content() for c in columns]) == factories.THREE_DESIGNS
    roles = folded([c.locator(".versus .badge").text_content() for c in columns])
    assert roles == ["baseline", "vs granular", "vs granular"]
    for column in columns[1:]:
        versus = folded([column.locator(".versus").text_content()])[0]
        assert re.search(r"granular 3/3; total tokens −[\d,]+ per repetition", versus), versus
        assert column.locator(".versus").is_visible()
    boxes = [c.bounding_box() for c in columns]
    if width >= 1024:  # side by side, left to right in design order
        assert len({round(b["y"]) for b in boxes}) == 1, boxes
        assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"]
    else:  # one under the other
        assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]
    assert_no_sideways_scroll(page, width)
    watch.shot(str(width))
    watch.assert_clean()


def test_the_baseline_not_first_is_the_one_labelled(three_sites, open_page):
    watch = open_page(viewport=(390, 844))
    page = watch.page
    page.goto(url(three_sites["focused"], CASE))
    roles = folded(page.locator(".column .versus .badge").all_text_contents())
    assert roles == ["vs focused", "baseline", "vs focused"]
    assert "focused 3/3; total tokens +" in folded([page.locator(".column").nth(0).text_content()])[0]
    page.goto(url(three_sites["focused"]))
    answer = folded([page.locator(".answer-run").inner_text()])[0]
    assert "Baseline focused: granular and middle are compared with it" in answer
    assert "granular − focused" in answer and "middle − focused" in answer
    heads = folded(page.locator("table.headline thead th").all_text_contents())
    assert heads[1:4] == ["granular", "focused (baseline)", "middle"]
    assert_no_sideways_scroll(page, 390)
    watch.assert_clean()


PAGES = ["index.html", "cases.html", CASE, f"conversations/{factories.THREE_RUN}/carrier-delay.middle.r2.html",
         "review.html", "checks.html"]


@pytest.mark.parametrize("width", [1440, 1024, 390])
def test_no_page_of_a_three_design_run_scrolls_sideways(three_sites, open_page, width):
    watch = open_page(viewport=(width, 900))
    page = watch.page
    for name in PAGES:
        page.goto(url(three_sites["granular"], name))
        if name == "review.html":
            wait_for_review(watch)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
        assert page.evaluate(SCROLLERS) == [], name
    watch.assert_clean()


def test_blind_review_of_three_designs_hides_every_design(three_sites, open_page):
    watch = open_page()
    page = watch.page
    page.goto(url(three_sites["granular"], "review.html"))
    wait_for_review(watch)
    options = page.locator("select[name=design] option").all_text_contents()
    assert options == ["all", *factories.THREE_DESIGNS]
    page.select_option("select[name=design]", "middle")
    shown = page.locator("article.review-item:visible")
    assert shown.count() > 0
    assert all("middle" in t for t in shown.locator(".members").all_text_contents())
    page.select_option("select[name=design]", "")
    page.keyboard.press("b")
    body = page.evaluate("document.querySelector('main').innerText")
    for design in factories.THREE_DESIGNS:
        assert design not in body, design
    watch.assert_clean()
