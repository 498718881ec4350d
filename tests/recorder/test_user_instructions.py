"""--instructions FILE: the user's guidance replaces wismo's for every design; the answer format is still appended."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from core.domain.dataset import load_dataset
from recorder.agent.instructions import answer_format, build_instructions
from recorder.run.options import Guidance, RecordOptions
from recorder.run.record import record
from tests.helpers import run_wismo
from tests.recorder.test_local_server import assert_valid
from wismo.loopback import compliant

GUIDANCE = "Always look up the order with the tools before answering.\nNever guess.\n"
EXAMPLE = Path(__file__).parents[2] / "examples" / "instructions" / "small-model.txt"


def test_the_guidance_replaces_the_default_and_the_answer_format_follows_it():
    clock = "2026-06-10T12:00:00Z"
    default = build_instructions(clock)
    mine = build_instructions(clock, guidance=GUIDANCE)
    assert mine.startswith(GUIDANCE.strip() + "\n\n")
    assert "Gather the evidence first" in default and "Gather the evidence first" not in mine
    assert mine.endswith(answer_format(clock))
    for needed in ('"deliveredSkus"', '"customerSummary"', "stock_shortage", "YYYY-MM-DD", clock):
        assert needed in mine
    narrow = build_instructions(clock, ("paymentStatus",), GUIDANCE)
    assert '"paymentStatus"' in narrow and '"deliveredSkus"' not in narrow


def test_every_design_gets_the_same_guidance_and_the_manifest_records_its_hash(tmp_path):
    guidance = Guidance.read(EXAMPLE)
    with compliant().serve() as fake:
        options = RecordOptions(provider="openai-chat", model="m", base_url=fake.url + "/v1", repetitions=1,
                                case_ids=("delivered-on-time", "payment-taken"), concurrency=1,
                                out_dir=tmp_path, run_id="mine", guidance=guidance)
        result = asyncio.run(record(options))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["userInstructions"] == {"file": str(EXAMPLE), "sha256": guidance.sha256,
                                            "text": EXAMPLE.read_text()}
    assert guidance.sha256.startswith("sha256:") and len(guidance.sha256) == 71
    clock = load_dataset(None).records.clock
    assert manifest["instructions"] == build_instructions(clock, guidance=guidance.text)
    assert all(kind["instructions"].startswith(guidance.text.strip()) for kind in manifest["questionKinds"])
    systems = {(json.dumps(r.body["tools"]), r.body["messages"][0]["content"]) for r in fake.requests}
    assert {text for _, text in systems} <= {kind["instructions"] for kind in manifest["questionKinds"]}
    assert len({tools for tools, _ in systems}) == 2  # both designs were asked, with the same guidance
    assert_valid(result.run_dir)


def test_without_the_flag_the_default_instructions_are_sent_and_nothing_is_recorded(tmp_path):
    with compliant().serve() as fake:
        options = RecordOptions(provider="openai-chat", model="m", base_url=fake.url + "/v1", repetitions=1,
                                case_ids=("delivered-on-time",), concurrency=1, out_dir=tmp_path, run_id="default")
        result = asyncio.run(record(options))
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert "userInstructions" not in manifest
    assert manifest["instructions"] == build_instructions(manifest["dataset"]["clock"])


def test_an_unreadable_instructions_file_is_one_line(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00x")
    for path, words in ((empty, "the file is empty"), (binary, "not UTF-8"), (tmp_path / "nope.txt", "No such file")):
        done = run_wismo("record", "--instructions", str(path), "--out", str(tmp_path / "runs"), cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "runs").exists()  # nothing written for a refused option
