"""Plausible replies in each API's wire format, built from high-level parts.

Field names follow the installed SDKs' response types (openai.types.responses.Response,
openai.types.chat.ChatCompletion, anthropic.types.Message, anthropic.types.ModelInfo), so the SDKs
parse them as real replies.
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
    reasoning: int = 0  # of the output; Anthropic's thinking_tokens are sent only when not 0


def _call_id(call: Call, prefix: str) -> str:
    return call[2] if len(call) == 3 else f"{prefix}{next(_ids):04d}"


def responses_reply(*, function_calls: Sequence[Call] = (), text: str | None = None,
                    usage: Tokens | None = Tokens(), model: str = OPENAI_MODEL,
                    response_id: str | None = None, reasoning: Sequence[str | None] = (),
                    refusal: str | None = None, incomplete: str | None = None) -> Reply:
    """A `POST /v1/responses` reply: a reasoning item per entry of `reasoning` (its encrypted content, or
    None for an item sent without), a message item for the text (or the refusal), a function_call item per
    call; `incomplete` makes the status incomplete with that incomplete_details.reason."""
    output: list[dict[str, Any]] = []
    for encrypted in reasoning:
        item: dict[str, Any] = {"type": "reasoning", "id": f"rs_{next(_ids):04d}",
                                "summary": [{"type": "summary_text", "text": "Looking the order up."}]}
        if encrypted is not None:
            item["encrypted_content"] = encrypted
        output.append(item)
    if refusal is not None:
        output.append({"type": "message", "id": f"msg_{next(_ids):04d}", "status": "completed", "role": "assistant",
                       "content": [{"type": "refusal", "refusal": refusal}]})
    if text is not None:
        output.append({"type": "message", "id": f"msg_{next(_ids):04d}", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for call in function_calls:
        output.append({"type": "function_call", "id": f"fc_{next(_ids):04d}", "call_id": _call_id(call, "call_"),
                       "name": call[0], "arguments": call[1], "status": "completed"})
    body: dict[str, Any] = {
        "id": response_id or f"resp_{next(_ids):04d}", "object": "response", "created_at": 1_790_000_000,
        "status": "incomplete" if incomplete else "completed", "model": model, "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "error": None,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
    }
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input, "output_tokens": usage.output,
                         "total_tokens": usage.input + usage.output,
                         "input_tokens_details": {"cached_tokens": usage.cached, "cache_write_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": usage.reasoning}}
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
                   response_id: str | None = None, stop_reason: str | None = None) -> Reply:
    """A `POST /v1/messages` reply: a text block, then a tool_use block per call (input parsed); the stop
    reason is tool_use or end_turn unless given."""
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    for call in function_calls:
        content.append({"type": "tool_use", "id": _call_id(call, "toolu_"), "name": call[0],
                        "input": json.loads(call[1])})
    body: dict[str, Any] = {
        "id": response_id or f"msg_{next(_ids):04d}", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason or ("tool_use" if function_calls else "end_turn"),
        "stop_sequence": None,
    }
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input, "output_tokens": usage.output,
                         "cache_read_input_tokens": usage.cached, "cache_creation_input_tokens": usage.cache_write}
        if usage.reasoning:
            body["usage"]["output_tokens_details"] = {"thinking_tokens": usage.reasoning}
    return Reply(200, body)


def anthropic_model_info(model: str = ANTHROPIC_MODEL, *, structured_outputs: bool = True,
                         thinking: bool = True) -> Reply:
    """A `GET /v1/models/{model}` reply (anthropic.types.ModelInfo) with its capabilities."""
    def yes(flag: bool = True) -> dict[str, bool]:
        return {"supported": flag}

    capabilities = {
        "batch": yes(), "citations": yes(), "code_execution": yes(), "image_input": yes(), "pdf_input": yes(),
        "context_management": {"supported": False},
        "effort": {"supported": True, "low": yes(), "medium": yes(), "high": yes(), "max": yes()},
        "server_tools": {"supported": True, "code_execution": yes(), "web_search": yes()},
        "structured_outputs": yes(structured_outputs),
        "thinking": {"supported": thinking, "types": {"adaptive": yes(thinking), "between_tools": yes(False),
                                                      "disabled": yes(), "enabled": yes(thinking)}},
    }
    return Reply(200, {"type": "model", "id": model, "display_name": model, "created_at": "2026-01-01T00:00:00Z",
                       "lifecycle": "active", "max_input_tokens": 200_000, "max_tokens": 64_000,
                       "capabilities": capabilities})


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
