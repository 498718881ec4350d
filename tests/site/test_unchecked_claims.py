"""Claims the checker could not check, listed apart on the case and review pages and never counted as findings;
each finding count on the overview links to the review page filtered to its run, design and kind (issue 24)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.site import factories
from tests.site.test_browser import url, wait_for_review

CASE = "tracking-unavailable"
SUMMARY = "Your 2 × USB headset (HEADSET-USB) left the warehouse and should arrive by 2026-10-09."
HOSTILE = '<b id="pwned">keyboard</b>'


def _unchecked() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Two claims it could not check on the failing conversation (as claim_unchecked.sql gives them)."""
    claim = "left the warehouse"
    start = SUMMARY.index(claim)
    return {"sample-offline": {factories.FAILING: [
        {"attempt": 1, "kind": "unwarranted_certainty", "sentence": SUMMARY, "claim": claim,
         "reason": f"'{HOSTILE}' could be KEYBOARD-TKL or KEYBOARD-TKL-BLK", "start": start,
         "end": start + len(claim), "checker_version": 6},
        {"attempt": 1, "kind": "unsupported_date", "sentence": SUMMARY, "claim": "2026-10-09",
         "reason": "'2026-10-09' is one of several dates for A, B; which is whose is not said",
         "start": SUMMARY.index("2026-10-09"), "end": SUMMARY.index("2026-10-09") + 10, "checker_version": 6},
    ]}}


def _site() -> dict[str, Any]:
    """The offline site with the failing conversation's findings and counts that say so (granular: 1 summary)."""
    site = factories.offline_site()
    run = site["summaries"][0].run
    counts = {"granular": {"any": 1, "unsupported_date": 1, "unwarranted_certainty": 1,
                           "unacknowledged_missing_evidence": 1, "unchecked": 1, "checked": 18},
              "focused": {"any": 0, "unchecked": 0, "checked": 18}}
    site["summaries"][0] = factories.summarize(run, site["details_by_run"]["sample-offline"], counts)
    return {**site, "findings_by_run": factories.findings_fixture()}


def _lists(page: str) -> dict[str, str]:
    """The findings list and the could-not-check list of a page, by their aria-label."""
    found = re.findall(r'<ul class="findings[^"]*" aria-label="([^"]+)">(.*?)</ul>', page, re.S)
    return {label: body for label, body in found}


@pytest.mark.parametrize("page", [f"cases/{CASE}.html", "review.html"])
def test_claims_it_could_not_check_are_listed_beside_the_findings_and_escaped(build, page):
    out = build(_site(), unchecked_by_run=_unchecked())
    text = (out / page).read_text()
    lists = _lists(text)
    unchecked = lists["Claims the checker could not check"]
    assert "would be unwarranted certainty" in unchecked and "<q>left the warehouse</q>" in unchecked
    assert "would be unsupported date" in unchecked
    assert "&lt;b id=" in unchecked and HOSTILE not in text  # a reason quoting model-written text stays text
    assert "Could not check (not findings, never counted): 2 claims" in text
    # The findings list is unchanged: three findings, none of them the claims it could not check.
    findings = lists["Claim-check findings"]
    assert findings.count("<li>") == 3 and "would be" not in findings


def test_without_unchecked_claims_no_list_is_shown_and_the_headline_counts_findings_only(build):
    plain = build(_site())
    assert "Claims the checker could not check" not in (plain / f"cases/{CASE}.html").read_text()
    assert "Claims the checker could not check" not in (plain / "review.html").read_text()
    index = (build(_site(), unchecked_by_run=_unchecked()) / "index.html").read_text()
    assert "The claim check flagged 1 of 36 summaries" in index  # 1 flagged: never the unchecked one
    assert "1 summary also holds a claim it could not check." in index


def _finding_links(index: str) -> dict[tuple[str, str], str]:
    """(kind, design) -> the href of its count in the overview's findings table."""
    table = re.search(r'<h3 id="findings-[^"]+">Claim-check findings</h3>(.*?)</table>', index, re.S)
    assert table, "no findings table"
    links = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S):
        kind = re.search(r'title="code: ([\w]+)"', row)
        for design, href in re.findall(r'data-label="(\w+)"><a href="([^"]+)"', row):
            links[(kind.group(1) if kind else "", design)] = html.unescape(href)
    return links


def test_each_finding_count_on_the_overview_links_to_the_review_page_filtered_to_it(build):
    out = build(_site())
    links = _finding_links((out / "index.html").read_text())
    # Every granular count links; focused found nothing, so its "0 of 18" is no link.
    assert set(links) == {("any", "granular"), ("unsupported_date", "granular"),
                          ("unwarranted_certainty", "granular"), ("unacknowledged_missing_evidence", "granular")}
    target = urlsplit(links[("unsupported_date", "granular")])
    assert target.path == "review.html" and (out / target.path).exists()
    assert parse_qs(target.fragment) == {"design": ["granular"], "run": ["sample-offline"],
                                         "finding": ["unsupported_date"]}
    assert parse_qs(urlsplit(links[("any", "granular")]).fragment)["finding"] == ["any"]


@pytest.mark.browser
def test_following_a_finding_count_filters_the_review_page_to_those_summaries(build, open_page):
    site = _site()
    out = build(site, unchecked_by_run=_unchecked())
    watch = open_page()
    page = watch.page
    page.goto(url(out, "index.html"))
    total = len({d.customer_summary for d in site["details_by_run"]["sample-offline"] if d.customer_summary})
    link = page.locator('td[data-label="granular"] a[href*="finding=unsupported_date"]')
    assert link.count() == 1 and link.text_content() == "1 of 18"
    link.click()
    wait_for_review(watch)
    assert Path(urlsplit(page.url).path).name == "review.html"
    form = page.locator("#review-filters")
    assert form.locator("select[name=finding]").input_value() == "unsupported_date"
    assert form.locator("select[name=design]").input_value() == "granular"
    shown = page.locator("article.review-item:visible")
    assert shown.count() == 1  # the failing conversation's text alone, of every text on the page
    assert page.locator("article.review-item").count() > 1 and total > 1
    assert factories.FAILING in shown.first.inner_html()
    assert "Claims the checker could not check" in shown.first.inner_html()
    assert page.locator("#filter-count").text_content().startswith("1 of ")
    watch.assert_clean()
