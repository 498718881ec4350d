"""The overview page: the question, the designs' tools, each run's validation and headline figures, charts."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from statistics import median
from typing import Any
from urllib.parse import urlencode

from analysis.costs import RunMoney
from analysis.crossover import kind_name
from analysis.labels import FIELD_LABELS, METRIC_LABELS
from analysis.model import CLAIM_COUNT_TOTALS as NOT_FINDINGS
from analysis.model import (
    CLAIM_MEANING,
    METRICS,
    ConversationDetail,
    CrossoverView,
    DesignMetrics,
    DeterministicOrder,
    MetricComparison,
    PairCounts,
    RunInfo,
    RunSummary,
)
from core.domain.fields import ASSESSMENT_FIELDS, DEFAULT_ASKS
from wismo.sitegen import charts, fmt
from wismo.sitegen.answer import build_answers, disagreement, run_headline
from wismo.sitegen.charts import Colours
from wismo.sitegen.context import SiteData, case_url, names_baseline, review_counts
from wismo.sitegen.lookups import lookups_note
from wismo.sitegen.pages import (
    CaseListPage,
    CaseRow,
    Chart,
    DesignSource,
    DesignTools,
    DeterministicRow,
    FindingCount,
    HeadlineRow,
    HeadlineTable,
    MatrixCell,
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
                "toolResultBytes": "bytes of the tool results the model read"}


def comparison_cells(metric: str, pairs: list[tuple[str, str]],
                      by_key: dict[tuple[str, str, str], MetricComparison], compact: bool = False,
                      footnotes: list[str] | None = None) -> list[str]:
    """Per comparison, all in one sign convention (other − baseline; below zero the other used less): the
    paired difference with its interval, the change on the medians where both answered correctly, the change
    on the medians over every conversation.

    `compact` puts the three in one cell, a line each (a run of several other designs: three columns for
    each would squeeze the table past reading). A difference and a change that point different ways are
    marked † and explained in `footnotes`.
    """
    cells = []
    for baseline, other in pairs:
        comparison = by_key.get((metric, baseline, other))
        if comparison is None:
            cells += [fmt.DASH] if compact else [fmt.DASH, fmt.DASH, fmt.DASH]
            continue
        difference, pairs_note = fmt.DASH, f"{comparison.paired_n} pairs"
        if comparison.median_difference is not None:
            low, high = comparison.ci_low, comparison.ci_high
            interval = (f" [{fmt.signed_metric(metric, low)}, {fmt.signed_metric(metric, high)}]"
                        if low is not None and high is not None else "")
            difference = f"{fmt.signed_metric(metric, comparison.median_difference)}{interval}"
        reason = disagreement(metric, comparison)
        mark = " †" if reason else ""
        if reason and footnotes is not None:
            footnotes.append(reason)
        change = fmt.signed_pct(None if comparison.saving_pct is None else -comparison.saving_pct) + mark
        change_all = fmt.signed_pct(None if comparison.all_saving_pct is None else -comparison.all_saving_pct)
        if compact:
            cells.append(fmt.DASH if comparison.median_difference is None and comparison.saving_pct is None
                         and comparison.all_saving_pct is None else
                         f"{difference}\n{pairs_note} · medians {change}\nall conversations {change_all}")
        else:
            cells += [difference if comparison.median_difference is None else f"{difference} · {pairs_note}",
                      change, change_all]
    return cells


def _without_evidence(design: DesignMetrics) -> str:
    """How many conversations answered without any record gathered, and how many of those passed anyway."""
    text = f"{design.answered_without_evidence}/{design.conversations}"
    if design.passed_without_evidence:
        text += f" ({design.passed_without_evidence} passed anyway)"
    return text


def headline_table(summary: RunSummary) -> HeadlineTable:
    """Reliability and cost per design, savings per comparison; every cell formats a figure of the summary."""
    designs = [m.design for m in summary.designs]
    by_design: dict[str, DesignMetrics] = {m.design: m for m in summary.designs}
    pairs = list(dict.fromkeys((c.baseline, c.other) for c in summary.comparisons))
    by_key = {(c.metric, c.baseline, c.other): c for c in summary.comparisons}
    compact = len(pairs) > 1
    headers = ([f"{other} − {baseline} where both answered correctly: median per pair [95 % CI] · pairs · change "
                "of the medians; change over all conversations" for baseline, other in pairs] if compact else
               [h for baseline, other in pairs
                for h in (f"{other} − {baseline} where both answered correctly: median per pair [95 % CI]",
                          f"{other} − {baseline}: change of the medians where both answered correctly",
                          f"{other} − {baseline}: change of the medians over all conversations (failed and "
                          "errored included)")])
    labels = ([f"{other} − {baseline}" for baseline, other in pairs] if compact else
              [h for baseline, other in pairs
               for h in (f"{other} − {baseline}, median per pair [95 % CI]", "change of the medians (both right)",
                         "change over all conversations")])
    blank = [""] * len(headers)
    rows = [HeadlineRow("Passed", [f"{m.passed}/{m.conversations} ({fmt.share(m.pass_rate)})"
                                   for m in summary.designs], blank, section="Reliability")]
    ks = sorted({k for m in summary.designs for k in m.pass_hat_k})
    rows += [HeadlineRow(f"pass^{k}", [fmt.share(by_design[d].pass_hat_k.get(k)) for d in designs], blank,
                         note="chance that all k repetitions of a case pass" if k == ks[0] else "") for k in ks]
    # A field no case of the run asks has no rate: it gets no row.
    asked = [f for f in ASSESSMENT_FIELDS if any(by_design[d].field_pass_rates.get(f) is not None for d in designs)]
    rows += [HeadlineRow(f"{FIELD_LABELS[f]} right", [fmt.share(by_design[d].field_pass_rates.get(f))
                                                         for d in designs], blank) for f in asked]
    rows.append(HeadlineRow("Answered without evidence", [_without_evidence(by_design[d]) for d in designs], blank,
                            note="answers given before any tool returned a record: not gathered, whatever they say"))
    rows.append(HeadlineRow("Statuses", [" · ".join(fmt.status_count(n, s)
                                                    for s, n in sorted(by_design[d].status_counts.items()))
                                         for d in designs], blank))
    footnotes: list[str] = []
    for i, metric in enumerate(METRICS):
        cells = []
        for design in designs:
            value = by_design[design].stats.get(metric)
            text = fmt.stat(metric, value)
            if value is not None and value.median is not None and value.n < by_design[design].conversations:
                text += f" · {value.n} reported"
            cells.append(text)
        note = lookups_note(summary) if metric == "backendLookups" else METRIC_NOTES.get(metric, "")
        if metric == "elapsedMs" and not summary.run.is_language_model:
            note = fmt.SCRIPTED_TIME  # a scripted run's time is not a model's: said where the figure is
        rows.append(HeadlineRow(METRIC_LABELS[metric].title, cells,
                                comparison_cells(metric, pairs, by_key, compact, footnotes),
                                note=note, section="Turns, tokens and time: median (range)" if i == 0 else ""))
    first = summary.comparisons[0] if summary.comparisons else None
    compared = [p for _, other in pairs if (p := summary.pairs_with(other)) is not None]
    many = names_baseline(summary.run)
    whose = (f"each design's medians with the baseline's ({summary.run.baseline})" if many else "the designs' medians")
    note = (f"Every difference reads other design − {summary.run.baseline}: below zero (−) the other design used "
            f"less, above (+) more. The comparisons take {whose} over the (case, repetition) pairs where both "
            f"answered correctly{_pairs_note(compared)}: a cheaper wrong answer is no saving. The interval is a "
            f"95 % paired bootstrap interval of the median per-pair difference over those pairs "
            f"({first.bootstrap_resamples:,} resamples, seed {first.bootstrap_seed}). "
            "The change over all conversations (failed and errored included) is for reference only."
            if first else "")
    return HeadlineTable(designs, headers, rows, note, 1 + len(designs) + len(headers),
                         baseline=summary.run.baseline if many else "", compact=compact, footnotes=footnotes,
                         comparison_labels=labels)


def _pairs_note(compared: list[PairCounts]) -> str:
    """How many pairs each comparison has where both answered correctly, in brackets ("" with none)."""
    if len(compared) == 1:
        return f" ({compared[0].correct_pairs} of {compared[0].pairs} pairs)"
    return (" (" + "; ".join(f"{p.other} and {p.baseline}: {p.correct_pairs} of {p.pairs}" for p in compared)
            + " pairs)" if compared else "")


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


def run_charts(slug: str, summary: RunSummary, details: list[ConversationDetail],
               colours: Colours | None = None) -> list[Chart]:
    """Total tokens, elapsed time and turns per conversation, by design; failed conversations marked.

    A series per design, each in the site's colour for it (`colours`), the same on every chart.
    """
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
                            _alt_stats("totalTokens", summary, details), failed, colours),
        charts.distribution(f"{slug}-time", "Elapsed time per conversation" + (
                                "" if summary.run.is_language_model else " (wismo and the MCP servers, not a model)"),
                            "elapsed time (ms)",
                            _by_design(summary, details, lambda d: d.elapsed_ms), medians["elapsedMs"],
                            _alt_stats("elapsedMs", summary, details), failed, colours),
        charts.counts(f"{slug}-turns", "Turns (model requests) per conversation", "turns", turns, turns_alt, failed,
                      colours),
    ]


def _lookups_cell(order: DeterministicOrder, design: str) -> str:
    reads = order.lookups.get(design)
    missing = order.lookups_not_found.get(design)
    if reads is None:
        return "records read: not recorded"
    return (f"{fmt.count(reads)} record{'s' * (reads != 1)} read"
            + (f" ({fmt.count(missing)} not found)" if missing else ""))


def _deterministic_words(summary: RunSummary) -> tuple[str, str]:
    """The deterministic comparison's outcome in words, and whose servers it went through ("" for one design)."""
    designs = summary.run.designs
    if len(designs) < 2:
        return "This run has one design: there is nothing to compare its evidence with.", ""
    how = "both" if len(designs) == 2 else f"all {len(designs)}"
    orders = summary.deterministic
    if summary.deterministic_passed is None:
        return "This run holds no deterministic comparison.", how
    if summary.deterministic_passed:
        every = "Both designs" if len(designs) == 2 else f"All {len(designs)} designs"
        return f"{every} returned the same evidence for all {len(orders)} orders.", how
    return f"The designs' evidence differs for {sum(not o.matched for o in orders)} orders.", how


