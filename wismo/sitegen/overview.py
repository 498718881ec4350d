"""The overview page: the question, the designs' tools, each run's validation and headline figures, charts."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from analysis.headline import headline
from analysis.labels import FIELD_LABELS, METRIC_LABELS
from analysis.model import (
    CLAIM_MEANING,
    FIELDS,
    METRICS,
    ConversationDetail,
    DesignMetrics,
    MetricComparison,
    RunSummary,
)
from wismo.sitegen import charts, fmt
from wismo.sitegen.answer import build_answers
from wismo.sitegen.context import SiteData, case_url, review_counts
from wismo.sitegen.pages import (
    CaseListPage,
    CaseRow,
    Chart,
    DesignTools,
    DeterministicRow,
    FindingCount,
    HeadlineRow,
    HeadlineTable,
    ModelDesignRow,
    OverviewPage,
    OverviewRun,
    ReviewImport,
    ToolDef,
)
from wismo.sitegen.verdicts import not_justified

METRIC_NOTES = {"uncachedInputTokens": "input minus cached: what is left to pay in full; – where no cached count "
                                      "was reported",
                "reasoningTokens": "part of the output; – where none was reported",
                "backendLookups": "records the servers read (orders, payments, reservations, tracking), from each "
                                  "tool result's _meta; – where not recorded: runs recorded before the servers "
                                  "reported them",
                "toolResultBytes": "bytes of the tool results the model read"}


def _comparison_cells(metric: str, pairs: list[tuple[str, str]],
                      by_key: dict[tuple[str, str, str], MetricComparison]) -> list[str]:
    cells = []
    for baseline, other in pairs:
        comparison = by_key.get((metric, baseline, other))
        if comparison is None:
            cells += [fmt.DASH, fmt.DASH, fmt.DASH]
            continue
        cells.append(fmt.pct(comparison.saving_pct))
        if comparison.median_difference is None:
            cells.append(fmt.DASH)
        else:
            low, high = comparison.ci_low, comparison.ci_high
            interval = (f" [{fmt.signed_metric(metric, low)}, {fmt.signed_metric(metric, high)}]"
                        if low is not None and high is not None else "")
            cells.append(f"{fmt.signed_metric(metric, comparison.median_difference)}{interval} · "
                         f"{comparison.paired_n} pairs")
        cells.append(fmt.pct(comparison.all_saving_pct))
    return cells


def headline_table(summary: RunSummary) -> HeadlineTable:
    """Reliability and cost per design, savings per comparison; every cell formats a figure of the summary."""
    designs = [m.design for m in summary.designs]
    by_design: dict[str, DesignMetrics] = {m.design: m for m in summary.designs}
    pairs = list(dict.fromkeys((c.baseline, c.other) for c in summary.comparisons))
    by_key = {(c.metric, c.baseline, c.other): c for c in summary.comparisons}
    headers = [h for baseline, other in pairs
               for h in (f"Saving, {other} vs {baseline}, where both answered correctly",
                         f"Paired difference {other} − {baseline} where both answered correctly, median [95 % CI]",
                         "Saving over all conversations (failed and errored included)")]
    blank = [""] * len(headers)
    rows = [HeadlineRow("Passed", [f"{m.passed}/{m.conversations} ({fmt.share(m.pass_rate)})"
                                   for m in summary.designs], blank, section="Reliability")]
    ks = sorted({k for m in summary.designs for k in m.pass_hat_k})
    rows += [HeadlineRow(f"pass^{k}", [fmt.share(by_design[d].pass_hat_k.get(k)) for d in designs], blank,
                         note="chance that all k repetitions of a case pass" if k == ks[0] else "") for k in ks]
    # A field no case of the run asks has no rate: it gets no row.
    asked = [f for f in FIELDS if any(by_design[d].field_pass_rates.get(f) is not None for d in designs)]
    rows += [HeadlineRow(f"{FIELD_LABELS[f]} right", [fmt.share(by_design[d].field_pass_rates.get(f))
                                                         for d in designs], blank) for f in asked]
    rows.append(HeadlineRow("Statuses", [" · ".join(f"{s} {n}" for s, n in sorted(by_design[d].status_counts.items()))
                                         for d in designs], blank))
    for i, metric in enumerate(METRICS):
        cells = []
        for design in designs:
            value = by_design[design].stats.get(metric)
            text = fmt.stat(metric, value)
            if value is not None and value.median is not None and value.n < by_design[design].conversations:
                text += f" · {value.n} reported"
            cells.append(text)
        rows.append(HeadlineRow(METRIC_LABELS[metric].title, cells, _comparison_cells(metric, pairs, by_key),
                                note=METRIC_NOTES.get(metric, ""), section="Cost: median (range)" if i == 0 else ""))
    first = summary.comparisons[0] if summary.comparisons else None
    both = (f" ({summary.pairs[0].correct_pairs} of {summary.pairs[0].pairs} pairs)" if summary.pairs else "")
    note = ("Savings compare the designs' medians over the (case, repetition) pairs where both answered correctly"
            f"{both}: a cheaper wrong answer is no saving. The interval is a 95 % paired bootstrap interval of the "
            f"median per-pair difference over those pairs ({first.bootstrap_resamples:,} resamples, seed "
            f"{first.bootstrap_seed}). The last column is over every conversation, for reference only."
            if first else "")
    return HeadlineTable(designs, headers, rows, note, 1 + len(designs) + len(headers))


def _failed_note(details: list[ConversationDetail], design: str) -> str:
    failed = sum(not d.passed for d in details if d.design == design)
    return f" ({failed} failed, marked)" if failed else ""


def _alt_stats(metric: str, summary: RunSummary, details: list[ConversationDetail]) -> str:
    parts = []
    for m in summary.designs:
        value = m.stats.get(metric)
        parts.append(f"{m.design}: median {fmt.stat(metric, value)} over {value.n if value else 0} conversations"
                     f"{_failed_note(details, m.design)}")
    return "; ".join(parts) + "."


def _by_design(summary: RunSummary, details: list[ConversationDetail],
               value: Callable[[ConversationDetail], Any]) -> dict[str, list[Any]]:
    return {design: [value(d) for d in details if d.design == design] for design in summary.run.designs}


def run_charts(slug: str, summary: RunSummary, details: list[ConversationDetail]) -> list[Chart]:
    """Total tokens, elapsed time and turns per conversation, by design; failed conversations marked."""
    medians = {metric: {m.design: (m.stats[metric].median if metric in m.stats else None) for m in summary.designs}
               for metric in ("totalTokens", "elapsedMs")}
    turns = _by_design(summary, details, lambda d: d.turns)
    failed = _by_design(summary, details, lambda d: not d.passed)
    turns_alt = "; ".join(f"{design}: " + ", ".join(f"{n} conversations with {t} turns"
                                                   for t, n in sorted(Counter(values).items()))
                          + _failed_note(details, design)
                          for design, values in turns.items()) + "."
    return [
        charts.distribution(f"{slug}-tokens", "Total tokens per conversation", "total tokens (input + output)",
                            _by_design(summary, details, lambda d: d.total_tokens), medians["totalTokens"],
                            _alt_stats("totalTokens", summary, details), failed),
        charts.distribution(f"{slug}-time", "Elapsed time per conversation", "elapsed time (ms)",
                            _by_design(summary, details, lambda d: d.elapsed_ms), medians["elapsedMs"],
                            _alt_stats("elapsedMs", summary, details), failed),
        charts.counts(f"{slug}-turns", "Turns (model requests) per conversation", "turns", turns, turns_alt, failed),
    ]


def _overview_run(data: SiteData, run_id: str) -> OverviewRun:
    summary = data.summaries[run_id]
    card = data.cards[run_id]
    details = data.details[run_id]
    designs = summary.run.designs
    deterministic = [DeterministicRow(o.order_id, o.matched, [fmt.count(o.bytes.get(d)) for d in designs],
                                      [fmt.count(o.interactions.get(d)) for d in designs])
                     for o in summary.deterministic]
    if summary.deterministic_passed is None:
        status = "This run holds no deterministic comparison."
    elif summary.deterministic_passed:
        status = f"Both designs returned the same evidence for all {len(deterministic)} orders."
    else:
        status = f"The designs' evidence differs for {sum(not o.matched for o in summary.deterministic)} orders."
    kinds = sorted({kind for by_kind in summary.claim_findings.values() for kind in by_kind} - {"checked"})
    findings = [FindingCount(kind, [fmt.count(summary.claim_findings.get(d, {}).get(kind, 0)) for d in designs],
                             CLAIM_MEANING.get(kind, "")) for kind in kinds]
    reviews = [c for d in designs if (c := review_counts(data, run_id, d)) is not None]
    words = headline(summary)
    return OverviewRun(card=card, conversations=len(details), headline=headline_table(summary),
                       charts=run_charts(card.slug, summary, details), deterministic_designs=list(designs),
                       deterministic=deterministic, deterministic_status=status, reviews=reviews,
                       finding_designs=list(designs), findings=findings, lead=words.lead, details=words.details,
                       fault_warnings=words.warnings, pass_rates_differ=words.pass_rates_differ,
                       biased=words.biased)


def _grouped(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(run, text) pairs -> (runs, text), so identical tools or instructions are shown once."""
    runs_by_text: dict[str, list[str]] = {}
    for run_id, text in values:
        runs_by_text.setdefault(text, []).append(run_id)
    total = len({run_id for run_id, _ in values})
    return [("all runs" if len(runs) == total else ", ".join(runs), text) for text, runs in runs_by_text.items()]


