"""Every page type at phone width (390 × 844): no sideways scrolling, and chart text that can be read."""

from __future__ import annotations

import pytest

from tests.site import factories
from tests.site.test_reviews import entry2, write
from wismo.sitegen.reviews import load_reviews

pytestmark = pytest.mark.browser

PHONE = (390, 844)
PAGES = {
    "overview": "index.html",
    "case list": "cases.html",
    "case": "cases/tracking-unavailable.html",
    "conversation": "conversations/sample-offline/partial-delivery.granular.r1.html",
    "invalid answer": "conversations/sample-offline/payment-declined.focused.r3.html",
    "model conversation": "conversations/20261130T101500Z-openai-gpt-5-mini/tracking-unavailable.granular.r2.html",
    "review": "review.html",
    "checks": "checks.html",
}
# What may scroll sideways inside its own box (the page itself never may): a wide table, and a chart kept
# large enough to read.
OWN_SCROLL = ".table-wrap, figure .chart"
SCROLLERS = """sel => Array.from(document.querySelectorAll('body *'))
    .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
                 && !e.matches(sel))
    .map(e => e.tagName + '.' + e.className)"""
# The smallest chart text as drawn on screen: its font size times the SVG's scale.
SMALLEST_CHART_TEXT = """() => Math.min(...Array.from(document.querySelectorAll('figure .chart svg'))
    .filter(svg => svg.getClientRects().length)  // the drawing for this width; the other is not displayed
    .flatMap(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Array.from(svg.querySelectorAll('text')).map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
}))"""


@pytest.fixture(scope="module")
def phone_site(tmp_path_factory):
    """Two runs, claim findings, and an imported review with a long note and reviewer name."""
    from tests.site.conftest import BUILT_AT
    from wismo.sitegen import build_site

    tmp = tmp_path_factory.mktemp("phone")
    site = factories.two_run_site()
    detail = next(d for d in site["details_by_run"]["sample-offline"] if d.conversation_id == factories.FAILING)
    reviews = load_reviews([write(tmp, {"version": 2, "reviews": [entry2(
        "sample-offline", detail.conversation_id, detail.customer_summary, "not_justified", reviewer="R" * 60,
        note="an-unbroken-note-" * 10)]})])
    out = tmp / "site"
    build_site(**site, out_dir=out, reviews=reviews, findings_by_run=factories.findings_fixture(), built_at=BUILT_AT)
    return out


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_no_page_scrolls_sideways_at_phone_width(phone_site, open_page, kind):
    watch = open_page(viewport=PHONE)
    page = watch.page
    page.goto((phone_site / PAGES[kind]).resolve().as_uri())
    if kind == "review":
        page.wait_for_selector("body[data-review-ready='true']")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("innerWidth")
    assert page.evaluate(SCROLLERS, OWN_SCROLL) == []
    watch.shot("phone")
    watch.assert_clean()


def test_chart_text_stays_readable_at_phone_width(phone_site, open_page):
    watch = open_page(viewport=PHONE)
    page = watch.page
    page.goto((phone_site / "index.html").resolve().as_uri())
    assert page.locator("figure .chart svg").count() > 0
    assert page.evaluate(SMALLEST_CHART_TEXT) >= 9
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    watch.assert_clean()
