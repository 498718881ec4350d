"""The site in Debian's Chromium, opened from file:// with no server: navigation, review, export, re-import.

Screenshots of every step are kept in tests/artifacts/ (git-ignored). Every test asserts that the
pages logged no error and requested nothing but file:// URLs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.site import factories
from tests.site.test_reviews import KEY_TEXTS
from wismo.sitegen.reviews import KEY_PREFIX, load_reviews, review_key, summary_sha

pytestmark = pytest.mark.browser


def url(out: Path, page: str = "index.html") -> str:
    return (out / page).resolve().as_uri()


def wait_for_review(watch) -> None:
    watch.page.wait_for_selector("body[data-review-ready='true']")


def test_end_to_end_overview_case_conversation_review_export_reimport(build, open_page, tmp_path):
    site = factories.two_run_site()
    out = build(site)
    watch = open_page()
    page = watch.page
    page.goto(url(out))
    assert page.title() == "Overview · wismo"
    assert page.locator("text=scripted, not a language model").first.is_visible()
    # each chart drawn twice, for a desktop and for a phone (issue 25); one of each is shown
    assert page.locator("figure svg[data-chart]").count() == 12
    assert sum(svg.is_visible() for svg in page.locator("figure svg[data-chart]").all()) == 6
    watch.shot("1-overview")

    page.click("a[href='cases/tracking-unavailable.html']")
    page.wait_for_url("**/cases/tracking-unavailable.html")
    assert page.locator(".column").count() == 4  # two designs × two runs, side by side
    assert page.locator("td.mismatch").first.is_visible()
    watch.shot("2-case")

    page.click("a[title='Turn diagram and transcript of tracking-unavailable.granular.r2']")
    page.wait_for_url("**/conversations/sample-offline/tracking-unavailable.granular.r2.html")
    assert page.locator("li.turn").count() == 3
    assert page.locator("li.turn svg.bar rect.carried").count() == 3
    watch.shot("3-conversation")

    page.click("nav[aria-label='Site'] >> text=Review")
    page.wait_for_url("**/review.html")
    wait_for_review(watch)
    first = page.locator("article.review-item").first
    first_item, second_item = json.loads(page.locator("#review-data").text_content())["items"][:2]
    page.keyboard.press("j")
    page.keyboard.press("2")  # not justified, for every conversation of the text, then on to the next text
    page.keyboard.press("n")
    page.keyboard.type("the date is made up")
    page.keyboard.press("Escape")
    page.keyboard.press("1")
    assert first.get_attribute("data-verdict") == "not_justified"
    watch.shot("4-review")

    page.reload()
    wait_for_review(watch)
    assert page.locator("article.review-item").first.locator("input[value='not_justified']").is_checked()
    second = page.locator("article.review-item").nth(1)
    assert second.locator("textarea").input_value() == "the date is made up"
    assert second.get_attribute("data-verdict") == "justified"
    assert page.locator("#review-progress").text_content().startswith("2 of 22 texts reviewed")

    with page.expect_download() as download_info:
        page.click("#export-reviews")
    exported = tmp_path / "exported.json"
    download_info.value.save_as(exported)
    document = json.loads(exported.read_text())
    members = len(first_item["members"]) + len(second_item["members"])
    assert document["version"] == 2 and len(document["reviews"]) == members
    by_conversation = {(r["runId"], r["conversationId"]): r for r in document["reviews"]}
    for member in first_item["members"]:
        entry = by_conversation[(first_item["runId"], member["conversationId"])]
        assert entry["verdict"] == "not_justified" and entry["note"] == ""
        assert entry["summarySha"] == summary_sha(first_item["summary"])
        assert entry["key"] == review_key(first_item["runId"], member["conversationId"], entry["summarySha"])
        assert entry["caseId"] == first_item["caseId"] and entry["design"] == member["design"]
    assert set(entry) == {"key", "runId", "conversationId", "caseId", "design", "summarySha", "verdict", "note",
                          "reviewer", "reviewedAt"}

    build(site, out=out, reviews=load_reviews([exported]))
    page.goto(url(out))
    banner = page.locator(".banner.info").text_content()
    assert f"{members} verdicts applied, 0 stale" in banner
    counts = " ".join(page.locator(f"section:has(h2#run-{first_item['runId']}) li").all_text_contents())
    assert sum(int(n) for n in re.findall(r"(\d+) not justified", counts)) == len(first_item["members"])
    watch.shot("5-overview-with-reviews")
    page.goto(url(out, f"cases/{first_item['caseId']}.html"))
    assert page.locator("text=reviewed: not justified").count() == len(first_item["members"])
    # The note shows beside the summary in each column (design) of the conversations it was given for.
    columns = {m["design"] for m in second_item["members"]}
    assert page.locator(".review-note blockquote.note", has_text="the date is made up").count() == len(columns)
    watch.shot("6-case-with-reviews")
    watch.assert_clean()


def test_a_changed_summary_loses_its_verdict(build, open_page):
    site = factories.one_case_site()
    out = build(site)
    watch = open_page()
    watch.page.goto(url(out, "review.html"))
    wait_for_review(watch)
    watch.page.keyboard.press("1")
    members = json.loads(watch.page.locator("#review-data").text_content())["items"][0]["members"]
    changed = {m["conversationId"] for m in members}
    details = [d if d.conversation_id not in changed else type(d)(**{**d.__dict__, "customer_summary": "Changed."})
               for d in site["details_by_run"]["sample-offline"]]
    build({**site, "details_by_run": {"sample-offline": details}}, out=out)
    watch.page.reload()
    wait_for_review(watch)
    first = watch.page.locator("article.review-item").first
    assert first.get_attribute("data-verdict") == ""
    assert not first.locator("input[value='justified']").is_checked()
    watch.assert_clean()


def test_javascript_keys_match_python(build, open_page):
    out = build(factories.one_case_site())
    watch = open_page()
    watch.page.goto(url(out, "review.html"))
    wait_for_review(watch)
    for text in KEY_TEXTS:
        got = watch.page.evaluate("([p, t]) => window.wismoReview.reviewKey(p, 'run-é', 'case.granular.r1', t)",
                                  [KEY_PREFIX, text])
        assert got["summarySha"] == summary_sha(text), text
        assert got["key"] == review_key("run-é", "case.granular.r1", summary_sha(text)), text
    # The plain-JS SHA-256 (for origins without crypto.subtle) agrees too, across block boundaries.
    for text in [*KEY_TEXTS, "x" * 55, "x" * 56, "x" * 64, "é" * 100]:
        assert watch.page.evaluate("t => window.wismoReview.sha256Plain(t)", text) == summary_sha(text), text
    watch.assert_clean()


def test_markup_in_run_text_stays_text(build, open_page):
    out = build(factories.hostile_site())
    watch = open_page()
    page = watch.page
    for name in ("index.html", "cases/delivered-on-time.html", "review.html",
                 "conversations/hostile-run/delivered-on-time.focused.r1.html",
                 "conversations/hostile-run/delivered-on-time.granular.r1.html", "checks.html"):
        page.goto(url(out, name))
        if name == "review.html":
            wait_for_review(watch)
        assert page.evaluate("window.__pwned") is None, name
        assert page.locator("main img").count() == 0, name
        assert page.locator("main script").count() == (1 if name == "review.html" else 0), name
        watch.shot(name.replace("/", "_"))
    page.goto(url(out, "cases/delivered-on-time.html"))
    assert factories.HOSTILE in page.locator("blockquote.summary").first.text_content()
    watch.assert_clean()


def test_pages_are_readable_without_javascript(build, open_page):
    out = build(factories.offline_site())
    watch = open_page(java_script=False)
    page = watch.page
    page.goto(url(out, "review.html"))
    assert page.locator("article.review-item").count() == 8  # 41 summaries, 8 distinct texts
    assert page.locator("blockquote.summary").first.is_visible()
    assert page.locator(".evidence dl.record-fields").first.is_visible()
    assert not page.locator("#export-reviews").is_visible()
    assert page.locator("text=Verdicts need JavaScript").is_visible()
    page.goto(url(out, "cases/partial-delivery.html"))
    assert page.locator("article.group").first.is_visible()
    watch.shot("no-js-case")
    watch.assert_clean()


def test_blind_review_hides_the_design_and_is_remembered(build, open_page):
    out = build(factories.one_case_site())
    watch = open_page()
    page = watch.page
    page.goto(url(out, "review.html"))
    wait_for_review(watch)
    label = page.locator(".design-label").first
    assert label.is_visible()
    page.keyboard.press("b")
    assert not label.is_visible() and not page.locator(".conversation-link").first.is_visible()
    watch.shot("blind")
    page.reload()
    wait_for_review(watch)
    assert page.locator("#blind-toggle").is_checked() and not page.locator(".design-label").first.is_visible()
    page.select_option("select[name=status]", "reviewed")
    assert page.locator("article.review-item:visible").count() == 0
    watch.assert_clean()


def test_filtering_a_case_page(build, open_page):
    out = build(factories.offline_site())
    watch = open_page()
    page = watch.page
    page.goto(url(out, "cases/tracking-unavailable.html"))
    total = page.locator("article.group").count()
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate("document.activeElement.classList.contains('group')")
    assert page.locator("article.group.current").count() == 1
    page.check("input[data-filter-failing]")
    assert page.locator("article.group:visible").count() == 1
    page.uncheck("input[data-filter-failing]")
    page.keyboard.press("/")
    page.keyboard.type("should arrive")
    assert page.locator("article.group:visible").count() == 1
    page.fill("input[data-filter]", "")
    assert page.locator("article.group:visible").count() == total
    watch.assert_clean()
