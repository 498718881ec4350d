"""Metrics of a validated run: per design, the comparison between designs, pass^k and the extras."""

from __future__ import annotations

from analysis.db import RunDatabase
from analysis.model import (
    METRICS,
    DesignLookups,
    DesignMetrics,
    DeterministicOrder,
    FaultCause,
    FaultSummary,
    MetricComparison,
    PairCounts,
    PairedRow,
    RunInfo,
    RunSummary,
    Stat,
)
from analysis.warnings import run_warnings
from core.domain.fields import ASSESSMENT_FIELDS, BACKENDS


def design_metrics(db: RunDatabase, info: RunInfo) -> list[DesignMetrics]:
    """Reliability and cost per design (metrics_designs, metrics_stats, metrics_pass_hat_k)."""
    stats: dict[str, dict[str, Stat]] = {}
    for row in db.query_dicts("metrics_stats.sql"):
        stats.setdefault(row["design"], {})[row["metric"]] = Stat(row["median"], row["min"], row["max"], row["n"])
    pass_hat_k: dict[str, dict[int, float]] = {}
    for row in db.query_dicts("metrics_pass_hat_k.sql"):
        if row["pass_hat_k"] is not None:
            pass_hat_k.setdefault(row["design"], {})[row["k"]] = row["pass_hat_k"]
    return [DesignMetrics(run_id=info.run_id, provider=info.provider, model=info.model, design=row["design"],
                          conversations=row["conversations"], passed=row["passed"], pass_rate=row["pass_rate"],
                          field_pass_rates={name: row[name] for name in ASSESSMENT_FIELDS},
                          status_counts=dict(row["status_counts"]), stats=_in_order(stats.get(row["design"], {})),
                          pass_hat_k=pass_hat_k.get(row["design"], {}),
                          answered_without_evidence=row["answered_without_evidence"],
                          passed_without_evidence=row["passed_without_evidence"],
                          text_calls=row["text_calls"] or 0)
            for row in db.query_dicts("metrics_designs.sql")]


def _in_order(stats: dict[str, Stat]) -> dict[str, Stat]:
    """The stats in METRICS order (the SQL numbers metrics for the bootstrap, not for display)."""
    return {metric: stats[metric] for metric in METRICS if metric in stats}


def comparisons(db: RunDatabase, info: RunInfo) -> list[MetricComparison]:
    """Every design but the baseline against it on every metric (bootstrap.sql, metrics_comparisons).

    In RunInfo.others order, then METRICS order (the SQL numbers metrics for the bootstrap, not for display).
    """
    db.run_script("bootstrap.sql")
    found = [MetricComparison(run_id=info.run_id, metric=row["metric"], baseline=row["baseline"], other=row["other"],
                              baseline_median=row["baseline_median"], other_median=row["other_median"],
                              saving_pct=row["saving_pct"], paired_n=row["paired_n"],
                              median_difference=row["median_difference"], ci_low=row["ci_low"],
                              ci_high=row["ci_high"], bootstrap_resamples=row["bootstrap_resamples"],
                              bootstrap_seed=row["bootstrap_seed"], all_baseline_median=row["all_baseline_median"],
                              all_other_median=row["all_other_median"], all_saving_pct=row["all_saving_pct"])
             for row in db.query_dicts("metrics_comparisons.sql")]
    others = info.others
    return sorted(found, key=lambda c: (others.index(c.other) if c.other in others else len(others),
                                        METRICS.index(c.metric)))


def pair_counts(db: RunDatabase) -> list[PairCounts]:
    """Per design compared with the baseline: the groups both finished and who was right (metrics_pairs.sql)."""
    return [PairCounts(**row) for row in db.query_dicts("metrics_pairs.sql")]


