"""A model behind the loopback server: the scripted policy, spoken over a real wire format, with planned faults.

The server reads each request as the provider's API would (Responses input items, Chat messages or
Messages content blocks), turns it back into neutral history, lets the scripted policy decide the
next step and answers in the same wire format. A *fault plan* makes chosen requests misbehave:

    {"faults": [
        {"do": "status", "status": 500, "order": "ORD-1004", "times": 2},
        {"do": "hang", "seconds": 30, "request": 3},
        {"do": "invalid_json", "order": "ORD-1005", "turn": 2},
        {"do": "echo_key"}
    ]}

A rule applies to requests matching all of its `order` (the order ID in the customer's question),
`turn` (1 for the first request of a conversation) and `request` (the server's 1-based count), at
most `times` times; the first rule that applies decides. What it does:

- `status`: an error reply in the API's own format (`message` may hold `{auth}`, the key sent);
- `hang`: wait `seconds`, then answer normally (longer than the client's timeout: a timeout);
- `invalid_json`, `html`, `empty`: a 200 whose body is cut-off JSON, an HTML error page, nothing;
- `no_output`: a 200 that is valid JSON with no choices / output items / content blocks;
- `echo_key`: a normal answer that repeats the credentials the client sent (header values);
- `close`: close the connection without answering.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from core.domain.linking import ToolSpec
from recorder.providers.base import ModelRequest
from recorder.providers.scripted import ScriptedProvider
from wismo.loopback.replies import Tokens, anthropic_error, chat_reply, messages_reply, openai_error, responses_reply
from wismo.loopback.server import Received, Reply

APIS = ("responses", "chat", "messages")
FAULTS = ("status", "hang", "invalid_json", "html", "empty", "no_output", "echo_key", "close")
_ORDER = re.compile(r"ORD-\d+")


@dataclass
class Rule:
    """One planned fault and the requests it applies to."""

    do: str
    order: str | None = None
    turn: int | None = None
    request: int | None = None
    times: int | None = None
    status: int = 500
    message: str = "planned fault"
    seconds: float = 30.0
    headers: dict[str, str] = field(default_factory=dict)
    used: int = 0

    def applies(self, number: int, order: str | None, turn: int) -> bool:
        """Whether this request is one the rule is for (and the rule is not used up)."""
        return ((self.times is None or self.used < self.times) and (self.order is None or self.order == order)
                and (self.turn is None or self.turn == turn) and (self.request is None or self.request == number))


def load_plan(plan: dict[str, Any]) -> list[Rule]:
    """The rules of a plan; a ValueError names what is wrong."""
    rules = []
    for index, entry in enumerate(plan.get("faults", [])):
        if entry.get("do") not in FAULTS:
            raise ValueError(f"faults[{index}].do: {entry.get('do')!r} is not one of {', '.join(FAULTS)}")
        rules.append(Rule(**entry))
    return rules


def neutral_request(api: str, body: dict[str, Any]) -> ModelRequest:
    """A wire request read back as the neutral request the policy decides on."""
    if api == "responses":
        tools = [ToolSpec(t["name"], t.get("description", ""), t.get("parameters", {})) for t in body.get("tools", [])]
        history = [_from_responses_item(item) for item in body.get("input", [])]
    elif api == "chat":
        tools = [ToolSpec(t["function"]["name"], t["function"].get("description", ""),
                          t["function"].get("parameters", {})) for t in body.get("tools", [])]
        history = [item for message in body.get("messages", []) for item in _from_chat_message(message)]
    else:
        tools = [ToolSpec(t["name"], t.get("description", ""), t.get("input_schema", {}))
                 for t in body.get("tools", [])]
        history = [item for message in body.get("messages", []) for item in _from_anthropic_message(message)]
    # The turn is one more than the model's earlier outputs (a run of assistant items is one output).
    turn = 1 + sum(1 for i, item in enumerate(history)
                   if _assistant(item) and (i == 0 or not _assistant(history[i - 1])))
    return ModelRequest(instructions="", tools=tools, history=history, answer_schema={}, turn=turn, timeout_s=0)


def _assistant(item: dict[str, Any]) -> bool:
    return item["type"] == "function_call" or (item["type"] == "message" and item["role"] == "assistant")


def _from_responses_item(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("type") == "function_call":
        return {"type": "function_call", "callId": item["call_id"], "name": item["name"],
                "arguments": item["arguments"]}
    if item.get("type") == "function_call_output":
        return {"type": "function_call_output", "callId": item["call_id"], "output": item["output"], "isError": False}
    return {"type": "message", "role": item["role"], "content": item["content"]}


def _from_chat_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    if message["role"] == "system":
        return []
    if message["role"] == "tool":
        return [{"type": "function_call_output", "callId": message["tool_call_id"], "output": message["content"],
                 "isError": False}]
    items = [{"type": "message", "role": message["role"], "content": message["content"]}] if message.get("content") \
        else []
    return items + [{"type": "function_call", "callId": c["id"], "name": c["function"]["name"],
                     "arguments": c["function"]["arguments"]} for c in message.get("tool_calls") or []]


def _from_anthropic_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    if isinstance(content, str):
        return [{"type": "message", "role": message["role"], "content": content}]
    items = []
    for block in content:
        if block["type"] == "text":
            items.append({"type": "message", "role": message["role"], "content": block["text"]})
        elif block["type"] == "tool_use":
            items.append({"type": "function_call", "callId": block["id"], "name": block["name"],
                          "arguments": json.dumps(block["input"])})
        elif block["type"] == "tool_result":
            output = block["content"] if isinstance(block["content"], str) else \
                "".join(part.get("text", "") for part in block["content"])
            items.append({"type": "function_call_output", "callId": block["tool_use_id"], "output": output,
                          "isError": bool(block.get("is_error"))})
    return items


def wire_reply(api: str, output: list[dict[str, Any]], usage: Tokens, model: str | None = None) -> Reply:
    """Neutral output items as a 200 reply in the API's wire format."""
    text = "".join(item["text"] for item in output if item["type"] == "text") or None
    calls = [(item["name"], item["arguments"], item["callId"]) for item in output if item["type"] == "function_call"]
    build = {"responses": responses_reply, "chat": chat_reply, "messages": messages_reply}[api]
    return build(function_calls=calls, text=text, usage=usage, **({"model": model} if model else {}))


