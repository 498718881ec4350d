"""The scripted policy on results it did not expect: read tolerantly, a bug of its own ends one conversation only.

Issue 23's rough edge: a result with one extra key beside `orderId` crashed the policy (`KeyError:
'items'`), the stop-early rule then interrupted the innocent conversations of the other design, and
its advice (`wismo doctor --provider scripted`) was itself refused. The servers here are real child
processes (tests/recorder/hostile_server.py, the official SDK) that pass the deterministic comparison
and change what they return once it is over.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from recorder.providers import REGISTRY
from recorder.providers.scripted import ScriptedProvider
from recorder.run.fault_watch import FaultWatch, doctor_command
from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import events_of, live_finished, run_wismo

HOSTILE = Path(__file__).with_name("hostile_server.py")


def record_hostile(tmp_path: Path, flaw: str, run_id: str) -> Any:
    return run_wismo("record", "--server", f"h={sys.executable} {HOSTILE} {flaw}", "--designs", "granular,h",
                     "--repetitions", "1", "--run-id", run_id, cwd=tmp_path)


def test_a_result_with_one_extra_key_beside_the_order_id_is_read_tolerantly(tmp_path):
    done = record_hostile(tmp_path, "extra-key-later", "extra")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    run_dir = tmp_path / "runs" / "extra"
    # The fault was there: the fulfillment results carried the extra key the comparison never saw.
    noted = [e for e in events_of(run_dir) if e["type"] == "tool_result" and '"note"' in e["text"]]
    assert noted and all(e["name"] == "get_fulfillment" for e in noted)
    finished = live_finished(run_dir)
    assert len(finished) == 24
    assert {e["status"] for e in finished.values()} == {"answered"}
    assert all(e["score"]["passed"] for e in finished.values()), \
        [(c, e["score"]) for c, e in finished.items() if not e["score"]["passed"]]
    assert run_wismo("validate", str(run_dir), cwd=tmp_path).returncode == 0


def test_records_the_rules_cannot_read_are_answered_as_unreadable_and_stop_nothing(tmp_path):
    done = record_hostile(tmp_path, "no-items-later", "noitems")
    assert "Traceback" not in done.stderr and "wismo doctor" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]
    run_dir = tmp_path / "runs" / "noitems"
    finished = live_finished(run_dir)
    assert len(finished) == 24 and {e["status"] for e in finished.values()} == {"answered"}
    granular = [e for c, e in finished.items() if ".granular." in c]
    assert all(e["score"]["passed"] for e in granular)
    orders = {e["conversationId"]: e["orderId"] for e in events_of(run_dir) if e["type"] == "conversation_started"}
    brought = [e for c, e in finished.items() if ".h." in c]
    for event in brought:
        order = orders[event["conversationId"]]
        summary = event["assessment"]["customerSummary"]
        assert f"I found order {order}, but I couldn't read its records (KeyError: 'items')" in summary, summary
        assert event["assessment"].get("missingEvidence", [f"order:{order}"]) == [f"order:{order}"]
        assert not event["score"]["passed"]
    # The claim check after the run reads the same records: every such summary is "not checked", no crash.
    claims = (run_dir / "claims.jsonl").read_text()
    assert claims.count('"kind": "records"') == len(brought)
    assert run_wismo("validate", str(run_dir), cwd=tmp_path).returncode == 0


def test_a_policy_bug_ends_only_its_conversation_labelled_as_wismo_s_and_never_stops_the_run(tmp_path, monkeypatch):
    real = ScriptedProvider.next_output

    def broken_on_focused(self: ScriptedProvider, request: Any) -> list[dict[str, Any]]:
        if any(tool.name == "get_order_support_context" for tool in request.tools) and request.turn == 2:
            raise KeyError("items")
        return real(self, request)

    monkeypatch.setattr(ScriptedProvider, "next_output", broken_on_focused)
    result = asyncio.run(record(RecordOptions(repetitions=1, concurrency=4, out_dir=tmp_path, run_id="bug")))
    assert result.aborted is None and not result.interrupted
    finished = live_finished(tmp_path / "bug")
    focused = [e for c, e in finished.items() if ".focused." in c]
    granular = [e for c, e in finished.items() if ".granular." in c]
    assert len(focused) == len(granular) == 12
    assert {e["status"] for e in granular} == {"answered"}  # innocent: none interrupted
    assert {e["status"] for e in focused} == {"provider_error"}
    assert {e["error"] for e in focused} == {
        "unexpected: the scripted policy failed (KeyError: 'items'): a bug in wismo's offline policy, not a fault "
        "of the design or of a provider"}


def test_advice_names_doctor_only_for_a_provider_it_probes_and_the_command_printed_parses():
    from wismo.cli.doctor import doctor_command as doctor_cli

    for name, cls in REGISTRY.items():
        provider = SimpleNamespace(name=name, traits=cls.traits, model="my model",
                                   base_url="https://user:secret@llm.example/v1?api_key=secret")
        command = doctor_command(provider, api_key_env="MY_KEY")  # type: ignore[arg-type]
        if cls.traits.doctor is None:
            assert command is None
            # ... because doctor refuses it: printing it would be advice that does not work.
            refused = CliRunner().invoke(doctor_cli, ["--provider", name])
            assert refused.exit_code == 2 and "Invalid value for '--provider'" in refused.output
            continue
        assert command is not None and "secret" not in command
        arguments = shlex.split(command)
        assert arguments[:2] == ["wismo", "doctor"]
        doctor_cli.make_context("doctor", arguments[2:])  # raises on an option doctor does not take
        assert "my model" in arguments


@pytest.mark.parametrize("language_model", [True, False])
def test_the_stop_early_rule_watches_repeats_only_of_a_language_model(language_model):
    from recorder.agent.loop import Outcome
    from recorder.providers.base import ProviderError

    traits = REGISTRY["openai-chat" if language_model else "scripted"].traits
    provider = SimpleNamespace(name="x", traits=traits, model="m", base_url="http://127.0.0.1:1/v1")
    watch = FaultWatch.for_provider(provider)  # type: ignore[arg-type]
    failure = ProviderError("unexpected", "KeyError: 'items'")
    stops = [watch.observe(Outcome("provider_error", False, 2, 1, None, None, None, 1.0, provider_error=failure))
             for _ in range(3)]
    if language_model:
        assert stops[:2] == [None, None] and stops[2] is not None and "wismo doctor --provider x" in stops[2]
    else:
        assert stops == [None, None, None]
