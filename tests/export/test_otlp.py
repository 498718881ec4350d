"""`wismo export --format otlp`: the committed sample run, decoded with the official OTLP protobuf definitions.

The decoder here is written apart from the exporter: it turns the file's hex IDs into bytes itself and
parses with protobuf's strict JSON parser (an unknown field name fails), so a field the OTLP/JSON
encoding does not define, or an ID that is not hex, fails the test.
"""

from __future__ import annotations

import base64
import json
import shutil
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.export.tampered import run_failing_validation
from tests.helpers import ROOT, events_of, run_wismo

json_format = pytest.importorskip("google.protobuf.json_format", reason="opentelemetry-proto: pip install '.[test]'")
trace_pb2 = pytest.importorskip("opentelemetry.proto.trace.v1.trace_pb2", reason="opentelemetry-proto")
trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2",
                                    reason="opentelemetry-proto: pip install '.[test]'")

SAMPLE_RUN = ROOT / "runs" / "sample-offline"


def decode(text: str) -> Any:
    """The OTLP/JSON text as an ExportTraceServiceRequest message (hex IDs are what OTLP/JSON requires)."""
    raw = json.loads(text)
    for resource in raw["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in item:
                            value = item[key]
                            assert len(value) in (16, 32) and value == value.lower(), f"{key} {value!r} is not hex"
                            item[key] = base64.b64encode(bytes.fromhex(value)).decode()
    return json_format.ParseDict(raw, trace_service.ExportTraceServiceRequest())


def attrs(span_or_event: Any) -> dict[str, Any]:
    found = {}
    for kv in span_or_event.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        found[kv.key] = list(v.string_value for v in value.values) if kind == "array_value" else value
    return found


def nanos(ts: str) -> int:
    moment = datetime.fromisoformat(ts)
    return int(moment.timestamp()) * 10**9 + moment.microsecond * 1000


def conversation_of(spans: list[Any]) -> dict[bytes, str]:
    """trace id -> the conversation its root span names."""
    return {s.trace_id: attrs(s)["gen_ai.conversation.id"] for s in spans if not s.parent_span_id}


def spans_of(request: Any) -> list[Any]:
    return [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]


def export(run_dir: Path, out: Path, *extra: str) -> str:
    result = run_wismo("export", str(run_dir), "--format", "otlp", "--out", str(out), *extra, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def sample_export(tmp_path_factory: pytest.TempPathFactory) -> str:
    return export(SAMPLE_RUN, tmp_path_factory.mktemp("otlp") / "sample.json")


def test_one_trace_per_conversation_each_rooted_in_an_invoke_agent_span(sample_export):
    request = decode(sample_export)
    finished = [e for e in events_of(SAMPLE_RUN) if e["type"] == "conversation_finished"]
    by_trace: dict[bytes, list[Any]] = defaultdict(list)
    for span in spans_of(request):
        by_trace[span.trace_id].append(span)
    assert len(by_trace) == len(finished) == 72
    conversations = set()
    for spans in by_trace.values():
        roots = [s for s in spans if not s.parent_span_id]
        assert len(roots) == 1 and roots[0].name == "invoke_agent wismo"
        root = attrs(roots[0])
        assert root["gen_ai.operation.name"] == "invoke_agent"
        conversations.add(root["gen_ai.conversation.id"])
        assert f"{root['wismo.case.id']}.{root['wismo.design']}.r{root['wismo.repetition']}" \
            == root["gen_ai.conversation.id"]
        assert root["wismo.outcome"] == "answered"
        ids = {s.span_id for s in spans}
        assert len(ids) == len(spans)
        assert all(s.parent_span_id in ids for s in spans if s.parent_span_id)
    assert conversations == {e["conversationId"] for e in finished}


def test_exporting_twice_gives_the_same_bytes(sample_export, tmp_path):
    assert export(SAMPLE_RUN, tmp_path / "again.json") == sample_export


def test_chat_and_tool_spans_follow_the_recorded_requests_and_calls_and_nest_in_time(sample_export):
    request = decode(sample_export)
    spans = spans_of(request)
    by_id = {s.span_id: s for s in spans}
    events = events_of(SAMPLE_RUN)
    chats = [s for s in spans if s.name.startswith("chat ")]
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert len(chats) == sum(e["type"] == "model_request" for e in events)
    assert len(tools) == sum(e["type"] == "tool_call" for e in events)
    assert all(by_id[s.parent_span_id].name.startswith("invoke_agent") for s in chats)
    assert all(by_id[t.parent_span_id].name.startswith("invoke_agent") for t in tools)
    # each tool span links to the chat span whose response asked for it, and starts after that response
    for tool in tools:
        (link,) = tool.links
        asked_by = by_id[link.span_id]
        assert asked_by.name.startswith("chat ") and asked_by.parent_span_id == tool.parent_span_id
        assert asked_by.end_time_unix_nano <= tool.start_time_unix_nano
    for span in chats + tools:
        parent = by_id[span.parent_span_id]
        assert parent.start_time_unix_nano <= span.start_time_unix_nano <= span.end_time_unix_nano \
            <= parent.end_time_unix_nano, span.name
    # a tool span's times are its tool_call and tool_result lines' timestamps, to the microsecond
    calls = {(e["conversationId"], e["callId"]): e for e in events if e["type"] == "tool_call"}
    results = {(e["conversationId"], e["callId"]): e for e in events if e["type"] == "tool_result"}
    conversation = conversation_of(spans)
    for tool in tools:
        key = (conversation[tool.trace_id], attrs(tool)["gen_ai.tool.call.id"])
        assert tool.start_time_unix_nano == nanos(calls[key]["ts"])
        assert tool.end_time_unix_nano == nanos(results[key]["ts"])


def test_tokens_add_up_to_the_run_s_and_are_marked_estimated(sample_export):
    request = decode(sample_export)
    spans = spans_of(request)
    claimed = [e["claimed"] for e in events_of(SAMPLE_RUN) if e["type"] == "conversation_finished"]
    chats = [attrs(s) for s in spans if s.name.startswith("chat ")]
    roots = [attrs(s) for s in spans if not s.parent_span_id]
    for key, field in (("gen_ai.usage.input_tokens", "inputTokens"), ("gen_ai.usage.output_tokens", "outputTokens")):
        run_total = sum(c[field] for c in claimed)
        assert run_total > 0
        assert sum(c[key] for c in chats) == run_total
        assert sum(r[key] for r in roots) == run_total
    # the scripted policy reported no cache or reasoning tokens: none is invented
    assert not any("gen_ai.usage.cache_read.input_tokens" in c for c in chats)
    assert all(c["wismo.usage.estimated"] is True for c in chats + roots)
    assert all(c["gen_ai.provider.name"] == "wismo.scripted" for c in chats)


def test_tool_spans_carry_the_mcp_attributes_and_a_tool_error_is_marked(sample_export):
    request = decode(sample_export)
    spans = spans_of(request)
    conversation = conversation_of(spans)
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    results = {(e["conversationId"], e["callId"]): e for e in events_of(SAMPLE_RUN) if e["type"] == "tool_result"}
    errors = 0
    for span in tools:
        a = attrs(span)
        assert a["gen_ai.operation.name"] == "execute_tool"
        assert a["mcp.method.name"] == "tools/call"
        assert a["network.transport"] == "pipe"  # both designs ran over stdio
        assert span.name == f"execute_tool {a['gen_ai.tool.name']}"
        assert span.kind == trace_pb2.Span.SPAN_KIND_CLIENT
        result = results[(conversation[span.trace_id], a["gen_ai.tool.call.id"])]
        if result["isError"]:
            errors += 1
            assert a["error.type"] == "tool_error"
            assert span.status.code == trace_pb2.Status.STATUS_CODE_ERROR
        else:
            assert "error.type" not in a
    assert errors == sum(r["isError"] for r in results.values()) > 0


def test_the_score_is_an_evaluation_event_and_no_content_without_the_opt_in(sample_export, tmp_path):
    request = decode(sample_export)
    roots = [s for s in spans_of(request) if not s.parent_span_id]
    labels = Counter()
    for root in roots:
        (event,) = [e for e in root.events if e.name == "gen_ai.evaluation.result"]
        a = attrs(event)
        assert a["gen_ai.evaluation.name"] == "wismo.answer_score"
        assert a["gen_ai.evaluation.score.value"] == (1.0 if attrs(root)["wismo.passed"] else 0.0)
        labels[a["gen_ai.evaluation.score.label"]] += 1
    assert labels["pass"] > 0
    for key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.result", "ORD-1001\\\""):
        assert key not in sample_export
    with_content = export(SAMPLE_RUN, tmp_path / "content.json", "--include-content")
    spans = spans_of(decode(with_content))
    chat = attrs(next(s for s in spans if s.name.startswith("chat ")))
    messages = json.loads(chat["gen_ai.input.messages"])
    assert messages[0] == {"role": "user", "parts": [
        {"type": "text", "content": "Hi, where is my order ORD-1001? Has everything arrived?"}]}
    tool = attrs(next(s for s in spans if s.name.startswith("execute_tool ")))
    assert json.loads(tool["gen_ai.tool.call.result"])["orderId"] == "ORD-1001"


def _with_a_claim_finding(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    claims = run / "claims.jsonl"
    lines = [json.loads(line) for line in claims.read_text().splitlines()]
    checked = next(line for line in lines if line["conversationId"] == "carrier-delay.granular.r1")
    checked["findings"] = 1
    finding = {"v": 1, "type": "claim_finding", "runId": "sample-offline", "ts": checked["ts"],
               "conversationId": checked["conversationId"], "attempt": 1, "checkerVersion": checked["checkerVersion"],
               "kind": "unsupported_date", "severity": "high", "sentence": "It arrives tomorrow.",
               "claim": "tomorrow", "evidence": "TRK-1002 estimates 2026-10-10", "sku": "WEBCAM-4K",
               "start": 11, "end": 19}
    index = lines.index(checked)
    lines.insert(index + 1, finding)
    claims.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return run


def test_a_claim_finding_is_an_evaluation_event_and_its_quote_needs_the_opt_in(tmp_path):
    run = _with_a_claim_finding(tmp_path)
    for flag, explanation in (((), "unsupported_date (high)"),
                              (("--include-content",), "'tomorrow': TRK-1002 estimates 2026-10-10")):
        spans = spans_of(decode(export(run, tmp_path / "out.json", *flag)))
        root = next(s for s in spans if not s.parent_span_id
                    and attrs(s)["gen_ai.conversation.id"] == "carrier-delay.granular.r1")
        findings = [attrs(e) for e in root.events if attrs(e)["gen_ai.evaluation.name"] == "wismo.claim_check"]
        assert findings == [{"gen_ai.evaluation.name": "wismo.claim_check", "gen_ai.evaluation.score.value": 0.0,
                             "gen_ai.evaluation.score.label": "unsupported_date",
                             "gen_ai.evaluation.explanation": explanation, "gen_ai.response.id": findings[0][
                                 "gen_ai.response.id"], "wismo.claim.severity": "high", "wismo.claim.sku": "WEBCAM-4K"}]
        others = [e for s in spans if not s.parent_span_id for e in s.events
                  if attrs(e)["gen_ai.evaluation.name"] == "wismo.claim_check"]
        assert len(others) == 1


def test_a_run_that_fails_validation_is_refused_unless_unvalidated_and_then_marked(tmp_path):
    run = run_failing_validation(tmp_path, "inputTokens")  # a counter its trace does not add up to
    out = tmp_path / "out.json"
    refused = run_wismo("export", str(run), "--out", str(out), cwd=ROOT)
    assert refused.returncode == 2 and not out.exists()
    assert len(refused.stderr.strip().splitlines()) == 1 and "fails validation" in refused.stderr
    request = decode(export(run, out, "--unvalidated"))
    resource = attrs(request.resource_spans[0].resource)
    assert resource["wismo.run.validated"] is False


def test_bad_output_paths_and_broken_lines_are_one_line_errors(tmp_path):
    inside = run_wismo("export", str(SAMPLE_RUN), "--out", str(SAMPLE_RUN / "x.json"), cwd=ROOT)
    assert inside.returncode == 2 and "inside the run folder" in inside.stderr
    assert not (SAMPLE_RUN / "x.json").exists()
    nowhere = run_wismo("export", str(SAMPLE_RUN), "--out", str(tmp_path / "no" / "x.json"), cwd=ROOT)
    assert nowhere.returncode == 2 and len(nowhere.stderr.strip().splitlines()) == 1
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    with (run / "events.jsonl").open("a") as events:
        events.write('{"v": 1, "type": "tool_call", "runId": "sample-offline"}\n')
    broken = run_wismo("export", str(run), "--out", str(tmp_path / "x.json"), "--unvalidated", cwd=ROOT)
    assert broken.returncode == 2, broken.stderr
    (line,) = broken.stderr.strip().splitlines()
    assert f"{run / 'events.jsonl'}:{len((run / 'events.jsonl').read_text().splitlines())}:" in line
    assert "Traceback" not in broken.stderr


def test_a_language_model_s_cache_and_reasoning_tokens_and_an_http_design_are_exported_as_recorded(tmp_path):
    from tests.analysis.runbuilder import Conv, RunSpec, write_run

    spec = RunSpec("lm", ["granular", "remote"], 1, ["A"], [
        Conv("A", "granular", 1, [(1_000, 50), (2_500, 80)], [2], 900.0, cached=[0, 1_800], reasoning=[10, None]),
        Conv("A", "remote", 1, [(1_200, 40), (1_900, 70)], [1], 800.0, cached=[None, 1_024], reasoning=None)],
        design_sources={"granular": {"command": ["python", "-m", "recorder.servers", "granular"], "builtIn": True},
                        "remote": {"url": "https://mcp.example.test:8443/mcp", "headers": ["Authorization"]}})
    run = write_run(tmp_path, spec)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["host"] = {"python": "3.11", "platform": "test", "cpus": 1}  # the builder leaves what no SQL reads
    (run / "manifest.json").write_text(json.dumps(manifest))
    spans = spans_of(decode(export(run, tmp_path / "lm.json")))
    conversation = conversation_of(spans)
    roots = {attrs(s)["gen_ai.conversation.id"]: attrs(s) for s in spans if not s.parent_span_id}
    granular, remote = roots["A.granular.r1"], roots["A.remote.r1"]
    assert (granular["gen_ai.usage.input_tokens"], granular["gen_ai.usage.cache_read.input_tokens"],
            granular["gen_ai.usage.reasoning.output_tokens"]) == (3_500, 1_800, 10)
    assert remote["gen_ai.usage.cache_read.input_tokens"] == 1_024
    assert "gen_ai.usage.reasoning.output_tokens" not in remote  # never reported: absent, not zero
    chats = [attrs(s) for s in spans if s.name.startswith("chat ")
             and conversation[s.trace_id] == "A.remote.r1"]
    assert ["gen_ai.usage.cache_read.input_tokens" in c for c in chats] == [False, True]
    tools = {conversation[s.trace_id]: attrs(s) for s in spans if s.name.startswith("execute_tool ")}
    assert tools["A.granular.r1"]["network.transport"] == "pipe" and "server.address" not in tools["A.granular.r1"]
    assert (tools["A.remote.r1"]["network.transport"], tools["A.remote.r1"]["server.address"],
            tools["A.remote.r1"]["server.port"]) == ("tcp", "mcp.example.test", 8443)

    from inspect_ai.log import read_eval_log  # the same run in Inspect's terms: cache reads apart from input

    result = run_wismo("export", str(run), "--format", "inspect", "--out", str(tmp_path / "lm.json"), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    usage = {s.metadata["conversation_id"]: s.model_usage["built"] for s in read_eval_log(
        str(tmp_path / "lm.json")).samples}
    assert (usage["A.granular.r1"].input_tokens, usage["A.granular.r1"].input_tokens_cache_read,
            usage["A.granular.r1"].total_tokens, usage["A.granular.r1"].reasoning_tokens) == (1_700, 1_800, 3_630, 10)


def test_a_conversation_cut_off_before_its_finish_line_exports_as_unfinished(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    events = run / "events.jsonl"
    lines = events.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines)
               if '"conversation_finished"' in line and '"carrier-delay.granular.r2"' in line)
    del lines[cut]
    events.write_text("\n".join(lines) + "\n")
    refused = run_wismo("export", str(run), "--out", str(tmp_path / "x.json"), cwd=ROOT)
    assert refused.returncode == 2 and "start_finish" in refused.stderr
    spans = spans_of(decode(export(run, tmp_path / "x.json", "--unvalidated")))
    roots = {attrs(s)["gen_ai.conversation.id"]: s for s in spans if not s.parent_span_id}
    assert len(roots) == 72
    cut_off = roots["carrier-delay.granular.r2"]
    assert attrs(cut_off)["wismo.outcome"] == "unfinished" and attrs(cut_off)["error.type"] == "unfinished"
    assert not [e for e in cut_off.events if e.name == "gen_ai.evaluation.result"]  # never scored
    children = [s for s in spans if s.parent_span_id == cut_off.span_id]
    assert children and max(s.end_time_unix_nano for s in children) == cut_off.end_time_unix_nano

    inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai: pip install '.[test]'")
    result = run_wismo("export", str(run), "--format", "inspect", "--out", str(tmp_path / "x.eval"), "--unvalidated",
                       cwd=ROOT)
    assert result.returncode == 0, result.stderr
    log = inspect_log.read_eval_log(str(tmp_path / "x.eval"))
    (sample,) = [s for s in log.samples if s.metadata["conversation_id"] == "carrier-delay.granular.r2"]
    assert sample.error is not None and "unfinished" in sample.error.message and "wismo_answer" not in sample.scores
    assert log.status == "cancelled" and log.invalidated
    assert log.results.completed_samples == 71


def test_a_superseded_attempt_is_left_out_and_a_local_server_s_address_is_on_the_chat_spans(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(SAMPLE_RUN, run)
    events = run / "events.jsonl"
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    first = [e for e in lines if e.get("conversationId") == "carrier-delay.focused.r1"]
    # a resume re-ran it: attempt 1 superseded, attempt 2 recorded one second later
    again = [{**event, "attempt": 2, "ts": (datetime.fromisoformat(event["ts"]) + timedelta(seconds=1)).isoformat(
        timespec="microseconds")} for event in first]
    lines.append({"v": 1, "type": "attempt_superseded", "runId": "sample-offline", "ts": again[0]["ts"],
                  "conversationId": "carrier-delay.focused.r1", "attempt": 1, "reason": "resumed"})
    lines += again
    events.write_text("".join(json.dumps(e) + "\n" for e in lines))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["baseUrl"] = "http://127.0.0.1:11434/v1"
    (run / "manifest.json").write_text(json.dumps(manifest))
    spans = spans_of(decode(export(run, tmp_path / "x.json", "--unvalidated")))
    conversation = conversation_of(spans)
    mine = [s for s in spans if conversation[s.trace_id] == "carrier-delay.focused.r1"]
    (root,) = [s for s in mine if not s.parent_span_id]
    assert attrs(root)["wismo.attempt"] == 2 and root.start_time_unix_nano == nanos(again[0]["ts"])
    assert len(mine) == 1 + sum(e["type"] in ("model_request", "tool_call") for e in again)
    assert len({s.trace_id for s in spans}) == 72
    chats = [attrs(s) for s in spans if s.name.startswith("chat ")]
    assert all((c["server.address"], c["server.port"]) == ("127.0.0.1", 11434) for c in chats)


@pytest.mark.parametrize("export_format, name", [("otlp", "x.json"), ("inspect", "x.json"), ("inspect", "x.eval")])
def test_a_full_disk_or_a_read_only_folder_is_one_line_exit_3_and_leaves_nothing(tmp_path, export_format, name):
    import signal

    from tests.helpers import without_root_override

    locked = tmp_path / "read-only"
    locked.mkdir()
    locked.chmod(0o555)
    done = run_wismo("export", str(SAMPLE_RUN), "--format", export_format, "--out", str(locked / name), cwd=ROOT,
                     preexec_fn=without_root_override)
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines() == [f"error: cannot write {locked / name}: Permission denied"]

    def small_disk() -> None:
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing us
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))

    out = tmp_path / name
    out.write_text("an earlier export\n")
    done = run_wismo("export", str(SAMPLE_RUN), "--format", export_format, "--out", str(out), cwd=ROOT,
                     preexec_fn=small_disk)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: cannot write {out}: ")
    assert out.read_text() == "an earlier export\n"  # replaced in one rename, or not at all
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["read-only", name])
