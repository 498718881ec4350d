"""OpenAI-compatible Chat Completions (`POST /v1/chat/completions`) for local servers.

Ollama, vLLM, llama.cpp and LM Studio speak this dialect. They need a base URL and usually no key.
Requests are shaped for the strictest of them (see chat_compat): `""` rather than `null` content beside
tool calls, an explicit `tool_choice`, and an answer format that falls back when the server refuses
it. Many servers ignore `response_format` anyway, so the loop parses the answer whatever they did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from core.domain.linking import ToolSpec
from core.errors import WismoError
from recorder.providers._common import ApiKey, SdkProvider, classify_sdk_error, dump, read_key, strict_schema
from recorder.providers.base import (
    EarlyStop,
    ModelListing,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderSettings,
    ProviderTraits,
    Usage,
)
from recorder.providers.chat_compat import (
    TOOL_CHOICES,
    AnswerFormat,
    looks_like_validation_error,
    response_format,
    tool_choice_for,
)
from recorder.providers.retry import Failure, RetryPolicy, Sleep, call_with_retries
from recorder.providers.text_calls import parse_text_calls

if TYPE_CHECKING:  # for the type checker only: at run time the SDK loads when a provider is built
    from openai.types.chat import ChatCompletionMessageParam

# finish_reason values that cut the answer short: "length" is the output cap (or the context window).
EARLY_STOPS: dict[str, EarlyStop] = {"length": "provider_limit", "content_filter": "refused"}

# The SDK refuses to build a client without some key; local servers ignore the header.
PLACEHOLDER_KEY = "not-needed"


class OpenAIChatProvider(SdkProvider):
    """One stateless `chat.completions.create` call per turn against an OpenAI-compatible server."""

    name = "openai-chat"
    traits = ProviderTraits(
        about="an OpenAI-compatible Chat Completions server (llama.cpp, Ollama, vLLM, LM Studio)",
        is_language_model=True, model="required", base_url="required", api_key_env="optional", local_server=True,
        options={"structured_output": "response_format", "tool_choice": "tool_choice"},
        doctor="chat_completions", pricing_vendor=None)

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        import openai  # imported here so the offline path never loads the SDK

        if not settings.base_url:
            raise WismoError("openai-chat needs a base URL, the server's OpenAI-compatible endpoint "
                             "(e.g. http://localhost:11434/v1 for Ollama)")
        if not settings.model:
            raise WismoError("openai-chat needs a model name, as the server at "
                             f"{settings.base_url} knows it (e.g. qwen3:8b for Ollama)")
        self.sdk = openai
        self.model = settings.model
        self.base_url = settings.base_url
        self.label = f"Chat Completions at {settings.base_url}, {self.model}"
        self.who = f"the server at {settings.base_url}"
        # A key is read only from a variable named explicitly: falling back to OPENAI_API_KEY would
        # hand an OpenAI key to whatever server the base URL points at.
        self.key = (read_key(settings.api_key_env, vendor="server's") if settings.api_key_env
                    else ApiKey("(no api_key_env)", None))
        self.structured_output = AnswerFormat.create(settings.extra.get("structured_output", "auto"),
                                                     settings.extra.get("structured_output_used"),
                                                     settings.extra.get("structured_output_fallbacks"))
        self.tool_choice = settings.extra.get("tool_choice", "auto")
        if self.tool_choice not in TOOL_CHOICES:
            raise WismoError(f"unknown tool choice {self.tool_choice!r} (known: {', '.join(TOOL_CHOICES)})")
        self._policy = RetryPolicy.from_settings(settings, sleep=sleep, rand=rand)
        self._grammar_lock = asyncio.Lock()
        self.client = openai.AsyncOpenAI(api_key=self.key.value or PLACEHOLDER_KEY, base_url=settings.base_url,
                                          max_retries=0)

    def request_shape(self) -> dict[str, Any]:
        """The answer format the run settled on (with every fallback) and the tool choice, for the manifest."""
        return {"structuredOutput": self.structured_output.to_json(), "toolChoice": self.tool_choice}

    async def listed_models(self, timeout_s: float) -> ModelListing:
        """Every model the server lists (`GET /v1/models`)."""
        async def ask() -> list[str]:
            return [model.id async for model in self.client.models.list(timeout=timeout_s)]
        return await self.model_listing(ask)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the request (retrying 429/5xx) and translate the first choice to neutral items.

        Under `--structured-output auto`, a server that refuses the answer format gets the request
        again with the next one (json_object, then none), and a server whose schema grammar leaves no
        room for a tool call (see AnswerFormat.needs_grammar_check) gets it again without one; the run
        keeps the format it settled on.
        """
        outcome, sent = await self._negotiated(request)
        # A reply the cap cut short says nothing about whether the model could have called a tool.
        if not self._cut_short(outcome) and self.structured_output.needs_grammar_check(
                sent, bool(request.tools), self._called(outcome, request) > 0):
            outcome, sent = await self._check_grammar(request, outcome)
        completion = self.parsed(outcome.value)
        choices = list(getattr(completion, "choices", None) or [])
        finish = getattr(choices[0], "finish_reason", None) if choices else None
        return ModelResponse(
            output_items=from_message(choices[0].message) if choices else [],
            usage=usage_of(getattr(completion, "usage", None)),
            model=getattr(completion, "model", None),
            response_id=getattr(completion, "id", None),
            raw_output=[dump(choice) for choice in choices],
            retries=outcome.retries,
            retry_waits_s=outcome.waits_s,
            stop_reason=finish,
            early_stop=EARLY_STOPS.get(finish or ""),
            server_timings=timings_of(getattr(completion, "timings", None)),
            answer_format="json_schema" if sent == "json_schema" else "instructions",
        )

    async def _negotiated(self, request: ModelRequest) -> tuple[Any, str]:
        """The outcome and the answer format it was sent with, after any fallback a refusal caused."""
        while True:
            sent_format = self.structured_output.used
            try:
                return await self._send(request, sent_format), sent_format
            except ProviderError as error:
                if not self.structured_output.fall_back(sent_format, error):
                    raise

    async def _check_grammar(self, request: ModelRequest, with_schema: Any) -> tuple[Any, str]:
        """The same request without response_format: its reply when only it called a tool, else the first.

        One conversation asks at a time; the others, whose replies came under the same schema, take
        what it found (a resend without the format when it found a grammar).
        """
        async with self._grammar_lock:
            state = self.structured_output
            if state.grammar_checked:
                if state.used == "json_schema":
                    return with_schema, "json_schema"
                return await self._send(request, state.used), state.used
            try:
                without = await self._send(request, "off")
            except ProviderError:
                # The check itself failed: keep the reply that came, and ask again on a later request.
                return with_schema, "json_schema"
            calls = self._called(without, request)
            if not calls:
                state.grammar_checked = True  # no call either way: the model chose to answer
                return with_schema, "json_schema"
            usage = usage_of(getattr(self.parsed(with_schema.value), "usage", None))
            state.schema_grammar_found(calls, usage.input_tokens, usage.output_tokens)
            return without, "off"

    def _cut_short(self, outcome: Any) -> bool:
        choices = list(getattr(self.parsed(outcome.value), "choices", None) or [])
        return bool(choices) and EARLY_STOPS.get(getattr(choices[0], "finish_reason", None) or "") is not None

    def _called(self, outcome: Any, request: ModelRequest) -> int:
        """How many tool calls a reply made: native ones, or (under --text-tool-calls) ones written as text."""
        completion = self.parsed(outcome.value)
        choices = list(getattr(completion, "choices", None) or [])
        if not choices:
            return 0
        items = from_message(choices[0].message)
        native = sum(item["type"] == "function_call" for item in items)
        if native or not request.text_tool_calls:
            return native
        text = "".join(item["text"] for item in items if item["type"] == "text")
        return len(parse_text_calls(text, [tool.name for tool in request.tools]))

    async def _send(self, request: ModelRequest, answer_format: str) -> Any:
        """One request with the given answer format, retried on 429/5xx."""
        options: dict[str, Any] = {}
        if request.max_output_tokens is not None:
            # max_tokens, not OpenAI's newer max_completion_tokens: every compatible server (llama.cpp,
            # Ollama, vLLM, LM Studio) reads max_tokens, and not all of them read the other.
            options["max_tokens"] = request.max_output_tokens
        answer = response_format(answer_format, strict_schema(request.answer_schema))
        if answer is not None:
            options["response_format"] = answer
        if request.tools:
            options["tools"] = [to_tool(tool) for tool in request.tools]
            # Sent explicitly: some servers (llama-cpp-python) leave the tools out of the prompt without it.
            options["tool_choice"] = tool_choice_for(self.tool_choice, request.tools, request.turn)
        # Plain dicts in the shape of the SDK's message params (the server, not the SDK, validates them).
        messages = cast("list[ChatCompletionMessageParam]", to_messages(request.instructions, request.history))

        async def attempt() -> Any:
            # Tools and the answer format go as extra_body, which skips the SDK's per-request TypedDict
            # transform (see the Responses adapter); the bytes sent are the same. The SDK insists on a
            # typed `messages`.
            return await self.client.chat.completions.create(model=self.model, messages=messages,
                                                              extra_body=options, timeout=request.timeout_s)

        return await call_with_retries(attempt, self.classify, self._policy)

    def classify(self, err: BaseException) -> Failure | None:
        """Name an SDK failure for the retry loop; a validation error sent as 500 is a bad request."""
        failure = classify_sdk_error(err, self.sdk, who=self.who, key=self.key)
        if failure is not None and failure.kind == "server_error" and looks_like_validation_error(failure.message):
            # llama-cpp-python answers a request it cannot parse with 500: retrying it can never succeed.
            return Failure("bad_request", failure.message.replace("server error (", "refused the request (", 1)
                           + " [a request-validation error, not retried]", failure.status)
        return failure


