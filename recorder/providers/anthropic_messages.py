"""The Anthropic Messages API (`POST /v1/messages`) behind the neutral provider contract.

Messages must alternate user/assistant, so the flat neutral history is grouped: an assistant's text
and tool_use blocks form one assistant message, and all tool results of a turn form one user message.

The answer is requested as structured output (`output_config.format`, a JSON schema) when the model
supports it: the Models API's `capabilities.structured_outputs` says so, and when it cannot tell, the
first request tries and a 400 naming `output_config` turns it off for the run. Otherwise the
instructions alone ask for the JSON answer. Every response records which was used.

Prompt caching is on unless `--no-cache`: cache_control breakpoints on the system block (caching
tools + instructions), on the end of the previous request's history (read back from the cache) and
on the end of this one (written for the next turn). Anthropic caches nothing without them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from core.domain.linking import ToolSpec
from core.errors import WismoError
from recorder.providers._common import HostedProvider, dump, strict_schema, to_json_text
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
from recorder.providers.retry import Outcome, Sleep, call_with_retries

if TYPE_CHECKING:  # for the type checker only: at run time the SDK loads when a provider is built
    from anthropic.types import MessageParam

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_MAX_TOKENS = 4096
EPHEMERAL = {"type": "ephemeral"}
# OutputConfigParam.effort in anthropic 2.14.
EFFORTS = ("low", "medium", "high", "xhigh", "max")
# stop_reason values (anthropic.types.StopReason) that cut the answer short. pause_turn ends a
# server-tool loop wismo never starts; should it come, the turn is not resumed, so it counts as a limit.
EARLY_STOPS: dict[str, EarlyStop] = {"max_tokens": "provider_limit", "model_context_window_exceeded": "provider_limit",
                                     "pause_turn": "provider_limit", "refusal": "refused"}
CAPABILITIES_TIMEOUT_S = 30.0


class AnthropicMessagesProvider(HostedProvider):
    """One stateless `messages.create` call per turn, with the whole history as messages."""

    name = "anthropic"
    traits = ProviderTraits(
        about="the Anthropic Messages API", is_language_model=True, model="optional", base_url="optional",
        api_key_env="optional", local_server=False,
        options={"reasoning_effort": "output_config.effort, low to max", "prompt_cache": "cache_control breakpoints",
                 "strict_tools": "strict: true on tools"},
        doctor="through_provider", pricing_vendor="anthropic")
    vendor = "Anthropic"
    api = "Messages API"
    default_model = DEFAULT_MODEL
    default_key_env = DEFAULT_KEY_ENV
    efforts = EFFORTS

    def __init__(self, settings: ProviderSettings, *, sleep: Sleep | None = None,
                 rand: Callable[[], float] | None = None) -> None:
        super().__init__(settings, sleep=sleep, rand=rand)
        self._max_tokens = int(settings.extra.get("max_tokens", DEFAULT_MAX_TOKENS))
        self._cache = settings.prompt_cache
        # "auto": structured output when the model supports it; "instructions": never ask for it.
        self._answer_mode = settings.extra.get("structured_output", "auto")
        if self._answer_mode not in ("auto", "instructions"):
            raise WismoError(f"structured_output must be auto or instructions, not {self._answer_mode!r}")
        # True/False once known, None while it is still to be found out.
        self._structured: bool | None = None if self._answer_mode == "auto" else False
        self._asked_capabilities = self._answer_mode == "instructions"
        self._capabilities: Capabilities | None = None
        self._capabilities_lock = asyncio.Lock()

    def import_sdk(self) -> ModuleType:
        """The anthropic SDK."""
        import anthropic

        return anthropic

    def open_client(self) -> Any:
        """An AsyncAnthropic client; base_url is the API root (the SDK adds /v1/messages), unlike the OpenAI SDK's."""
        return self.sdk.AsyncAnthropic(api_key=self.key.value, base_url=self.base_url, max_retries=0)

    def request_options(self) -> dict[str, Any]:
        """What this adapter sends beyond the conversation, as the manifest records it."""
        return {"reasoningEffort": self.effort, "promptCaching": "markers" if self._cache else "off",
                "structuredOutput": self._answer_mode, "strictTools": self.strict_tools}

    async def capabilities(self) -> Capabilities:
        """What the model supports, from the Models API (`GET /v1/models/{id}`); asked once per adapter."""
        async with self._capabilities_lock:
            if self._capabilities is None:
                self._capabilities = await self._ask_capabilities()
        return self._capabilities

    async def _ask_capabilities(self) -> Capabilities:
        caching = Support(True, "cache_control breakpoints (Anthropic prompt caching guide; the minimum "
                                "cacheable prefix is 1,024 to 4,096 tokens depending on the model)")
        try:
            info = await self.client.models.retrieve(self.model, timeout=CAPABILITIES_TIMEOUT_S)
        except self.sdk.APIError as err:
            failure = self.classify(err)
            why = f"the Models API did not say ({failure.message if failure else type(err).__name__})"
            return Capabilities(caching, Support(None, why), Support(None, why))
        found = getattr(info, "capabilities", None)
        if found is None:
            why = "the Models API listed no capabilities for this model"
            return Capabilities(caching, Support(None, why), Support(None, why))
        return Capabilities(
            caching,
            Support(bool(found.structured_outputs.supported), "Models API capabilities.structured_outputs"),
            Support(bool(found.thinking.supported), "Models API capabilities.thinking"))

    async def _structured_output(self) -> bool | None:
        """Whether to ask for structured output: known, or None (try it and see)."""
        if not self._asked_capabilities:
            capabilities = await self.capabilities()
            if self._structured is None:
                self._structured = capabilities.structured_output.supported
            self._asked_capabilities = True
        return self._structured

    def request_body(self, request: ModelRequest, *, structured: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The body (sent as extra_body) and the messages of one request."""
        messages = to_messages(request.history)
        body: dict[str, Any] = {"system": request.instructions,
                                "tools": [to_tool(tool, strict=self.strict_tools) for tool in request.tools]}
        if self._cache:
            body["system"] = [{"type": "text", "text": request.instructions, "cache_control": EPHEMERAL}]
            mark_cache_breakpoints(messages)
        output_config: dict[str, Any] = {}
        if structured:
            output_config["format"] = {"type": "json_schema", "schema": strict_schema(request.answer_schema)}
        if self.effort is not None:
            output_config["effort"] = self.effort
        if output_config:
            body["output_config"] = output_config
        return body, messages

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Send the request (retrying 429/5xx) and translate the content blocks to neutral items."""
        known = await self._structured_output()
        structured = known is not False
        try:
            outcome = await self._send(request, structured=structured)
        except ProviderError as failure:
            if not (known is None and _refuses_output_config(failure)):
                raise
            # The model does not take a schema: say so in the instructions only, from now on.
            self._structured = structured = False
            retried = await self._send(request, structured=False)
            # The refused attempt counts as a failed attempt of this response (it waited for nothing).
            outcome = Outcome(retried.value, [0.0, *retried.waits_s])
        else:
            if known is None:
                self._structured = True
        message = self.parsed(outcome.value)
        content = list(getattr(message, "content", None) or [])
        stop_reason = getattr(message, "stop_reason", None)
        return ModelResponse(
            output_items=from_content(content),
            usage=usage_of(getattr(message, "usage", None)),
            model=getattr(message, "model", None),
            response_id=getattr(message, "id", None),
            raw_output=[dump(block) for block in content],
            retries=outcome.retries,
            retry_waits_s=outcome.waits_s,
            stop_reason=stop_reason,
            early_stop=EARLY_STOPS.get(stop_reason or ""),
            answer_format="json_schema" if structured else "instructions",
        )

    async def _send(self, request: ModelRequest, *, structured: bool) -> Outcome[Any]:
        body, messages = self.request_body(request, structured=structured)

        async def attempt() -> Any:
            # extra_body skips the SDK's per-request TypedDict transform of the tools and system text; the
            # bytes sent are the same. (messages must stay a typed parameter: the SDK requires it.)
            # The run's cap (--max-output-tokens) when it has one: Messages requires max_tokens on every request.
            cap = request.max_output_tokens or self._max_tokens
            return await self.client.messages.create(model=self.model, max_tokens=cap,
                                                      messages=cast("list[MessageParam]", messages),
                                                      extra_body=body,
                                                      timeout=request.timeout_s)

        return await call_with_retries(attempt, self.classify, self.policy)


def _refuses_output_config(failure: ProviderError) -> bool:
    """A 400 about the structured-output parameter (the model does not support it), not about another one."""
    text = str(failure).lower()
    return failure.kind == "bad_request" and any(
        name in text for name in ("output_config.format", "structured output", "output format", "output_format"))


def mark_cache_breakpoints(messages: list[dict[str, Any]]) -> None:
    """cache_control on the last block of the history and where the previous request's history ended.

    The previous request ended with the user message before the last assistant message; marking its
    last block again reads back exactly what that request wrote, however many blocks the last turn
    added (a breakpoint looks back only 20 blocks for an earlier entry). With the system block's,
    that is three of the four breakpoints a request may carry.
    """
    if not messages:
        return
    marked = {len(messages) - 1}
    last_assistant = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
    if last_assistant is not None and last_assistant > 0:
        marked.add(last_assistant - 1)
    for index in marked:
        messages[index]["content"][-1]["cache_control"] = EPHEMERAL


def to_tool(tool: ToolSpec, *, strict: bool = False) -> dict[str, Any]:
    """A client tool: name and description verbatim, the MCP inputSchema as input_schema.

    With `strict` (strict tool use), the schema gets `additionalProperties: false` on every object, as
    structured outputs require.
    """
    if strict:
        return {"name": tool.name, "description": tool.description, "input_schema": strict_schema(tool.parameters),
                "strict": True}
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def to_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral history as alternating user/assistant messages of content blocks."""
    messages: list[dict[str, Any]] = []
    for item in history:
        role, block = _block(item)
        if block is None:
            continue
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].append(block)
        else:
            messages.append({"role": role, "content": [block]})
    for message in messages:
        # The API wants a user message's tool_result blocks before any text in it; sort is stable.
        message["content"].sort(key=lambda block: block["type"] != "tool_result")
    return messages


def _block(item: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The role an item belongs to and its content block (None for text that is empty or only whitespace,
    which the API refuses: "text content blocks must contain non-whitespace text")."""
    kind = item["type"]
    if kind == "message":
        text = item["content"]
        return item["role"], ({"type": "text", "text": text} if text.strip() else None)
    if kind == "function_call":
        return "assistant", {"type": "tool_use", "id": item["callId"], "name": item["name"],
                             "input": _tool_input(item["arguments"])}
    if kind == "function_call_output":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": item["callId"], "content": item["output"]}
        if item.get("isError"):
            block["is_error"] = True
        return "user", block
    if kind == "reasoning":
        return "assistant", None  # another API's encrypted reasoning means nothing here
    raise ValueError(f"unknown history item type {kind!r}")


def _tool_input(arguments: str) -> dict[str, Any]:
    """The arguments as the object tool_use needs.

    Text that is not a JSON object (from a history another provider produced) is kept under a key
    instead of being dropped, so the model still sees what was sent.
    """
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return {"unparsed_arguments": arguments}
    return value if isinstance(value, dict) else {"unparsed_arguments": arguments}


def from_content(content: list[Any]) -> list[dict[str, Any]]:
    """Content blocks as neutral items: text blocks, and tool_use blocks as function calls.

    The API returns tool input already parsed, so `arguments` is that object serialized back to
    JSON text; there is no malformed text to keep verbatim.
    """
    items: list[dict[str, Any]] = []
    for block in content:
        # Whitespace-only text (e.g. "\n\n" before a tool call) stays in raw_output only: sent back, it
        # would be refused.
        if block.type == "text" and block.text.strip():
            items.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            items.append({"type": "function_call", "callId": block.id, "name": block.name,
                          "arguments": to_json_text(block.input)})
        # Thinking and server-tool blocks stay only in raw_output.
    return items


def usage_of(usage: Any) -> Usage:
    """The token counts Anthropic reported; None where it reported nothing.

    Anthropic's `input_tokens` counts only the input after the last cache breakpoint; cache reads and
    cache writes are reported separately. Input here is their sum, the total input the model
    processed, so it compares with OpenAI's `input_tokens` (which includes cached tokens).
    """
    if usage is None:
        return Usage(None, None, None)
    fresh = getattr(usage, "input_tokens", None)
    read = getattr(usage, "cache_read_input_tokens", None)
    written = getattr(usage, "cache_creation_input_tokens", None)
    total = None if fresh is None else fresh + (read or 0) + (written or 0)
    details = getattr(usage, "output_tokens_details", None)
    return Usage(input_tokens=total, output_tokens=getattr(usage, "output_tokens", None), cached_tokens=read,
                 reasoning_tokens=getattr(details, "thinking_tokens", None) if details is not None else None)
