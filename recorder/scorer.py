"""Score an answer's five assessment fields against a case's expectation.

Arrays are compared as sets, but a duplicate inside an answer's array fails that field (a model
that lists a SKU twice has not produced a set). The estimate is compared as a date or null. A
conversation passes when all five fields match.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from recorder.instructions import ASSESSMENT_FIELDS

SCORER_VERSION = 1
SET_FIELDS = ("deliveredSkus", "outstandingSkus", "delayReasons", "missingEvidence")


def _date_or_none(value: Any) -> tuple[bool, date | None]:
    if value is None:
        return True, None
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return True, date.fromisoformat(value)
        except ValueError:
            return False, None
    return False, None


def score_field(field: str, answer: Any, expected: Any) -> bool:
    """True when one field of the answer matches the expectation."""
    if field in SET_FIELDS:
        if not isinstance(answer, list) or len(answer) != len(set(answer)):
            return False
        return set(answer) == set(expected)
    ok_answer, answer_date = _date_or_none(answer)
    ok_expected, expected_date = _date_or_none(expected)
    return ok_answer and ok_expected and answer_date == expected_date


def score(assessment: dict[str, Any] | None, expected: dict[str, Any]) -> dict[str, Any]:
    """{"fields": {name: bool}, "passed": bool}; no assessment fails every field."""
    if assessment is None:
        fields = dict.fromkeys(ASSESSMENT_FIELDS, False)
    else:
        fields = {f: score_field(f, assessment.get(f), expected[f]) for f in ASSESSMENT_FIELDS}
    return {"fields": fields, "passed": all(fields.values())}