def _source_text(source: dict[str, Any]) -> str:
    """Where a design's server came from: the command that started it, or the URL (with the headers' names)."""
    if source.get("command"):
        return "command: " + shlex.join(str(part) for part in source["command"])
    if source.get("url"):
        headers = source.get("headers") or []
        return f"URL: {source['url']}" + (f" (headers sent: {', '.join(headers)})" if headers else "")
    return fmt.DASH


def design_sources(info: RunInfo) -> list[DesignSource]:
    """The run's designs, baseline first marked, with where each came from; none for runs recorded before."""
    if not info.design_sources:
        return []
    rows = []
    for design in info.designs:
        source = info.design_sources.get(design) or {}
        server = " ".join(str(part) for part in (source.get("serverName"), source.get("serverVersion")) if part)
        tools = len(info.tools.get(design, []))
        role = ("the only design" if len(info.designs) == 1 else "baseline" if design == info.baseline
                else f"compared with {info.baseline}")
        rows.append(DesignSource(design=design, role=role, origin="built in" if source.get("builtIn") else "brought",
                                 source=_source_text(source), server=server or fmt.DASH,
                                 tools=f"{tools} tool{'s' * (tools != 1)}"))
    return rows


def _overview_run(data: SiteData, run_id: str, colours: Colours | None = None) -> OverviewRun:
    summary = data.summaries[run_id]
    card = data.cards[run_id]
    details = data.details[run_id]
    designs = summary.run.designs
    # Backend reads get columns only when the comparison recorded them (runs before the servers reported them).
    recorded = any(o.lookups for o in summary.deterministic)
    deterministic = [DeterministicRow(o.order_id, o.matched, [fmt.count(o.bytes.get(d)) for d in designs],
                                      [fmt.count(o.interactions.get(d)) for d in designs],
                                      [_lookups_cell(o, d) for d in designs] if recorded else [])
                     for o in summary.deterministic]
    status, how = _deterministic_words(summary)
    kinds = sorted({kind for by_kind in summary.claim_findings.values() for kind in by_kind} - NOT_FINDINGS)
    findings = [FindingCount(kind, [_of_checked(summary.claim_findings.get(d, {}), kind) for d in designs],
                             CLAIM_MEANING.get(kind, ""),
                             [review_filter_url(run_id, d, kind) if summary.claim_findings.get(d, {}).get(kind) else ""
                              for d in designs]) for kind in kinds]
    unchecked = ", ".join(f"{d} {_of_checked(summary.claim_findings.get(d, {}), 'unchecked')}" for d in designs) \
        if any(summary.claim_findings.get(d, {}).get("unchecked") for d in designs) else ""
    reviews = [c for d in designs if (c := review_counts(data, run_id, d)) is not None]
    words = run_headline(summary)
    return OverviewRun(card=card, conversations=len(details), headline=headline_table(summary),
                       charts=run_charts(card.slug, summary, details, colours), deterministic_designs=list(designs),
                       deterministic=deterministic, deterministic_status=status, reviews=reviews,
                       finding_designs=list(designs), findings=findings, unchecked=unchecked, lead=words.lead,
                       details=words.details,
                       fault_warnings=words.warnings, pass_rates_differ=words.pass_rates_differ,
                       biased=words.biased, deterministic_through=how, deterministic_lookups=recorded,
                       sources=design_sources(summary.run),
                       time_note="" if summary.run.is_language_model else fmt.SCRIPTED_TIME)