def to_tool(tool: ToolSpec) -> dict[str, Any]:
    """A function tool: name and description verbatim, the MCP inputSchema as parameters."""
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def to_messages(instructions: str, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The instructions as a system message, then the history as chat messages.

    Consecutive function calls belong to one assistant message (with the text that preceded them, if
    any); each function output is its own `tool` message.
    """
    messages: list[dict[str, Any]] = [{"role": "system", "content": instructions}]
    for item in history:
        kind = item["type"]
        last = messages[-1]
        if kind == "message":
            messages.append({"role": item["role"], "content": item["content"]})
        elif kind == "function_call":
            call = {"id": item["callId"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                # "" rather than null: OpenAI accepts either, llama-cpp-python and others only a string.
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif kind == "function_call_output":
            # Chat Completions has no error flag on tool messages; the loop's error text says so itself.
            messages.append({"role": "tool", "tool_call_id": item["callId"], "content": item["output"]})
        else:
            raise ValueError(f"unknown history item type {kind!r}")
    return messages


def from_message(message: Any) -> list[dict[str, Any]]:
    """A chat message as neutral items: its text (or refusal), then its function calls in order."""
    items: list[dict[str, Any]] = []
    text = getattr(message, "content", None) or getattr(message, "refusal", None)
    if text:
        items.append({"type": "text", "text": text})
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        if function is None:
            continue  # a custom (non-function) tool call; this adapter declares none
        items.append({"type": "function_call", "callId": call.id, "name": function.name,
                      "arguments": function.arguments})
    return items


# llama-server's `timings` fields and the run format's names for them (core.runformat.events.ServerTimings).
_TIMINGS = {"prompt_n": "promptTokens", "cache_n": "cachedTokens", "prompt_ms": "promptMs",
            "predicted_n": "generatedTokens", "predicted_ms": "generatedMs"}


def timings_of(timings: Any) -> dict[str, Any] | None:
    """llama-server's `timings` (an extra field the SDK keeps as it came) in the run format's names; None: none.

    A value that is not a number is left out rather than guessed.
    """
    if not isinstance(timings, dict):
        return None
    found = {name: timings[key] for key, name in _TIMINGS.items()
             if isinstance(timings.get(key), int | float) and not isinstance(timings.get(key), bool)}
    for name in ("promptTokens", "cachedTokens", "generatedTokens"):
        if name in found:
            found[name] = int(found[name])
    return found or None


def usage_of(usage: Any) -> Usage:
    """The token counts the server reported; None where it reported nothing."""
    if usage is None:
        return Usage(None, None, None)
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(input_tokens=getattr(usage, "prompt_tokens", None),
                 output_tokens=getattr(usage, "completion_tokens", None),
                 cached_tokens=getattr(details, "cached_tokens", None) if details is not None else None)
