"""The answer first: the top of index.html says, per run, the pass rates, the difference on the pairs both
designs answered correctly with its interval, and the warnings, with links to the details below."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from analysis.model import FaultSummary
from tests.site import factories
from tests.site.test_pages import data_for
from tests.site.test_reviews import entry2, write
from wismo.sitegen.answer import build_answers
from wismo.sitegen.reviews import load_reviews


def answer_of(site, **data_args):
    [answer] = build_answers(data_for(site, **data_args))
    return answer


def test_the_answer_holds_pass_rates_and_the_difference_on_both_correct_pairs_with_its_interval():
    answer = answer_of(factories.offline_site())
    assert answer.passed == [("granular", "20/21 (95.2 %)"), ("focused", "20/21 (95.2 %)")]
    [difference] = answer.differences
    summary = factories.offline_site()["summaries"][0]
    tokens = next(c for c in summary.comparisons if c.metric == "totalTokens")
    assert f"over the {tokens.paired_n} pairs both answered correctly" in difference
    assert f"median −{abs(tokens.median_difference):,.0f} per pair" in difference
    assert f"[95 % CI −{abs(tokens.ci_low):,.0f} to −{abs(tokens.ci_high):,.0f}]" in difference
    assert answer.lead.startswith("Both designs were equally often right") and not answer.pass_rates_differ
    assert answer.section_url == "#run-sample-offline"


def test_failures_are_counted_per_design_with_what_they_were():
    texts = [w.text for w in answer_of(factories.offline_site()).warnings]
    # Statuses in plain words (issue 25), the count agreeing with its noun.
    assert "2 conversations failed: granular 1 (1 wrong answer), focused 1 (1 answer in the wrong format)." in texts


def test_a_run_without_claim_check_says_so_and_one_with_findings_counts_them():
    unchecked = answer_of(factories.offline_site())
    assert any("not claim-checked" in w.text for w in unchecked.warnings)
    site = factories.offline_site()
    claims = {"granular": {"checked": 21, "any": 2, "unsupported_date": 2}, "focused": {"checked": 21, "any": 0}}
    site["summaries"] = [replace(site["summaries"][0], claim_findings=claims)]
    [warning] = [w for w in answer_of(site).warnings if "claim" in w.text]
    assert warning.text == "The claim check flagged 2 of 42 summaries (granular 2, focused 0)."
    assert warning.url == "#findings-sample-offline"
    # Claims it could not check are said beside the count and never added to it.
    claims["granular"]["unchecked"], claims["focused"]["unchecked"] = 4, 1
    [warning] = [w for w in answer_of(site).warnings if "claim" in w.text]
    assert warning.text == ("The claim check flagged 2 of 42 summaries (granular 2, focused 0). "
                            "5 summaries also hold claims it could not check.")
    claims["granular"].update({"any": 0, "unsupported_date": 0, "unchecked": 1})
    claims["focused"]["unchecked"] = 0
    [clear] = [w for w in answer_of(site).warnings if "claim" in w.text]
    assert clear.text == ("The claim check flagged none of the 42 summaries. "
                          "1 summary also holds a claim it could not check.") and clear.ok


def test_faults_come_first_and_say_when_they_bias_the_comparison():
    site = factories.offline_site()
    faults = FaultSummary(by_design={"granular": {"provider_error": 3}})
    site["summaries"] = [replace(site["summaries"][0], faults=faults)]
    first = answer_of(site).warnings[0]
    assert first.text.startswith("3 conversations ended in an infrastructure fault (granular 3, focused 0)")
    assert "biased" in first.text and first.url == "#faults-sample-offline"


def test_summaries_reviewed_as_not_justified_are_counted_and_linked_to_the_filtered_review(tmp_path):
    site = factories.offline_site()
    detail = next(d for d in site["details_by_run"]["sample-offline"] if d.conversation_id == factories.FAILING)
    raw = [entry2("sample-offline", detail.conversation_id, detail.customer_summary, "not_justified")]
    reviews = load_reviews([write(tmp_path, {"version": 2, "reviews": raw})])
    no_reviews = answer_of(factories.offline_site())
    assert not any("reviewed" in w.text for w in no_reviews.warnings)
    [warning] = [w for w in answer_of(site, reviews=reviews).warnings if "reviewed" in w.text]
    assert warning.text == "1 summary reviewed as not justified (granular 1, focused 0), of 1 reviewed."
    assert warning.url == "review.html#run=sample-offline&status=not_justified"


def test_no_pair_both_right_means_no_cost_comparison():
    site = factories.offline_site()
    summary = site["summaries"][0]
    site["summaries"] = [replace(summary, pairs=[replace(summary.pairs[0], correct_pairs=0)])]
    [difference] = answer_of(site).differences
    assert "no like-for-like comparison" in difference and "CI" not in difference


class _Ids(HTMLParser):
    """The ids of a page, and the same-page links inside the answer block."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self._depth = 0  # > 0 inside <section class="answer">

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if self._depth:
            self._depth += tag == "section"
        elif tag == "section" and found.get("class") == "answer":
            self._depth = 1
        if self._depth and tag == "a" and (found.get("href") or "").startswith("#"):
            self.links.append(str(found["href"])[1:])

    def handle_endtag(self, tag: str) -> None:
        if self._depth and tag == "section":
            self._depth -= 1


