"""The OpenAI Responses API (`POST /v1/responses`) behind the neutral provider contract.

The request body comes from `responses_wire`, the serializer the scripted model's offline token
estimate also uses, so the estimate counts exactly what this adapter sends. The final answer is
requested as strict structured output.

Requests are stateless: `store: false` (the API would otherwise keep every response for 30 days),
and the history goes out whole every turn. A reasoning model's reasoning items come back encrypted
(`include: ["reasoning.encrypted_content"]`) and are carried into the next turn's input in order, so
the model does not redo its reasoning after every tool call; non-reasoning models refuse that
`include`, so it is left out for them (by name, or after the API said so once).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from recorder.providers._common import HostedProvider, dump, strict_schema
from recorder.providers.base import (
    Capabilities,
    EarlyStop,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderSettings,
    ProviderTraits,
    Support,
    Usage,
)
from recorder.providers.responses_wire import answer_format, responses_body
from recorder.providers.retry import Outcome, Sleep, call_with_retries

DEFAULT_MODEL = "gpt-5.4-mini"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
# openai.types.shared.ReasoningEffort in openai 3.57; not every model accepts every value.
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
INCLUDE_REASONING = ["reasoning.encrypted_content"]
# incomplete_details.reason values that mean the provider refused rather than ran out of room.
REFUSED_REASONS = frozenset({"content_filter"})


def is_reasoning_model(model: str) -> bool | None:
    """True for the o-series and gpt-5 reasoning models, False for known chat models, None when unknown.

    From OpenAI's reasoning guide: o1/o3/o4 and gpt-5 models reason; gpt-5-chat and the gpt-4 and
    gpt-3.5 families do not (and refuse `include: ["reasoning.encrypted_content"]`).
    """
    name = model.lower().removeprefix("openai/")
    if "chat" in name or name.startswith(("gpt-4", "gpt-3.5")):
        return False
    if name.startswith(("o1", "o3", "o4", "gpt-5")):
        return True
    return None


def supports_structured_output(model: str) -> bool | None:
    """Whether `text.format` json_schema works, from OpenAI's structured outputs guide (gpt-4o and later)."""
    name = model.lower().removeprefix("openai/")
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4")) or (name.startswith("o1")
                                                                       and not name.startswith("o1-mini")):
        return True
    if name.startswith(("gpt-3.5", "gpt-4", "o1-mini")):
        return False
    return None


