"""The review page in Debian's Chromium: texts reviewed once, filters in the URL, reviews that survive a rebuild,
blind review that is blind, and a toolbar that never hides the text being reviewed."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from urllib.parse import quote

import pytest

from tests.site import factories
from tests.site.test_browser import url, wait_for_review
from tests.site.test_reviews import entry2, write
from wismo.sitegen.reviews import load_reviews, review_key, summary_sha

pytestmark = pytest.mark.browser
TOOL_NAMES = sorted({tool["name"] for tools in factories.TOOLS.values() for tool in tools})


def open_review(watch, out, fragment=""):
    watch.page.goto(url(out, "review.html") + fragment)
    wait_for_review(watch)
    return watch.page


def items(page):
    return json.loads(page.locator("#review-data").text_content())["items"]


def member_keys(item):
    return [review_key(item["runId"], m["conversationId"], summary_sha(item["summary"])) for m in item["members"]]


def stored(page, key):
    return page.evaluate("k => JSON.parse(localStorage.getItem('wismo.review.v1:' + k))", key)


def visible(page):
    return page.locator("article.review-item:visible").count()


def counter(page):
    return page.locator("#filter-count").text_content()


def download(page, selector, path):
    with page.expect_download() as info:
        page.click(selector)
    info.value.save_as(path)
    return path


def current_id(page):
    return page.evaluate("document.activeElement.id")


def common_summary_details(site):
    """tracking-unavailable's conversations that gave the case's usual summary (all but the failing one)."""
    return [d for d in site["details_by_run"]["sample-offline"]
            if d.case_id == "tracking-unavailable" and d.conversation_id != factories.FAILING]


def with_other_evidence(detail):
    """The same conversation, but the carrier was asked a day later: other evidence, same summary."""
    turn = detail.turn_details[0]
    call = turn.tool_calls[0]
    context = json.loads(call.result_text)
    context["tracking"][0]["checkedAt"] = "2026-10-08T00:00:00+00:00"
    turn = replace(turn, tool_calls=[replace(call, result_text=json.dumps(context))])
    return replace(detail, turn_details=[turn, *detail.turn_details[1:]])


def test_one_verdict_applies_to_every_conversation_of_a_text(build, open_page, tmp_path):
    out = build(factories.one_case_site())
    watch = open_page()
    page = open_review(watch, out)
    first, second = items(page)
    assert len(first["members"]) == 5 and len(second["members"]) == 1
    article = page.locator("article.review-item").first
    assert "Applies to 5 conversations" in article.text_content()
    page.keyboard.press("j")
    page.keyboard.press("1")
    assert [stored(page, key)["verdict"] for key in member_keys(first)] == ["justified"] * 5
    assert article.locator(".verdict-saved").text_content() == "Saved: justified for all 5 conversations."
    assert current_id(page) == "item-1"  # a verdict key moves on to the next text...
    page.uncheck("#advance-toggle")
    page.locator("article.review-item").nth(1).focus()
    page.keyboard.press("3")
    assert current_id(page) == "item-1"  # ...unless advancing is turned off
    assert page.locator("#review-progress").text_content() == "2 of 2 texts reviewed (6 of 6 conversations)"
    document = json.loads(download(page, "#export-reviews", tmp_path / "r.json").read_text())
    assert sorted(r["verdict"] for r in document["reviews"]) == ["justified"] * 5 + ["unsure"]
    page.reload()
    wait_for_review(watch)
    assert not page.locator("#advance-toggle").is_checked()  # remembered
    assert article.locator("input[value='justified']").is_checked()
    watch.assert_clean()


def test_conflicting_verdicts_are_flagged_on_the_review_and_case_pages(build, open_page, tmp_path):
    site = factories.one_case_site()
    reviewed = common_summary_details(site)
    verdicts = ["justified", "not_justified", "justified", "not_justified", "justified"]
    path = write(tmp_path, {"version": 2, "reviews": [
        entry2("sample-offline", d.conversation_id, d.customer_summary, v) for d, v in zip(reviewed, verdicts,
                                                                                            strict=True)]})
    out = build(site, reviews=load_reviews([path]))
    watch = open_page()
    page = open_review(watch, out)
    article = page.locator("article.review-item").first
    assert article.get_attribute("data-verdict") == "conflict"
    assert article.locator(".conflict").text_content() == \
        "Conflicting verdicts for this text: justified (3), not justified (2)."
    assert article.locator("input[type=radio]:checked").count() == 0
    page.select_option("select[name=status]", "conflict")
    assert visible(page) == 1
    page.goto(url(out, "cases/tracking-unavailable.html"))
    flags = page.locator(".conflict").all_text_contents()
    assert flags and all("justified for 3 conversations, not justified for 2 conversations" in f for f in flags)

    page = open_review(watch, out)
    page.keyboard.press("j")
    page.keyboard.press("2")  # one verdict for the whole text settles it
    assert article.get_attribute("data-verdict") == "not_justified" and not article.locator(".conflict").is_visible()
    watch.assert_clean()


def test_the_same_text_judged_otherwise_where_the_evidence_differed_is_flagged(build, open_page):
    site = factories.one_case_site()
    details = [with_other_evidence(d) if d.conversation_id == "tracking-unavailable.focused.r3" else d
               for d in site["details_by_run"]["sample-offline"]]
    out = build({**site, "details_by_run": {"sample-offline": details}})
    watch = open_page()
    page = open_review(watch, out)
    groups = items(page)
    [alone] = [i for i in groups if [m["conversationId"] for m in i["members"]] == ["tracking-unavailable.focused.r3"]]
    [usual] = [i for i in groups if len(i["members"]) == 4]
    assert alone["summary"] == usual["summary"] and alone["siblings"][0]["index"] == usual["index"]
    page.locator(f"#item-{usual['index']}").focus()
    page.keyboard.press("1")
    page.locator(f"#item-{alone['index']}").focus()
    page.keyboard.press("2")
    flag = page.locator(f"#item-{alone['index']} .conflict")
    assert flag.is_visible()
    assert flag.text_content() == (f"The same summary, with other evidence, was judged justified (4) in text "
                                   f"{usual['index'] + 1}.")
    assert flag.locator("a").get_attribute("href") == f"#item-{usual['index']}"
    watch.assert_clean()


FILTERS = [  # control, value, conversations and texts shown of 69 and 22 (two runs, findings on one text)
    ("design", "focused", 34, 14),
    ("run", "20261130T101500Z-openai-gpt-5-mini", 28, 14),
    ("case", "carrier-delay", 10, 3),
    ("result", "failed", 1, 1),
    ("finding", "unsupported_date", 1, 1),
    ("finding", "none", 68, 21),
    ("q", "thanks for waiting", 7, 7),
]


def test_each_filter_is_kept_in_the_url_and_a_link_reproduces_the_view(build, open_page):
    out = build(factories.two_run_site(), findings_by_run=factories.findings_fixture())
    watch = open_page()
    page = open_review(watch, out)
    assert counter(page) == "All 22 texts shown (69 conversations)."
    kinds = page.locator("select[name=finding] option").all_text_contents()
    # The kinds offered are those in the data, not a fixed list.
    assert kinds == ["all", "any finding", "no finding", "unacknowledged_missing_evidence", "unsupported_date",
                     "unwarranted_certainty"]
    for name, value, conversations, texts in FILTERS:
        if name == "q":
            page.fill("input[name=q]", value)
        else:
            page.select_option(f"select[name={name}]", value)
        expected = f"{conversations} of 69 conversations shown ({texts} of 22 texts)."
        assert counter(page) == expected, (name, value)
        assert visible(page) == texts
        fragment = page.evaluate("location.hash")
        assert fragment == f"#{name}={quote(value, safe='').replace('%20', '+')}", fragment
        other = open_page()  # a link opened elsewhere shows the same view
        linked = open_review(other, out, fragment)
        assert counter(linked) == expected and visible(linked) == texts
        assert linked.locator(f"[name={name}]").input_value() == value
        other.assert_clean()
        page.click("#review-filters button[type=reset]")
        assert page.evaluate("location.hash") == "" and visible(page) == 22

    page.keyboard.press("j")
    page.keyboard.press("2")
    page.select_option("select[name=status]", "not_justified")
    assert visible(page) == 1 and page.evaluate("location.hash") == "#status=not_justified"
    page.select_option("select[name=status]", "unreviewed")
    assert visible(page) == 21
    # Blind review hides the design filter and ignores it: it would tell the design.
    page.select_option("select[name=status]", "")
    page.select_option("select[name=design]", "focused")
    assert visible(page) == 14
    page.keyboard.press("b")
    assert not page.locator("select[name=design]").is_visible() and visible(page) == 22
    watch.assert_clean()


def test_a_note_without_a_verdict_is_exported_and_comes_back_in_the_next_build(build, open_page, tmp_path):
    site = factories.one_case_site()
    out = build(site)
    watch = open_page()
    page = open_review(watch, out)
    page.click("#export-reviews")
    assert page.locator("#export-status").text_content().startswith("Nothing to export yet")
    page.fill("#reviewer-name", "Ada")
    page.locator("article.review-item").first.focus()  # keys typed in the name field would be part of the name
    page.keyboard.press("n")
    page.keyboard.type("ask the carrier first")
    page.keyboard.press("Escape")
    exported = json.loads(download(page, "#export-reviews", tmp_path / "notes.json").read_text())
    assert page.locator("#export-status").text_content() == "Exported 5 reviews (5 notes without a verdict)."
    assert {(r["verdict"], r["note"], r["reviewer"]) for r in exported["reviews"]} == {
        (None, "ask the carrier first", "Ada")}
    csv_path = download(page, "#export-csv", tmp_path / "notes.csv")
    assert [e.to_json() for e in load_reviews([csv_path])] == [e.to_json() for e in load_reviews([tmp_path /
                                                                                                   "notes.json"])]

    build(site, out=out, reviews=load_reviews([csv_path]))
    fresh = open_page()  # a fresh profile: nothing in localStorage
    page = open_review(fresh, out)
    article = page.locator("article.review-item").first
    assert article.locator("textarea").input_value() == "ask the carrier first"
    assert article.get_attribute("data-imported") == "true"
    assert article.locator(".verdict-saved").text_content() == "Imported note; no verdict yet."
    note = article.locator(".review-note").text_content()
    assert "note without a verdict" in note and "Ada" in note and "notes.csv" in note
    # Exporting from the rebuilt page keeps what was imported: nothing is lost between builds.
    again = json.loads(download(page, "#export-reviews", tmp_path / "again.json").read_text())
    assert [r["note"] for r in again["reviews"]] == ["ask the carrier first"] * 5
    page.goto(url(out, "cases/tracking-unavailable.html"))
    assert page.locator(".review-note", has_text="ask the carrier first").count() == 2  # both designs' columns
    fresh.assert_clean()
    watch.assert_clean()


def test_imported_verdicts_and_notes_show_in_a_fresh_browser_and_on_the_overview(build, open_page, tmp_path):
    site = factories.offline_site()
    delayed = [d for d in site["details_by_run"]["sample-offline"] if d.case_id == "carrier-delay"]
    path = write(tmp_path, {"version": 2, "reviews": [
        entry2("sample-offline", d.conversation_id, d.customer_summary, "not_justified", reviewer="Bo",
               note="the delay reason is not in the evidence") for d in delayed]})
    out = build(site, reviews=load_reviews([path]))
    watch = open_page()
    page = open_review(watch, out)
    article = page.locator("article.review-item", has_text="carrier-delay")
    assert article.locator("input[value='not_justified']").is_checked()
    assert article.locator("textarea").input_value() == "the delay reason is not in the evidence"
    assert article.locator(".verdict-saved").text_content() == "Imported: not justified for all 6 conversations."
    assert "Bo, 2026-11-30 10:00:00 UTC" in article.locator(".review-note").text_content()
    page.select_option("select[name=status]", "imported")
    assert visible(page) == 1

    page.goto(url(out))
    section = page.locator("section:has(h2#not-justified)")
    assert "Your 4K webcam (WEBCAM-4K) is on the way" in section.text_content()
    assert "the delay reason is not in the evidence" in section.text_content() and "Bo" in section.text_content()
    section.locator("a[href='review.html#status=not_justified']").click()
    wait_for_review(watch)
    assert visible(page) == 1 and page.locator("select[name=status]").input_value() == "not_justified"
    page.goto(url(out, "conversations/sample-offline/carrier-delay.focused.r2.html"))
    assert page.locator(".review-note", has_text="the delay reason is not in the evidence").is_visible()
    watch.assert_clean()


def test_blind_review_shows_no_tool_name_no_result_count_and_no_design(build, open_page, tmp_path):
    site = factories.one_case_site()
    failing = next(d for d in site["details_by_run"]["sample-offline"] if d.conversation_id == factories.FAILING)
    turn = failing.turn_details[1]
    errored = replace(turn.tool_calls[-1], result_text="get_tracking failed: carrier timeout", is_error=True)
    turn = replace(turn, tool_calls=[*turn.tool_calls[:-1], errored])
    details = [replace(failing, turn_details=[failing.turn_details[0], turn, *failing.turn_details[2:]])
               if d is failing else d for d in site["details_by_run"]["sample-offline"]]
    reviewed = common_summary_details(site)[0]
    path = write(tmp_path, {"version": 2, "reviews": [entry2("sample-offline", reviewed.conversation_id,
                                                             reviewed.customer_summary, "unsure", note="hmm")]})
    out = build({**site, "details_by_run": {"sample-offline": details}}, reviews=load_reviews([path]))
    watch = open_page()
    page = open_review(watch, out)
    text = page.evaluate("document.body.innerText")
    assert "granular" in text and "get_tracking failed" in text  # what blind review must hide is there

    page.keyboard.press("b")
    text = page.evaluate("document.body.innerText")
    for word in [*TOOL_NAMES, *factories.DESIGNS, "get_"]:
        assert word not in text, word
    assert not re.search(r"tool[ -]?results?|\d+\s+(tool|call|result)", text, re.IGNORECASE)
    assert "Some results held no record" in text
    titles = page.evaluate("Array.from(document.querySelectorAll('[title], [aria-label]'))"
                           ".filter(e => e.offsetParent !== null)"
                           ".map(e => (e.title || '') + ' ' + (e.getAttribute('aria-label') || ''))")
    assert not [t for t in titles if any(w in t for w in [*TOOL_NAMES, *factories.DESIGNS])], titles
    # Both texts lay their evidence out in the same sections, whichever tools gathered it.
    headings = [a.locator("h4:visible").all_text_contents() for a in page.locator("article.review-item").all()]
    assert headings[0] == headings[1] == ["Order", "Payment", "Reservations", "Tracking", "Missing"]
    watch.assert_clean()


@pytest.mark.parametrize("viewport", [(1440, 900), (390, 844)])
def test_the_toolbar_never_covers_the_text_being_reviewed(build, open_page, viewport):
    out = build(factories.offline_site(), findings_by_run=factories.findings_fixture())
    watch = open_page(viewport=viewport)
    page = open_review(watch, out)
    toolbar = page.locator("#review-toolbar")
    if viewport[0] < 600:
        assert toolbar.bounding_box()["height"] <= 80, "the phone toolbar must stay compact"
    for step in range(6):
        page.keyboard.press("j" if step < 4 else "1")
        bar = toolbar.bounding_box()
        heading = page.locator("article.review-item.current h2").bounding_box()
        assert heading["y"] >= bar["y"] + bar["height"], (step, bar, heading)
        assert heading["y"] + heading["height"] <= viewport[1], (step, heading)
    watch.shot(f"{viewport[0]}")
    watch.assert_clean()


def test_the_review_page_fits_a_phone(build, open_page, tmp_path):
    site = factories.two_run_site()
    detail = site["details_by_run"]["sample-offline"][0]
    path = write(tmp_path, {"version": 2, "reviews": [entry2(
        "sample-offline", detail.conversation_id, detail.customer_summary, "not_justified", reviewer="A" * 80,
        note="a-very-long-word-without-spaces-" * 8)]})
    out = build(site, reviews=load_reviews([path]), findings_by_run=factories.findings_fixture())
    watch = open_page(viewport=(390, 844))
    page = open_review(watch, out)
    for blind in (False, True):
        if blind:
            page.keyboard.press("b")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (blind, width)
    watch.shot("phone")
    watch.assert_clean()
