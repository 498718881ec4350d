"""Chat Completions servers with the quirks real local servers have, as FakeServer responders.

`ChatServer` plays a small model behind an OpenAI-compatible endpoint. Its flags switch on, one by
one, what llama-cpp-python 0.3.x's server (`--chat_format chatml-function-calling`) does, each seen
against the real server: it refuses `json_schema` answer formats and `null` assistant content with
HTTP 500 and a pydantic message, leaves the tools out of the prompt unless `tool_choice` is sent,
crashes on `tool_choice: "required"`, answers an empty message under `tool_choice: "auto"`, and
never shows tool results to the model. `llama_cpp_python()` switches them all on; `compliant()`
behaves like OpenAI. Prompt tokens count what reaches the model, so a dropped tool shows in usage.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wismo.loopback.replies import CHAT_MODEL, Tokens, chat_reply
from wismo.loopback.server import FakeServer, Received, Reply

_ID = re.compile(r"\b[A-Z]{2,6}-\d+\b")
_TEXT = "text"


def pydantic_500(location: str, message: str, value: Any) -> Reply:
    """The 500 llama-cpp-python sends for a request its pydantic model refuses."""
    detail = (f"1 validation error:\n  {{'type': 'literal_error', 'loc': ('body', {location}), 'msg': {message!r}, "
              f"'input': {value!r}}}\n\n  File \"llama_cpp/server/app.py\", line 376, in create_chat_completion\n"
              "    POST /v1/chat/completions")
    return Reply(500, {"error": {"message": detail, "type": "internal_server_error", "param": None, "code": None}})


def _tokens(text: str) -> int:
    # About four characters a token: enough to tell a prompt with the tools from one without.
    return max(1, len(text) // 4)


@dataclass
class ChatServer:
    """A responder: what a model behind a Chat Completions endpoint answers, quirks switched on by flags."""

    reject_json_schema: bool = False
    reject_null_content: bool = False
    tools_need_tool_choice: bool = False
    reject_required: bool = False
    empty_message_under_auto: bool = False
    drop_tool_results: bool = False
    parallel_calls: bool = True
    report_cached_tokens: bool = False
    # llama-server's quirks with a small model (Qwen2.5-Coder-1.5B, --jinja), each seen against it:
    calls_as_text: str | None = None  # its calls written in the text, in one of TEXT_CALL_SHAPES; none parsed
    schema_grammar: bool = False  # a json_schema response_format constrains the whole reply: never a tool call
    ignore_named_tool_choice: bool = False  # a named tool_choice object is refused (logged) and taken as auto
    report_timings: bool = False  # a `timings` object beside usage: prompt_n, cache_n, prompt_ms, predicted_n, …
    answer: Callable[[dict[str, Any]], str] | None = None
    model: str = CHAT_MODEL

    def __call__(self, received: Received) -> Reply:
        """The reply to one request (GET /models is answered by `models`)."""
        body = received.body or {}
        refused = self._refusal(body)
        if refused is not None:
            return refused
        messages = body.get("messages", [])
        tools = body.get("tools") or []
        choice = body.get("tool_choice")
        if self.ignore_named_tool_choice and isinstance(choice, dict):
            choice = "auto"  # llama-server: "Wrong type supplied for parameter 'tool_choice'", then HTTP 200
        tools_seen = bool(tools) and not (self.tools_need_tool_choice and choice in (None, "none"))
        prompt = self._prompt_tokens(messages, tools if tools_seen else [])
        cached = prompt // 2 if self.report_cached_tokens else 0
        usage = Tokens(input=prompt, output=12, cached=cached)
        constrained = self.schema_grammar and (body.get("response_format") or {}).get("type") == "json_schema"
        calls = self._calls(messages, tools, choice) if tools_seen and not constrained else []
        if calls and self.calls_as_text:
            return self._reply(text=written_calls(calls, self.calls_as_text), usage=usage)
        if calls:
            return self._reply(function_calls=calls, usage=usage)
        if tools_seen and choice == "auto" and self.empty_message_under_auto:
            return self._reply(text="", usage=usage)
        return self._reply(text=self.answer(body) if self.answer else self._default_answer(body), usage=usage)

    def models(self) -> dict[str, Any]:
        """The body of `GET /v1/models`."""
        return {"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "me"}]}

    def serve(self) -> FakeServer:
        """A FakeServer (not started) answering POSTs with this model and GETs with the model list."""
        return FakeServer(self, get=lambda received: Reply(200, self.models()))

    def _reply(self, *, usage: Tokens, text: str | None = None,
               function_calls: list[tuple[str, str]] | None = None) -> Reply:
        reply = chat_reply(text=text, function_calls=function_calls or (), usage=usage, model=self.model)
        if self.report_timings:  # at this machine's measured speeds: ~30 prompt tokens/s, ~5 generated tokens/s
            processed = usage.input - usage.cached
            reply.body["timings"] = {"cache_n": usage.cached, "prompt_n": processed, "prompt_ms": processed * 33.3,
                                     "predicted_n": usage.output, "predicted_ms": usage.output * 200.0,
                                     "predicted_per_second": 5.0}
        if not self.report_cached_tokens:
            del reply.body["usage"]["prompt_tokens_details"]
        return reply

    def _refusal(self, body: dict[str, Any]) -> Reply | None:
        answer_format = (body.get("response_format") or {}).get("type")
        if self.reject_json_schema and answer_format not in (None, _TEXT, "json_object"):
            return pydantic_500("'response_format', 'type'", "Input should be 'text' or 'json_object'", answer_format)
        if self.reject_null_content:
            for index, message in enumerate(body.get("messages", [])):
                if message.get("role") == "assistant" and message.get("content") is None:
                    return pydantic_500(f"'messages', {index}, 'ChatCompletionRequestAssistantMessage', 'content'",
                                        "Input should be a valid string", None)
        if self.reject_required and body.get("tool_choice") == "required" and body.get("tools"):
            # llama-cpp-python's function-calling handler asserts the choice is "auto": an empty 500.
            return Reply(500, {"error": {"message": "", "type": "internal_server_error", "param": None,
                                         "code": None}})
        return None

    def _prompt_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
        parts = [json.dumps(tool) for tool in tools]
        for message in messages:
            if message.get("role") == "tool" and self.drop_tool_results:
                continue
            parts.append(str(message.get("content") or ""))
            parts += [json.dumps(call) for call in message.get("tool_calls") or []]
        return _tokens("\n".join(parts))

    def _calls(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
               choice: Any) -> list[tuple[str, str]]:
        """One call per ID in the last user message, to the tool named or the first tool; none once answered."""
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
        if choice == "none" or any(m.get("role") == "tool" for m in messages[last_user + 1:]):
            return []
        name = choice["function"]["name"] if isinstance(choice, dict) else tools[0]["function"]["name"]
        tool = next(t for t in tools if t["function"]["name"] == name)
        ids = _ID.findall(str(messages[last_user].get("content") or "")) if last_user >= 0 else []
        if not ids:
            return [] if choice in (None, "auto") else [(name, "{}")]
        if isinstance(choice, dict) or not self.parallel_calls:
            ids = ids[:1]
        parameters = tool["function"].get("parameters") or {}
        required = parameters.get("required") or list(parameters.get("properties") or {}) or ["id"]
        return [(name, json.dumps({required[0]: found})) for found in ids]

    @staticmethod
    def _default_answer(body: dict[str, Any]) -> str:
        return '{"ok": true}' if body.get("response_format") else "ok"


TEXT_CALL_SHAPES = ("fenced", "tagged", "element", "bare")


def written_calls(calls: list[tuple[str, str]], shape: str) -> str:
    """Calls as a small model writes them in its text: every shape here was seen from a real one."""
    if shape == "fenced":  # Qwen2.5-Coder-1.5B behind llama-server
        return "\n".join(f'```json\n{{"name": "{name}", "arguments": {args}}}\n```' for name, args in calls)
    if shape == "element":  # the same model, another turn
        inner = "".join(f"<function name=\"{name}\" arguments='{args}'/>" for name, args in calls)
        return f"<tools>{inner}</tools>"
    if shape == "tagged":  # Hermes-style templates
        return "\n".join(f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'
                         for name, args in calls)
    if shape == "bare":
        return "I will look it up. " + " ".join(f'{{"name": "{name}", "parameters": {args}}}' for name, args in calls)
    raise ValueError(f"unknown text call shape {shape!r} (known: {', '.join(TEXT_CALL_SHAPES)})")


def llama_server_small_model(**overrides: Any) -> ChatServer:
    """llama-server --jinja with Qwen2.5-Coder-1.5B: calls as fenced text, a schema grammar, a refused named choice."""
    settings = {"calls_as_text": "fenced", "schema_grammar": True, "ignore_named_tool_choice": True,
                "report_cached_tokens": True, "report_timings": True, **overrides}
    return ChatServer(**settings)


def llama_cpp_python(**overrides: Any) -> ChatServer:
    """Every quirk of llama-cpp-python 0.3.36's server with --chat_format chatml-function-calling."""
    settings = {"reject_json_schema": True, "reject_null_content": True, "tools_need_tool_choice": True,
                "reject_required": True, "empty_message_under_auto": True, "drop_tool_results": True,
                "parallel_calls": True, **overrides}
    return ChatServer(**settings)


def compliant(**overrides: Any) -> ChatServer:
    """A server that behaves like OpenAI's Chat Completions (cached tokens reported)."""
    return ChatServer(**{"report_cached_tokens": True, **overrides})
