"""The page builders: what each page dataclass holds, computed from the analysis dataclasses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.site import factories
from wismo.sitegen.cases import build_case_pages
from wismo.sitegen.checks import build_check_report
from wismo.sitegen.context import SiteData, conversation_url, slug
from wismo.sitegen.conversation import build_conversation_pages
from wismo.sitegen.errors import SiteError
from wismo.sitegen.marks import summary_pieces
from wismo.sitegen.overview import build_overview
from wismo.sitegen.review_page import PAGE_SIZE, build_review_pages
from wismo.sitegen.reviews import fold_reviews, load_reviews


def data_for(site, findings=None, reviews=None):
    data = SiteData.create(site["validations"], site["summaries"], site["details_by_run"],
                           findings or site.get("findings_by_run"), None)
    if reviews is not None:
        data.reviews = fold_reviews(reviews, {r: data.details[r] for r in data.valid_ids})
    return data


def test_overview_names_the_offline_provider_as_not_a_language_model():
    page = build_overview(data_for(factories.two_run_site()), None)
    offline, model = page.runs
    assert offline.provider == "scripted, not a language model" and not offline.is_language_model
    assert model.provider == "OpenAI Responses API" and model.model == "gpt-5-mini-2025-08-07"


def test_a_label_without_the_warning_gets_it():
    info = factories.run_info()
    info = type(info)(**{**info.__dict__, "provider_label": "scripted"})
    site = {**factories.offline_site(), "validations": [factories.validation(info)]}
    assert build_overview(data_for(site), None).runs[0].provider == "scripted (scripted, not a language model)"


def test_headline_table_formats_the_summary_figures():
    page = build_overview(data_for(factories.offline_site()), None)
    table = page.valid_runs[0].headline
    rows = {row.label: row for row in table.rows}
    assert table.designs == ["granular", "focused"]
    assert rows["Passed"].cells == ["20/21 (95.2 %)", "20/21 (95.2 %)"]
    assert rows["Statuses"].cells == ["21 answered", "20 answered · 1 answer in the wrong format"]  # words (issue 25)
    assert rows["Turns"].cells == ["3", "2"]
    assert rows["Tool calls"].cells == ["4 (3–6)", "1"]
    summary = factories.offline_site()["summaries"][0]
    tokens = next(c for c in summary.comparisons if c.metric == "totalTokens")
    # One sign convention (issue 25): focused − granular, below zero fewer, with a true minus sign. The paired
    # difference and the change of the medians are over the 19 pairs where both designs answered correctly.
    assert rows["Total tokens"].comparisons[0].endswith("· 19 pairs")
    assert rows["Total tokens"].comparisons[0].startswith("−") and "[" in rows["Total tokens"].comparisons[0]
    assert rows["Total tokens"].comparisons[1] == f"−{tokens.saving_pct:.1f} %"
    assert rows["Total tokens"].comparisons[2] == f"−{tokens.all_saving_pct:.1f} %"
    assert "where both answered correctly" in table.comparison_headers[0]
    assert "all conversations" in table.comparison_headers[2]
    assert not any(cell.startswith("-") for row in table.rows for cell in row.comparisons)
    assert [r.label for r in table.rows if r.label.startswith("pass^")] == ["pass^1", "pass^2", "pass^3"]
    assert "bootstrap" in table.interval_note and "seed 20261130" in table.interval_note


def test_overview_cases_count_passes_per_run_and_design():
    page = build_overview(data_for(factories.two_run_site()), None)
    # Each run is named by its model and what differs from the other run (tests/site/test_run_names.py).
    offline = "scripted-policy-v1 · scripted, not a language model · 3 repetitions"
    model = "gpt-5-mini-2025-08-07 · OpenAI Responses API · 2 repetitions"
    assert page.case_columns == [("granular", offline), ("focused", offline), ("granular", model), ("focused", model)]
    rows = {row.case_id: row for row in page.cases}
    assert rows["tracking-unavailable"].passes == ["2/3", "3/3", "2/2", "2/2"]
    assert rows["payment-declined"].passes == ["3/3", "2/3", "2/2", "2/2"]
    assert rows["carrier-delay"].url == "cases/carrier-delay.html"


def test_overview_has_three_charts_and_the_deterministic_table():
    run = build_overview(data_for(factories.offline_site()), None).valid_runs[0]
    # The scripted policy's time is labelled as what it measures: wismo and the servers, not a model.
    assert [c.title for c in run.charts] == ["Total tokens per conversation",
                                             "Elapsed time per conversation (wismo and the MCP servers, not a model)",
                                             "Turns (model requests) per conversation"]
    assert "granular: median" in run.charts[0].alt_text
    assert run.charts[2].alt_text == ("granular: 21 conversations with 3 turns (1 failed, marked); "
                                      "focused: 21 conversations with 2 turns (1 failed, marked).")
    assert run.deterministic[0].order_id == "ORD-1001" and run.deterministic[0].interactions == ["6", "1"]
    assert run.deterministic_status == "Both designs returned the same evidence for all 7 orders."


def test_a_failing_run_gives_no_figures():
    site = factories.with_failing_run(factories.two_run_site())
    data = data_for(site)
    assert data.invalid_ids == ["broken-run"] and "broken-run" not in data.valid_ids
    page = build_overview(data, None)
    assert [r.card.run_id for r in page.valid_runs] == ["sample-offline", "20261130T101500Z-openai-gpt-5-mini"]
    assert [c.run_id for c in page.invalid_runs] == ["broken-run"]
    assert page.invalid_runs[0].failed_checks == ["claimed_counters_match_traces"]
    for case in build_case_pages(data):
        assert all(column.card.run_id != "broken-run" for column in case.columns)
    assert all(item.run_id != "broken-run" for page in build_review_pages(data) for item in page.items)
    # Its conversations get pages (so the check report's rows can be traced), each flagged as not valid.
    broken = [p for p in build_conversation_pages(data) if p.card.run_id == "broken-run"]
    assert len(broken) == 42 and not any(p.card.valid for p in broken)


def test_a_valid_run_without_a_summary_is_not_shown_either():
    site = factories.two_run_site()
    site = {**site, "summaries": site["summaries"][:1]}
    data = data_for(site)
    assert data.invalid_ids == ["20261130T101500Z-openai-gpt-5-mini"]


def test_duplicate_run_ids_are_refused():
    site = factories.offline_site()
    site = {**site, "validations": site["validations"] * 2}
    with pytest.raises(SiteError, match="more than once"):
        data_for(site)


def test_case_page_groups_repetitions_with_the_same_summary():
    pages = {p.case_id: p for p in build_case_pages(data_for(factories.offline_site()))}
    page = pages["tracking-unavailable"]
    granular, focused = page.columns
    assert [g.count for g in granular.groups] == [2, 1]
    assert [r.repetition for r in granular.groups[0].repetitions] == [1, 3]
    failing = granular.groups[1]
    assert not failing.passed and failing.mismatches == 1
    wrong = [c for c in failing.fields if c.ok is False]
    assert [(c.name, c.value, c.expected) for c in wrong] == [("Missing evidence", "(none)", "tracking:TRK-1005-A")]
    assert [g.count for g in focused.groups] == [3] and granular.passed == "2/3 passed"
    assert page.previous.text == "partial-delivery" and page.next.text == "payment-declined"


def test_case_page_shows_a_conversation_without_summary_by_status():
    page = {p.case_id: p for p in build_case_pages(data_for(factories.offline_site()))}["payment-declined"]
    focused = page.columns[1]
    no_summary = [g for g in focused.groups if not g.has_summary]
    assert len(no_summary) == 1 and no_summary[0].count == 1
    # The parser's reason is shown in place, with what the model wrote.
    assert no_summary[0].no_summary_reason == (
        "No customer summary: the conversation ended with an answer in the wrong format (invalid_answer). The final "
        "text could not be read "
        f"as an answer: {factories.INVALID_REASON}.")
    assert no_summary[0].invalid_text.startswith("Sorry, the tablet's payment was declined")
    assert all(c.ok is None for c in no_summary[0].fields)


def test_case_page_puts_several_runs_side_by_side():
    page = build_case_pages(data_for(factories.two_run_site()))[0]
    offline = "scripted-policy-v1 · scripted, not a language model · 3 repetitions"
    model = "gpt-5-mini-2025-08-07 · OpenAI Responses API · 2 repetitions"
    assert [(c.design, c.model) for c in page.columns] == [
        ("granular", offline), ("focused", offline), ("granular", model), ("focused", model)]
    model_granular = page.columns[2]
    assert [g.count for g in model_granular.groups] == [1, 1]  # r2 wrote a different summary


def test_marks_split_the_summary_into_escaped_pieces():
    text = "Delivered on 2026-10-09 <b>today</b>."
    pieces, notes = summary_pieces(text, [{"kind": "unsupported_date", "start": 13, "end": 23},
                                          {"kind": "other", "start": 20, "end": 30},
                                          {"kind": "nowhere", "start": 5, "end": 999},
                                          {"kind": "no-span"}])
    assert "".join(p.text for p in pieces) == text
    assert [(p.text, p.kinds) for p in pieces] == [
        ("Delivered on ", None), ("2026-10", "unsupported_date"), ("-09", "other, unsupported_date"),
        (" <b>tod", "other"), ("ay</b>.", None)]
    assert [(n.kind, n.located) for n in notes] == [("unsupported_date", True), ("other", True),
                                                    ("nowhere", False), ("no-span", False)]


def test_identical_findings_are_listed_once_with_each_sentence():
    text = "The hub is late. The hub is late again."
    hub = {"kind": "unsupported_delay", "severity": "high", "sku": "HUB-7PORT", "evidence": "TRK-1: in_transit"}
    findings = [{**hub, "sentence": "The hub is late.", "start": 8, "end": 15},
                {**hub, "sentence": "The hub is late again.", "start": 25, "end": 32},
                {**hub, "sentence": "The hub is late again.", "start": 25, "end": 32},  # word for word twice
                {**hub, "sku": "KEYBOARD-TKL", "sentence": "The hub is late.", "start": 8, "end": 15}]
    pieces, notes = summary_pieces(text, findings)
    assert [(n.detail, n.sentences) for n in notes] == [
        ("HUB-7PORT · evidence: TRK-1: in_transit", ("The hub is late.", "The hub is late again.")),
        ("KEYBOARD-TKL · evidence: TRK-1: in_transit", ("The hub is late.",))]
    assert [p.text for p in pieces if p.kinds] == ["is late", "is late"]


def test_every_claim_kind_is_explained_where_kinds_are_listed():
    from analysis.model import CLAIM_KINDS, CLAIM_MEANING
    assert set(CLAIM_MEANING) == set(CLAIM_KINDS) and all(CLAIM_MEANING.values())
    _, notes = summary_pieces("Held at the depot.", [{"kind": "wrong_delay_reason", "start": 0, "end": 17},
                                                     {"kind": "from_a_newer_checker", "start": 0, "end": 4}])
    assert [n.meaning for n in notes] == [CLAIM_MEANING["wrong_delay_reason"], ""]
    site = factories.offline_site()
    site["summaries"][0] = factories.summarize(site["summaries"][0].run, site["details_by_run"]["sample-offline"],
                                               {"granular": {"unsupported_payment": 2, "checked": 14}})
    [row] = build_overview(data_for(site), None).valid_runs[0].findings
    assert (row.kind, row.cells[0], row.meaning) == ("unsupported_payment", "2 of 14",
                                                     CLAIM_MEANING["unsupported_payment"])


def test_claims_it_could_not_check_are_beside_the_findings_never_among_them():
    site = factories.offline_site()
    counts = {"granular": {"unsupported_date": 1, "any": 1, "unchecked": 3, "checked": 14},
              "focused": {"any": 0, "unchecked": 1, "checked": 14}}
    site["summaries"][0] = factories.summarize(site["summaries"][0].run, site["details_by_run"]["sample-offline"],
                                               counts)
    run = build_overview(data_for(site), None).valid_runs[0]
    assert [(r.kind, r.cells) for r in run.findings] == [("any", ["1 of 14", "0 of 14"]),
                                                         ("unsupported_date", ["1 of 14", "0 of 14"])]
    assert run.unchecked == "granular 3 of 14, focused 1 of 14"


def test_findings_reach_case_conversation_and_review_pages():
    data = data_for(factories.offline_site(), findings=factories.findings_fixture())
    case = {p.case_id: p for p in build_case_pages(data)}["tracking-unavailable"]
    group = case.columns[0].groups[1]
    assert [(p.text, p.kinds) for p in group.pieces if p.kinds] == [
        ("should arrive by ", "unwarranted_certainty"), ("2026-10-09", "unsupported_date, unwarranted_certainty")]
    assert [(n.kind, n.severity, n.located) for n in group.findings] == [
        ("unwarranted_certainty", "medium", True), ("unsupported_date", "high", True),
        ("unacknowledged_missing_evidence", "medium", False)]
    assert group.findings[1].detail == "HEADSET-USB · evidence: no carrier estimate for HEADSET-USB"
    conversation = next(p for p in build_conversation_pages(data) if p.conversation_id == factories.FAILING)
    assert any(p.kinds for p in conversation.pieces)
    item = next(i for page in build_review_pages(data) for i in page.items
                if [m.conversation_id for m in i.members] == [factories.FAILING])
    assert any(p.kinds for p in item.pieces)
    # The review item links each finding to the records it concerns, and flags them in the evidence.
    certainty, date, whole = item.findings
    assert certainty.sentence.startswith("Your 2 × USB headset") and certainty.records[0].text == "TRK-1005-A"
    assert [r.text for r in date.records] == ["RSV-1005-A", "TRK-1005-A"]  # named by its item (no ID in the text)
    tracking = next(s for s in item.evidence.sections if s.title == "Tracking").records[0]
    assert tracking.anchor == certainty.records[0].url.lstrip("#") and tracking.unavailable
    assert tracking.flags == ["unwarranted_certainty", "unsupported_date", "unacknowledged_missing_evidence"]
    assert next(s for s in item.evidence.sections if s.title == "Order").records[0].flags == []
    assert not whole.located and whole.sentence == ""


def test_conversation_page_splits_input_into_carried_and_new():
    pages = {p.conversation_id: p for p in build_conversation_pages(data_for(factories.offline_site()))}
    page = pages["partial-delivery.granular.r1"]
    detail = next(d for d in factories.offline_site()["details_by_run"]["sample-offline"]
                  if d.conversation_id == "partial-delivery.granular.r1")
    assert len(page.turns) == 3
    first, second, third = page.turns
    assert first.carried == "0" and first.new == f"{detail.turn_details[0].new_tokens:,}"
    assert second.carried == f"{detail.turn_details[0].input_tokens:,}"
    assert [c.name for c in second.tool_calls] == ["get_payment", "get_reservation", "get_reservation",
                                                   "get_tracking"]
    assert third.final_text is not None and not third.tool_calls
    assert 0 < first.new_width <= 1000 and second.carried_width == first.new_width
    assert first.cached == "not reported" and first.estimated
    assert page.others[0].text == "focused, repetition 1"
    # The transcript prints each tool call and result once: the next model request refers back to them.
    request_two = page.transcript[1].request_items
    sent = [i for i in request_two if i.kind in ("function_call", "function_call_output")]
    assert len(sent) == 2 and all(i.body == "" and i.ref_turn == 1 and i.ref_url == "#call-1-call_1_1" for i in sent)
    [call] = [i.call for i in page.transcript[0].output_items if i.call]
    assert '"orderId": "ORD-1004"' in call.result and call.anchor == "call-1-call_1_1"


def test_conversation_page_of_a_model_run_reports_cached_tokens():
    data = data_for(factories.two_run_site())
    page = next(p for p in build_conversation_pages(data) if p.card.is_language_model)
    assert page.turns[1].cached != "not reported"


def test_conversation_page_shows_uncached_input_and_reasoning_tokens_beside_their_totals():
    site = factories.two_run_site()
    data = data_for(site)
    page = next(p for p in build_conversation_pages(data) if p.card.is_language_model)
    detail = next(d for run in site["details_by_run"].values() for d in run
                  if d.conversation_id == page.conversation_id and d.run_id == page.card.run_id)
    labels = [label for label, _ in page.totals]
    assert labels[labels.index("Input tokens") + 1] == "Uncached input"
    assert labels[labels.index("Output tokens") + 1] == "Reasoning (of output)"
    totals = dict(page.totals)
    assert totals["Uncached input"] == f"{detail.input_tokens - detail.cached_tokens:,}"
    assert totals["Reasoning (of output)"] == f"{detail.reasoning_tokens:,}"
    turn = detail.turn_details[1]
    assert page.turns[1].uncached == f"{turn.input_tokens - turn.cached_tokens:,}"
    assert page.turns[1].reasoning == f"{turn.reasoning_tokens:,}"
    assert "stop reason completed" in page.transcript[1].meta
    assert "answer schema enforced by the API" in page.transcript[1].meta
    # Offline, nothing is reported: said so, not shown as zero.
    offline = next(p for p in build_conversation_pages(data) if not p.card.is_language_model)
    assert dict(offline.totals)["Uncached input"] == "not reported" and offline.turns[0].uncached is None


def test_headline_shows_uncached_input_and_reasoning_rows_with_their_savings():
    table = build_overview(data_for(factories.two_run_site()), None).valid_runs[1].headline
    labels = [row.label for row in table.rows]
    assert labels[labels.index("Input tokens") + 1] == "Uncached input tokens"
    assert labels[labels.index("Output tokens") + 1] == "Reasoning tokens (of output)"
    uncached = next(row for row in table.rows if row.label == "Uncached input tokens")
    assert all(cell != "–" for cell in uncached.cells) and uncached.comparisons[1].endswith("%")


def test_an_encrypted_reasoning_item_is_shown_by_its_size_and_summary():
    site = factories.two_run_site()
    detail = next(d for d in site["details_by_run"][site["validations"][1].run.run_id])
    first = detail.turn_details[0]
    reasoning = {"type": "reasoning", "id": "rs_0001", "encryptedContent": "g" * 2048,
                 "summary": [{"type": "summary_text", "text": "Checking the order first."}]}
    detail.turn_details[0] = type(first)(**{**first.__dict__, "output_items": [reasoning, *first.output_items]})
    page = next(p for p in build_conversation_pages(data_for(site)) if p.conversation_id == detail.conversation_id
                and p.card.run_id == detail.run_id)
    [item] = [i for i in page.transcript[0].output_items if i.kind == "reasoning"]
    assert item.title == "Reasoning rs_0001 (encrypted, 2,048 characters)"
    assert item.body == "Checking the order first." and "g" * 100 not in item.body


def test_identical_texts_with_identical_evidence_are_reviewed_once():
    data = data_for(factories.offline_site())
    [page] = build_review_pages(data)
    # 41 summaries: each case's six conversations say the same and gather the same records, whatever the
    # design, except the failing one (its own text) and the invalid answer (no summary).
    assert (page.total, page.conversations) == (8, 41)
    assert [len(i.members) for i in page.items if i.case_id == "tracking-unavailable"] == [5, 1]
    delivered = next(i for i in page.items if i.case_id == "delivered-on-time")
    assert {m.design for m in delivered.members} == {"granular", "focused"}
    assert [(m.repetition, m.design) for m in delivered.members][:2] in ([(1, "granular"), (1, "focused")],
                                                                        [(1, "focused"), (1, "granular")])
    orders = {tuple(m.design for m in i.members if m.repetition == 1) for i in page.items if len(i.members) == 6}
    assert len(orders) == 2, "the design that comes first must vary, or position gives it away"
    assert "<" not in str(page.data)


def test_the_evidence_has_one_layout_whatever_the_design():
    site = factories.offline_site()
    data = data_for(site)
    by_design = {}
    for design in ("granular", "focused"):
        only = [d for d in site["details_by_run"]["sample-offline"] if d.design == design]
        [page] = build_review_pages(data_for({**site, "details_by_run": {"sample-offline": only}}))
        item = next(i for i in page.items if i.case_id == "partial-delivery")
        by_design[design] = item.evidence
    assert by_design["granular"] == by_design["focused"]
    evidence = by_design["focused"]
    assert [s.title for s in evidence.sections] == ["Order", "Payment", "Reservations", "Tracking"]
    assert [r.record_id for r in evidence.sections[2].records] == ["RSV-1004-A", "RSV-1004-B"]
    assert not evidence.unread and "get_" not in str(evidence)
    missing = next(i for i in build_review_pages(data)[0].items if i.case_id == "missing-warehouse-record")
    assert [(g.kind, g.why) for g in missing.evidence.missing] == [("reservation", "not found")]


def test_review_pages_split_at_page_size():
    site = factories.large_site(2 * PAGE_SIZE + 28)  # 16 repetitions × 14 = 224 summaries, each its own text
    details = [replace(d, customer_summary=f"{d.customer_summary} ({d.conversation_id})")
               for d in site["details_by_run"]["large-run"]]
    pages = build_review_pages(data_for({**site, "details_by_run": {"large-run": details}}))
    assert [len(p.items) for p in pages] == [PAGE_SIZE, PAGE_SIZE, 24]
    assert pages[1].previous.url == "review.html" and pages[1].next.url == "review-3.html"
    assert pages[2].items[0].index == 2 * PAGE_SIZE


def test_review_counts_per_design_after_import(tmp_path):
    from tests.site.test_reviews import entry, write

    site = factories.offline_site()
    details = site["details_by_run"]["sample-offline"]
    granular = [d for d in details if d.design == "granular"][:3]
    raw = [entry("sample-offline", d.conversation_id, d.customer_summary, v)
           for d, v in zip(granular, ["justified", "not_justified", "unsure"], strict=True)]
    raw.append(entry("sample-offline", "carrier-delay.focused.r1", "an older text"))
    data = data_for(site, reviews=load_reviews([write(tmp_path, {"version": 1, "reviews": raw})]))
    counts = {c.design: c for c in build_overview(data, None).valid_runs[0].reviews}
    assert (counts["granular"].justified, counts["granular"].not_justified, counts["granular"].unsure) == (1, 1, 1)
    focused = counts["focused"]
    assert focused.stale == 1 and (focused.justified, focused.not_justified, focused.unsure) == (0, 0, 0)
    assert counts["focused"].summaries == 20
    assert data.verdict("sample-offline", granular[1].conversation_id) == "not justified"


def test_check_report_puts_failing_checks_first_with_their_rows():
    data = data_for(factories.with_failing_run(factories.offline_site()))
    report = build_check_report(data)
    broken = next(r for r in report.runs if r.card.run_id == "broken-run")
    assert not broken.passed
    first = broken.checks[0]
    assert first.name == "claimed_counters_match_traces" and first.status == "fail: 1 offending row"
    assert [[c.text for c in row] for row in first.rows] == [["carrier-delay.focused.r1", "2411", "2390"]]
    assert first.rows[0][0].url == "conversations/broken-run/carrier-delay.focused.r1.html"
    assert first.rows[0][1].url is None
    notice = next(c for c in broken.checks if c.severity == "notice")
    assert notice.passed and notice.status == "pass"


def test_ids_become_safe_distinct_file_names():
    assert slug("sample-offline") == "sample-offline"
    assert slug("../etc/passwd") != slug("..-etc-passwd")
    assert "/" not in slug("../etc/passwd") and not slug("../x").startswith(".")
    assert conversation_url("a/b", "c.granular.r1").count("/") == 2