def review_filter_url(run_id: str, design: str, kind: str) -> str:
    """The review page showing the summaries of one run and design with a finding of `kind` ("any": any finding);
    its filters live in the URL fragment (site/static/review-filter.js)."""
    return "review.html#" + urlencode({"design": design, "run": run_id, "finding": kind})


def _of_checked(counts: dict[str, int], kind: str) -> str:
    """ "2 of 21": summaries with the count's kind, of the summaries checked (just the count when unknown)."""
    n = fmt.count(counts.get(kind, 0))
    return f"{n} of {fmt.count(counts['checked'])}" if "checked" in counts else n


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
        baseline = summary.run.baseline
        savings = {c.other: c for c in summary.comparisons if c.metric == "totalTokens" and c.baseline == baseline}
        for metrics in summary.designs:
            design = metrics.design
            saving = savings.get(design)
            pairs = summary.pairs_with(design)
            both = f", {pairs.correct_pairs} pairs both right" if pairs else ""
            checked = summary.claim_findings.get(design)
            rows.append(ModelDesignRow(
                run_id=run_id, model=card.label, is_language_model=card.is_language_model, design=design,
                passed=f"{metrics.passed}/{metrics.conversations} ({fmt.share(metrics.pass_rate)})",
                turns=_median(summary, design, "turns"), tool_calls=_median(summary, design, "toolCalls"),
                total_tokens=_median(summary, design, "totalTokens"), time=_median(summary, design, "elapsedMs"),
                saving=(f"{fmt.signed_pct(None if saving.saving_pct is None else -saving.saving_pct)} vs {baseline}"
                        f"{both}" if saving is not None
                        else "(baseline)" if design == baseline else fmt.DASH),
                findings=(f"{checked.get('any', 0)} of {checked['checked']}"
                          + (f"; {checked['unchecked']} could not check" if checked.get("unchecked") else "")
                          if checked and "checked" in checked else "not checked")))
    return rows


