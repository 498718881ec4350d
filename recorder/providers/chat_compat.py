"""What openai-chat does so that strict OpenAI-compatible servers (llama.cpp, Ollama, vLLM) accept its requests.

Three things differ between servers and OpenAI: which `response_format` they accept, whether they need
`tool_choice` to put the tools in the prompt at all, and how they report a request they cannot parse
(llama-cpp-python answers its pydantic validation errors with HTTP 500). The answer format negotiates
once per run under `auto`; the tool choice is the user's (`wismo doctor` says which one works).

Content beside tool calls is sent as `""`: llama-cpp-python's validator refuses `null` and its chat
template fails on an absent `content` key (both seen against the real server); OpenAI, vLLM and
Ollama accept `""`. (Some Bedrock-backed gateways refuse an empty text instead: none is in reach.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.domain.linking import ToolSpec
from core.runformat.write import now_iso
from recorder.providers.base import ProviderError

STRUCTURED_OUTPUT_MODES = ("auto", "json_schema", "json_object", "off")
TOOL_CHOICES = ("auto", "required", "first-tool")
ANSWER_FORMAT_NAME = "order_support_answer"

# The order `auto` tries the formats in: the strictest first, then plain JSON, then nothing (the
# instructions describe the answer's JSON in words either way).
_FALLBACK = {"json_schema": "json_object", "json_object": "off"}

# Phrases of a request-validation error (pydantic's, FastAPI's, and the plain kind): a request that
# fails this way fails the same way every time, whatever status the server put on it.
_VALIDATION = re.compile(r"validation error|Input should be|Field required|Extra inputs are not permitted|"
                         r"literal_error|string_type|is not valid under any of the given schemas|"
                         r"unprocessable entity", re.I)


def looks_like_validation_error(message: str) -> bool:
    """True when an error message reads as the server refusing the request's shape (no retry can fix it)."""
    return bool(_VALIDATION.search(message))


@dataclass
class AnswerFormat:
    """The answer format a run asks for (`requested`) and the one it sends now (`used`), with every fallback."""

    requested: str = "auto"
    used: str = "json_schema"
    fallbacks: list[dict[str, Any]] = field(default_factory=list)
    # auto: whether the run has seen if json_schema leaves the model room for a tool call (see
    # needs_grammar_check); settled by the first reply to a request with tools.
    grammar_checked: bool = False

    @classmethod
    def create(cls, requested: str, used: str | None = None,
               fallbacks: list[dict[str, Any]] | None = None) -> AnswerFormat:
        """The format for `--structured-output requested`; a resume passes what the run had settled on."""
        if requested not in STRUCTURED_OUTPUT_MODES:
            raise ValueError(f"unknown structured output mode {requested!r}")
        start = "json_schema" if requested == "auto" else requested
        return cls(requested, used or start, list(fallbacks or []))

    def fall_back(self, rejected: str, error: ProviderError) -> bool:
        """After `rejected` failed with `error`: move to the next format if `auto` may; True to send again.

        Concurrent conversations may all see the first rejection: only the first moves the format on,
        the others send again with whatever it moved to.
        """
        if self.requested != "auto" or not rejects_response_format(error):
            return False
        if self.used != rejected:
            return True
        following = _FALLBACK.get(rejected)
        if following is None:
            return False
        self.fallbacks.append({"rejected": rejected, "cause": "refused", "reason": str(error), "at": now_iso()})
        self.used = following
        return True

    def needs_grammar_check(self, sent: str, has_tools: bool, called: bool) -> bool:
        """True when a reply to `sent` with tools offered made no tool call and auto has not yet asked why.

        llama-server (and any server that turns `response_format` into a grammar) constrains the *whole*
        reply to the schema, so under json_schema the model can never call a tool. Only sending the same
        request without it tells that apart from a model that chose to answer. A reply that did call a
        tool under json_schema settles it: the schema leaves room for calls.
        """
        if self.requested != "auto" or sent != "json_schema" or not has_tools or self.grammar_checked:
            return False
        if called:
            self.grammar_checked = True
            return False
        return True

    def schema_grammar_found(self, calls: int, discarded_input: int | None, discarded_output: int | None) -> None:
        """The request without response_format called a tool where the one with it could not: send none from now on."""
        self.grammar_checked = True
        self.fallbacks.append({
            "rejected": "json_schema", "cause": "schema_grammar", "at": now_iso(),
            "reason": ("the first request with tools, sent with response_format json_schema, got an answer and no "
                       f"tool call; the same request without response_format got {calls} tool call(s): the "
                       "server's schema grammar constrains every reply, so no response_format is sent while "
                       "tools are offered (the instructions describe the answer's JSON; it is parsed from text)"),
            "discardedTokens": {"input": discarded_input, "output": discarded_output}})
        self.used = "off"

    def to_json(self) -> dict[str, Any]:
        """As stored in the manifest."""
        return {"requested": self.requested, "used": self.used, "fallbacks": list(self.fallbacks)}


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The `response_format` an answer format sends, or None to send none."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": ANSWER_FORMAT_NAME, "schema": schema, "strict": True}}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def rejects_response_format(error: ProviderError) -> bool:
    """True when the server refused the request and said it was the response_format it refused."""
    if error.kind != "bad_request":
        return False
    return bool(re.search(r"response_format|json_schema|json_object", str(error), re.I))


def tool_choice_for(choice: str, tools: list[ToolSpec], turn: int) -> Any:
    """The `tool_choice` to send with `tools` on `turn`.

    `required` and `first-tool` force a tool call on the first request only: forced on every turn,
    the model could never give its answer. `first-tool` names the design's first tool (the order
    lookup in both designs) for servers that accept a named tool but not "required".
    """
    if choice not in TOOL_CHOICES:
        raise ValueError(f"unknown tool choice {choice!r}")
    if turn > 1 or choice == "auto" or not tools:
        return "auto"
    if choice == "required":
        return "required"
    return {"type": "function", "function": {"name": tools[0].name}}
