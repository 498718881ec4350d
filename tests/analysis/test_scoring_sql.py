"""scoring.sql re-computes scores exactly as core/domain/scorer.py does, for every set of asked fields."""

from __future__ import annotations

import json

import duckdb
import pytest

from analysis.db import sql_text
from core.domain.scorer import score

EXPECTED = {"deliveredSkus": ["A", "B"], "outstandingSkus": [], "delayReasons": ["carrier_delay"],
            "deliveryEstimate": "2026-10-10", "missingEvidence": ["tracking:T-1"], "paymentStatus": "captured"}
ANSWERS = [
    EXPECTED,
    {**EXPECTED, "deliveredSkus": ["B", "A"]},
    {**EXPECTED, "deliveredSkus": ["A", "B", "A"]},
    {**EXPECTED, "deliveredSkus": ["A"]},
    {**EXPECTED, "outstandingSkus": ["A"]},
    {**EXPECTED, "delayReasons": []},
    {**EXPECTED, "deliveryEstimate": None},
    {**EXPECTED, "deliveryEstimate": "2026-10-10T00:00:00"},
    {**EXPECTED, "deliveryEstimate": "2026-02-30"},
    {**EXPECTED, "deliveryEstimate": "10/10/2026"},
    {**EXPECTED, "missingEvidence": ["tracking:T-1", "tracking:T-1"]},
    {**EXPECTED, "paymentStatus": "authorized"},
    {k: v for k, v in EXPECTED.items() if k != "paymentStatus"},
    None,
]
EXPECTATIONS = [EXPECTED, {**EXPECTED, "deliveryEstimate": None, "delayReasons": []},
                {**EXPECTED, "deliveredSkus": ["A", "A", "B"]}]
ASKS = [("deliveredSkus", "outstandingSkus", "delayReasons", "deliveryEstimate", "missingEvidence"),
        ("paymentStatus",), ("outstandingSkus", "deliveryEstimate"), tuple(EXPECTED)]
STRUCT = ('{"deliveredSkus": ["VARCHAR"], "outstandingSkus": ["VARCHAR"], "delayReasons": ["VARCHAR"], '
          '"deliveryEstimate": "VARCHAR", "missingEvidence": ["VARCHAR"], "paymentStatus": "VARCHAR"}')
SCORE_STRUCT = ('{"fields": {"deliveredSkus": "BOOLEAN", "outstandingSkus": "BOOLEAN", "delayReasons": "BOOLEAN", '
                '"deliveryEstimate": "BOOLEAN", "missingEvidence": "BOOLEAN", "paymentStatus": "BOOLEAN"}, '
                '"passed": "BOOLEAN"}')


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    connection.execute(sql_text("scoring.sql")).fetchall()
    return connection


def test_sql_scoring_matches_the_python_scorer(con):
    cases = [(answer, expected, asks) for answer in ANSWERS for expected in EXPECTATIONS for asks in ASKS]
    con.execute("CREATE OR REPLACE TEMP TABLE scored (n INTEGER, answer VARCHAR, expected VARCHAR, asks VARCHAR[], "
                "stored VARCHAR)")
    con.executemany("INSERT INTO scored VALUES (?, ?, ?, ?, ?)",
                    [(n, json.dumps(a), json.dumps(e), list(k), json.dumps(score(a, e, k)))
                     for n, (a, e, k) in enumerate(cases)])
    rows = con.execute(f"""
        WITH r AS (SELECT n, json_transform(stored, '{SCORE_STRUCT}') AS stored,
                          rescore_fields(json_transform(answer, '{STRUCT}'), json_transform(expected, '{STRUCT}'),
                                         asks) AS fields
                   FROM scored)
        SELECT n, fields, list_filter(score_comparison(stored, fields),
                                      lambda x: x.stored_value IS DISTINCT FROM x.recomputed)
        FROM r ORDER BY n""").fetchall()
    assert len(rows) == len(cases)
    for (n, fields, differences), (answer, expected, asks) in zip(rows, cases, strict=True):
        # a field not asked is NULL in SQL and absent in Python: neither right nor wrong
        assert {k: v for k, v in fields.items() if v is not None} == score(answer, expected, asks)["fields"], n
        assert [k for k, v in fields.items() if v is None] == [k for k in EXPECTED if k not in asks], n
        assert differences == [], n


def test_a_stored_score_that_counts_a_field_not_asked_differs(con):
    stored = {"fields": {"paymentStatus": True, "deliveredSkus": False}, "passed": False}
    differences = con.execute(
        f"SELECT list_filter(score_comparison(json_transform(?, '{SCORE_STRUCT}'), "
        f"rescore_fields(json_transform(?, '{STRUCT}'), json_transform(?, '{STRUCT}'), ['paymentStatus'])), "
        "lambda x: x.stored_value IS DISTINCT FROM x.recomputed)",
        [json.dumps(stored), json.dumps(EXPECTED), json.dumps(EXPECTED)]).fetchone()[0]
    assert [(d["field"], d["stored_value"], d["recomputed"]) for d in differences] == [
        ("deliveredSkus", False, None), ("passed", False, True)]
