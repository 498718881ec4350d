"""Open one run in an in-memory DuckDB and run the SQL files of analysis/sql/ against it.

This module holds no analysis of its own: it points DuckDB at the run folder, runs the load and
view files in order, and hands back what a query file returns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from core.errors import RunFormatError
from core.runformat import CLAIMS_FILE, COMPARISON_FILE, EVENTS_FILE, MANIFEST_FILE, SCHEMA_VERSION, SCORES_FILE
from core.runformat.lock import writer_of

SQL_DIR = Path(__file__).resolve().parent / "sql"
DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 20261008
# read_json's buffer once a line is too long for the default one (see load_run.sql); lines up to 256 MiB.
LARGE_OBJECT_SIZE = 268435456
# The variables the SQL files read once a run is loaded: a second connection gets them too.
SHARED_VARIABLES = ("run_dir", "run_id", "bootstrap_resamples", "bootstrap_seed", "maximum_object_size")


def sql_text(name: str) -> str:
    """The text of analysis/sql/<name>, verbatim."""
    return (SQL_DIR / name).read_text(encoding="utf-8")


def sql_description(name: str) -> str:
    """The first paragraph of a SQL file's leading comment: what the file computes."""
    lines = []
    for line in sql_text(name).splitlines():
        if not line.startswith("--"):
            break
        text = line[2:].strip()
        if not text:
            break
        lines.append(text)
    return " ".join(lines)


def read_manifest_json(run_dir: Path) -> Any:
    """core.runformat.read's manifest reader, imported only when a run cannot be loaded (it imports pydantic,
    which a valid run's analysis never needs: a tenth of `wismo summarize`'s start)."""
    from core.runformat.read import read_manifest_json as read

    return read(run_dir)


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def has_carriage_return(path: Path, chunk: int = 1 << 24) -> bool:
    """Whether the file holds a CR byte anywhere (wismo never writes one)."""
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            if b"\r" in block:
                return True
    return False


