"""The SQL files run unchanged: in the duckdb CLI when it is installed, else verbatim through the Python API."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from analysis.db import SQL_DIR, sql_text
from tests.analysis.conftest import SAMPLE_RUN

SETUP = ["load_run.sql", "load_comparison.sql", "scoring.sql", "views.sql", "bootstrap.sql"]
QUERIES = sorted(p.name for p in SQL_DIR.glob("*.sql")
                 if p.name.startswith(("check_", "metrics_")) or p.name in ("validation_totals.sql", "run_info.sql"))
DETAIL_QUERIES = ["conversation_rows.sql", "turn_rows.sql", "tool_call_rows.sql", "claim_findings.sql"]


def duckdb_cli() -> str | None:
    """The duckdb CLI: $WISMO_DUCKDB_CLI, else `duckdb` on PATH (pip install duckdb-cli)."""
    return os.environ.get("WISMO_DUCKDB_CLI") or shutil.which("duckdb")


def test_every_sql_file_starts_with_a_comment_saying_what_it_computes():
    for path in SQL_DIR.glob("*.sql"):
        first = path.read_text().splitlines()[0]
        assert first.startswith("-- ") and len(first) > 30, path.name


def run_with_python_api(files: list[str], query: str) -> list[tuple]:
    con = duckdb.connect()
    con.execute(f"SET VARIABLE run_dir = '{SAMPLE_RUN}'")
    for name in files:
        con.execute(sql_text(name)).fetchall()
    return con.execute(sql_text(query)).fetchall()


def run_with_cli(cli: str, files: list[str], query: str) -> list[list[str]]:
    args = [cli, "-csv", "-c", f"SET VARIABLE run_dir = '{SAMPLE_RUN}'"]
    for name in [*files, query]:
        args += ["-c", f".read {SQL_DIR / name}"]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    return list(csv.reader(io.StringIO(done.stdout)))


@pytest.mark.parametrize("query", QUERIES)
def test_check_and_metric_files_run_as_they_are(query):
    rows = run_with_python_api(SETUP, query)
    if query.startswith("check_"):
        assert rows == [], f"{query} finds faults in the untouched sample run"
    cli = duckdb_cli()
    if cli:
        cli_rows = run_with_cli(cli, SETUP, query)
        assert len(cli_rows) - 1 == len(rows)  # the header, then the same number of rows


@pytest.mark.parametrize("query", DETAIL_QUERIES)
def test_detail_files_run_as_they_are(query):
    rows = run_with_python_api([*SETUP, "load_details.sql"], query)
    assert query == "claim_findings.sql" or rows
    cli = duckdb_cli()
    if cli:
        assert len(run_with_cli(cli, [*SETUP, "load_details.sql"], query)) - 1 == len(rows)


def test_the_cli_gives_the_same_bootstrap_intervals():
    cli = duckdb_cli()
    if not cli:
        pytest.skip("no duckdb CLI (pip install duckdb-cli, or set WISMO_DUCKDB_CLI)")
    python_rows = run_with_python_api(SETUP, "metrics_comparisons.sql")
    header, *cli_rows = run_with_cli(cli, SETUP, "metrics_comparisons.sql")
    low, high = header.index("ci_low"), header.index("ci_high")
    def number(text: str) -> float | None:
        return None if text == "NULL" else float(text)  # a metric nothing reported (uncached input offline)

    assert [(number(r[low]), number(r[high])) for r in cli_rows] == [(r[low], r[high]) for r in python_rows]
    assert any(r[low] is not None for r in python_rows)


def test_number_lines_runs_as_it_is(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    with (run / "events.jsonl").open("a") as events:
        events.write("\nnot json\n")
    con = duckdb.connect()
    con.execute(f"SET VARIABLE run_dir = '{run}'")
    con.execute(sql_text("load_run.sql")).fetchall()
    assert con.execute("SELECT needs_line_numbers FROM line_census").fetchone() == (True,)
    con.execute(sql_text("number_lines.sql")).fetchall()
    lines = len(Path(SAMPLE_RUN / "events.jsonl").read_text().splitlines())
    assert con.execute("SELECT line_no FROM malformed_lines ORDER BY 1").fetchall() == [(lines + 1,), (lines + 2,)]


MONEY = ["money_turns.sql", "money_costs.sql"]
MONEY_QUERIES = ["money_keys.sql", "money_designs.sql", "money_comparisons.sql", "money_run.sql", "money_reasons.sql",
                 "money_price_order.sql", "money_conversations.sql", "money_crossover.sql"]


@pytest.mark.parametrize("query", MONEY_QUERIES)
def test_the_money_files_run_as_they_are(query):
    # No price resolved (analysis/price_table.py fills money_prices): every response priced as the named
    # model needs one, and every conversation is unknown, never $0.
    setup = [*SETUP, *MONEY]
    con = duckdb.connect()
    con.execute(f"SET VARIABLE run_dir = '{SAMPLE_RUN}'")
    con.execute("SET VARIABLE price_as = 'gpt-5-mini'")
    for name in setup:
        con.execute(sql_text(name)).fetchall()
    rows = con.execute(sql_text(query)).fetchall()
    responses = sum('"model_response"' in line for line in (SAMPLE_RUN / "events.jsonl").read_text().splitlines())
    assert con.execute("SELECT count(*), count_if(needs_price) FROM money_turns").fetchone() == (responses, responses)
    assert con.execute("SELECT count(*), count(usd), min(unknown) FROM conversation_costs").fetchone() == \
        (len(con.execute("SELECT * FROM conversations").fetchall()), 0, "no price")
    assert rows or query == "money_price_order.sql"  # no conversation has a price
    cli = duckdb_cli()
    if cli:
        with_price = [cli, "-csv", "-c", f"SET VARIABLE run_dir = '{SAMPLE_RUN}'", "-c",
                      "SET VARIABLE price_as = 'gpt-5-mini'"]
        for name in [*setup, query]:
            with_price += ["-c", f".read {SQL_DIR / name}"]
        done = subprocess.run(with_price, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
        assert len(list(csv.reader(io.StringIO(done.stdout)))) - 1 == len(rows)
