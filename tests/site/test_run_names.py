"""Runs that can be told apart: every page names a run by its model and what differs from the site's other runs."""

from __future__ import annotations

from dataclasses import replace

from tests.site import factories
from tests.site.test_pages import data_for
from wismo.sitegen.cases import build_case_pages
from wismo.sitegen.overview import build_overview
from wismo.sitegen.review_page import build_review_pages
from wismo.sitegen.run_names import budget_words, run_names

BUDGETS = factories.run_info().budgets


def same_model_site(**changes):
    """Two scripted runs of the same model; the second with `changes` to its RunInfo."""
    first = factories.run_info("run-a")
    second = replace(factories.run_info("run-b"), **changes)
    details = {run.run_id: factories.offline_details(run) for run in (first, second)}
    return {"validations": [factories.validation(first), factories.validation(second)],
            "summaries": [factories.summarize(run, details[run.run_id]) for run in (first, second)],
            "details_by_run": details}


def test_one_run_is_named_by_model_and_provider_only():
    [name] = run_names([factories.run_info()]).values()
    assert name.label == "scripted-policy-v1 · scripted, not a language model"
    assert name.short == "scripted-policy-v1" and name.differs == ()


def test_runs_of_one_model_with_other_budgets_read_differently():
    first = factories.run_info("run-a")
    second = replace(factories.run_info("run-b"), budgets={**BUDGETS, "maxTurns": 4})
    names = run_names([first, second])
    assert names["run-a"].label != names["run-b"].label
    assert names["run-a"].differs == ("max 8 turns",) and names["run-b"].differs == ("max 4 turns",)
    # Only what differs: the budgets they share are not repeated in the name.
    assert "tool calls" not in names["run-a"].label


def test_every_differing_fact_is_named_and_no_other():
    first = factories.run_info("run-a")
    second = replace(factories.run_info("run-b", language_model=True, repetitions=2),
                     dataset_name="other", dataset_hash="sha256:" + "ab" * 32, started_at="2026-12-01T09:00:00+00:00")
    names = run_names([first, second])
    assert names["run-b"].differs == ("OpenAI Responses API", "2 repetitions", "dataset other (abababababab)",
                                      "started 2026-12-01")
    assert names["run-a"].short == ("scripted-policy-v1 · scripted, not a language model · 3 repetitions · "
                                    "dataset default (8fcb0f7dd40e) · started 2026-11-30")
    # The label names the provider once, whether or not it differs.
    assert names["run-b"].label.count("OpenAI Responses API") == 1


def test_runs_that_differ_in_nothing_else_are_told_apart_by_start_time_then_id():
    first = factories.run_info("run-a")
    later = replace(factories.run_info("run-b"), started_at="2026-11-30T08:00:00+00:00")
    names = run_names([first, later])
    assert names["run-a"].label.endswith("started 2026-11-30 02:47:17 UTC")
    assert names["run-b"].label.endswith("started 2026-11-30 08:00:00 UTC")
    twins = run_names([first, factories.run_info("run-b")])
    assert twins["run-a"].label.endswith("run run-a") and twins["run-b"].label.endswith("run run-b")
    assert twins["run-a"].label != twins["run-b"].label


def test_budgets_read_as_words():
    assert budget_words(factories.run_info()) == ("max 8 turns · max 20 tool calls · request timeout 120 s · "
                                                  "deadline 600 s")
    assert budget_words(replace(factories.run_info(), budgets={"maxCost": 2.5})) == "maxCost 2.5"
    assert budget_words(replace(factories.run_info(), budgets={"maxToolResultBytes": 1000000,
                                                               "maxOutputTokens": 1024})) == \
        "tool results up to 1,000,000 bytes · max 1,024 output tokens per reply"


def test_a_budget_an_older_run_did_not_record_reads_as_none_applied():
    # A site of a run recorded before these budgets existed and one recorded with them: the older one's is "none".
    older, newer = factories.run_info("old"), replace(factories.run_info("new"), budgets={
        **factories.run_info().budgets, "maxOutputTokens": 1024, "maxToolResultBytes": 1000000})
    names = run_names([older, newer])
    assert "no output-token cap · no tool-result size cap" in names["old"].label
    assert "not set" not in names["old"].label and "maxOutputTokens" not in names["old"].label


def test_cards_columns_and_review_items_name_what_differs():
    data = data_for(same_model_site(budgets={**BUDGETS, "maxTurns": 4}))
    page = build_overview(data, None)
    assert [card.differs for card in page.runs] == [("max 8 turns",), ("max 4 turns",)]
    assert [card.label for card in page.runs] == [
        "scripted-policy-v1 · scripted, not a language model · max 8 turns",
        "scripted-policy-v1 · scripted, not a language model · max 4 turns"]
    heads = [model for _, model in page.case_columns]
    assert heads == ["scripted-policy-v1 · max 8 turns"] * 2 + ["scripted-policy-v1 · max 4 turns"] * 2
    assert [row.model for row in page.model_table][::2] == [card.label for card in page.runs]
    assert [column.model for column in build_case_pages(data)[0].columns] == heads
    labels = {(item.run_id, item.run_label) for review in build_review_pages(data) for item in review.items}
    assert labels == {("run-a", page.runs[0].label), ("run-b", page.runs[1].label)}
    assert [answer.card.label for answer in page.answers] == [card.label for card in page.runs]


def test_a_start_time_shared_by_twins_is_not_printed():
    twins = run_names([factories.run_info("run-a"), factories.run_info("run-b")])
    assert "started" not in twins["run-a"].label
    assert twins["run-a"].differs == ("run run-a",)


def test_a_run_not_shown_does_not_lengthen_the_names_of_the_runs_shown():
    data = data_for(factories.with_failing_run(factories.two_run_site()))
    assert data.cards["sample-offline"].label == "scripted-policy-v1 · scripted, not a language model · 3 repetitions"
    # The failed twin is told apart from everything on the site, the run it copies included.
    assert data.cards["broken-run"].label.endswith("run broken-run")
