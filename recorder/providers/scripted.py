"""The offline default: a deterministic policy, NOT a language model.

It reads only what a model would see (the tool list, the answer schema and the history) and keeps no
state between requests. Turn 1 calls the tool that takes `orderId`, with the order ID found in the
customer's question. Every later turn calls, concurrently, every tool whose parameter name matches an
ID field in the results so far (`paymentId` → the tools taking `paymentId`, `reservationIds[]` → one
call per ID to each tool taking `reservationId`, the order's own `orderId` → the other tools taking
it) and whose kind of record the asked fields need (the answer schema says which fields are asked;
core.domain.evidence.FIELD_NEEDS which records they come from: a payment question follows only the
payment), skipping records the results hold already, until nothing new is linked; then it answers
with the asked fields as the contract's rules derive them and a summary built from the evidence.
Token counts are an offline o200k_base estimate over the request as the Responses API would receive it.

It reads results tolerantly: a record seen twice is one record (core.domain.evidence merges them, so
a grouping object with one extra key beside `orderId` cannot erase the order's items), and records
the contract's rules cannot read (an order without its items) are answered as unreadable, not guessed at. A failure
of the policy itself is a ProviderError naming it as wismo's bug, which ends that conversation only.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from core.domain.answer import asks_from_schema
from core.domain.dataset import ID_PATTERNS, PAYMENT_MISSING
from core.domain.evidence import Derived, Evidence, derive, kinds_needed
from core.domain.fields import DEFAULT_ASKS
from core.domain.linking import Link, id_fields, kind_of_parameter, next_links, tools_by_parameter
from recorder.providers.base import (
    ModelRequest,
    ModelResponse,
    ProviderBase,
    ProviderError,
    ProviderSettings,
    ProviderTraits,
    Usage,
)
from recorder.providers.responses_wire import responses_body
from recorder.providers.summaries import compose_summary
from recorder.providers.tokens import count_tokens, start_loading, vocabulary_ready

SCRIPTED_MODEL = "scripted-policy-v1"
_ORDER_ID = re.compile(ID_PATTERNS["order"].pattern.strip("^$"))


class ScriptedProvider(ProviderBase):
    """A deterministic evidence-following policy that answers instantly; labelled as not a model."""

    name = "scripted"
    label = "scripted, not a language model"
    # A resume hands it the model its run recorded (scripted-policy-v1); the user cannot choose one.
    traits = ProviderTraits(about="a fixed offline policy, not a model", is_language_model=False, model="unused",
                            base_url="unused", api_key_env="unused", local_server=False, options={}, doctor=None,
                            pricing_vendor=None)

    def __init__(self, settings: ProviderSettings | None = None) -> None:
        self.model = (settings.model if settings and settings.model else None) or SCRIPTED_MODEL
        start_loading()  # in the background, while the run starts its servers and its comparison

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Decide the next step from the history alone."""
        await vocabulary_ready()  # record waited already; this is for callers that did not
        try:
            output = self.next_output(request)
        except Exception as exc:  # wismo's own bug: this conversation ends, labelled as such, and no other
            raise ProviderError("unexpected", f"the scripted policy failed ({type(exc).__name__}: {exc}): a bug in "
                                "wismo's offline policy, not a fault of the design or of a provider") from exc
        body = json.dumps(responses_body(request, self.model), ensure_ascii=False)
        generated = "".join(item.get("text") or (item["name"] + item["arguments"]) for item in output)
        usage = Usage(input_tokens=count_tokens(body), output_tokens=count_tokens(generated), cached_tokens=None,
                      estimated=True)
        return ModelResponse(output_items=output, usage=usage, model=self.model,
                             response_id=f"scripted-{request.turn}", raw_output=output)

    def next_output(self, request: ModelRequest) -> list[dict[str, Any]]:
        """The policy's next step as neutral output items (the loopback server plays it over the wire too)."""
        calls = {item["callId"]: item for item in request.history if item["type"] == "function_call"}
        outputs = [item for item in request.history if item["type"] == "function_call_output"]
        if not calls:
            return self._first_call(request)
        made: set[tuple[str, str, str]] = set()
        evidence = Evidence()
        results: list[Any] = []
        for call in calls.values():
            made.update((call["name"], k, v) for k, v in json.loads(call["arguments"]).items() if isinstance(v, str))
        for output in outputs:
            answered = calls.get(output["callId"])
            if answered is None:
                continue
            arguments = list(json.loads(answered["arguments"]).items())
            if len(arguments) == 1:
                parameter, value = arguments[0]
                evidence.add_result(parameter, value, output["output"], output.get("isError", False))
            if not output.get("isError"):
                with contextlib.suppress(json.JSONDecodeError, RecursionError):  # nested past any reader
                    results.append(json.loads(output["output"]))
        needed = kinds_needed(_asks(request))
        links = [link for link in next_links(request.tools, results, made)
                 if link.kind in needed and _worth_following(link, evidence, needed)]
        if links:
            return [_call(request.turn, index, link.tool, {link.parameter: link.value})
                    for index, link in enumerate(links, start=1)]
        return [self._answer(request, evidence)]

    def _first_call(self, request: ModelRequest) -> list[dict[str, Any]]:
        question = next(item["content"] for item in request.history if item["type"] == "message")
        order_tool = tools_by_parameter(request.tools).get("orderId")
        match = _ORDER_ID.search(question)
        if order_tool is None or match is None:
            return [_text(json.dumps({**_empty_answer(_asks(request)), "customerSummary":
                                      "I couldn't look up this order, so I can't tell you where it is."}))]
        return [_call(request.turn, 1, order_tool, {"orderId": match.group(0)})]

    def _answer(self, request: ModelRequest, evidence: Evidence) -> dict[str, Any]:
        question = next(item["content"] for item in request.history if item["type"] == "message")
        match = _ORDER_ID.search(question)
        order_id = match.group(0) if match else ""
        asks = _asks(request)
        try:
            derived = derive(evidence, order_id)
            answer = {**derived.as_dict(asks), "customerSummary": compose_summary(evidence, order_id, derived, asks)}
        except UNREADABLE as exc:  # records the rules cannot read: say so, as a careful model would
            answer = _unreadable_answer(order_id, asks, exc)
        return _text(json.dumps(answer, ensure_ascii=False))


