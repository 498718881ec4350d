"""`wismo doctor`: a handful of tiny requests that tell what an endpoint supports, and how to record with it.

The provider's traits say how it is probed. `chat_completions` (openai-chat): raw Chat Completions
requests (recorder.doctor.chat_probes): which answer formats and tool choices the server accepts,
whether the tools and the tool results reach the model. `through_provider` (openai, anthropic): through
the provider class, exactly as `record` sends them. Then wismo's own first request (the real
instructions, each design's tools, the first case's question) shows whether the model calls a tool
where it matters. Doctor never writes a run.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.domain.answer import ANSWER_SCHEMA
from core.domain.dataset import load_dataset
from core.domain.linking import ToolSpec
from core.errors import WismoError
from recorder.agent.instructions import build_instructions
from recorder.agent.loop import DEFAULT_MAX_OUTPUT_TOKENS, Budgets
from recorder.designs.mcp_client import server_command, start_servers
from recorder.doctor.chat_probes import AS_JSON, ONE, ORDER_TOOL, STATUS_SCHEMA, TWO, ChatProbes
from recorder.doctor.report import Check, Diagnosis
from recorder.doctor.trial import TrialSettings, run_trials, trial_options
from recorder.providers import create_provider, traits_of
from recorder.providers.base import DoctorProbes, ModelRequest, ModelResponse, Provider, ProviderError, ProviderSettings
from recorder.providers.openai_chat import OpenAIChatProvider
from recorder.providers.text_calls import parse_text_calls
from recorder.run.local_server import is_local_url
from recorder.run.options import Guidance

Report = Callable[[Check], None]
DEFAULT_REQUEST_TIMEOUT_S = Budgets().request_timeout_s
DEFAULT_DEADLINE_S = int(Budgets().conversation_deadline_s)
DESIGNS = ("granular", "focused")
LOCAL_MAX_OUTPUT_TOKENS = 1024


def _settings(model: str | None, base_url: str | None, api_key_env: str | None,
              **extra: Any) -> ProviderSettings:
    # Doctor asks once: a retried request would hide what the server did with it.
    return ProviderSettings(model=model, base_url=base_url, api_key_env=api_key_env, max_retries=0, extra=extra)


async def diagnose(provider_name: str, *, model: str | None = None, base_url: str | None = None,
                   api_key_env: str | None = None, dataset_dir: Path | None = None, timeout_s: float = 120.0,
                   report: Report | None = None, trial: TrialSettings | None = None) -> Diagnosis:
    """Probe the endpoint, then record the first case in each design; `report` hears each check as it is made.

    Bad options raise WismoError.
    """
    tell = report or (lambda check: None)
    traits = traits_of(provider_name)
    trial = trial or TrialSettings()
    chosen_cap = trial.max_output_tokens
    cap = output_cap(chosen_cap, local=traits.local_server and is_local_url(base_url))
    trial = replace(trial, max_output_tokens=cap)
    if traits.doctor is None:
        raise WismoError(f"wismo doctor has nothing to probe for the {provider_name} provider ({traits.about})")
    provider = create_provider(provider_name, _settings(model, base_url, api_key_env))
    diagnosis = Diagnosis(provider_name, provider.model, base_url, base_url_required=traits.base_url == "required")

    def add(*checks: Check) -> None:
        for check in checks:
            diagnosis.checks.append(check)
            tell(check)

    try:
        if not await _listed(provider, diagnosis, add, timeout_s):
            return diagnosis
        chosen = await PROBES[traits.doctor](provider, diagnosis, add, timeout_s)
    finally:
        await provider.aclose()
    if chosen is None:
        return diagnosis
    written = await _first_requests(diagnosis, chosen, add, dataset_dir, timeout_s, trial.guidance, cap)
    if trial.enabled:
        written = written or bool(chosen.get("written_calls"))
        await run_trials(diagnosis, trial_options(diagnosis, chosen, api_key_env, dataset_dir, timeout_s, trial,
                                                  written), add, trial.keep_in)
    worth_a_command = diagnosis.usable or diagnosis.closest is not None
    if worth_a_command and traits.local_server and is_local_url(base_url):
        diagnosis.flags.append("--concurrency 1")
    if worth_a_command:
        diagnosis.flags += timeout_flags(diagnosis.latencies_s)
        if cap != DEFAULT_MAX_OUTPUT_TOKENS:
            diagnosis.flags.append(f"--max-output-tokens {cap}")
    return diagnosis


def output_cap(chosen: int | None, *, local: bool) -> int:
    """The output cap of the whole conversations and of the printed command: the user's, else record's default,
    else on a local server LOCAL_MAX_OUTPUT_TOKENS.

    A small local model that loses its way can write until the cap: at the 5-10 tokens a second of a
    CPU, record's default of 4096 is ten minutes of one reply, while wismo's longest useful reply (the
    answer with its summary) is a few hundred tokens.
    """
    if chosen is not None:
        return chosen
    return LOCAL_MAX_OUTPUT_TOKENS if local else DEFAULT_MAX_OUTPUT_TOKENS


def timeout_flags(latencies_s: list[float]) -> list[str]:
    """Longer budgets when the slowest request came near record's default request timeout.

    A request later in a conversation carries more history than any probe, so the suggested timeout
    leaves three times the slowest probe, and the deadline room for four such requests.
    """
    slowest = max(latencies_s, default=0.0)
    if slowest <= DEFAULT_REQUEST_TIMEOUT_S / 2:
        return []
    timeout = 60 * math.ceil(3 * slowest / 60)
    return [f"--request-timeout {timeout}", f"--deadline {max(4 * timeout, DEFAULT_DEADLINE_S)}"]


async def _listed(provider: Provider, diagnosis: Diagnosis, add: Callable[..., None], timeout_s: float) -> bool:
    """Reachable, and does it list the model; False when nothing else is worth asking."""
    listing = await provider.listed_models(min(timeout_s, 30.0))
    if listing.failure == "auth":
        add(Check("key accepted", False, listing.reason))
        diagnosis.verdict = "the endpoint refused the key: record cannot work"
        return False
    if listing.failure == "unreachable":
        add(Check("reachable", False, listing.reason))
        diagnosis.verdict = "the endpoint cannot be reached: record cannot work"
        return False
    if listing.failure is not None:
        add(Check("reachable", True, "it answered"),
            Check("model listed", None, f"the model list failed: {listing.reason}"))
        return True
    add(Check("reachable", True, "the model list answered"))
    if diagnosis.model in listing.ids:
        add(Check("model listed", True, diagnosis.model))
    else:
        known = ", ".join(listing.ids[:5]) + (" …" if len(listing.ids) > 5 else "")
        add(Check("model listed", False, f"{diagnosis.model} is not among: {known or '(none)'}"))
    return True


async def _chat(provider: Provider, diagnosis: Diagnosis, add: Callable[..., None],
                timeout_s: float) -> dict[str, Any] | None:
    """The raw Chat Completions probes; the record settings they point to, or None when none would work."""
    if not isinstance(provider, OpenAIChatProvider):  # they send through its openai client
        raise WismoError(f"the {provider.name} provider declares chat_completions probes but is no OpenAIChatProvider")
    probes = ChatProbes(provider, timeout_s)
    basics, plain = await probes.basics()
    add(*basics)
    if plain.error:
        diagnosis.verdict = "the server does not answer a plain chat request: record cannot work"
        return None
    add(*await probes.tools(plain))
    add(*await probes.history())
    add(*await probes.answer_formats())
    found = probes.found
    if found.validation_as_500:
        add(Check("request errors as 4xx", False, "request-validation errors come back as HTTP 500 "
                                                  "(wismo does not retry them)"))
    diagnosis.latencies_s += found.latencies_s
    if (reached := diagnosis.check("tool results reach the model")) and reached.ok is False:
        diagnosis.notes.append("the server leaves tool results out of the prompt: the model never sees the "
                               "evidence, so expect wrong or empty answers (the server's chat template, not wismo)")
    if (text := diagnosis.check('a text answer beside tools ("auto")')) and text.ok is False:
        diagnosis.notes.append("with tools offered the server returned an empty message instead of text: "
                               "conversations may end as invalid_answer (\"the final answer is empty\")")
    # Under a schema grammar auto would find it only if the run's first conversation happens to call a tool
    # once the schema is left out; a small model that answers at once there keeps the grammar for the whole run.
    answer_format = found.answer_formats[0] if found.answer_formats and not found.schema_grammar else "off"
    if answer_format != "json_schema":
        diagnosis.flags.append(f"--structured-output {answer_format}")
    return {"structured_output": answer_format, "tool_choices": found.tool_choices or ["auto"],
            "written_calls": found.written_calls > 0}


async def _api(provider: Provider, diagnosis: Diagnosis, add: Callable[..., None],
               timeout_s: float) -> dict[str, Any] | None:
    """The probes through a hosted API's provider class, as record sends them."""
    tool = ToolSpec("get_order", ORDER_TOOL["function"]["description"], ORDER_TOOL["function"]["parameters"])

    async def ask(messages: list[dict[str, Any]], tools: list[ToolSpec]) -> ModelResponse | ProviderError:
        history = [{"type": "message", "role": "user", "content": messages[-1]["content"]}]
        request = ModelRequest(messages[0]["content"], tools, history, STATUS_SCHEMA, 1, timeout_s)
        try:
            return await provider.complete(request)
        except ProviderError as error:
            return error

    await _stated_capabilities(provider, add)
    one, two, plain = await ask(ONE, [tool]), await ask(TWO, [tool]), await ask(AS_JSON, [])
    first = next((r for r in (one, two, plain) if isinstance(r, ModelResponse)), None)
    if first is None:
        add(Check("answers a request", False, str(one)))
        diagnosis.verdict = f"the API refused every request: {one}"
        return None
    add(Check("usage reported", first.usage.input_tokens is not None,
              f"{first.usage.input_tokens} input / {first.usage.output_tokens} output tokens"),
        Check("cached tokens reported", first.usage.cached_tokens is not None, f"{first.usage.cached_tokens}"),
        Check("tool call with tools alone", bool(_calls(one)), _calls_text(one)),
        Check("tool_choice", None, "not sent by wismo's adapter: the API's default (auto)"),
        Check("parallel tool calls", len(_calls(two)) >= 2 if _calls(two) else None,
              f"{len(_calls(two))} call(s) for two orders" if _calls(two) else _calls_text(two)))
    answer = _text(plain)
    try:
        parsed = isinstance(json.loads(answer), dict)
    except json.JSONDecodeError:
        parsed = False
    add(Check("structured output", parsed, f"answered {answer[:60]!r}" if not isinstance(plain, ProviderError)
              else str(plain)))
    return {"tool_choices": [None]}