OVERVIEW_CASES = 50  # the overview lists this many cases; cases.html pages through all of them
CASES_PER_PAGE = 500


def _matrix_cell(convs: list[ConversationDetail], design: str) -> MatrixCell:
    """One case × design: passed of run, ✓/✗, median tokens and turns."""
    if not convs:
        return MatrixCell(fmt.DASH, "", False, "", "", f"{design}: no conversation of this case")
    passed = sum(c.passed for c in convs)
    tokens = [c.total_tokens for c in convs if c.total_tokens is not None]
    failed = passed < len(convs)
    cell_tokens = fmt.count(median(tokens)) if tokens else fmt.DASH
    cell_turns = fmt.count(median(c.turns for c in convs))
    return MatrixCell(f"{passed}/{len(convs)}", "✗" if failed else "✓", failed, cell_tokens, cell_turns,
                      f"{design}: {passed} of {len(convs)} passed" + (" (some failed)" if failed else "")
                      + f"; median {cell_tokens} tokens, {cell_turns} turns", passed / len(convs))


def case_rows(data: SiteData) -> list[CaseRow]:
    """Every case with how often each valid run × design passed it: the rows of the results matrix."""
    rows = []
    for case_id, case in data.cases.items():
        passes, cells = [], []
        for run_id, design in data.columns():
            convs = data.by_case.get((run_id, case_id, design), [])
            cell = _matrix_cell(convs, design)
            cells.append(cell)
            passes.append(cell.passes)
        asks = case.get("asks") or DEFAULT_ASKS
        shares = {c.share for c in cells if c.share is not None}
        rows.append(CaseRow(case_id, case.get("orderId", ""), case.get("question", ""), case_url(case_id), passes,
                            cells=cells, kind=kind_name(asks), asked=len(asks), lines=case.get("orderLines"),
                            failing=any(c.failed for c in cells), differ=len(shares) > 1))
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


