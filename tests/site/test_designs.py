"""Runs of N designs (issue 16): a column per design, every other design against the baseline, where each came from.

The three-design run holds granular, focused and middle (a design a user brought); its variant compares
with focused, which is not its first design; a run of one design has nothing to compare.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace

from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.answer import build_answers
from wismo.sitegen.cases import build_case_pages
from wismo.sitegen.charts import PALETTE, design_colours
from wismo.sitegen.conversation import build_conversation_pages
from wismo.sitegen.overview import build_overview, case_rows
from wismo.sitegen.review_page import build_review_pages

THREE = factories.THREE_DESIGNS


def text(page: str) -> str:
    """A page's text, tags dropped and whitespace folded, for sentences that span elements."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))


def test_the_overview_has_a_column_per_design_and_a_difference_per_other_design():
    page = build_overview(data_for(factories.three_design_site()), None)
    [run] = page.valid_runs
    table = run.headline
    assert table.designs == THREE and table.baseline == "granular"
    # Per other design one column: its paired difference with the interval, its pairs, the changes of the
    # medians, all in one sign convention (other − baseline; below zero the other used less; issue 25).
    assert table.compact and table.comparison_headers == [
        "focused − granular where both answered correctly: median per pair [95 % CI] · pairs · change of the "
        "medians; change over all conversations",
        "middle − granular where both answered correctly: median per pair [95 % CI] · pairs · change of the "
        "medians; change over all conversations"]
    assert table.column_count == 1 + 3 + 2
    total = next(row for row in table.rows if row.label == "Total tokens")
    assert len(total.cells) == 3 and len(total.comparisons) == 2
    for cell in total.comparisons:
        assert re.fullmatch(r"−[\d,]+ \[−[\d,]+, −[\d,]+\]\n19 pairs · medians −[\d.]+ %\n"
                            r"all conversations −[\d.]+ %", cell), cell
    passes = [row for row in table.rows if row.label.startswith("pass^")]
    assert [row.label for row in passes] == ["pass^1", "pass^2", "pass^3"] and all(len(r.cells) == 3 for r in passes)
    assert "focused and granular: 19 of 21; middle and granular: 19 of 21 pairs" in table.interval_note
    assert "with the baseline's (granular)" in table.interval_note


def test_the_answer_names_the_baseline_and_gives_each_other_design_its_difference():
    [answer] = build_answers(data_for(factories.three_design_site()))
    assert [design for design, _ in answer.passed] == THREE
    assert answer.baseline == "granular: focused and middle are compared with it"
    assert [line.split(":")[0] for line in answer.differences] == ["focused − granular", "middle − granular"]
    assert all("over the 19 pairs both answered correctly" in line and "95 % CI" in line
               for line in answer.differences)
    # analysis.headline's words, as `wismo summarize` prints them
    assert answer.lead == ("All 3 designs were equally often right: granular passed 20/21 (95 %), focused 20/21 "
                           "(95 %), middle 20/21 (95 %).")
    assert answer.nothing_to_compare == ""


def test_a_design_right_more_often_leads_a_run_of_three():
    site = factories.three_design_site()
    summary = site["summaries"][0]
    middle = replace(summary.designs[2], passed=21, pass_rate=1.0)
    site["summaries"] = [replace(summary, designs=[*summary.designs[:2], middle])]
    [answer] = build_answers(data_for(site))
    assert answer.pass_rates_differ
    assert answer.lead.startswith("The designs differ in correctness: granular passed 20/21 (95 %), focused 20/21 "
                                  "(95 %), middle 21/21 (100 %). Against granular, middle was right more often; "
                                  "focused was right as often")


def test_each_pair_has_its_own_like_for_like_count():
    site = factories.three_design_site()
    summary = site["summaries"][0]
    pairs = [summary.pairs[0], replace(summary.pairs[1], correct_pairs=0)]
    site["summaries"] = [replace(summary, pairs=pairs)]
    [answer] = build_answers(data_for(site))
    assert "95 % CI" in answer.differences[0]
    assert "no like-for-like comparison" in answer.differences[1] and "CI" not in answer.differences[1]