def _error(api: str, status: int, message: str, headers: dict[str, str]) -> Reply:
    return (anthropic_error if api == "messages" else openai_error)(status, message, headers=headers)


_EMPTY = {"responses": {"id": "resp_empty", "object": "response", "status": "completed", "model": "m", "output": []},
          "chat": {"id": "chatcmpl-empty", "object": "chat.completion", "model": "m", "choices": []},
          "messages": {"id": "msg_empty", "type": "message", "role": "assistant", "model": "m", "content": []}}


class PolicyModel:
    """The responder of a loopback server: the scripted policy, misbehaving where the plan says."""

    def __init__(self, api: str, rules: list[Rule]) -> None:
        if api not in APIS:
            raise ValueError(f"api {api!r} is not one of {', '.join(APIS)}")
        self.api, self.rules = api, rules
        self.policy = ScriptedProvider()
        self.requests = 0
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, received: Received) -> Reply:
        """Answer one request: the first planned fault that applies, else the policy's next step."""
        try:
            request = neutral_request(self.api, received.body or {})
            if not any(item["type"] == "message" for item in request.history):
                raise ValueError("no message in the request")
        except (ValueError, KeyError, TypeError) as exc:  # a request cut short by a client that went away
            return _error(self.api, 400, f"loopback: cannot read the request ({exc})", {})
        question = next((i["content"] for i in request.history if i["type"] == "message" and i["role"] == "user"), "")
        match = _ORDER.search(question if isinstance(question, str) else "")
        order = match.group(0) if match else None
        with self._lock:
            self.requests += 1
            number = self.requests
            rule = next((r for r in self.rules if r.applies(number, order, request.turn)), None)
            if rule is not None:
                rule.used += 1
            self.log.append({"request": number, "order": order, "turn": request.turn,
                             "fault": rule.do if rule else None})
        auth = " ".join(v for k, v in received.headers.items() if k.lower() in ("authorization", "x-api-key"))
        return self._reply(request, rule, auth, len(received.raw))

    def _reply(self, request: ModelRequest, rule: Rule | None, auth: str, size: int) -> Reply:
        if rule is not None and rule.do in ("status", "invalid_json", "html", "empty", "no_output", "close"):
            return self._fault(rule, auth)
        output = self.policy.next_output(request)
        usage = Tokens(input=max(1, size // 4), output=max(1, sum(len(json.dumps(i)) for i in output) // 4))
        model = None
        if rule is not None and rule.do == "echo_key":
            output, model = _echo(output, auth), f"echo {auth}"
        reply = wire_reply(self.api, output, usage, model)
        if rule is not None and rule.do == "hang":
            reply.delay_s = rule.seconds
        return reply

    def _fault(self, rule: Rule, auth: str) -> Reply:
        if rule.do == "status":
            return _error(self.api, rule.status, rule.message.replace("{auth}", auth), rule.headers)
        if rule.do == "invalid_json":
            return Reply(200, b'{"id": "cut-off", "output": [{"type": "mess')
        if rule.do == "html":
            return Reply(200, b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>"
                              b"</body></html>", content_type="text/html")
        if rule.do == "empty":
            return Reply(200, b"")
        if rule.do == "no_output":
            return Reply(200, _EMPTY[self.api])
        return Reply(drop=True)


def _echo(output: list[dict[str, Any]], auth: str) -> list[dict[str, Any]]:
    """The output with the credentials repeated in its text (inside the answer's summary when it answers)."""
    echoed = []
    for item in output:
        if item["type"] == "text":
            try:
                answer = json.loads(item["text"])
                answer["customerSummary"] = f"{answer.get('customerSummary', '')} (sent with {auth})"
                item = {"type": "text", "text": json.dumps(answer)}
            except (ValueError, TypeError, AttributeError):
                item = {"type": "text", "text": f"{item['text']} (sent with {auth})"}
        echoed.append(item)
    if not any(item["type"] == "text" for item in echoed):
        echoed.insert(0, {"type": "text", "text": f"Looking that up with {auth}."})
    return echoed