BUILT_IN = ("granular", "focused")  # wismo's own designs, which the overview's introduction describes


def brought_designs(data: SiteData) -> list[str]:
    """The designs of the valid runs that are not wismo's own: a manifest's builtIn, else by name (older runs)."""
    brought = []
    for design in data.designs():
        sources = [data.summaries[r].run.design_sources.get(design) for r in data.valid_ids]
        built_in = any(s.get("builtIn") for s in sources if s) or (design in BUILT_IN and not any(sources))
        if not built_in:
            brought.append(design)
    return brought


def build_overview(data: SiteData, review_import: ReviewImport | None, colours: Colours | None = None,
                   crossover: Sequence[CrossoverView] | None = None,
                   money: Mapping[str, RunMoney] | None = None) -> OverviewPage:
    """index.html's data; runs that failed validation appear only as a banner and a link to their checks.

    `colours` (design -> colour, the site's) colour every chart's series; `crossover` (each run's view) and
    `money` (run_id -> its costs) feed each run's verdict.
    """
    cases = case_rows(data)
    listed, total = not_justified(data)
    brought = brought_designs(data)
    firsts = all(data.summaries[r].run.baseline == data.summaries[r].run.designs[0] for r in data.valid_ids)
    return OverviewPage(
        title=("Which tool design answers best, and at what cost?" if brought
               else "Granular tools or one focused context?"),
        runs=[data.cards[v.run.run_id] for v in data.validations],
        valid_runs=[_overview_run(data, run_id, colours) for run_id in data.valid_ids],
        invalid_runs=[data.cards[run_id] for run_id in data.invalid_ids],
        case_columns=[data.column_head(run_id, design) for run_id, design in data.columns()],
        cases=cases[:OVERVIEW_CASES], designs=_design_tools(data),
        instructions=_grouped([(v.run.run_id, v.run.instructions) for v in data.validations]),
        reviews=review_import, model_table=model_table(data), case_total=len(cases),
        not_justified=listed, not_justified_total=total,
        answers=build_answers(data, {v.run_id: v for v in crossover or ()}, money),
        brought=brought,
        model_baseline_first=firsts)