def test_the_designs_table_says_where_each_design_came_from():
    [run] = build_overview(data_for(factories.three_design_site()), None).valid_runs
    rows = {row.design: row for row in run.sources}
    assert list(rows) == THREE
    assert (rows["granular"].role, rows["focused"].role, rows["middle"].role) == (
        "baseline", "compared with granular", "compared with granular")
    assert rows["middle"].origin == "brought" and rows["granular"].origin == "built in"
    assert rows["middle"].source == "command: python examples/middle/server.py"
    assert rows["middle"].server == "middle-example 1.0.0"
    assert (rows["granular"].tools, rows["focused"].tools, rows["middle"].tools) == ("4 tools", "1 tool", "2 tools")


def test_a_design_reached_by_url_names_the_headers_sent_not_their_values():
    site = factories.three_design_site()
    summary = site["summaries"][0]
    sources = {**summary.run.design_sources, "middle": {
        "command": None, "url": "https://tools.example/mcp", "headers": ["Authorization"], "builtIn": False,
        "serverName": None, "serverVersion": None}}
    run = replace(summary.run, design_sources=sources)
    site["summaries"] = [replace(summary, run=run)]
    site["validations"] = [replace(site["validations"][0], run=run)]
    [overview_run] = build_overview(data_for(site), None).valid_runs
    middle = overview_run.sources[2]
    assert middle.source == "URL: https://tools.example/mcp (headers sent: Authorization)" and middle.server == "–"


def test_runs_recorded_before_design_sources_show_no_designs_table(build):
    [run] = build_overview(data_for(factories.offline_site()), None).valid_runs
    assert run.sources == []
    assert 'id="designs-' not in (build(factories.offline_site()) / "index.html").read_text()


def test_the_overview_names_the_brought_design(build):
    out = build(factories.three_design_site())
    page = text((out / "index.html").read_text())
    assert "Which tool design answers best, and at what cost?" in page
    assert "Also compared: a design brought as its own MCP server, middle." in page
    assert "granular (baseline)" in page


def test_the_deterministic_comparison_covers_every_design_with_the_records_read(build):
    [run] = build_overview(data_for(factories.three_design_site()), None).valid_runs
    assert run.deterministic_designs == THREE and run.deterministic_lookups
    first = run.deterministic[0]
    assert first.bytes == ["1,845", "1,909", "1,947"] and first.interactions == ["6", "1", "2"]
    assert first.lookups == ["6 records read"] * 3
    assert run.deterministic_status == "All 3 designs returned the same evidence for all 7 orders."
    page = text((build(factories.three_design_site()) / "index.html").read_text())
    assert "every order retrieved through all 3 designs' MCP servers" in page
    assert "and the backend records its server read" in page and "6 records read" in page


def test_the_charts_draw_a_series_per_design_each_in_its_own_colour(build):
    out = build(factories.three_design_site())
    page = (out / "index.html").read_text()
    charts = re.findall(r'data-chart="([^"]+)"(.*?)</svg>', page, re.S)
    assert len(charts) == 6  # three charts, each drawn for a desktop and for a phone
    for chart_id, svg in charts:
        fills = {f.upper() for f in re.findall(r'fill="(#[0-9a-fA-F]{6})"', svg)}
        assert set(PALETTE[:3]) <= fills, chart_id
        assert all(design in svg for design in THREE), chart_id


