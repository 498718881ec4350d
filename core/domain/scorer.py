"""Score an answer's asked fields against a case's expectation.

Arrays are compared as sets, but a duplicate inside an answer's array fails that field (a model
that lists a SKU twice has not produced a set). The estimate is compared as a date or null, the
payment status as the exact string. Only the fields the case asks are scored: a field not asked
is neither right nor wrong. A conversation passes when every asked field matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from core.domain.fields import ASSESSMENT_FIELDS, LIST_FIELDS

SCORER_VERSION = 1
SET_FIELDS = LIST_FIELDS


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
    if field == "paymentStatus":
        return isinstance(answer, str) and answer == expected
    ok_answer, answer_date = _date_or_none(answer)
    ok_expected, expected_date = _date_or_none(expected)
    return ok_answer and ok_expected and answer_date == expected_date


def score(assessment: dict[str, Any] | None, expected: dict[str, Any],
          asks: Sequence[str] | None = None) -> dict[str, Any]:
    """{"fields": {asked name: bool}, "passed": bool}; no assessment fails every asked field.

    `asks` defaults to the fields the expectation holds (a case's expectation holds exactly its asked fields).
    """
    asked = [name for name in ASSESSMENT_FIELDS if name in (expected if asks is None else asks)]
    if assessment is None:
        fields = dict.fromkeys(asked, False)
    else:
        fields = {f: score_field(f, assessment.get(f), expected[f]) for f in asked}
    return {"fields": fields, "passed": all(fields.values())}
