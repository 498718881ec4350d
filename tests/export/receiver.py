"""A loopback OTLP/HTTP trace receiver that decodes with the official opentelemetry-proto messages.

It speaks the OTLP/HTTP wire format (POST /v1/traces, protobuf or JSON by Content-Type, an
ExportTraceServiceResponse back) and can misbehave on purpose: answer 500, close the connection
without answering, or report a partial success that rejected spans.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def hex_ids_to_base64(raw: dict[str, Any]) -> dict[str, Any]:
    """OTLP/JSON carries IDs as hex; protobuf's JSON parser reads bytes as base64."""
    for resource in raw.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in item:
                            item[key] = base64.b64encode(bytes.fromhex(item[key])).decode()
    return raw


@dataclass
class Receiver:
    mode: str = "ok"  # ok, fail_500, close, reject, fail_second
    url: str = ""
    requests: list[ExportTraceServiceRequest] = field(default_factory=list)
    content_types: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def spans(self) -> list[Any]:
        return [s for r in self.requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            content_type = self.headers.get("Content-Type", "")
            receiver.paths.append(self.path)
            receiver.content_types.append(content_type)
            receiver.headers.append(dict(self.headers.items()))
            if receiver.mode == "close" or (receiver.mode == "close_second" and receiver.requests):
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if receiver.mode == "fail_500" or (receiver.mode == "fail_second" and receiver.requests):
                self.send_response(500, "Internal Server Error")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            message = ExportTraceServiceRequest()
            if content_type == "application/x-protobuf":
                message.ParseFromString(body)
            else:
                json_format.ParseDict(hex_ids_to_base64(json.loads(body)), message)
            receiver.requests.append(message)
            response = ExportTraceServiceResponse()
            if receiver.mode == "reject":
                response.partial_success.rejected_spans = 3
                response.partial_success.error_message = "3 spans too old"
            if content_type == "application/x-protobuf":
                payload, reply_type = response.SerializeToString(), "application/x-protobuf"
            else:
                payload, reply_type = json_format.MessageToJson(response).encode(), "application/json"
            self.send_response(200)
            self.send_header("Content-Type", reply_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def running_receiver(mode: str = "ok") -> Iterator[Receiver]:
    receiver = Receiver(mode=mode)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
