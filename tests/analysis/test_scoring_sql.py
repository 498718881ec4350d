"""scoring.sql re-computes scores exactly as recorder/scorer.py does."""

from __future__ import annotations

import json

import duckdb
import pytest

from analysis.db import sql_text
from recorder.scorer import score

EXPECTED = {"deliveredSkus": ["A", "B"], "outstandingSkus": [], "delayReasons": ["carrier_delay"],
            "deliveryEstimate": "2026-10-10", "missingEvidence": ["tracking:T-1"]}
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
    None,
]
EXPECTATIONS = [EXPECTED, {**EXPECTED, "deliveryEstimate": None, "delayReasons": []},
                {**EXPECTED, "deliveredSkus": ["A", "A", "B"]}]
STRUCT = ('{"deliveredSkus": ["VARCHAR"], "outstandingSkus": ["VARCHAR"], "delayReasons": ["VARCHAR"], '
          '"deliveryEstimate": "VARCHAR", "missingEvidence": ["VARCHAR"]}')


@pytest.mark.parametrize("expected", EXPECTATIONS)
@pytest.mark.parametrize("answer", ANSWERS)
def test_sql_scoring_matches_the_python_scorer(answer, expected):
    con = duckdb.connect()
    con.execute(sql_text("scoring.sql")).fetchall()
    fields = con.execute(f"SELECT rescore_fields(json_transform(?, '{STRUCT}'), json_transform(?, '{STRUCT}'))",
                         [json.dumps(answer), json.dumps(expected)]).fetchone()[0]
    assert fields == score(answer, expected)["fields"]