def test_a_design_keeps_its_colour_on_every_chart_of_every_run(build):
    three = factories.three_design_site()
    # A second run of middle and granular, in that order: middle must not take granular's colour there.
    run = factories.run_info("20261201T110000Z-middle-first", designs=["middle", "granular"],
                             tools={**factories.TOOLS, "middle": factories.MIDDLE_TOOLS})
    details = factories.offline_details(run)
    site = {"validations": [*three["validations"], factories.validation(run)],
            "summaries": [*three["summaries"], factories.summarize(run, details)],
            "details_by_run": {**three["details_by_run"], run.run_id: details}}
    colours = design_colours(data_for(site).designs())
    assert colours == {"granular": PALETTE[0], "focused": PALETTE[1], "middle": PALETTE[2]}
    page = (build(site) / "index.html").read_text()
    svg = dict(re.findall(r'data-chart="([^"]+)"(.*?)</svg>', page, re.S))[f"{run.run_id}-turns"]
    fills = {f.upper() for f in re.findall(r'fill="(#[0-9a-fA-F]{6})"', svg)}
    assert {PALETTE[0], PALETTE[2]} <= fills and PALETTE[1] not in fills


def test_design_colours_are_distinct_for_as_many_designs_as_the_palette_holds():
    designs = [f"design-{i}" for i in range(len(PALETTE))]
    assert len(set(design_colours(designs).values())) == len(PALETTE)


def test_the_case_page_puts_the_designs_side_by_side_with_their_difference_from_the_baseline():
    pages = {p.case_id: p for p in build_case_pages(data_for(factories.three_design_site()))}
    page = pages["carrier-delay"]
    [run] = page.runs
    assert [c.design for c in run.columns] == THREE
    assert [c.role for c in run.columns] == ["baseline", "vs granular", "vs granular"]
    granular, focused, middle = run.columns
    assert granular.versus == "The other designs are compared with it."
    assert re.fullmatch(r"passed 3/3, granular 3/3; total tokens −[\d,]+ per repetition \(median over the 3 "
                        r"repetitions both answered correctly\)\.", focused.versus)
    # middle's second repetition gave a wrong estimate: its difference is over the other two.
    assert middle.passed == "2/3 passed"
    assert middle.versus.startswith("passed 2/3, granular 3/3; total tokens −")
    assert middle.versus.endswith("(median over the 2 repetitions both answered correctly).")


def test_no_repetition_both_right_means_no_cost_difference_on_the_case_page():
    site = factories.three_design_site()
    details = site["details_by_run"][factories.THREE_RUN]
    site["details_by_run"] = {factories.THREE_RUN: [
        replace(d, passed=False) if d.case_id == "carrier-delay" and d.design == "focused" else d for d in details]}
    page = {p.case_id: p for p in build_case_pages(data_for(site))}["carrier-delay"]
    assert page.runs[0].columns[1].versus == ("passed 0/3, granular 3/3; no repetition both answered correctly, so "
                                              "no like-for-like cost comparison.")


def test_two_design_runs_get_the_per_case_difference_on_case_pages():
    # Issue 25: a run of two designs says on each case page how the other design did against the baseline.
    page = build_case_pages(data_for(factories.offline_site()))[0]
    (base_role, _), (role, versus) = [(c.role, c.versus) for c in page.columns]
    assert base_role == "baseline" and role == "vs granular"
    assert versus.startswith("passed ") and "total tokens −" in versus


def test_a_baseline_that_is_not_the_first_design_is_the_one_labelled():
    site = factories.baseline_not_first_site()
    data = data_for(site)
    [run] = build_overview(data, None).valid_runs
    assert run.headline.designs == THREE and run.headline.baseline == "focused"
    assert [h.split(" where")[0] for h in run.headline.comparison_headers] == ["granular − focused",
                                                                                "middle − focused"]
    assert [(s.design, s.role) for s in run.sources] == [
        ("granular", "compared with focused"), ("focused", "baseline"), ("middle", "compared with focused")]
    [answer] = build_answers(data)
    assert answer.baseline == "focused: granular and middle are compared with it"
    page = {p.case_id: p for p in build_case_pages(data)}["carrier-delay"]
    assert [c.role for c in page.columns] == ["vs focused", "baseline", "vs focused"]
    assert page.columns[0].versus.startswith("passed 3/3, focused 3/3; total tokens +")