def faults(db: RunDatabase) -> FaultSummary:
    """Infrastructure faults per design and status, and each distinct cause (metrics_faults.sql)."""
    by_design: dict[str, dict[str, int]] = {}
    causes: dict[tuple[str, str], FaultCause] = {}
    for row in db.query_dicts("metrics_faults.sql"):
        counts = by_design.setdefault(row["design"], {})
        counts[row["status"]] = counts.get(row["status"], 0) + row["conversations"]
        key = (row["status"], row["cause"])
        known = causes.get(key) or FaultCause(row["status"], row["cause"], 0, {}, row["example"])
        causes[key] = FaultCause(known.status, known.cause, known.conversations + row["conversations"],
                                 {**known.by_design, row["design"]: row["conversations"]},
                                 min(known.example, row["example"]))
    ranked = sorted(causes.values(), key=lambda c: (-c.conversations, c.status, c.cause))
    return FaultSummary(by_design, ranked)


def paired_rows(db: RunDatabase, info: RunInfo) -> list[PairedRow]:
    """Every (case, repetition) with each design's figures side by side (metrics_paired.sql)."""
    _, rows = db.query("metrics_paired.sql")
    paired: list[PairedRow] = []
    current = None
    # rows come ordered by (case, repetition), one per design, with the metrics in METRICS order
    for case_id, repetition, design, passed, *values in rows:
        if current is None or (current.case_id, current.repetition) != (case_id, repetition):
            current = PairedRow(info.run_id, case_id, repetition, {}, {})
            paired.append(current)
        current.values[design] = dict(zip(METRICS, values, strict=True))
        current.passed[design] = bool(passed)
    return paired


def deterministic(db: RunDatabase) -> tuple[list[DeterministicOrder], bool | None]:
    """The stored deterministic comparison per order, and whether it passed (None when absent)."""
    orders: dict[str, DeterministicOrder] = {}
    passed = None
    for row in db.query_dicts("metrics_deterministic.sql"):
        passed = row["passed"] if row["present"] else None
        if row["order_id"] is None:
            continue
        order = orders.setdefault(row["order_id"], DeterministicOrder(row["order_id"], bool(row["matched"]), {}, {}))
        order.bytes[row["design"]] = row["bytes"]
        order.interactions[row["design"]] = row["interactions"]
        order.lookups[row["design"]] = row["lookups"]
        order.lookups_not_found[row["design"]] = row["lookups_not_found"]
    return list(orders.values()), passed


def design_lookups(db: RunDatabase) -> list[DesignLookups]:
    """Backend reads per backend and design, added up over the conversations (metrics_lookups.sql)."""
    return [DesignLookups(design=row["design"], conversations=row["conversations"], recorded=row["recorded"],
                          per_backend={name: row[name] for name in BACKENDS}, not_found=row["not_found"],
                          total=row["total"], tool_result_bytes=row["tool_result_bytes"])
            for row in db.query_dicts("metrics_lookups.sql")]


def claim_counts(db: RunDatabase) -> dict[str, dict[str, int]]:
    """design -> finding kind (and "any") -> summaries with at least one such finding."""
    counts: dict[str, dict[str, int]] = {}
    for row in db.query_dicts("metrics_claims.sql"):
        counts.setdefault(row["design"], {})[row["kind"]] = row["summaries"]
    return counts


def summarize(db: RunDatabase, info: RunInfo, *, paired: bool = True) -> RunSummary:
    """Everything the CLI and the site show for one validated run; the paired rows only when asked for."""
    orders, deterministic_passed = deterministic(db)
    # One PairedRow per (case, repetition) is most of this function's time on a large run (0.6 s of
    # 1 s at 100k conversations), and only `summarize --json` prints them.
    designs = design_metrics(db, info)
    return RunSummary(run=info, designs=designs, comparisons=comparisons(db, info),
                      paired=paired_rows(db, info) if paired else None, deterministic=orders,
                      deterministic_passed=deterministic_passed, claim_findings=claim_counts(db),
                      pairs=pair_counts(db), faults=faults(db), warnings=run_warnings(designs),
                      lookups=design_lookups(db))
