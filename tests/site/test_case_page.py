"""Case pages: an invalid answer's reason in place, and three or more runs that never scroll sideways."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Any

import pytest

from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.cases import build_case_pages

THIRD_RUN = "20261130T120000Z-anthropic-claude"


def three_run_site() -> dict[str, Any]:
    """The two-run site and a third language-model run of another model: six columns for every case."""
    site = factories.two_run_site()
    run = factories.run_info(THIRD_RUN, language_model=True, repetitions=2, model="claude-sonnet-4-6")
    details = factories.model_details(run)
    return {"validations": [*site["validations"], factories.validation(run)],
            "summaries": [*site["summaries"], factories.summarize(run, details)],
            "details_by_run": {**site["details_by_run"], run.run_id: details}}


def test_an_invalid_answer_shows_its_parse_reason_and_text_in_place(build):
    out = build(factories.offline_site())
    page = (out / "cases" / "payment-declined.html").read_text()
    group = page.split('<p class="no-summary">')[1].split("</article>")[0]
    assert html.unescape(group).startswith(
        "No customer summary: the conversation ended with an answer in the wrong format (invalid_answer). The final "
        "text could not be read "
        f"as an answer: {factories.INVALID_REASON}.</p>")
    assert "What the model wrote" in group and "{deliveredSkus: []" in html.unescape(group)
    assert ">r3</a>" in group  # the repetition it is about, linked


def test_invalid_answers_with_different_reasons_are_not_grouped_together():
    site = factories.offline_site()
    details = site["details_by_run"]["sample-offline"]
    other = next(d for d in details if d.conversation_id == "payment-declined.focused.r2")
    details[details.index(other)] = replace(other, status="invalid_answer", passed=False, assessment=None,
                                            customer_summary=None, error="missing field(s): outstandingSkus",
                                            final_text='{"deliveredSkus": []}')
    page = {p.case_id: p for p in build_case_pages(data_for(site))}["payment-declined"]
    reasons = [g.no_summary_reason for g in page.columns[1].groups if not g.has_summary]
    assert len(reasons) == 2
    assert any("missing field(s): outstandingSkus" in r for r in reasons)
    assert any(factories.INVALID_REASON in r for r in reasons)


def test_one_or_two_runs_sit_side_by_side_and_three_are_stacked():
    assert [len(p.runs) for p in build_case_pages(data_for(factories.offline_site()))][:1] == [1]
    two = build_case_pages(data_for(factories.two_run_site()))[0]
    assert len(two.runs) == 2 and not two.stacked
    three = build_case_pages(data_for(three_run_site()))[0]
    assert [r.card.run_id for r in three.runs][-1] == THIRD_RUN and three.stacked
    assert [c.design for c in three.runs[2].columns] == ["granular", "focused"] and len(three.columns) == 6


@pytest.mark.browser
@pytest.mark.parametrize("width", [1440, 1024, 390])
def test_three_runs_never_scroll_sideways(build, open_page, width):
    out = build(three_run_site())
    watch = open_page(viewport=(width, 900))
    page = watch.page
    page.goto((out / "cases" / "payment-declined.html").resolve().as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Neither the page nor anything in it scrolls sideways: the runs stack, the columns wrap.
    scrollers = page.evaluate("""Array.from(document.querySelectorAll('main *'))
        .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
                     && !e.closest('.table-wrap, pre'))
        .map(e => e.tagName + '.' + e.className)""")
    assert scrollers == []
    runs = page.locator(".case-run").all()
    assert len(runs) == 3
    lefts = [round(r.bounding_box()["x"]) for r in runs]
    assert len(set(lefts)) == 1, lefts  # one run per row
    if width == 1440:  # the designs of a run still sit side by side
        first, second = page.locator(".case-run").nth(2).locator(".column").all()
        assert first.bounding_box()["y"] == second.bounding_box()["y"]
    headings = [re.sub(r"\s+", " ", h) for h in page.locator(".run-head").all_text_contents()]
    assert headings[2].startswith("claude-sonnet-4-6") and THIRD_RUN in headings[2]
    watch.shot(str(width))
    watch.assert_clean()