def _design_tools(data: SiteData) -> list[DesignTools]:
    designs = list(dict.fromkeys(d for v in data.validations for d in v.run.designs))
    result = []
    for design in designs:
        texts = [(v.run.run_id, json.dumps(v.run.tools.get(design, []), sort_keys=True)) for v in data.validations
                 if design in v.run.designs]
        for runs, text in _grouped(texts):
            tools = [ToolDef(t.get("name", ""), t.get("description", ""),
                             json.dumps(t.get("parameters", {}), indent=2, ensure_ascii=False))
                     for t in json.loads(text)]
            result.append(DesignTools(design, tools, runs))
    return result


def _median(summary: RunSummary, design: str, metric: str) -> str:
    metrics = next((m for m in summary.designs if m.design == design), None)
    stat = metrics.stats.get(metric) if metrics else None
    return fmt.metric(metric, stat.median) if stat is not None and stat.median is not None else fmt.DASH


def model_table(data: SiteData) -> list[ModelDesignRow]:
    """Every valid run × design in one table (only when the site holds several runs)."""
    if len(data.valid_ids) < 2:
        return []
    rows = []
    for run_id in data.valid_ids:
        summary, card = data.summaries[run_id], data.cards[run_id]
        baseline = summary.run.designs[0]
        savings = {c.other: c for c in summary.comparisons if c.metric == "totalTokens" and c.baseline == baseline}
        both = f", {summary.pairs[0].correct_pairs} pairs both right" if summary.pairs else ""
        for metrics in summary.designs:
            design = metrics.design
            saving = savings.get(design)
            checked = summary.claim_findings.get(design)
            rows.append(ModelDesignRow(
                run_id=run_id, model=card.label, is_language_model=card.is_language_model, design=design,
                passed=f"{metrics.passed}/{metrics.conversations} ({fmt.share(metrics.pass_rate)})",
                turns=_median(summary, design, "turns"), tool_calls=_median(summary, design, "toolCalls"),
                total_tokens=_median(summary, design, "totalTokens"), time=_median(summary, design, "elapsedMs"),
                saving=(f"{fmt.pct(saving.saving_pct)} vs {baseline}{both}" if saving is not None
                        else "(baseline)" if design == baseline else fmt.DASH),
                findings=(f"{checked.get('any', 0)} of {checked['checked']}" if checked and "checked" in checked
                          else "not checked")))
    return rows


