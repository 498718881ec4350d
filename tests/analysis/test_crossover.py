"""The crossover view (issue 15 §4): SQL rows against the trace, the sentence, summarize --crossover, the site.

One generated dataset (orders of 1, 2, 5 and 10 lines, every question kind) recorded offline once per module:
at 10 lines the scripted granular policy runs out of tool calls on the full question (budget 20), so the
view has a failing point to report.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.costs import Pricing, costs_of_run
from analysis.crossover import (
    crossover_json,
    crossover_of_runs,
    crossover_view,
    crossover_words,
    kind_name,
    shows_crossover,
)
from analysis.db import RunDatabase
from analysis.model import CROSSOVER_MEASURES, CrossoverPoint
from analysis.prices import PriceBook
from recorder.generate import write_dataset
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import events_of, live_finished
from wismo.cli import cli
from wismo.cli._tables import WIDTH

G, F = "granular", "focused"
SIZES = (1, 2, 5, 10)
SAMPLE = Path(__file__).resolve().parents[2] / "runs" / "sample-offline"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    dataset = tmp_path_factory.mktemp("dataset")
    write_dataset(dataset, seed=7, sizes=SIZES, orders_per_size=1)
    return dataset


@pytest.fixture(scope="module")
def study(tmp_path_factory, generated) -> Path:
    options = RecordOptions(repetitions=1, out_dir=tmp_path_factory.mktemp("runs"), run_id="study",
                            concurrency=2, dataset_dir=generated)
    return asyncio.run(record(options)).run_dir


def _trace_groups(run_dir: Path, dataset: Path) -> dict[tuple[str, str, int], dict[str, list[float]]]:
    """(design, kind, order lines) -> per measure the values of its conversations, from events.jsonl and the
    dataset's records (not the manifest, which the SQL reads)."""
    events = events_of(run_dir)
    finished = live_finished(run_dir)
    records = json.loads((dataset / "records.json").read_text(encoding="utf-8"))
    size_of_order = {order["orderId"]: len(order["items"]) for order in records["orders"]}
    started = {e["conversationId"]: e for e in events if e["type"] == "conversation_started"}
    groups: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for conversation_id, done in finished.items():
        start = started[conversation_id]
        mine = [e for e in events if e.get("conversationId") == conversation_id and e.get("attempt") == done["attempt"]]
        responses = [e for e in mine if e["type"] == "model_response"]
        results = [e for e in mine if e["type"] == "tool_result"]
        values = groups[(start["design"], kind_name(start["asks"]), size_of_order[start["orderId"]])]
        values["passed"].append(1.0 if done["score"]["passed"] else 0.0)
        values["turns"].append(len(responses))
        values["toolCalls"].append(sum(1 for e in mine if e["type"] == "tool_call"))
        values["totalTokens"].append(sum(e["usage"]["inputTokens"] + e["usage"]["outputTokens"] for e in responses))
        values["elapsedMs"].append(done["claimed"]["elapsedMs"])
        values["backendLookups"].append(sum(v for e in results for k, v in e["lookups"].items() if k != "notFound"))
    return groups


def test_each_point_is_the_median_and_pass_rate_of_its_conversations_in_the_trace(study, generated):
    groups = _trace_groups(study, generated)
    [view] = crossover_of_runs([study])
    assert view.sizes == SIZES and view.unsized_conversations == 0
    assert view.kinds == ("full", "has everything arrived", "when will the rest arrive", "was my payment taken")
    assert {(p.design, p.kind, p.order_lines) for p in view.points} == set(groups)
    # each kind's points from the smallest order to the largest, designs in the manifest's order
    assert [(p.order_lines, p.design) for p in view.points if p.kind == "full"] == \
        [(size, design) for size in SIZES for design in (G, F)]
    for point in view.points:
        trace = groups[(point.design, point.kind, point.order_lines)]
        assert point.conversations == len(trace["passed"])
        assert point.pass_rate == statistics.mean(trace["passed"])
        for measure in CROSSOVER_MEASURES[:-1]:
            assert point.medians[measure] == pytest.approx(statistics.median(trace[measure])), (point, measure)
        assert point.medians["costUsd"] is None  # not priced
    # the failing point the budget makes: the full question on the 10-line order, granular
    [failing] = [p for p in view.points if p.pass_rate < 1]
    assert (failing.design, failing.kind, failing.order_lines, failing.budget_stopped) == (G, "full", 10, 1)
    assert view.failures["full"] == ("Not every 'full' conversation passed: granular passed 0 % at 10 lines "
                                     "(1 of 1 stopped by a budget).")


