"""The conversation timeline (issue 25): requests and tool calls on one time axis, from the trace's timestamps."""

from __future__ import annotations

from dataclasses import replace

from analysis import conversation_details
from tests.helpers import ROOT
from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.cases import build_case_pages
from wismo.sitegen.timeline import timeline

SAMPLE = ROOT / "runs" / "sample-offline"


def _sample(conversation_id: str):
    return next(d for d in conversation_details(SAMPLE) if d.conversation_id == conversation_id)


def test_overlapping_calls_are_drawn_apart_and_said_in_words():
    detail = _sample("partial-delivery.granular.r1")
    drawn = timeline(detail)
    assert drawn is not None
    kinds = [row.kind for row in drawn.rows]
    assert kinds == ["request", "call", "request", "call", "call", "call", "call", "request"]
    calls = [row for row in drawn.rows if row.kind == "call"]
    assert [c.overlapped for c in calls] == [False, True, True, True, True]
    # Placed by their own timestamps: each starts where the trace says, on one axis of 0–1000.
    span = max(t.finished_ms for t in detail.turn_details)
    for row, call in zip(calls, [c for t in detail.turn_details for c in t.tool_calls], strict=True):
        assert abs(row.x - call.started_ms / span * 1000) <= 1
    latencies = sum(c.latency_ms for c in detail.turn_details[1].tool_calls)
    assert "Model request 2's 4 tool calls overlapped" in drawn.overlap
    assert f"add up to {round(latencies)} ms" in drawn.overlap
    assert drawn.rows[2].detail.startswith(f"{detail.turn_details[1].carried_tokens:,} carried + ")
    assert drawn.ticks[0] == "0 ms" and drawn.missing == ""


def test_calls_one_after_another_say_nothing_about_overlap():
    detail = _sample("payment-taken.focused.r1")
    drawn = timeline(detail)
    assert drawn is not None and drawn.overlap == "" and not any(row.overlapped for row in drawn.rows)


def test_a_missing_timestamp_is_said_and_no_timestamps_means_no_timeline():
    detail = _sample("partial-delivery.granular.r1")
    second = detail.turn_details[1]
    broken = replace(second, tool_calls=[replace(second.tool_calls[0], finished_ms=None), *second.tool_calls[1:]])
    drawn = timeline(replace(detail, turn_details=[detail.turn_details[0], broken, *detail.turn_details[2:]]))
    assert drawn is not None and drawn.missing.startswith("1 not drawn")
    assert len(drawn.rows) == 7
    # The factories' conversations hold no timestamps (as a run recorded without them would): no timeline.
    [older] = factories.offline_site()["details_by_run"].values()
    assert timeline(older[0]) is None


def test_a_case_page_compares_the_designs_repetition_by_repetition_on_one_axis():
    site = factories.offline_site()
    run_id = site["summaries"][0].run.run_id
    real = {d.conversation_id: d for d in conversation_details(SAMPLE)}
    # The factory's conversations with the sample run's timestamps where the sample has the same conversation.
    details = [real.get(d.conversation_id, d) for d in site["details_by_run"][run_id]]
    page = next(p for p in build_case_pages(data_for({**site, "details_by_run": {run_id: details}}))
                if p.case_id == "partial-delivery")
    [run] = page.runs
    assert [rep.repetition for rep in run.compare] == [1, 2, 3]
    first = run.compare[0]
    assert first.anchor == "compare-sample-offline-r1" and first.outcome == "both passed"
    assert [c.design for c in first.conversations] == ["granular", "focused"]
    granular, focused = (c.timeline for c in first.conversations)
    assert granular is not None and focused is not None
    assert granular.ticks == focused.ticks  # one axis: the shorter conversation ends short of it
    assert max(r.x + r.width for r in focused.rows) < 1000 - 100


def test_the_typical_case_is_right_in_every_design_and_shows_more_requests_where_some_needed_them():
    from wismo.sitegen.typical import typical_case

    details = conversation_details(SAMPLE)
    info = factories.offline_site()["summaries"][0].run
    drawn = typical_case(replace(info, run_id="sample-offline"), details)
    assert drawn is not None and [d.design for d in drawn.designs] == ["granular", "focused"]
    group = [d for d in details if d.case_id == drawn.case_id and d.repetition == drawn.repetition]
    assert all(d.passed for d in group)
    granular, focused = drawn.designs
    assert len(granular.bars) > len(focused.bars)
    # Request 2 of granular carries request 1's input: its grey part is as wide as request 1's input.
    assert granular.bars[1].carried_width == granular.bars[0].new_width