OVERVIEW_CASES = 50  # the overview lists this many cases; cases.html pages through all of them
CASES_PER_PAGE = 500


def case_rows(data: SiteData) -> list[CaseRow]:
    """Every case with how often each valid run × design passed it."""
    rows = []
    for case_id, case in data.cases.items():
        passes = []
        for run_id, design in data.columns():
            convs = data.by_case.get((run_id, case_id, design), [])
            passes.append(f"{sum(c.passed for c in convs)}/{len(convs)}" if convs else fmt.DASH)
        rows.append(CaseRow(case_id, case.get("orderId", ""), case.get("question", ""), case_url(case_id), passes))
    return rows


def case_list_url(number: int) -> str:
    """cases.html, cases-2.html, …: at the site root, so no case ID can collide with it."""
    return "cases.html" if number == 1 else f"cases-{number}.html"


def build_case_list_pages(data: SiteData) -> list[CaseListPage]:
    """Every case, CASES_PER_PAGE per page, so no page grows with the dataset."""
    rows = case_rows(data)
    columns = [data.column_head(run_id, design) for run_id, design in data.columns()]
    chunks = [rows[i:i + CASES_PER_PAGE] for i in range(0, len(rows), CASES_PER_PAGE)] or [[]]
    return [CaseListPage(number=n, pages=len(chunks), first=(n - 1) * CASES_PER_PAGE + 1, total=len(rows),
                         columns=columns, cases=chunk,
                         previous_url=case_list_url(n - 1) if n > 1 else None,
                         next_url=case_list_url(n + 1) if n < len(chunks) else None)
            for n, chunk in enumerate(chunks, start=1)]


def build_overview(data: SiteData, review_import: ReviewImport | None) -> OverviewPage:
    """index.html's data; runs that failed validation appear only as a banner and a link to their checks."""
    cases = case_rows(data)
    listed, total = not_justified(data)
    return OverviewPage(
        title="Granular tools or one focused context?",
        runs=[data.cards[v.run.run_id] for v in data.validations],
        valid_runs=[_overview_run(data, run_id) for run_id in data.valid_ids],
        invalid_runs=[data.cards[run_id] for run_id in data.invalid_ids],
        case_columns=[data.column_head(run_id, design) for run_id, design in data.columns()],
        cases=cases[:OVERVIEW_CASES], designs=_design_tools(data),
        instructions=_grouped([(v.run.run_id, v.run.instructions) for v in data.validations]),
        reviews=review_import, model_table=model_table(data), case_total=len(cases),
        not_justified=listed, not_justified_total=total, answers=build_answers(data))
