"""Synthetic but valid runs of any size, cloned from a real recorded template run.

A real offline run of the default dataset (7 cases × 2 designs × 1 repetition) is recorded once;
its conversations are then copied under new case IDs and repetitions, with the run and conversation
IDs rewritten as text. Every copied line is a line the recorder really wrote, so the result passes
the same validation as a real run, and its size per conversation is realistic.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from recorder.run.options import RecordOptions
from recorder.run.record import record

TEMPLATE_RUN_ID = "template"
PAIR = re.compile(r'"pairIndex":\d+,"pairPosition":\d+')


def record_template(folder: Path) -> Path:
    """Record the template run (once per folder) and return its path."""
    run_dir = folder / TEMPLATE_RUN_ID
    if not (run_dir / "manifest.json").exists():
        asyncio.run(record(RecordOptions(repetitions=1, out_dir=folder, run_id=TEMPLATE_RUN_ID)))
    return run_dir


def _template_lines(run_dir: Path) -> dict[str, list[str]]:
    by_conversation: dict[str, list[str]] = defaultdict(list)
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if "conversationId" in event:
            by_conversation[event["conversationId"]].append(line)
    return by_conversation


def generate_run(template: Path, out: Path, conversations: int, repetitions: int = 3) -> Path:
    """Write a run of about `conversations` conversations (a multiple of 2 × repetitions) to `out`."""
    manifest: dict[str, Any] = json.loads((template / "manifest.json").read_text(encoding="utf-8"))
    lines = _template_lines(template)
    designs = manifest["designs"]
    base_cases = manifest["cases"]
    case_count = max(1, math.ceil(conversations / (len(designs) * repetitions)))
    run_id = out.name
    out.mkdir(parents=True, exist_ok=False)
    cases, plan = [], []
    pair_index = 0
    with open(out / "events.jsonl", "w", encoding="utf-8") as events:
        first = json.dumps({"v": 1, "type": "run_started", "runId": run_id, "ts": manifest["startedAt"],
                            "wismoVersion": manifest["wismoVersion"], "planned": case_count * len(designs) *
                            repetitions}, separators=(",", ":"))
        events.write(first + "\n")
        for index in range(case_count):
            base = base_cases[index % len(base_cases)]
            case_id = f"{base['caseId']}-{index:06d}"
            cases.append({**base, "caseId": case_id})
            for repetition in range(1, repetitions + 1):
                order = designs if pair_index % 2 == 0 else list(reversed(designs))
                for position, design in enumerate(order, start=1):
                    source = f"{base['caseId']}.{design}.r1"
                    target = f"{case_id}.{design}.r{repetition}"
                    plan.append({"conversationId": target, "caseId": case_id, "design": design,
                                 "repetition": repetition, "pairIndex": pair_index, "pairPosition": position})
                    for line in lines[source]:
                        line = line.replace(f'"conversationId":"{source}"', f'"conversationId":"{target}"')
                        line = line.replace(f'"caseId":"{base["caseId"]}"', f'"caseId":"{case_id}"')
                        line = line.replace('"repetition":1,', f'"repetition":{repetition},')
                        line = line.replace(f'"runId":"{TEMPLATE_RUN_ID}"', f'"runId":"{run_id}"')
                        if '"type":"conversation_started"' in line:
                            # the plan pairs conversations anew; check_plan_coverage holds the line to it
                            line = PAIR.sub(f'"pairIndex":{pair_index},"pairPosition":{position}', line)
                        events.write(line + "\n")
                pair_index += 1
        events.write(json.dumps({"v": 1, "type": "run_finished", "runId": run_id, "ts": manifest["finishedAt"],
                                 "conversations": len(plan), "errored": 0, "aborted": None},
                                separators=(",", ":")) + "\n")
    manifest.update(runId=run_id, cases=cases, plan=plan, repetitions=repetitions)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    comparison = template / "deterministic-comparison.json"
    (out / "deterministic-comparison.json").write_bytes(comparison.read_bytes())
    return out
