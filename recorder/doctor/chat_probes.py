"""`wismo doctor`'s probes of an OpenAI-compatible Chat Completions endpoint, one tiny request each.

Each probe sends one raw request with the openai SDK and says what the server did with it: refused
it, ignored part of it, or did what OpenAI would. Prompt tokens tell what reached the model: a
server that leaves the tools (or the tool results) out of the prompt reports the same count with
and without them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from recorder.doctor.report import Check
from recorder.providers.chat_compat import looks_like_validation_error
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.text_calls import parse_text_calls

if TYPE_CHECKING:  # for the type checker only: the SDK loads when the provider is built
    from openai.types.chat import ChatCompletionMessageParam

ORDER_TOOL: dict[str, Any] = {"type": "function", "function": {
    "name": "get_order", "description": "Look up one order by its ID.",
    "parameters": {"type": "object", "properties": {"orderId": {"type": "string", "description": "e.g. ORD-1001"}},
                   "required": ["orderId"]}}}
SYSTEM = {"role": "system", "content": "You are a support assistant. Look orders up with the tools."}
ONE = [SYSTEM, {"role": "user", "content": "Look up order ORD-1001 with the get_order tool."}]
TWO = [SYSTEM, {"role": "user", "content": "Look up orders ORD-1001 and ORD-1002 with the get_order tool, "
                                            "both at once."}]
NO_TOOL = [SYSTEM, {"role": "user", "content": "Do not call any tool. Reply with the single word: ok"}]
AS_JSON = [{"role": "system", "content": "Reply with one JSON object and nothing else."},
           {"role": "user", "content": 'Reply with {"status": "ok"}'}]
STATUS_SCHEMA = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"],
                 "additionalProperties": False}
# A tool result long enough that a prompt holding it is clearly longer than one holding "ok".
LONG_RESULT = " ".join(f"line {n}: the parcel left hub {n} on schedule." for n in range(40))


def after_a_call(content: str | None, result: str) -> list[dict[str, Any]]:
    """ONE followed by the assistant's get_order call and its result."""
    call = {"id": "call_doctor_1", "type": "function",
            "function": {"name": "get_order", "arguments": '{"orderId": "ORD-1001"}'}}
    return [*ONE, {"role": "assistant", "content": content, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_doctor_1", "content": result}]


@dataclass
class Answer:
    """What one probe request came back with: the completion or the refusal, and how long it took."""

    completion: Any = None
    error: str | None = None
    status: int | None = None
    seconds: float = 0.0

    @property
    def calls(self) -> list[Any]:
        """The tool calls of the first choice."""
        choices = getattr(self.completion, "choices", None) or []
        return list(getattr(choices[0].message, "tool_calls", None) or []) if choices else []

    @property
    def text(self) -> str:
        """The text of the first choice."""
        choices = getattr(self.completion, "choices", None) or []
        return (getattr(choices[0].message, "content", None) or "") if choices else ""

    @property
    def prompt_tokens(self) -> int | None:
        """The prompt tokens the server reported."""
        return getattr(getattr(self.completion, "usage", None), "prompt_tokens", None)


@dataclass
class ChatFindings:
    """What the probes found, for choosing the record flags."""

    answer_formats: list[str] = field(default_factory=list)  # accepted, strictest first
    tool_choices: list[str] = field(default_factory=list)  # accepted and returned a call, in preference order
    validation_as_500: bool = False
    latencies_s: list[float] = field(default_factory=list)
    written_calls: int = 0  # calls the model wrote in its text where the server parsed none
    called_without_format: bool = False  # a tools probe came back with a call, natively or written as text
    schema_grammar: bool = False  # with json_schema the same probe could only ever be the schema's JSON


class ChatProbes:
    """Sends the probes through one SDK client; each returns a Check."""

    def __init__(self, provider: OpenAIChatProvider, timeout_s: float) -> None:
        self.provider, self.timeout_s = provider, timeout_s
        self.found = ChatFindings()

    async def send(self, messages: list[dict[str, Any]], max_tokens: int, **options: Any) -> Answer:
        """One request, no retries; a refusal is an Answer with an error, never an exception."""
        started = time.perf_counter()
        try:
            completion = await self.provider.client.chat.completions.create(
                model=self.provider.model, messages=cast("list[ChatCompletionMessageParam]", messages),
                max_tokens=max_tokens, extra_body=options,
                timeout=self.timeout_s)
        except Exception as err:
            failure = self.provider.classify(err)
            if failure is None:
                raise
            if failure.status == 500 and looks_like_validation_error(failure.message):
                self.found.validation_as_500 = True
            # The server is named in the report's header: the message need not say it again.
            message = failure.message.replace(f"the server at {self.provider.base_url} ", "", 1)
            return Answer(error=message, status=failure.status, seconds=time.perf_counter() - started)
        answer = Answer(completion=completion, seconds=time.perf_counter() - started)
        self.found.latencies_s.append(answer.seconds)
        return answer

    async def basics(self) -> tuple[list[Check], Answer]:
        """A plain request: does the server answer, and does it report usage and cached tokens."""
        plain = await self.send(ONE, 8)
        if plain.error:
            return [Check("answers a chat request", False, plain.error)], plain
        usage = getattr(plain.completion, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        return [Check("answers a chat request", True, f"in {plain.seconds:.1f} s"),
                Check("usage reported", plain.prompt_tokens is not None,
                      f"{plain.prompt_tokens} prompt / {getattr(usage, 'completion_tokens', None)} completion tokens"
                      if usage is not None else "no usage in the response"),
                Check("cached tokens reported", cached is not None,
                      f"prompt_tokens_details.cached_tokens = {cached}" if cached is not None
                      else "no prompt_tokens_details.cached_tokens (cachedTokens will be null)")], plain

    async def tools(self, plain: Answer) -> list[Check]:
        """Tool calls with the tools alone, with each tool_choice, in parallel, and a text answer beside tools."""
        checks = []
        alone = await self.send(ONE, 60, tools=[ORDER_TOOL])
        detail = _calls_text(alone)
        if not alone.error and not alone.calls and plain.prompt_tokens and alone.prompt_tokens == plain.prompt_tokens:
            detail += (f"; the prompt had {alone.prompt_tokens} tokens with the tools and without them: the server "
                       f"left the tools out (wismo sends tool_choice, which fixes this on such servers)")
        checks.append(Check("tool call with tools alone", bool(alone.calls), detail))
        auto = await self.send(TWO, 80, tools=[ORDER_TOOL], tool_choice="auto")
        checks.append(Check('tool call with tool_choice "auto"', bool(auto.calls), _calls_text(auto)))
        orders = {getattr(c.function, "arguments", "") for c in auto.calls}
        checks.append(Check("parallel tool calls", len(orders) >= 2 if auto.calls else None,
                            f"{len(auto.calls)} call(s) for two orders" if auto.calls else "not seen (no call)"))
        required = await self.send(ONE, 60, tools=[ORDER_TOOL], tool_choice="required")
        checks.append(Check('tool call with tool_choice "required"', bool(required.calls), _calls_text(required)))
        named = await self.send(ONE, 60, tools=[ORDER_TOOL],
                                tool_choice={"type": "function", "function": {"name": "get_order"}})
        checks.append(Check("tool call with a named tool_choice", bool(named.calls), _calls_text(named)))
        self.found.tool_choices = [choice for choice, answer in
                                   (("auto", auto), ("required", required), ("first-tool", named)) if answer.calls]
        self.found.written_calls = sum(len(parse_text_calls(answer.text, ["get_order"]))
                                       for answer in (alone, auto, required, named) if not answer.calls)
        self.found.called_without_format = bool(alone.calls or auto.calls or self.found.written_calls)
        if self.found.written_calls:
            checks.append(Check("tool calls written as text", None,
                                f"{self.found.written_calls} call(s) in the replies' text that the server did not "
                                "parse (--text-tool-calls reads them)"))
        text = await self.send(NO_TOOL, 20, tools=[ORDER_TOOL], tool_choice="auto")
        checks.append(Check('a text answer beside tools ("auto")', bool(text.text.strip()),
                            text.error or (f"answered {text.text.strip()[:40]!r}" if text.text.strip() else
                                           "an empty message" + (" and a tool call" if text.calls else "")
                                           + ": a final answer may come back empty")))
        return checks

    async def history(self) -> list[Check]:
        """Whether tool results reach the model, and whether null content beside tool calls is accepted."""
        short = await self.send(after_a_call("", "ok"), 1)
        long = await self.send(after_a_call("", LONG_RESULT), 1)
        if short.error or long.error:
            reached: Check = Check("tool results reach the model", False, short.error or long.error or "")
        elif short.prompt_tokens is None or long.prompt_tokens is None:
            reached = Check("tool results reach the model", None, "not measurable: no usage reported")
        else:
            grew = long.prompt_tokens > short.prompt_tokens
            reached = Check("tool results reach the model", grew,
                            f"prompt {short.prompt_tokens} tokens with a short result, {long.prompt_tokens} with a "
                            f"long one" + ("" if grew else ": the server leaves tool results out of the prompt, "
                                                           "so the model never sees the evidence"))
        null = await self.send(after_a_call(None, "ok"), 1)
        return [reached, Check("null content beside tool calls", not null.error,
                               (null.error + ' (wismo sends "" instead)') if null.error else "accepted")]

    async def answer_formats(self) -> list[Check]:
        """Which response_format the server accepts (json_schema, json_object)."""
        checks = []
        for mode, response_format in (
                ("json_schema", {"type": "json_schema", "json_schema": {"name": "status", "schema": STATUS_SCHEMA,
                                                                        "strict": True}}),
                ("json_object", {"type": "json_object"})):
            answer = await self.send(AS_JSON, 20, response_format=response_format)
            if not answer.error:
                self.found.answer_formats.append(mode)
            checks.append(Check(f"response_format {mode}", not answer.error,
                                answer.error or f"accepted; answered {answer.text.strip()[:40]!r}"))
        if "json_schema" in self.found.answer_formats:
            checks.append(await self.schema_beside_tools())
        return checks

    async def schema_beside_tools(self) -> Check:
        """Whether json_schema leaves the model room for a tool call: the tools probe again, with the schema.

        Some servers (llama.cpp's llama-server) turn the schema into a grammar for the whole reply, so
        the model can only write the schema's JSON, never a call, on any turn of any conversation.
        """
        label = "json_schema leaves room for a tool call"
        if not self.found.called_without_format:
            return Check(label, None, "not measurable: the model called no tool without it either")
        answer = await self.send(ONE, 60, tools=[ORDER_TOOL], tool_choice="auto", response_format={
            "type": "json_schema", "json_schema": {"name": "status", "schema": STATUS_SCHEMA, "strict": True}})
        if answer.error or answer.calls or parse_text_calls(answer.text, ["get_order"]):
            return Check(label, True, answer.error or "a call came back beside the schema")
        self.found.schema_grammar = True
        return Check(label, False, f"with it the reply was {answer.text.strip()[:40]!r} where without it the "
                                   "model called get_order: the server's grammar constrains every reply "
                                   "(--structured-output off: the answer is read from the text)")


def _calls_text(answer: Answer) -> str:
    if answer.error:
        return f"refused: {answer.error}"
    if not answer.calls:
        return f"no tool call (answered {answer.text.strip()[:40]!r})"
    return ", ".join(f"{c.function.name}({c.function.arguments.strip()})" for c in answer.calls
                     if getattr(c, "function", None))[:120]