class RunDatabase:
    """One run folder loaded into DuckDB: events scanned once, then every view, check and metric."""

    def __init__(self, run_dir: Path, *, bootstrap_resamples: int = DEFAULT_RESAMPLES,
                 seed: int = DEFAULT_SEED) -> None:
        self.run_dir = Path(run_dir)
        self.memo: dict[str, Any] = {}  # what is built once from the loaded run (analysis.checks.run_info)
        writer = writer_of(self.run_dir)
        if writer is not None:  # its last lines are still coming: checks would fail on a half-written run
            raise RunFormatError(f"{self.run_dir} is still being written by {writer}; validate, summarize or "
                                 "build the site from it once that has finished")
        if not self.run_dir.is_dir() or not (self.run_dir / MANIFEST_FILE).is_file():
            read_manifest_json(self.run_dir)  # raises the RunFormatError that says what is missing
        if not (self.run_dir / EVENTS_FILE).is_file():
            read_manifest_json(self.run_dir)  # a broken manifest is the first thing to report
            raise RunFormatError(f"{self.run_dir / EVENTS_FILE}: missing (the run recorded nothing)")
        self.con = duckdb.connect()
        try:
            self.con.execute(f"SET VARIABLE run_dir = {_literal(str(self.run_dir.resolve()))}")
            self.con.execute(f"SET VARIABLE bootstrap_resamples = {int(bootstrap_resamples)}")
            self.con.execute(f"SET VARIABLE bootstrap_seed = {int(seed)}")
            self._load()
        except duckdb.Error as exc:
            self.close()
            read_manifest_json(self.run_dir)  # a manifest that is not JSON gets its precise message here
            raise RunFormatError(f"{self.run_dir}: DuckDB cannot read the run: {exc}") from None
        except BaseException:
            self.close()
            raise
        [self.info] = self.query_dicts("run_info.sql")

    def _load(self) -> None:
        self.run_reading_script("load_run.sql")
        version = self.scalar("SELECT schema_version FROM run_manifest")
        if version != SCHEMA_VERSION:
            raise RunFormatError(f"{self.run_dir / MANIFEST_FILE}: schema version {version!r}; "
                                 f"this wismo reads version {SCHEMA_VERSION}")
        # The derived files are optional and DuckDB cannot read a file that is not there.
        for file_name, script in ((SCORES_FILE, "load_scores.sql"), (CLAIMS_FILE, "load_claims.sql"),
                                  (COMPARISON_FILE, "load_comparison.sql")):
            if (self.run_dir / file_name).is_file():
                self.run_script(script)
        # Numbering lines costs another pass, so it runs only when the census found a line that
        # is not a readable event (load_run.sql explains the census).
        if self.scalar("SELECT needs_line_numbers FROM line_census"):
            if has_carriage_return(self.run_dir / EVENTS_FILE):
                self._number_crlf_lines()
            else:
                self.run_script("number_lines.sql")
        self.run_script("scoring.sql")
        self.run_script("views.sql")

    def _number_crlf_lines(self) -> None:
        """Number the malformed lines of a file with carriage returns (converted to CRLF, say) exactly.

        DuckDB's line reader breaks lines at a CR as well, so it would report a blank line after every
        line; the run format's own reader splits at LF only, and a JSON line ending in CR is still an
        event (as read_json and --resume read it). Only this rare case pays for reading the file here.
        """
        from core.runformat.read import read_event_lines  # imports pydantic: only for this rare case

        lines = read_event_lines(self.run_dir / EVENTS_FILE)
        if lines.malformed:
            self.con.executemany("INSERT INTO malformed_lines VALUES (?, ?, NULL)", lines.malformed)

    def branch(self) -> RunDatabase:
        """The loaded run on a second connection (a DuckDB cursor: the same tables, its own variables and temp
        macros), for queries run in another thread meanwhile: DuckDB keeps a query over a table of a few
        hundred thousand rows on one core, so two such queries at once use two."""
        other = RunDatabase.__new__(RunDatabase)
        other.run_dir, other.info, other.con, other.memo = self.run_dir, self.info, self.con.cursor(), self.memo
        for name in SHARED_VARIABLES:
            other.set_variable(name, self.scalar(f"SELECT getvariable('{name}')"))
        other.run_script("scoring.sql")  # its macros are temporary: each connection has its own
        return other

    def set_variable(self, name: str, value: str | int | None) -> None:
        """SET VARIABLE name = value, for the SQL files that read getvariable(name)."""
        literal = "NULL" if value is None else str(int(value)) if isinstance(value, int) else _literal(value)
        self.con.execute(f"SET VARIABLE {name} = {literal}")

    def manifest_value(self, column: str) -> Any:
        """One field of run_info.sql's row (run_id, designs, ...)."""
        return self.info[column]

    def run_script(self, name: str) -> None:
        """Run every statement of a SQL file (loads, views, tables)."""
        self.con.execute(sql_text(name)).fetchall()

    def run_reading_script(self, name: str) -> None:
        """Run a SQL file that reads events.jsonl, again with room for 256 MiB lines if a line did not fit."""
        try:
            self.run_script(name)
        except duckdb.InvalidInputException as exc:
            if "maximum_object_size" not in str(exc) or self.scalar("SELECT getvariable('maximum_object_size')"):
                raise
            self.con.execute(f"SET VARIABLE maximum_object_size = {LARGE_OBJECT_SIZE}")
            self.run_script(name)

    def scalar(self, sql: str) -> Any:
        """One value from a one-row query (used for the census flag only)."""
        row = self.con.execute(sql).fetchone()
        return row[0] if row else None

    def query(self, name: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run a query file; return its column names and every row."""
        cursor = self.con.execute(sql_text(name))
        rows = cursor.fetchall()
        return [column[0] for column in cursor.description or []], rows

    def query_dicts(self, name: str) -> list[dict[str, Any]]:
        """Run a query file; return its rows as dicts keyed by column name."""
        columns, rows = self.query(name)
        return [dict(zip(columns, row, strict=True)) for row in rows]

    def query_limited(self, name: str, limit: int) -> tuple[list[str], list[tuple[Any, ...]], int]:
        """Run a query file; return its column names, its first `limit` rows and how many rows it has."""
        cursor = self.con.execute(sql_text(name))
        columns = [column[0] for column in cursor.description or []]
        rows = cursor.fetchmany(limit + 1)
        if len(rows) <= limit:
            return columns, rows, len(rows)
        # More rows than are shown (a failing check): count them in DuckDB instead of fetching them all.
        statement = sql_text(name).strip().rstrip(";")
        return columns, rows[:limit], int(self.scalar(f"SELECT count(*) FROM (\n{statement}\n)"))

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if getattr(self, "con", None) is not None:
            self.con.close()
            self.con = None  # type: ignore[assignment]

    def __enter__(self) -> RunDatabase:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
