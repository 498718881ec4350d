"""A run whose conversations are cut by their deadline still validates: the trace is whole."""

from __future__ import annotations

import asyncio

from analysis import validate_runs
from recorder.agent.loop import Budgets
from recorder.providers import REGISTRY
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.recorder.fake_registry import SlowToolCaller


def test_conversations_cut_by_the_deadline_leave_a_valid_trace(tmp_path, monkeypatch):
    monkeypatch.setitem(REGISTRY, "slow-tool-caller", SlowToolCaller)
    options = RecordOptions(provider="slow-tool-caller", repetitions=1, case_ids=("partial-delivery",),
                            out_dir=tmp_path, run_id="cut", budgets=Budgets(conversation_deadline_s=0.4))
    result = asyncio.run(record(options))
    assert {o.status for _, o in result.outcomes} == {"timeout"}
    [validation] = validate_runs([result.run_dir])
    assert validation.passed, [(c.name, c.rows[:3]) for c in validation.checks if not c.passed]
