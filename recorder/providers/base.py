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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

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
    max_output_tokens: int | None = None  # the output cap (--max-output-tokens); None: the API's default
    # --text-tool-calls: the loop reads calls written in the text, so a provider checking whether a
    # reply called a tool (openai-chat's schema-grammar check) counts those too.
    text_tool_calls: bool = False


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
    server_timings: dict[str, Any] | None = None  # the run format's ServerTimings fields, as the server reported them


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


# The request options of `wismo record` a provider may honour (ProviderTraits.options), and their flags.
RequestOption = Literal["reasoning_effort", "prompt_cache", "strict_tools", "structured_output", "tool_choice"]
OPTION_FLAGS: dict[RequestOption, str] = {"reasoning_effort": "--reasoning-effort", "prompt_cache": "--no-cache",
                                          "strict_tools": "--strict-tools", "structured_output": "--structured-output",
                                          "tool_choice": "--tool-choice"}
# Whether a connection setting (--model, --base-url, --api-key-env) applies: never, when given, or always.
Use = Literal["unused", "optional", "required"]
# How `wismo doctor` probes a provider: raw Chat Completions requests through the provider's openai
# client (recorder.doctor.chat_probes), or requests through the provider's own complete().
DoctorProbes = Literal["chat_completions", "through_provider"]


@dataclass(frozen=True, kw_only=True)
class ProviderTraits:
    """What a provider is and what it honours: declared once on its class (`traits`), checked when it is registered.

    Everything wismo does differently for one provider than for another reads it from here; no other
    code asks for a provider by name.
    """

    about: str  # what it talks to, in a few words (messages, docs)
    is_language_model: bool  # False: the offline scripted policy, whose token counts are estimates
    model: Use  # --model
    base_url: Use  # --base-url; a required one is part of every command wismo prints for the provider
    api_key_env: Use  # --api-key-env
    local_server: bool  # its base URL may be a server on the user's machine: one slot, requests it keeps working on
    options: Mapping[RequestOption, str]  # the request options it honours, each as its API names it
    doctor: DoctorProbes | None  # how `wismo doctor` probes it; None: doctor does not offer it
    pricing_vendor: str | None  # the genai-prices provider id of its models; None: priced by the run's base URL
    option_notes: Mapping[RequestOption, str] = field(default_factory=dict)  # why an option it lacks does not apply


@dataclass(frozen=True)
class ModelListing:
    """What an endpoint's models API said, for `wismo doctor`: the model ids, or why it could not say."""

    ids: tuple[str, ...] = ()
    failure: Literal["auth", "unreachable", "other"] | None = None  # None: it answered (a 404 lists nothing)
    reason: str = ""


class Provider(Protocol):
    """A model behind an API (or the offline scripted policy)."""

    name: ClassVar[str]
    traits: ClassVar[ProviderTraits]
    model: str
    label: str
    base_url: str | None  # the endpoint it talks to, None for its vendor's default (or none)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request; raise ProviderError when it fails for good."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...

    def request_options(self) -> dict[str, Any]:
        """What it sends beyond the conversation, as the manifest's provider.options records it."""
        ...

    def request_shape(self) -> dict[str, Any]:
        """The manifest's structuredOutput and toolChoice (null where the user has no choice)."""
        ...

    async def capabilities(self) -> Capabilities | None:
        """What the vendor states the model supports, for `wismo doctor`; None when it states nothing."""
        ...

    async def listed_models(self, timeout_s: float) -> ModelListing:
        """The models its endpoint lists (or the one it is asked for), for `wismo doctor`."""
        ...


class ProviderClass(Protocol):
    """A provider class as the registry holds it: its name, its traits, and a constructor taking the settings."""

    name: str
    traits: ProviderTraits

    def __call__(self, settings: ProviderSettings) -> Provider:
        """Build the provider (read its key, open its client); a WismoError says what is missing."""
        ...


class ProviderBase:
    """The parts of the contract most providers leave as they are; a provider class subclasses it.

    A subclass declares `name` and `traits` and defines `complete` and `aclose`; one that `wismo
    doctor` probes (traits.doctor) defines `listed_models` too. The registry checks all of that.
    """

    name: ClassVar[str]
    traits: ClassVar[ProviderTraits]
    model: str
    label: str
    base_url: str | None = None

    @property
    def is_language_model(self) -> bool:
        """traits.is_language_model, on the instance."""
        return self.traits.is_language_model

    def request_options(self) -> dict[str, Any]:
        """Nothing beyond the conversation: every option of the manifest's provider.options at its default."""
        return {}

    def request_shape(self) -> dict[str, Any]:
        """No answer format or tool choice for the user to choose."""
        return {"structuredOutput": None, "toolChoice": None}

    async def capabilities(self) -> Capabilities | None:
        """The vendor states nothing."""
        return None

    async def listed_models(self, timeout_s: float) -> ModelListing:
        """A provider `wismo doctor` probes overrides this; the registry refuses one that does not."""
        raise NotImplementedError(f"the {self.name} provider lists no models")
