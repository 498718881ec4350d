"""Smaller things a new user meets: options that would be ignored, a case no model can pass, `runs/*`."""

from __future__ import annotations

import asyncio
import hashlib

from recorder.run.options import RecordOptions
from recorder.run.record import record
from tests.helpers import default_cases, run_wismo


def test_a_case_whose_question_lacks_its_order_id_is_a_warning_that_says_why(tmp_path, make_dataset):
    cases = default_cases()
    cases[0]["question"] = "Where is my order? It should have arrived by now."
    dataset = make_dataset(cases=cases)
    checked = run_wismo("check", "--dataset", str(dataset), "--out", str(tmp_path / "comparison.json"), cwd=tmp_path)
    warning = ("warning: cases.json: [0] delivered-on-time: its question does not contain its orderId ORD-1001, so "
               "no model (nor the scripted policy) can look the order up")
    assert warning in checked.stderr and checked.returncode == 0  # a warning, not a failure
    recorded = run_wismo("record", "--dataset", str(dataset), "--repetitions", "1", "--cases", "delivered-on-time",
                         "--out", "runs", "--run-id", "r", cwd=tmp_path)
    assert warning in recorded.stderr


def test_the_scripted_provider_refuses_a_model_name(tmp_path):
    done = run_wismo("record", "--model", "gpt-5.4-mini", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2 and "--model do(es) not apply to the scripted provider" in done.stderr
    assert not (tmp_path / "runs").exists()


def test_resume_of_a_finished_run_says_nothing_to_do_and_refuses_options_it_would_ignore(tmp_path):
    asyncio.run(record(RecordOptions(repetitions=1, case_ids=("carrier-delay",), out_dir=tmp_path / "runs",
                                     run_id="done")))
    events = tmp_path / "runs" / "done" / "events.jsonl"
    before = hashlib.sha256(events.read_bytes()).hexdigest()
    refused = run_wismo("record", "--resume", "runs/done", "--repetitions", "5", cwd=tmp_path)
    assert refused.returncode == 2 and "it would ignore --repetitions" in refused.stderr
    again = run_wismo("record", "--resume", "runs/done", cwd=tmp_path)
    assert again.returncode == 0
    assert again.stdout.strip() == ("nothing to do: all 2 planned conversations of runs/done have finished without "
                                    "an infrastructure fault")
    assert hashlib.sha256(events.read_bytes()).hexdigest() == before


def test_validate_skips_what_is_not_a_run_with_a_note(tmp_path):
    asyncio.run(record(RecordOptions(repetitions=1, case_ids=("carrier-delay",), out_dir=tmp_path / "runs",
                                     run_id="a")))
    (tmp_path / "runs" / "README.md").write_text("my notes\n")
    (tmp_path / "runs" / "drafts").mkdir()
    checked = run_wismo("validate", "runs/README.md", "runs/a", "runs/drafts", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "skipping runs/README.md: not a run folder" in checked.stderr
    assert "skipping runs/drafts: not a run folder" in checked.stderr
    assert "PASS" in checked.stdout
