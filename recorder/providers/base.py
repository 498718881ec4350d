"""The provider contract: one stateless model request in, one response out, in a neutral item format.

History items are plain JSON objects shaped like the OpenAI Responses API's input items, because that
is what the run log stores and what the scripted model's token estimate serializes:

    {"type": "message", "role": "user" | "assistant", "content": "<text>"}
    {"type": "function_call", "callId": "<id>", "name": "<tool>", "arguments": "<JSON text>"}
    {"type": "function_call_output", "callId": "<id>", "output": "<text>", "isError": bool}

Output items of a response are `{"type": "text", "text": ...}` and `function_call` items as above.
Each adapter translates these to and from its API's wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from recorder.linking import ToolSpec

ErrorKind = Literal["rate_limited", "server_error", "timeout", "auth", "bad_request", "connection",
                    "malformed_response", "unexpected", "interrupted", "other"]


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

    def to_json(self) -> dict[str, Any]:
        """The usage block stored on a model_response event."""
        return {"inputTokens": self.input_tokens, "outputTokens": self.output_tokens,
                "cachedTokens": self.cached_tokens, "estimated": self.estimated}


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
    extra: dict[str, Any] = field(default_factory=dict)


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