def test_a_two_design_run_whose_baseline_is_second_says_so():
    run = factories.run_info("focused-first", baseline="focused")
    details = factories.offline_details(run)
    site = {"validations": [factories.validation(run)], "summaries": [factories.summarize(run, details)],
            "details_by_run": {run.run_id: details}}
    data = data_for(site)
    [answer] = build_answers(data)
    assert answer.baseline == "focused: granular is compared with it"
    assert "granular − focused" in answer.differences[0]
    assert build_overview(data, None).valid_runs[0].headline.baseline == "focused"


def test_the_model_table_compares_with_each_runs_baseline():
    site = factories.two_run_site()
    three = factories.baseline_not_first_site()
    site = {"validations": [*site["validations"], *three["validations"]],
            "summaries": [*site["summaries"], *three["summaries"]],
            "details_by_run": {**site["details_by_run"], **three["details_by_run"]}}
    page = build_overview(data_for(site), None)
    rows = {(row.run_id, row.design): row.saving for row in page.model_table}
    assert rows[(factories.THREE_RUN, "focused")] == "(baseline)"
    assert rows[(factories.THREE_RUN, "granular")].endswith("vs focused, 19 pairs both right")
    assert rows[(factories.THREE_RUN, "middle")].endswith("vs focused, 19 pairs both right")
    assert rows[("sample-offline", "granular")] == "(baseline)"
    assert not page.model_baseline_first


def test_conversation_pages_link_the_other_designs_in_design_order():
    data = data_for(factories.three_design_site())
    pages = {p.conversation_id: p for p in build_conversation_pages(data)}
    page = pages["carrier-delay.middle.r1"]
    assert [link.text for link in page.others] == ["granular (baseline), repetition 1", "focused, repetition 1"]
    assert [link.text for link in pages["carrier-delay.granular.r1"].others] == [
        "focused, repetition 1", "middle, repetition 1"]


def test_the_case_list_and_the_review_page_cover_every_design():
    data = data_for(factories.three_design_site())
    assert [r.passes for r in case_rows(data) if r.case_id == "carrier-delay"] == [["3/3", "3/3", "2/3"]]
    [review] = build_review_pages(data)
    assert '"designs":["granular","focused","middle"]' in str(review.data)
    members = {m.design for item in review.items for m in item.members}
    assert members == set(THREE)


def test_a_run_of_one_design_builds_a_site_that_says_there_is_nothing_to_compare(build):
    site = factories.one_design_site()
    data = data_for(site)
    [answer] = build_answers(data)
    assert answer.differences == [] and answer.baseline == ""
    assert answer.nothing_to_compare == "Nothing to compare: this run recorded one design (granular)."
    [run] = build_overview(data, None).valid_runs
    assert run.headline.comparison_headers == [] and run.headline.designs == ["granular"]
    assert [s.role for s in run.sources] == ["the only design"]
    out = build(site)
    page = text((out / "index.html").read_text())
    assert "there is no second design to compare with" in page
    assert "Nothing to compare: this run recorded one design (granular)." in page
    assert "This run has one design: there is nothing to compare its evidence with." in page
    assert "No model involved" not in page
    case = (out / "cases" / "carrier-delay.html").read_text()
    assert case.count('<section class="column"') == 1
    conversation = (out / "conversations" / site["validations"][0].run.run_id / "carrier-delay.granular.r1.html")
    assert "Same case and repetition" not in conversation.read_text()


def test_where_a_brought_design_came_from_stays_text(build):
    site = factories.three_design_site()
    summary = site["summaries"][0]
    sources = {**summary.run.design_sources, "middle": {
        "command": ["python", factories.HOSTILE], "url": None, "headers": [], "builtIn": False,
        "serverName": factories.HOSTILE, "serverVersion": "<b>1</b>"}}
    run = replace(summary.run, design_sources=sources)
    site["summaries"] = [replace(summary, run=run)]
    site["validations"] = [replace(site["validations"][0], run=run)]
    page = (build(site) / "index.html").read_text()
    assert "<script>window.__pwned" not in page and "<img src=x" not in page and "<b>1</b>" not in page
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
