"""Plausible replies in each API's wire format, built from high-level parts.

Field names follow the installed SDKs' response types (openai.types.responses.Response,
openai.types.chat.ChatCompletion, anthropic.types.Message), so the SDKs parse them as real replies.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wismo.loopback.server import Reply

OPENAI_MODEL = "gpt-fake-2026-01-01"
ANTHROPIC_MODEL = "claude-fake-20260101"
CHAT_MODEL = "local-fake:8b"

_ids = itertools.count(1)

# (name, arguments JSON text) or (name, arguments JSON text, call id)
Call = tuple[str, str] | tuple[str, str, str]


@dataclass(frozen=True)
class Tokens:
    """Usage numbers as the API's own fields: `input` is the API's input field as it reports it."""

    input: int = 100
    output: int = 20
    cached: int = 0
    cache_write: int = 0


def _call_id(call: Call, prefix: str) -> str:
    return call[2] if len(call) == 3 else f"{prefix}{next(_ids):04d}"


def responses_reply(*, function_calls: Sequence[Call] = (), text: str | None = None,
                    usage: Tokens | None = Tokens(), model: str = OPENAI_MODEL,
                    response_id: str | None = None) -> Reply:
    """A `POST /v1/responses` reply: a message item for the text, a function_call item per call."""
    output: list[dict[str, Any]] = []
    if text is not None:
        output.append({"type": "message", "id": f"msg_{next(_ids):04d}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for call in function_calls:
        output.append({"type": "function_call", "id": f"fc_{next(_ids):04d}", "call_id": _call_id(call, "call_"),
                       "name": call[0], "arguments": call[1], "status": "completed"})
    body: dict[str, Any] = {
        "id": response_id or f"resp_{next(_ids):04d}", "object": "response", "created_at": 1_790_000_000,
        "status": "completed", "model": model, "output": output, "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": [], "error": None, "incomplete_details": None,
    }
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input, "output_tokens": usage.output,
                         "total_tokens": usage.input + usage.output,
                         "input_tokens_details": {"cached_tokens": usage.cached, "cache_write_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}
    return Reply(200, body)


def chat_reply(*, function_calls: Sequence[Call] = (), text: str | None = None,
               usage: Tokens | None = Tokens(), model: str = CHAT_MODEL, response_id: str | None = None) -> Reply:
    """A `POST /v1/chat/completions` reply: one choice whose message carries text and tool_calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if function_calls:
        message["tool_calls"] = [{"id": _call_id(call, "call_"), "type": "function",
                                  "function": {"name": call[0], "arguments": call[1]}} for call in function_calls]
    body: dict[str, Any] = {
        "id": response_id or f"chatcmpl-{next(_ids):04d}", "object": "chat.completion", "created": 1_790_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if function_calls else "stop"}],
    }
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage.input, "completion_tokens": usage.output,
                         "total_tokens": usage.input + usage.output,
                         "prompt_tokens_details": {"cached_tokens": usage.cached}}
    return Reply(200, body)


def messages_reply(*, function_calls: Sequence[Call] = (), text: str | None = None,
                   usage: Tokens | None = Tokens(), model: str = ANTHROPIC_MODEL,
                   response_id: str | None = None) -> Reply:
    """A `POST /v1/messages` reply: a text block, then a tool_use block per call (input parsed)."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    for call in function_calls:
        content.append({"type": "tool_use", "id": _call_id(call, "toolu_"), "name": call[0],
                        "input": json.loads(call[1])})
    body: dict[str, Any] = {
        "id": response_id or f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": "tool_use" if function_calls else "end_turn", "stop_sequence": None,
    }
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input, "output_tokens": usage.output,
                         "cache_read_input_tokens": usage.cached, "cache_creation_input_tokens": usage.cache_write}
    return Reply(200, body)


def openai_error(status: int, message: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI-style error reply (Responses and Chat Completions share it)."""
    kinds = {400: "invalid_request_error", 401: "invalid_request_error", 429: "rate_limit_exceeded"}
    return Reply(status, {"error": {"message": message, "type": kinds.get(status, "server_error"), "param": None,
                                    "code": None}}, headers or {})


def anthropic_error(status: int, message: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An Anthropic-style error reply."""
    kinds = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
             429: "rate_limit_error", 529: "overloaded_error"}
    return Reply(status, {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": message}},
                 headers or {})