async def _stated_capabilities(provider: Provider, add: Callable[..., None]) -> None:
    """What the adapter knows the model supports (the vendor's Models API or documentation), with the source."""
    found = await provider.capabilities()
    if found is None:
        return
    for label, support in (("prompt caching (stated)", found.caching),
                           ("structured output (stated)", found.structured_output),
                           ("reasoning (stated)", found.reasoning)):
        add(Check(label, support.supported, support.source))


Probes = Callable[[Provider, Diagnosis, Callable[..., None], float], Awaitable[dict[str, Any] | None]]
# How each kind of probing (a provider's traits.doctor) is done; the record settings it points to.
PROBES: dict[DoctorProbes, Probes] = {"chat_completions": _chat, "through_provider": _api}


async def _first_requests(diagnosis: Diagnosis, chosen: dict[str, Any], add: Callable[..., None],
                          dataset_dir: Path | None, timeout_s: float, guidance: Guidance | None,
                          max_output_tokens: int) -> bool:
    """wismo's own first request in each design, with each workable tool choice until one makes the model call.

    True when a reply held a tool call written as text (what --text-tool-calls reads).
    """
    dataset = load_dataset(dataset_dir)
    case = dataset.cases[0]
    instructions = build_instructions(dataset.records.clock, guidance=guidance.text if guidance else None)
    written = False
    history = [{"type": "message", "role": "user", "content": case.question}]
    async with AsyncExitStack() as stack:
        logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="wismo-doctor-")))
        servers = await start_servers(stack, {d: server_command(d, dataset.folder) for d in DESIGNS}, logs, 60.0)
        for choice in chosen["tool_choices"]:
            # json_schema accepted is sent as auto, as record will: auto finds a grammar that allows no call.
            answer_format = "auto" if chosen.get("structured_output") == "json_schema" else chosen.get(
                "structured_output")
            extra = {} if choice is None else {"structured_output": answer_format, "tool_choice": choice}
            provider = create_provider(diagnosis.provider, _settings(diagnosis.model, diagnosis.base_url, None,
                                                                     **extra))
            called = True
            try:
                for design in DESIGNS:
                    request = ModelRequest(instructions, servers[design].tool_specs(), history, ANSWER_SCHEMA, 1,
                                           timeout_s, max_output_tokens=max_output_tokens)
                    started = time.perf_counter()
                    try:
                        response: ModelResponse | ProviderError = await provider.complete(request)
                    except ProviderError as error:
                        response = error
                    seconds = time.perf_counter() - started
                    if not isinstance(response, ProviderError):
                        diagnosis.latencies_s.append(seconds)
                    label = f"wismo's first request, {design}" + (f" ({choice})" if choice else "")
                    as_text = parse_text_calls(_text(response), [tool.name for tool in request.tools])
                    written = written or bool(as_text)
                    seen = f"; {len(as_text)} call(s) written as text" if as_text and not _calls(response) else ""
                    add(Check(label, bool(_calls(response)), f"{_calls_text(response)}{seen} in {seconds:.1f} s"))
                    if not _calls(response):
                        called = False
                        break
            finally:
                await provider.aclose()
            if called:
                if choice not in (None, "auto"):
                    diagnosis.flags.append(f"--tool-choice {choice}")
                diagnosis.usable = True
                diagnosis.verdict = f"record can work (case {case.caseId} called a tool in both designs)"
                return written
    diagnosis.verdict = ("record would run, but the model called no tool on wismo's first request with any "
                         "tool choice the server accepts: its figures would say nothing about the designs")
    return written


def _calls(response: ModelResponse | ProviderError) -> list[dict[str, Any]]:
    if isinstance(response, ProviderError):
        return []
    return [item for item in response.output_items if item["type"] == "function_call"]


def _text(response: ModelResponse | ProviderError) -> str:
    if isinstance(response, ProviderError):
        return ""
    return "".join(item.get("text", "") for item in response.output_items if item["type"] == "text").strip()


def _calls_text(response: ModelResponse | ProviderError) -> str:
    if isinstance(response, ProviderError):
        return f"refused: {response}"
    calls = _calls(response)
    if not calls:
        text = _text(response)
        return f"no tool call (answered {text[:40]!r})" if text else "no tool call (an empty message)"
    return ", ".join(f"{c['name']}({c['arguments'].strip()})" for c in calls)[:120]

