"""Send a run's traces to an OTLP/HTTP receiver (Phoenix, Jaeger, Tempo, an OpenTelemetry Collector).

OTLP/HTTP carries an ExportTraceServiceRequest as protobuf (`application/x-protobuf`, the default in
the OTLP exporter spec) or as JSON (`application/json`). Protobuf needs the official message classes,
from the `opentelemetry-proto` package (`pip install 'wismo[export]'`); JSON needs nothing. Headers come
from OTEL_EXPORTER_OTLP_TRACES_HEADERS or OTEL_EXPORTER_OTLP_HEADERS (`key=value,key2=value2`, values
percent-decoded) as the exporter spec defines them; their values are never printed.

The conversations go in batches; the first request a receiver refuses stops the export with one line
naming the status (or the connection error) and how many conversations it had already accepted.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx

from core.errors import WismoError
from wismo.export.conversations import RunRead
from wismo.export.options import ExportOptions
from wismo.export.otlp import conversation_spans, export_request

PROTOCOLS = ("http/protobuf", "http/json")
BATCH_CONVERSATIONS = 25
TIMEOUT_S = 30.0
_MISSING_PROTO = ("sending OTLP as protobuf needs the opentelemetry-proto package: "
                  "pip install 'wismo[export]' (or send JSON with --otlp-protocol http/json)")


class ExportSendError(WismoError):
    """The receiver refused or dropped a request: what was sent before it stays sent."""

    exit_code = 1


@dataclass
class SendReport:
    conversations: int
    spans: int
    requests: int


def headers_from_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The OTLP headers of the environment; a malformed entry is a WismoError naming the variable, not its value."""
    environ = dict(os.environ) if environ is None else environ
    name = next((n for n in ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS") if environ.get(n)),
                None)
    if name is None:
        return {}
    headers = {}
    for number, entry in enumerate(environ[name].split(","), start=1):
        if not entry.strip():
            continue
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise WismoError(f"{name}: entry {number} is not key=value")
        headers[unquote(key.strip())] = unquote(value.strip())
    return headers


def proto_ids_to_base64(request: dict[str, Any]) -> dict[str, Any]:
    """The OTLP/JSON request with hex IDs turned into the base64 that protobuf's JSON parser expects for bytes."""
    converted = json.loads(json.dumps(request))
    for resource in converted["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in item:
                            item[key] = base64.b64encode(bytes.fromhex(item[key])).decode()
    return converted


def protobuf_body(request: dict[str, Any]) -> bytes:
    """The request serialized with the official opentelemetry-proto message."""
    try:
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    except ImportError:
        raise WismoError(_MISSING_PROTO) from None
    message = json_format.ParseDict(proto_ids_to_base64(request), ExportTraceServiceRequest())
    return bytes(message.SerializeToString())


def _rejected(response: httpx.Response, protocol: str) -> int:
    """Spans the receiver says it rejected (OTLP partial success); 0 when it says nothing."""
    if not response.content:
        return 0
    try:
        if protocol == "http/json":
            body = response.json()
            return int(body.get("partialSuccess", {}).get("rejectedSpans", 0) or 0)
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
        parsed = ExportTraceServiceResponse()
        parsed.ParseFromString(response.content)
        return int(parsed.partial_success.rejected_spans)
    except Exception:  # a receiver that answers 200 with a body it does not define still accepted the spans
        return 0


def send_run(run: RunRead, endpoint: str, options: ExportOptions, protocol: str = "http/protobuf",
             headers: dict[str, str] | None = None, progress: Callable[[int], None] | None = None,
             batch: int = BATCH_CONVERSATIONS) -> SendReport:
    """POST the run's traces to endpoint, batch conversations per request; ExportSendError at the first refusal."""
    if protocol not in PROTOCOLS:
        raise WismoError(f"--otlp-protocol {protocol!r}: use one of {', '.join(PROTOCOLS)}")
    if protocol == "http/protobuf":
        protobuf_body({"resourceSpans": []})  # fail on a missing package before sending anything
    content_type = "application/x-protobuf" if protocol == "http/protobuf" else "application/json"
    sent = SendReport(conversations=0, spans=0, requests=0)
    batches: list[list[list[dict[str, Any]]]] = [[]]
    for spans in conversation_spans(run, options):
        if len(batches[-1]) == batch:
            batches.append([])
        batches[-1].append(spans)
    with httpx.Client(timeout=TIMEOUT_S) as client:
        for group in batches:
            if not group:
                continue
            request = export_request(run, [s for spans in group for s in spans], options)
            body = protobuf_body(request) if protocol == "http/protobuf" else json.dumps(request).encode()
            where = f"after {sent.conversations} of {len(run.conversations)} conversations were accepted"
            try:
                response = client.post(endpoint, content=body,
                                       headers={**(headers or {}), "Content-Type": content_type})
            except httpx.HTTPError as exc:
                raise ExportSendError(f"OTLP endpoint {endpoint}: {type(exc).__name__}: {exc or 'no answer'} "
                                      f"({where})") from None
            if not 200 <= response.status_code < 300:
                raise ExportSendError(f"OTLP endpoint {endpoint} answered HTTP {response.status_code} "
                                      f"{response.reason_phrase} ({where})")
            rejected = _rejected(response, protocol)
            if rejected:
                raise ExportSendError(f"OTLP endpoint {endpoint} rejected {rejected} spans ({where})")
            sent.conversations += len(group)
            sent.spans += sum(len(spans) for spans in group)
            sent.requests += 1
            if progress is not None:
                progress(sent.conversations)
    return sent