# What reading records of an unexpected shape raises (a missing key, a number where a list belongs).
UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _unreadable_answer(order_id: str, asks: tuple[str, ...], error: BaseException) -> dict[str, Any]:
    """The answer when the order's records are there but the contract's rules cannot read them."""
    nothing = Derived([], [], [], None, [f"order:{order_id}"], PAYMENT_MISSING)
    why = f"{type(error).__name__}: {error}"[:120]
    return {**nothing.as_dict(asks), "customerSummary": f"I found order {order_id}, but I couldn't read its records "
            f"({why}), so I can't tell you where it is or what was charged."}


def _worth_following(link: Link, evidence: Evidence, needed: tuple[str, ...]) -> bool:
    """Whether a call could bring needed evidence the history lacks.

    A record already read (another tool returned it inside a bigger result) is not asked for again. An
    ID leading to a second tool that takes the same ID (a design splitting an order over two tools, both
    taking `orderId`) is followed only while a needed record the orders link to is still unknown.
    """
    if not evidence.knows(link.kind, link.value):
        return True
    return link.kind == "order" and any(kind in needed and not evidence.knows(kind, ident)
               for order in evidence.orders() for parameter, ident in id_fields(order)
               if (kind := kind_of_parameter(parameter)) != "order")


def _asks(request: ModelRequest) -> tuple[str, ...]:
    # A schema naming no contract field (a bare test schema) asks the default question.
    return asks_from_schema(request.answer_schema) or DEFAULT_ASKS


def _empty_answer(asks: tuple[str, ...]) -> dict[str, Any]:
    empty: dict[str, Any] = {"deliveredSkus": [], "outstandingSkus": [], "delayReasons": [], "deliveryEstimate": None,
             "missingEvidence": [], "paymentStatus": PAYMENT_MISSING}
    return {name: empty[name] for name in asks}


def _call(turn: int, index: int, tool: str, arguments: dict[str, str]) -> dict[str, Any]:
    return {"type": "function_call", "callId": f"call_{turn}_{index}", "name": tool,
            "arguments": json.dumps(arguments)}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}
