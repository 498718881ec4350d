"""`wismo compare`: two validated runs of the same dataset and designs, paired by (case, design, repetition).

Each run is loaded once (analysis.db.RunDatabase) and validated; compare_rows.sql takes one row per
conversation out of each, and a comparison database of its own pairs them and computes every figure and
its interval in SQL (compare_pairs.sql, compare_figures.sql, compare_bootstrap.sql). This module only
decides the verdicts: a figure is a regression when its interval lies wholly on the worse side of its
tolerance. When both runs are deterministic (no language model: the scripted policy) a change is exact
and no interval is drawn; a model's figure whose cases have one repetition each gets no interval, since
a single pair says nothing about how much a repetition varies, and stays undecided.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb

from analysis.checks import run_info, validate
from analysis.compare_changes import run_changes
from analysis.compare_model import (
    DEFAULT_TOLERANCES,
    EVERY_KIND,
    FIGURES,
    IMPROVEMENT,
    REGRESSION,
    UNDECIDED,
    WITHIN,
    Comparison,
    FigureChange,
    RunRef,
)
from analysis.costs import Pricing, conversation_costs
from analysis.crossover import kind_name
from analysis.db import DEFAULT_RESAMPLES, DEFAULT_SEED, RunDatabase, sql_text
from analysis.errors import RunValidationError
from analysis.model import CompareSide, RunInfo
from analysis.price_table import PriceTable, price_run
from core.errors import WismoError

ROW_COLUMNS = ("case_id", "design", "repetition", "asks", "case_order", "passed", "total_tokens", "turns",
               "tool_calls", "backend_lookups", "usd")
ROW_TYPES = ("VARCHAR", "VARCHAR", "BIGINT", "VARCHAR", "BIGINT", "BOOLEAN", "BIGINT", "BIGINT", "BIGINT",
             "BIGINT", "DOUBLE")


class CompareRefused(WismoError):
    """Two runs that cannot be compared (another dataset, other designs); the message says why."""


def compare_runs(baseline_dir: Path, candidate_dir: Path, *, tolerances: dict[str, float] | None = None,
                 confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 pricing: Pricing | None = None, candidate: CompareSide | None = None) -> Comparison:
    """The comparison of candidate against baseline; CompareRefused or RunValidationError when there is none.

    `candidate`: the candidate run already read (compare_side, with the same `pricing`) on a load of its own, as
    build-site reads it: candidate_dir is then not loaded again.
    """
    base_info, base_rows = _load(Path(baseline_dir), pricing)
    cand_info, cand_rows = (candidate.info, candidate.rows) if candidate is not None \
        else _load(Path(candidate_dir), pricing)
    _refuse_unless_comparable(base_info, cand_info)
    exact = not base_info.is_language_model and not cand_info.is_language_model
    limits = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    with duckdb.connect() as con:
        for table, rows in (("baseline_rows", base_rows), ("candidate_rows", cand_rows)):
            _create_rows(con, table, rows)
        con.execute(f"SET VARIABLE compare_resamples = {int(resamples)}")
        con.execute(f"SET VARIABLE compare_seed = {int(seed)}")
        con.execute(f"SET VARIABLE compare_low_quantile = {(1 - float(confidence)) / 2!r}")
        con.execute(f"SET VARIABLE compare_high_quantile = {1 - (1 - float(confidence)) / 2!r}")
        con.execute(sql_text("compare_pairs.sql"))
        figures = _dicts(con, "compare_figures.sql")
        intervals = {} if exact else {(row["design"], row["asks"], row["figure"]): row
                                      for row in _dicts(con, "compare_bootstrap.sql")}
        unpaired = {row["design"]: (row["baseline_only"], row["candidate_only"])
                    for row in _dicts(con, "compare_unpaired.sql")}
    designs = list(base_info.designs)
    found = [_figure(row, intervals.get((row["design"], row["asks"], row["figure"])), exact, limits)
             for row in figures]
    found.sort(key=lambda f: (designs.index(f.design) if f.design in designs else len(designs),
                              f.kind != EVERY_KIND, _kind_order(figures, f), list(FIGURES).index(f.figure)))
    return Comparison(baseline=_ref(base_info, base_rows), candidate=_ref(cand_info, cand_rows), designs=designs,
                      exact=exact, confidence=confidence, resamples=resamples, seed=seed, tolerances=limits,
                      changes=run_changes(base_info, cand_info), figures=found, unpaired=unpaired,
                      priced=any(f.figure == "costUsd" for f in found))


def _kind_order(rows: list[dict[str, Any]], figure: FigureChange) -> int:
    for row in rows:
        if row["design"] == figure.design and tuple(_asks(row["asks"])) == figure.asks:
            return int(row["kind_order"])
    return 0


def _load(run_dir: Path, pricing: Pricing | None) -> tuple[RunInfo, list[dict[str, Any]]]:
    """One run's info and compare rows (compare_rows.sql), its costs added when priced; validated first."""
    with RunDatabase(run_dir) as db:
        validation = validate(db)
        if not validation.passed:
            raise RunValidationError(validation)
        side = compare_side(db, price_run(db, pricing.book, pricing.price_as) if pricing is not None else None,
                            pricing.price_as if pricing is not None else None)
    return side.info, side.rows


