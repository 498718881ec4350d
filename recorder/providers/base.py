"""The provider contract: one stateless model request in, one response out, in a neutral item format.

History items are plain JSON objects shaped like the OpenAI Responses API's input items, because that
is what the run log stores and what the scripted model's token estimate serializes:

    {"type": "message", "role": "user" | "assistant", "content": "<text>"}
    {"type": "function_call", "callId": "<id>", "name": "<tool>", "arguments": "<JSON text>"}
    {"type": "function_call_output", "callId": "<id>", "output": "<text>", "isError": bool}
    {"type": "reasoning", "id": "<id>", "summary": [...], "encryptedContent": "<opaque>"}

Output items of a response are `{"type": "text", "text": ...}`, `function_call` items as above and,
from the Responses API only, `reasoning` items (the model's encrypted reasoning, carried back in order
so a reasoning model does not redo it every turn; the other adapters never produce or send them).
Each adapter translates these to and from its API's wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.domain.linking import ToolSpec

ErrorKind = Literal["rate_limited", "server_error", "timeout", "auth", "bad_request", "connection",
                    "malformed_response", "unexpected", "interrupted", "other"]
# How a conversation ends when the provider cut a response short: a limit (max tokens, the context
# window) or a refusal. Either is the provider's doing, not an answer of the model's to score.
EarlyStop = Literal["provider_limit", "refused"]
AnswerFormat = Literal["json_schema", "instructions"]


@dataclass(frozen=True)
class ModelRequest:
    """Everything one stateless request sends: instructions, tools, the whole history, the answer schema."""

    instructions: str
    tools: list[ToolSpec]
    history: list[dict[str, Any]]
    answer_schema: dict[str, Any]
    turn: int
    timeout_s: float


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them; None where it reported nothing (never guessed)."""

    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None
    estimated: bool = False
    reasoning_tokens: int | None = None  # of the output tokens, those spent reasoning

    def to_json(self) -> dict[str, Any]:
        """The usage block stored on a model_response event."""
        return {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
                "cachedTokens": self.cached_tokens, "reasoningTokens": self.reasoning_tokens,
                "estimated": self.estimated}


@dataclass(frozen=True)
class ModelResponse:
    """One response: neutral output items, usage, the model id and response id the provider returned."""

    output_items: list[dict[str, Any]]
    usage: Usage
    model: str | None
    response_id: str | None
    raw_output: Any = None
    retries: int = 0
    retry_waits_s: list[float] = field(default_factory=list)
    stop_reason: str | None = None  # why the response ended, in the provider's words
    early_stop: EarlyStop | None = None  # set when that reason means the answer was cut short
    answer_format: AnswerFormat | None = None  # how the answer schema was asked for; None: not recorded


class ProviderError(Exception):
    """A request that failed after retries; `fatal` errors (401/403) stop the whole run."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None, fatal: bool = False,
                 retries: int = 0, retry_waits_s: list[float] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.fatal = fatal
        self.retries = retries
        self.retry_waits_s = list(retry_waits_s or [])

    def to_json(self) -> dict[str, Any]:
        """The error block stored on a model_response event."""
        return {"kind": self.kind, "status": self.status, "message": str(self), "fatal": self.fatal,
                "retries": self.retries}


@dataclass(frozen=True)
class ProviderSettings:
    """What a provider is constructed with; the key is read from the environment, never stored."""

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    max_retries: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    reasoning_effort: str | None = None  # None: the model's default
    prompt_cache: bool = True  # send cache markers where the API needs them (Anthropic)
    strict_tools: bool = False  # function tools with strict: true
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Support:
    """Whether the model supports one feature (None: wismo cannot tell) and how wismo knows."""

    supported: bool | None
    source: str


@dataclass(frozen=True)
class Capabilities:
    """What a hosted provider's model supports, for `wismo doctor`; `capabilities()` on the adapters."""

    caching: Support
    structured_output: Support
    reasoning: Support


class Provider(Protocol):
    """A model behind an API (or the offline scripted policy)."""

    name: str
    model: str
    is_language_model: bool
    label: str

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request; raise ProviderError when it fails for good."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
