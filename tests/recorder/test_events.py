"""Every line the recorder writes conforms to the versioned event models in wismo/runformat/events.py."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.helpers import ROOT
from wismo.runformat import SCHEMA_VERSION
from wismo.runformat.events import EVENT_ADAPTER

SAMPLE = ROOT / "runs" / "sample-offline"


def test_every_sample_event_validates_against_its_model():
    lines = (SAMPLE / "events.jsonl").read_text().splitlines()
    types = set()
    for number, line in enumerate(lines, start=1):
        event = EVENT_ADAPTER.validate_json(line)
        assert event.v == SCHEMA_VERSION, number
        types.add(event.type)
    assert types == {"run_started", "conversation_started", "model_request", "model_response", "tool_call",
                     "tool_result", "conversation_finished", "run_finished"}


@pytest.mark.parametrize("change", [
    {"type": "model_reply"},
    {"seq": 0},
    {"v": 2},
    {"unexpected": True},
])
def test_a_line_that_breaks_the_schema_is_refused(change):
    line = next(line for line in (SAMPLE / "events.jsonl").read_text().splitlines() if '"tool_result"' in line)
    with pytest.raises(ValidationError):
        EVENT_ADAPTER.validate_python({**json.loads(line), **change})