def parsed(out: Path) -> _Ids:
    ids = _Ids()
    ids.feed((out / "index.html").read_text(encoding="utf-8"))
    return ids


@pytest.mark.parametrize("site", [factories.two_run_site, factories.offline_site])
def test_every_link_of_the_answer_block_lands_on_the_page(build, site):
    page = parsed(build(site()))
    assert page.links, "the answer block holds no same-page link"
    assert set(page.links) <= page.ids, set(page.links) - page.ids


def test_the_answer_comes_before_the_results_then_the_reference_and_a_failed_run_is_named_in_it(build):
    html = (build(factories.with_failing_run(factories.two_run_site())) / "index.html").read_text(encoding="utf-8")
    answer = html.index('id="answer"')
    # The answer, then the results, then the reference material (run cards, tools, instructions) (issue 25).
    assert answer < html.index('id="cases"') < html.index('id="run-sample-offline"') < html.index('id="reference"')
    assert html.index('id="reference"') < html.index('id="runs"') < html.index('id="designs"')
    block = html[answer:html.index('id="cases"')]
    assert re.search(r"broken-run.*not presented.*failed validation \(claimed_counters_match_traces\)", block, re.S)
    assert block.count('class="answer-run"') == 2 and block.count('class="answer-run failed"') == 1


def in_viewport(page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


@pytest.mark.browser
@pytest.mark.parametrize("site", [factories.two_run_site, lambda: factories.with_failing_run(factories.two_run_site())])
def test_the_answer_is_in_the_first_viewport_at_1440_by_900(build, open_page, site):
    watch = open_page(viewport=(1440, 900))
    watch.page.goto((build(site()) / "index.html").resolve().as_uri())
    runs = watch.page.locator(".answer-run")
    assert runs.count() == len(site()["validations"])
    for i in range(runs.count()):
        box = runs.nth(i).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900, (i, box)
    # The figures in it are visible text, not only present in the markup.
    assert watch.page.locator(".answer-figures").first.is_visible()
    assert "95 % CI" in watch.page.locator(".answer-run").first.inner_text()
    watch.shot("answer")
    watch.assert_clean()


@pytest.mark.browser
def test_jump_links_reach_each_run_and_come_back(build, open_page):
    watch = open_page(viewport=(1440, 900))
    page = watch.page
    page.goto((build(factories.two_run_site()) / "index.html").resolve().as_uri())
    slug = "20261130T101500Z-openai-gpt-5-mini"
    page.locator(f"#answer-{slug} a").click()
    page.wait_for_function(f"location.hash === '#run-{slug}'")
    heading = in_viewport(page, f"#run-{slug}")
    assert 0 <= heading["y"] < 200, heading  # the run's section starts at the top of the screen
    assert page.evaluate("window.scrollY") > 900
    page.locator(f"a[href='#answer-{slug}']").click()
    page.wait_for_function(f"location.hash === '#answer-{slug}'")
    assert 0 <= in_viewport(page, f"#answer-{slug}")["y"] < 200
    # A warning links to the details it summarises.
    page.locator("#answer-sample-offline ~ .answer-warnings a", has_text="failed").click()
    page.wait_for_function("location.hash === '#run-sample-offline'")
    assert 0 <= in_viewport(page, "#run-sample-offline")["y"] < 200
    watch.assert_clean()


def test_findings_without_a_checked_total_are_still_findings():
    site = factories.two_run_site()
    answers = build_answers(data_for(site))
    model = answers[1]
    [warning] = [w for w in model.warnings if "claim" in w.text]
    assert warning.text == "The claim check flagged 1 summary (granular 1, focused 0)."
    assert warning.url == "#findings-20261130T101500Z-openai-gpt-5-mini"


@pytest.mark.browser
def test_the_answer_fits_a_phone_without_sideways_scrolling(build, open_page):
    watch = open_page(viewport=(390, 844))
    watch.page.goto((build(factories.two_run_site()) / "index.html").resolve().as_uri())
    boxes = watch.page.evaluate("Array.from(document.querySelectorAll('.answer, .answer-run, .answer-run *'))"
                                ".map(e => [e.tagName, e.getBoundingClientRect().right, e.scrollWidth, e.clientWidth])")
    assert len(boxes) > 10
    assert [b for b in boxes if b[1] > 390] == []
    assert [b for b in boxes[:3] if b[2] > b[3]] == []
    watch.assert_clean()


def test_an_all_clear_is_not_shown_as_a_warning():
    site = factories.offline_site()
    claims = {"granular": {"checked": 21, "any": 0}, "focused": {"checked": 21, "any": 0}}
    site["summaries"] = [replace(site["summaries"][0], claim_findings=claims)]
    [clear] = [w for w in answer_of(site).warnings if "claim" in w.text]
    assert clear.text == "The claim check flagged none of the 42 summaries." and clear.ok
    assert not any(w.ok for w in answer_of(factories.offline_site()).warnings)