def test_money_is_priced_per_point_only_when_asked_and_unknown_otherwise(study):
    [view] = crossover_of_runs([study], Pricing(PriceBook(), "gpt-5-mini"))
    assert view.money_estimated and "gpt-5-mini" in view.money_note
    costs = defaultdict(list)
    cases = {c["caseId"]: c for c in json.loads((study / "manifest.json").read_text())["cases"]}
    for c in costs_of_run(study, PriceBook(), price_as="gpt-5-mini"):
        costs[(c.design, kind_name(cases[c.case_id]["asks"]), cases[c.case_id]["orderLines"])].append(float(c.cost.usd))
    for point in view.points:
        assert point.medians["costUsd"] == pytest.approx(statistics.median(costs[(point.design, point.kind,
                                                                                   point.order_lines)]))
    assert any(c.measure == "costUsd" for c in view.crossovers)
    [view] = crossover_of_runs([study], Pricing(PriceBook()))
    assert all(p.medians["costUsd"] is None for p in view.points)
    assert not any(c.measure == "costUsd" for c in view.crossovers)
    assert view.money_note.startswith("money: unknown (")


def _points(kind: str, figures: dict[int, tuple[float, float]], passes: dict[tuple[str, int], float] | None = None,
            measure: str = "totalTokens") -> list[CrossoverPoint]:
    """Planted points: order lines -> (granular's median, focused's median)."""
    passes = passes or {}
    return [CrossoverPoint(design, kind, ("paymentStatus",), size, 4, round(4 * passes.get((design, size), 1.0)),
                           passes.get((design, size), 1.0), 0, {measure: figures[size][index]})
            for size in figures for index, design in enumerate((G, F))]


def test_the_sentence_names_the_size_where_the_cheaper_design_changes():
    points = _points("was my payment taken", {1: (900, 1000), 2: (950, 1100), 5: (1000, 1200),
                                               10: (1400, 1300), 50: (2000, 1500)})
    crossover = crossover_words("was my payment taken", "totalTokens", (G, F), points)
    assert crossover.sentence == ("granular uses fewer total tokens for 'was my payment taken' questions on orders "
                                  "up to 5 lines; focused from 10 lines.")
    assert crossover.crossings == (10,) and crossover.sizes == (1, 2, 5, 10, 50)


def test_one_design_using_less_everywhere_is_said_so():
    points = _points("full", {1: (900, 800), 10: (1900, 1200), 50: (5000, 1500)})
    crossover = crossover_words("full", "totalTokens", (G, F), points)
    assert crossover.sentence == ("focused uses fewer total tokens for 'full' questions at every size measured "
                                  "(1–50 lines).")
    assert crossover.crossings == ()


def test_a_design_that_uses_less_but_fails_more_wins_no_size():
    points = _points("full", {1: (900, 1000), 10: (700, 1200)}, passes={(G, 10): 0.0})
    crossover = crossover_words("full", "totalTokens", (G, F), points)
    assert crossover.sentence == ("Which design uses fewer total tokens for 'full' questions: granular at 1 line; "
                                  "neither (granular is lower but passed fewer) at 10 lines.")
    assert crossover.crossings == ()


def test_sizes_where_one_design_has_no_figure_are_left_out():
    points = _points("full", {1: (900, 1000), 5: (1200, 1000)})
    points = [p for p in points if not (p.design == F and p.order_lines == 5)]
    crossover = crossover_words("full", "totalTokens", (G, F), points)
    assert crossover.sizes == (1,)
    assert crossover.sentence == ("granular uses fewer total tokens for 'full' questions at the only size "
                                  "measured (1 line).")


def test_equal_figures_everywhere_are_said_so():
    points = _points("full", {1: (3, 3), 2: (5, 5)}, measure="backendLookups")
    crossover = crossover_words("full", "backendLookups", (G, F), points)
    assert crossover.sentence == ("Both designs use the same backend lookups for 'full' questions at every size "
                                  "measured (1–2 lines).")


def test_question_kinds_are_named_from_their_fields():
    assert kind_name(["paymentStatus"]) == "was my payment taken"
    assert kind_name(["outstandingSkus", "deliveredSkus"]) == "has everything arrived"  # order does not matter
    assert kind_name(["delayReasons", "paymentStatus"]) == "delayReasons + paymentStatus"


