"""Conversation pages: one word for a model request, every tool call printed once, budget-refused calls shown."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from pathlib import Path

from analysis.model import ConversationDetail
from tests.helpers import WISMO, run_wismo
from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.conversation import build_conversation_pages

PARTIAL = "conversations/sample-offline/partial-delivery.granular.r1.html"


def text_of(page: str) -> str:
    """The page's visible words: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def pre_blocks(page: str) -> list[str]:
    return [html.unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", page, re.S)]


def test_each_tool_call_is_printed_once_with_labelled_arguments_and_result(build):
    out = build(factories.offline_site())
    page = (out / PARTIAL).read_text()
    blocks = pre_blocks(page)
    detail = next(d for d in factories.offline_site()["details_by_run"]["sample-offline"]
                  if d.conversation_id == "partial-delivery.granular.r1")
    calls = [c for t in detail.turn_details for c in t.tool_calls]
    for call in calls:
        arguments = json.dumps(json.loads(call.arguments), indent=2)
        result = json.dumps(json.loads(call.result_text), indent=2, ensure_ascii=False)
        assert blocks.count(arguments) == 1, call.call_id
        assert blocks.count(result) == 1, call.call_id
    # Each full printing carries its labels; later requests link back to it instead of repeating it.
    assert page.count('<p class="part">Arguments</p>') == page.count('<p class="part">Result</p>') == len(calls)
    refs = re.findall(r'<a href="#([^"]+)">printed in full under model request (\d+)</a>', page)
    call_refs = [(anchor, turn) for anchor, turn in refs if anchor.startswith("call-")]
    assert len(call_refs) == 2 * len(calls)  # the call and its result, each sent back once
    for anchor, turn in call_refs:
        assert f'id="{anchor}"' in page and anchor.startswith(f"call-{turn}-")
    # The final text, too, is printed once.
    assert sum(detail.final_text in b for b in blocks) == 1


def test_the_page_calls_a_model_request_a_model_request_throughout(build):
    out = build(factories.two_run_site())
    for path in (PARTIAL, "conversations/sample-offline/payment-declined.focused.r3.html",
                 "conversations/20261130T101500Z-openai-gpt-5-mini/carrier-delay.focused.r2.html"):
        main = (out / path).read_text().split('<main id="main">')[1].split("</main>")[0]
        words = text_of(main)
        # What the model wrote and the tools returned is quoted as it was; the page's own words are checked.
        for block in re.findall(r"<pre>.*?</pre>|<blockquote.*?</blockquote>", main, re.S):
            words = words.replace(text_of(block), " ")
        # So is the run's description of its token counts ("… over the Responses API request").
        words = re.sub(r"\s+", " ", words.replace(factories.run_info().token_counts, " "))
        assert not re.search(r"\bturns?\b", words, re.I), path
        assert not re.search(r"(?<!model )\brequests?\b", words, re.I), (path, re.findall(r".{20}\brequests?", words))
        assert "Model request 1" in words and "Model requests" in words


def refused_detail() -> ConversationDetail:
    """A conversation whose second response asked for three calls with one of two allowed: none of them ran.

    As recorder/agent/loop.py writes it: the calls are only in the response's output items (no tool_call lines),
    the conversation ends budget_exhausted with budgetHit max_tool_calls and the reason in `error`.
    """
    run = factories.run_info(repetitions=1)
    case = next(c for c in run.cases if c["caseId"] == "carrier-delay")
    full = factories.conversation(run, case, "granular", 1)
    turns = full.turn_details[:2]
    turns[1] = replace(turns[1], tool_calls=[])
    return replace(full, status="budget_exhausted", budget_hit="max_tool_calls", passed=False,
                   error="the model asked for 3 more tool call(s) with 1 of 2 used", customer_summary=None,
                   assessment=None, final_text=None, turn_details=turns, turns=2, tool_calls=1)


def test_a_call_refused_by_the_budget_is_shown_in_its_turn_marked_not_run():
    site = factories.offline_site()
    detail = refused_detail()
    site["details_by_run"] = {"sample-offline": [detail]}
    [page] = build_conversation_pages(data_for(site))
    first, second = page.turns
    assert [c.not_run for c in first.tool_calls] == [""]
    assert [c.name for c in second.tool_calls] == ["get_payment", "get_reservation", "get_tracking"]
    assert {c.not_run for c in second.tool_calls} == {"refused: the tool-call budget was used up"}
    assert "3 more asked for, not run" in second.alt_text
    assert dict(page.totals)["Tool calls"] == "1 (+3 not run)"
    printed = [i.call for i in page.transcript[1].output_items if i.call]
    assert [c.call_id for c in printed] == ["call_2_1", "call_2_2", "call_2_3"] and all(c.not_run for c in printed)


def test_a_budget_refusal_recorded_by_wismo_record_reaches_the_page(tmp_path: Path):
    # The real recorder and analysis: the refused calls exist only in the model response's output items.
    done = run_wismo("record", "--out", "runs", "--run-id", "budget", "--repetitions", "1", "--cases",
                     "carrier-delay", "--max-tool-calls", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr + " ".join(WISMO)
    done = run_wismo("build-site", "runs/budget", "--out", "site", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (tmp_path / "site" / "conversations" / "budget" / "carrier-delay.granular.r1.html").read_text()
    diagram = page.split('<h2 id="turns">')[1].split('<h2 id="fields">')[0]
    second = diagram.split("<strong>Model request 2</strong>")[1]
    assert second.count("✗ not run") == 3 and "refused: the tool-call budget was used up" in second
    assert "get_tracking" in second
    transcript = page.split('<h3 id="t2">')[1]
    assert transcript.count('class="item call not-run"') == 3
    assert "Not run: refused: the tool-call budget was used up." in transcript
    assert "Error: the model asked for 3 more tool call(s) with 1 of 2 used." in page


def test_an_invalid_answer_shows_why_it_could_not_be_read(build):
    out = build(factories.offline_site())
    page = (out / "conversations/sample-offline/payment-declined.focused.r3.html").read_text()
    assert (f'<p class="banner">The final text could not be read as an answer: {factories.INVALID_REASON}.</p>'
            in page)


def test_text_and_reasoning_sent_back_as_history_are_not_printed_again():
    # A Responses API model thinks and says something before its tool call; the loop sends both back
    # (text as an assistant message, reasoning as it was) with the next model request.
    site = factories.offline_site()
    detail = next(d for d in site["details_by_run"]["sample-offline"]
                  if d.conversation_id == "carrier-delay.focused.r1")
    reasoning = {"type": "reasoning", "id": "rs_1", "encryptedContent": "x" * 40,
                 "summary": [{"type": "summary_text", "text": "Look the order up first."}]}
    first, second = detail.turn_details
    first = replace(first, output_items=[reasoning, {"type": "text", "text": "Let me check."}, *first.output_items])
    second = replace(second, new_items=[reasoning, {"type": "message", "role": "assistant", "content": "Let me check."},
                                        *second.new_items])
    site["details_by_run"] = {"sample-offline": [replace(detail, turn_details=[first, second])]}
    [page] = build_conversation_pages(data_for(site))
    shown = [(i.kind, i.body) for i in page.transcript[0].output_items if i.kind in ("reasoning", "text")]
    assert shown == [("reasoning", "Look the order up first."), ("text", "Let me check.")]
    sent = page.transcript[1].request_items
    assert [(i.kind, i.body, i.ref_url) for i in sent] == [
        ("reasoning", "", "#t1"), ("assistant", "", "#t1"), ("function_call", "", "#call-1-call_1_1"),
        ("function_call_output", "", "#call-1-call_1_1")]


def test_the_backend_reads_each_call_caused_are_on_the_page(tmp_path: Path):
    # Real servers report their reads in _meta; the page shows them per call and in the totals.
    done = run_wismo("record", "--out", "runs", "--run-id", "reads", "--repetitions", "1", "--cases",
                     "payment-taken", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert run_wismo("build-site", "runs/reads", "--out", "site", cwd=tmp_path).returncode == 0
    pages = tmp_path / "site" / "conversations" / "reads"
    granular = text_of((pages / "payment-taken.granular.r1.html").read_text())
    focused = text_of((pages / "payment-taken.focused.r1.html").read_text())
    # Was my payment taken? granular reads the order, then its payment; focused reads the whole context.
    assert "1 order read" in granular and "1 payment read" in granular
    assert not re.search(r"\d+ (reservations?|tracking records?) read", granular)
    assert re.search(r"Backend lookups\s+2\b", granular), granular
    assert "1 order, 1 payment, 2 reservations, 2 tracking records read" in focused
    assert re.search(r"Backend lookups\s+6\b", focused)


def test_lookups_in_words():
    from wismo.sitegen.conversation import lookups_text

    assert lookups_text(None) == ""
    assert lookups_text({"orders": 1, "payments": 0, "reservations": 2, "tracking": 0, "notFound": 1}) == \
        "1 order, 2 reservations read; 1 not found"
    assert lookups_text({"orders": 0, "payments": 0, "reservations": 0, "tracking": 0, "notFound": 0}) == \
        "nothing read"