def compare_side(db: RunDatabase, table: PriceTable | None, price_as: str | None) -> CompareSide:
    """A loaded, validated run's compare rows (compare_rows.sql), with each conversation's cost when priced
    (`table`: price_run on this db)."""
    rows = db.query_dicts("compare_rows.sql")
    usd: dict[str, float] = {}
    if table is not None:
        usd = {c.conversation_id: float(c.cost.usd) for c in conversation_costs(db, table, price_as)
               if c.cost.usd is not None}
    for row in rows:
        row["usd"] = usd.get(row["conversation_id"])
    return CompareSide(run_info(db), rows)


def _refuse_unless_comparable(baseline: RunInfo, candidate: RunInfo) -> None:
    if baseline.dataset_hash != candidate.dataset_hash:
        raise CompareRefused(f"cannot compare: {baseline.run_dir} and {candidate.run_dir} used different datasets "
                             f"({baseline.dataset_name} {baseline.dataset_hash} vs "
                             f"{candidate.dataset_name} {candidate.dataset_hash})")
    if sorted(baseline.designs) != sorted(candidate.designs):
        raise CompareRefused(f"cannot compare: {baseline.run_dir} has designs {', '.join(baseline.designs)} and "
                             f"{candidate.run_dir} has {', '.join(candidate.designs)}; record both with the same "
                             "--designs")


def _create_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]]) -> None:
    """A table of compare rows, sent as one list per column (one statement, not one per row)."""
    columns = ", ".join(f"unnest(${name}::{kind}[]) AS {name}" for name, kind in zip(ROW_COLUMNS, ROW_TYPES,
                                                                                       strict=True))
    con.execute(f"CREATE TABLE {table} AS SELECT {columns}",
                {name: [row[name] for row in rows] for name in ROW_COLUMNS})


def _dicts(con: duckdb.DuckDBPyConnection, name: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql_text(name))
    columns = [c[0] for c in cursor.description or []]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _asks(text: str) -> list[str]:
    return [] if text == "*" else text.split(",")


def _figure(row: dict[str, Any], interval: dict[str, Any] | None, exact: bool,
            tolerances: dict[str, float]) -> FigureChange:
    asks = _asks(row["asks"])
    # A model's interval needs every case to have two pairs or more: one pair per case resamples to itself.
    bounded = not exact and interval is not None and row["fewest_repetitions"] >= 2 and row["change"] is not None
    low = interval["ci_low"] if bounded and interval else None
    high = interval["ci_high"] if bounded and interval else None
    tolerance = tolerances[FIGURES[row["figure"]][1]]
    figure = FigureChange(
        design=row["design"], kind=kind_name(asks) if asks else EVERY_KIND, asks=tuple(asks), figure=row["figure"],
        pairs=row["pairs"], cases=row["cases"], fewest_repetitions=row["fewest_repetitions"],
        changed_pairs=row["changed_pairs"], baseline_mean=row["baseline_mean"],
        candidate_mean=row["candidate_mean"], mean_difference=row["mean_difference"], change=row["change"],
        ci_low=low, ci_high=high, exact=exact, tolerance=tolerance, verdict=UNDECIDED)
    return _with_verdict(figure)


def _with_verdict(figure: FigureChange) -> FigureChange:
    """The verdict: the interval (or, exact, the change itself) against the tolerance on the worse side."""
    if figure.change is None:
        # the baseline total was 0: any candidate value is a growth no percentage measures
        grew = figure.candidate_mean > 0
        return replace(figure, verdict=REGRESSION if grew and figure.exact else WITHIN if not grew else UNDECIDED)
    if figure.exact:
        low = high = figure.change
    elif figure.ci_low is None or figure.ci_high is None:
        return replace(figure, verdict=UNDECIDED if figure.changed_pairs else WITHIN)
    else:
        low, high = figure.ci_low, figure.ci_high
    # worse = larger, except the pass rate; turn the pass rate around so one rule covers both
    if figure.figure == "passed":
        low, high = -high, -low
    tolerance = figure.tolerance
    if low > tolerance:
        verdict = REGRESSION
    elif high < -tolerance:
        verdict = IMPROVEMENT
    else:
        verdict = WITHIN
    return replace(figure, verdict=verdict)


def _ref(info: RunInfo, rows: list[dict[str, Any]]) -> RunRef:
    return RunRef(info.run_id, info.run_dir, info.provider, info.model, info.is_language_model, len(rows))