class OpenAIResponsesProvider(HostedProvider):
    """One stateless `responses.create` call per turn, with the whole history as input."""

    name = "openai"
    traits = ProviderTraits(
        about="the OpenAI Responses API", is_language_model=True, model="optional", base_url="optional",
        api_key_env="optional", local_server=False,
        options={"reasoning_effort": "reasoning.effort", "strict_tools": "strict: true on function tools"},
        option_notes={"prompt_cache": "it caches long prompts automatically and has no switch; every run shows "
                                      "input tokens with and without cached tokens"},
        doctor="through_provider", pricing_vendor="openai")
    vendor = "OpenAI"
    api = "Responses API"
    default_model = DEFAULT_MODEL
    default_key_env = DEFAULT_KEY_ENV
    efforts = REASONING_EFFORTS

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        super().__init__(settings, sleep=sleep, rand=rand)
        # Carry encrypted reasoning unless the model is known not to reason (it would refuse the include).
        self._include_reasoning = is_reasoning_model(self.model) is not False

    def import_sdk(self) -> ModuleType:
        """The openai SDK."""
        import openai

        return openai

    def open_client(self) -> Any:
        """An AsyncOpenAI client (its base_url ends in /v1)."""
        return self.sdk.AsyncOpenAI(api_key=self.key.value, base_url=self.base_url, max_retries=0)

    def request_options(self) -> dict[str, Any]:
        """What this adapter sends beyond the conversation, as the manifest records it."""
        return {"reasoningEffort": self.effort, "promptCaching": "automatic", "structuredOutput": "json_schema",
                "strictTools": self.strict_tools}

    async def capabilities(self) -> Capabilities:
        """What the model supports, from OpenAI's documentation (the Models API does not list features)."""
        return Capabilities(
            caching=Support(True, "automatic for prompts of 1,024 tokens or more; usage reports cached_tokens "
                                  "(OpenAI prompt caching guide)"),
            structured_output=Support(supports_structured_output(self.model),
                                      "by model name: text.format json_schema works from gpt-4o on "
                                      "(OpenAI structured outputs guide)"),
            reasoning=Support(is_reasoning_model(self.model), "by model name: o-series and gpt-5 reason, "
                                                              "gpt-5-chat and gpt-4 do not (OpenAI reasoning guide)"))

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        body = responses_body(request, self.model, strict_tools=self.strict_tools)
        # The contract's schema is already strict; a looser one is adapted rather than rejected.
        body["text"] = answer_format(strict_schema(request.answer_schema))
        body["store"] = False
        if self._include_reasoning:
            body["include"] = INCLUDE_REASONING
        if self.effort is not None:
            body["reasoning"] = {"effort": self.effort}
        if request.max_output_tokens is not None:
            body["max_output_tokens"] = request.max_output_tokens  # reasoning tokens count against it too
        return body

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the request (retrying 429/5xx) and translate the response to neutral items."""
        try:
            outcome = await self._send(request)
        except ProviderError as failure:
            if not (self._include_reasoning and _refuses_encrypted_reasoning(failure)):
                raise
            # A model wismo could not tell from its name turned out not to reason: ask again without the
            # include, and leave it out from now on (there is no reasoning to carry).
            self._include_reasoning = False
            retried = await self._send(request)
            # The refused attempt counts as a failed attempt of this response (it waited for nothing).
            outcome = Outcome(retried.value, [0.0, *retried.waits_s])
        response = self.parsed(outcome.value)
        output = getattr(response, "output", None) or []  # none at all: the loop calls it malformed_response
        stop_reason, early_stop = stop_of(response)
        return ModelResponse(
            output_items=from_output(output),
            usage=usage_of(getattr(response, "usage", None)),
            model=getattr(response, "model", None),
            response_id=getattr(response, "id", None),
            raw_output=[dump(item) for item in output],
            retries=outcome.retries,
            retry_waits_s=outcome.waits_s,
            stop_reason=stop_reason,
            early_stop=early_stop,
            answer_format="json_schema",
        )

    async def _send(self, request: ModelRequest) -> Outcome[Any]:
        body = self._body(request)
        model = body.pop("model")

        async def attempt() -> Any:
            # The body goes as extra_body: the SDK merges it unchanged, while passing it as typed
            # parameters makes the SDK walk the whole history through its TypedDict transform on every
            # request (about 9 ms of CPU per request here, most of the harness's own cost).
            return await self.client.responses.create(model=model, extra_body=body, timeout=request.timeout_s)

        return await call_with_retries(attempt, self.classify, self.policy)


def _refuses_encrypted_reasoning(failure: ProviderError) -> bool:
    """A 400 saying the model has no encrypted reasoning to include ("Encrypted content is not supported with
    this model"), not one about encrypted content that could not be verified."""
    return failure.kind == "bad_request" and "encrypted content is not supported" in str(failure).lower()


def from_output(output: list[Any]) -> list[dict[str, Any]]:
    """Responses output items as neutral items, in order: reasoning, one text item per message, calls.

    A reasoning item is kept only with its encrypted content: without it the item cannot be sent
    back statelessly (the API looks the id up and, with store false, finds nothing).
    """
    items: list[dict[str, Any]] = []
    for entry in output:
        if entry.type == "message":
            # A refusal is kept as text so the loop sees (and records) it rather than an empty answer.
            parts = [getattr(part, "text", None) or getattr(part, "refusal", None) or "" for part in entry.content]
            text = "".join(parts)
            if text:
                items.append({"type": "text", "text": text})
        elif entry.type == "function_call":
            items.append({"type": "function_call", "callId": entry.call_id, "name": entry.name,
                          "arguments": entry.arguments})
        elif entry.type == "reasoning" and getattr(entry, "encrypted_content", None):
            summary = [dump(part) for part in getattr(entry, "summary", None) or []]
            items.append({"type": "reasoning", "id": entry.id, "summary": summary,
                          "encryptedContent": entry.encrypted_content})
        # Other item kinds stay only in raw_output.
    return items


def stop_of(response: Any) -> tuple[str | None, EarlyStop | None]:
    """Why the response ended (the status, incomplete_details.reason, or `refusal`) and whether it was cut short."""
    status = getattr(response, "status", None)
    if status == "incomplete":
        details = getattr(response, "incomplete_details", None)
        reason = getattr(details, "reason", None) or "incomplete"
        return reason, "refused" if reason in REFUSED_REASONS else "provider_limit"
    for entry in getattr(response, "output", None) or []:
        if entry.type == "message" and any(getattr(part, "type", None) == "refusal" for part in entry.content):
            return "refusal", "refused"
    return status, None


def usage_of(usage: Any) -> Usage:
    """The token counts the Responses API reported; None where it reported nothing."""
    if usage is None:
        return Usage(None, None, None)
    details = getattr(usage, "input_tokens_details", None)
    output_details = getattr(usage, "output_tokens_details", None)
    return Usage(input_tokens=getattr(usage, "input_tokens", None),
                 output_tokens=getattr(usage, "output_tokens", None),
                 cached_tokens=getattr(details, "cached_tokens", None) if details is not None else None,
                 reasoning_tokens=getattr(output_details, "reasoning_tokens", None)
                 if output_details is not None else None)