def run_without_order_sizes(tmp_path: Path) -> Path:
    """A copy of the committed sample as a run recorded before manifests named each case's order lines."""
    run = tmp_path / "sample-offline"
    shutil.copytree(SAMPLE, run, ignore=shutil.ignore_patterns("logs"))
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert all(case.pop("orderLines") for case in manifest["cases"])  # the sample has them: remove them
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def test_a_run_without_order_sizes_shows_no_crossover(tmp_path):
    older = run_without_order_sizes(tmp_path)
    with RunDatabase(older) as db:
        view = crossover_view(db)
    assert view.points == [] and not shows_crossover(view)
    assert view.unsized_conversations == len(live_finished(older))


def test_summarize_crossover_prints_a_table_per_kind_in_100_columns_and_json(study):
    result = CliRunner().invoke(cli, ["summarize", str(study), "--crossover"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    for kind in ("'full' questions", "'was my payment taken' questions"):
        assert kind in lines
    header = next(line for line in lines if line.startswith("lines  design"))
    assert header.split() == ["lines", "design", "convs", "pass", "%", "tokens", "time", "ms", "turns", "calls",
                              "lookups", "cost", "USD"]
    assert "   10  granular      1       0" in result.output  # the failing point, with its pass rate
    assert "(1 of 1 stopped by a budget)" in " ".join(result.output.split())
    [view] = crossover_of_runs([study])
    for crossover in view.crossovers:
        # wrapped at 100 columns: compare with the line breaks taken out
        assert " ".join(crossover.sentence.split()) in " ".join(result.output.split())
    documents = json.loads(CliRunner().invoke(cli, ["summarize", str(study), "--crossover", "--json"]).output)
    # summarize prices every run (here: unknown, estimated tokens)
    [view] = crossover_of_runs([study], Pricing(PriceBook()))
    assert documents[0]["crossover"] == json.loads(json.dumps(crossover_json(view)))
    assert documents[0]["crossover"]["shown"] is True
    plain = json.loads(CliRunner().invoke(cli, ["summarize", str(study), "--json"]).output)
    assert "crossover" not in plain[0]


def test_the_site_shows_the_section_with_a_chart_per_measure_and_the_words(study, tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build-site", str(study), "--out", str(out), "--price-as", "gpt-5-mini",
                                      "--jobs", "1"])
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text()
    assert 'id="crossover-study"' in page
    for measure in CROSSOVER_MEASURES:
        assert f'data-chart="crossover-0-{measure}"' in page
    [view] = crossover_of_runs([study])
    for crossover in view.crossovers:
        assert crossover.sentence.replace("'", "&#39;") in page
    assert "(1 of 1 stopped by a budget)" in page
    assert page.count("<summary class=\"small\">Every figure of") == len(view.kinds)


def test_the_site_has_no_section_for_a_run_without_order_sizes(tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build-site", str(run_without_order_sizes(tmp_path)), "--out", str(out),
                                      "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert 'id="crossover-' not in (out / "index.html").read_text()


def test_the_manifest_stores_each_case_s_order_lines(study, generated):
    records = json.loads((generated / "records.json").read_text(encoding="utf-8"))
    lines = {order["orderId"]: len(order["items"]) for order in records["orders"]}
    cases = json.loads((study / "manifest.json").read_text(encoding="utf-8"))["cases"]
    assert {c["orderLines"] for c in cases} == set(SIZES)
    assert all(c["orderLines"] == lines[c["orderId"]] for c in cases)


def test_several_runs_get_a_section_each_and_runs_on_other_datasets_are_refused(study, generated, tmp_path):
    options = RecordOptions(repetitions=1, out_dir=tmp_path / "runs", run_id="study-b", concurrency=2,
                            dataset_dir=generated, case_ids=("ord-20001-payment", "ord-20004-payment"))
    other = asyncio.run(record(options)).run_dir
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build-site", str(study), str(other), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text()
    assert 'id="crossover-study"' in page and 'id="crossover-study-b"' in page
    # the second run's payment questions only: its own sentence, over its own two sizes
    assert "was my payment taken&#39; questions" in page.split('id="crossover-study-b"', 1)[1]
    assert 'data-chart="crossover-1-totalTokens"' in page
    mixed = CliRunner().invoke(cli, ["build-site", str(study), str(SAMPLE), "--out", str(tmp_path / "mixed"),
                                     "--jobs", "1"])
    # (the CLI's entry point turns this WismoError into one line and exit 1; CliRunner hands it back as is)
    assert mixed.exit_code != 0 and "cannot be compared like for like" in str(mixed.exception)
