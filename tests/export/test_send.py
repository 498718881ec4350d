"""`wismo export --otlp-endpoint`: the sample run sent to a loopback OTLP/HTTP receiver, whole, and refusals.

The receiver (tests/export/receiver.py) decodes every request with the official opentelemetry-proto
messages; what it received is compared span by span with the file export of the same run.
"""

from __future__ import annotations

import json
import math
import shlex
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT, marked_command, run_wismo

pytest.importorskip("opentelemetry.proto", reason="opentelemetry-proto: pip install '.[test]'")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.export.receiver import hex_ids_to_base64, running_receiver

SAMPLE_RUN = ROOT / "runs" / "sample-offline"
CONVERSATIONS = 72
SECRET = "canary-8c1f-not-for-any-output"


def file_spans(tmp_path: Path) -> dict[bytes, bytes]:
    """The file export's spans, decoded, by span id (each serialized, to compare whole spans)."""
    out = tmp_path / "sample.json"
    result = run_wismo("export", str(SAMPLE_RUN), "--out", str(out), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    from google.protobuf import json_format

    message = json_format.ParseDict(hex_ids_to_base64(json.loads(out.read_text())), ExportTraceServiceRequest())
    spans = [s for rs in message.resource_spans for ss in rs.scope_spans for s in ss.spans]
    return {s.span_id: s.SerializeToString(deterministic=True) for s in spans}


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_a_run_sent_to_a_receiver_arrives_whole_with_the_headers_of_the_environment(tmp_path, protocol):
    expected = file_spans(tmp_path)
    with running_receiver() as receiver:
        result = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", receiver.url, "--otlp-protocol", protocol,
                           cwd=ROOT, env={"OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer%20{SECRET},x-team=ops"})
    assert result.returncode == 0, result.stderr
    received = {s.span_id: s.SerializeToString(deterministic=True) for s in receiver.spans()}
    assert len(receiver.spans()) == len(received)  # no span sent twice
    assert received == expected
    assert len(receiver.requests) == math.ceil(CONVERSATIONS / 25)
    assert set(receiver.content_types) == {"application/x-protobuf" if protocol == "http/protobuf"
                                           else "application/json"}
    assert all(h["Authorization"] == f"Bearer {SECRET}" and h["x-team"] == "ops" for h in receiver.headers)
    assert SECRET not in result.stdout + result.stderr
    assert f"sent {CONVERSATIONS} conversations ({len(expected)} spans" in result.stdout
    resource = {kv.key for kv in receiver.requests[0].resource_spans[0].resource.attributes}
    assert {"service.name", "wismo.run.id", "wismo.run.validated"} <= resource


@pytest.mark.parametrize(("mode", "said", "accepted"), [
    ("fail_500", "answered HTTP 500 Internal Server Error (after 0 of 72", 0),
    ("fail_second", "answered HTTP 500 Internal Server Error (after 25 of 72", 25),
    ("close", "(after 0 of 72", 0),
    ("close_second", "(after 25 of 72", 25),
    ("reject", "rejected 3 spans (after 0 of 72", None),
])
def test_a_receiver_that_refuses_or_hangs_up_is_one_line_and_a_non_zero_exit(mode, said, accepted):
    with running_receiver(mode) as receiver:
        result = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", receiver.url, cwd=ROOT, timeout=120)
    assert result.returncode == 1, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert said in line and receiver.url in line and "Traceback" not in result.stderr
    if accepted is not None:
        conversations = {s.trace_id for s in receiver.spans()}
        assert len(conversations) == accepted
    assert len(receiver.paths) == (1 if accepted == 0 or accepted is None else 2)  # stops at the first refusal


def test_a_receiver_that_is_not_there_is_one_line():
    with running_receiver() as receiver:
        url = receiver.url
    result = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", url, cwd=ROOT, timeout=120)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    assert "ConnectError" in line and url in line


def test_protobuf_without_opentelemetry_proto_is_one_line_naming_the_extra_and_json_still_works(tmp_path):
    shadow = tmp_path / "shadow" / "opentelemetry"
    (shadow / "proto").mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    (shadow / "proto" / "__init__.py").write_text("raise ImportError('opentelemetry-proto is not installed')\n")
    env = {"PYTHONPATH": str(tmp_path / "shadow")}
    with running_receiver() as receiver:
        missing = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", receiver.url, cwd=ROOT, env=env)
        assert missing.returncode == 2
        (line,) = missing.stderr.strip().splitlines()
        assert "pip install 'wismo[export]'" in line and not receiver.paths  # nothing sent
        as_json = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", receiver.url,
                            "--otlp-protocol", "http/json", cwd=ROOT, env=env)
    assert as_json.returncode == 0, as_json.stderr
    assert len({s.trace_id for s in receiver.spans()}) == CONVERSATIONS


def test_a_malformed_headers_variable_names_the_variable_not_its_value():
    result = run_wismo("export", str(SAMPLE_RUN), "--otlp-endpoint", "http://127.0.0.1:9/v1/traces", cwd=ROOT,
                       env={"OTEL_EXPORTER_OTLP_HEADERS": f"Authorization {SECRET}"})
    assert result.returncode == 2
    assert "OTEL_EXPORTER_OTLP_HEADERS: entry 1 is not key=value" in result.stderr
    assert SECRET not in result.stderr + result.stdout


def test_the_three_commands_of_docs_export_md_work_as_written(tmp_path):
    """Each documented command, run as written from a copy of the sample run; only the endpoint is the loopback's."""
    commands = [shlex.split(line.split("#")[0]) for line in marked_command("export-commands", "docs/export.md")
                .splitlines()]
    assert [c[:2] for c in commands] == [["wismo", "export"]] * 3
    (tmp_path / "runs").mkdir()
    shutil.copytree(SAMPLE_RUN, tmp_path / "runs" / "sample-offline")
    with running_receiver() as receiver:
        for command in commands:
            args = [receiver.url if a.startswith("http://localhost") else a for a in command[1:]]
            result = run_wismo(*args, cwd=tmp_path)
            assert result.returncode == 0, (command, result.stderr)
    assert len({s.trace_id for s in receiver.spans()}) == CONVERSATIONS
    assert (tmp_path / "sample.otlp.json").stat().st_size > 0
    inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai: pip install '.[test]'")
    assert len(inspect_log.read_eval_log(str(tmp_path / "sample.eval")).samples) == CONVERSATIONS


def test_a_run_that_fails_validation_is_not_sent_unless_unvalidated_and_then_marked(tmp_path):
    from tests.export.tampered import run_failing_validation

    run = run_failing_validation(tmp_path, "toolCalls")  # a counter its trace does not add up to
    with running_receiver() as receiver:
        refused = run_wismo("export", str(run), "--otlp-endpoint", receiver.url, cwd=ROOT)
        assert refused.returncode == 2 and "fails validation" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1 and not receiver.paths  # nothing sent
        sent = run_wismo("export", str(run), "--otlp-endpoint", receiver.url, "--unvalidated", cwd=ROOT)
    assert sent.returncode == 0, sent.stderr
    assert len({s.trace_id for s in receiver.spans()}) == CONVERSATIONS
    for request in receiver.requests:
        resource = {kv.key: kv.value for kv in request.resource_spans[0].resource.attributes}
        assert resource["wismo.run.validated"].bool_value is False
