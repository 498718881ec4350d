"""A run as an Inspect eval log (`inspect view`, `inspect_ai.log.read_eval_log`).

One sample per conversation: its id is `<case>.<design>` and its epoch the repetition, so Inspect's
epochs are wismo's repetitions; the design is a sample field (metadata) as well. A sample holds the
question as input, the expectation as target, the messages with their tool calls and results, the
final answer as output, the score (`C`/`I`, with each asked field's verdict in its metadata), the
claim checker's findings as a second score, the tokens and the time from the trace's timestamps.

The log is built as plain JSON in Inspect's schema, so a `.json` log needs no Inspect installed; a
`.eval` log (Inspect's zipped format) is written by Inspect itself from that JSON, so it needs the
`inspect-ai` package. Token counts follow Inspect's meaning: its `input_tokens` leave out the tokens
read from the prompt cache (`input_tokens_cache_read`), where wismo's (and OpenTelemetry's) include them.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Any

from core import __version__
from core.errors import WismoError
from core.runformat.events import HistoryItem
from core.runformat.write import write_failure
from wismo.export.conversations import Conversation, RunRead, parse_ts
from wismo.export.files import replace_text, temporary_beside
from wismo.export.options import ExportOptions

ANSWER_SCORER = "wismo_answer"
CLAIMS_SCORER = "wismo_claims"
_MISSING_INSPECT = ("writing a .eval log needs the inspect-ai package: pip install inspect-ai "
                    "(or write the JSON log with --out FILE.json)")


def _usage(conversation: Conversation) -> dict[str, int | None]:
    """The conversation's recorded tokens in Inspect's ModelUsage terms (cache reads apart from input)."""
    responses = [t.response.usage for t in conversation.turns if t.response is not None]
    recorded_input = sum(u.inputTokens or 0 for u in responses)
    output = sum(u.outputTokens or 0 for u in responses)
    cached = [u.cachedTokens for u in responses if u.cachedTokens is not None]
    reasoning = [u.reasoningTokens for u in responses if u.reasoningTokens is not None]
    return {"input_tokens": recorded_input - sum(cached), "output_tokens": output,
            "total_tokens": recorded_input + output,
            "input_tokens_cache_read": sum(cached) if cached else None,
            "reasoning_tokens": sum(reasoning) if reasoning else None}


def _add_usage(total: dict[str, int | None], usage: dict[str, int | None]) -> None:
    for key, value in usage.items():
        if value is not None:
            total[key] = (total.get(key) or 0) + value


def _arguments(text: str) -> dict[str, Any]:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return {"_unparsed": text}  # the model's text, verbatim, when it was not JSON
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def _messages(conversation: Conversation, instructions: str, model: str) -> list[dict[str, Any]]:
    """The conversation as Inspect chat messages: system, user, then each response and its tool results."""
    found: list[dict[str, Any]] = [{"role": "system", "content": instructions, "source": "input"}]
    results = {t.call.callId: t.result for turn in conversation.turns for t in turn.tools}
    for turn in conversation.turns:
        for item in turn.request.newItems:
            if item.get("type") == "message":
                found.append({"role": item.get("role", "user"), "content": item.get("content") or "",
                              "source": "input"})
        if turn.response is None:
            continue
        found.append(_assistant(turn.response.outputItems, model))
        for item in turn.response.outputItems:
            if item.get("type") != "function_call":
                continue
            result = results.get(item.get("callId", ""))
            message: dict[str, Any] = {"role": "tool", "tool_call_id": item.get("callId"),
                                       "function": item.get("name"),
                                       "content": result.text if result is not None else ""}
            if result is None or result.isError:
                message["error"] = {"type": "unknown", "message": result.text if result else "no result recorded"}
            found.append(message)
    return found


def _assistant(items: list[HistoryItem], model: str) -> dict[str, Any]:
    text = "".join(item.get("text") or "" for item in items if item.get("type") == "text")
    calls = [{"id": item.get("callId"), "function": item.get("name"), "type": "function",
              "arguments": _arguments(item.get("arguments") or "")}
             for item in items if item.get("type") == "function_call"]
    return {"role": "assistant", "content": text, "source": "generate", "model": model,
            "tool_calls": calls or None}


def _scores(conversation: Conversation) -> dict[str, Any]:
    score, finished = conversation.score, conversation.finished
    scores: dict[str, Any] = {}
    if score is not None and finished is not None:
        wrong = [name for name, right in score.fields.items() if not right]
        scores[ANSWER_SCORER] = {
            "value": "C" if score.passed else "I", "answer": finished.finalText,
            "explanation": ("every asked field matched the evidence" if score.passed
                            else "fields that did not match: " + ", ".join(wrong)),
            "metadata": {"fields": score.fields, "status": finished.status, "rescored": conversation.rescored}}
    if conversation.claims_checked:
        scores[CLAIMS_SCORER] = {
            "value": len(conversation.findings),
            "explanation": "; ".join(f"{f.kind} ({f.severity}): {f.claim!r}: {f.evidence}"
                                     for f in conversation.findings) or "no unsupported claim found",
            "metadata": {"findings": [f.model_dump(include={"kind", "severity", "sentence", "claim", "evidence",
                                                              "sku"}) for f in conversation.findings]}}
    return scores


def _sample(run: RunRead, conversation: Conversation, total: dict[str, int | None]) -> dict[str, Any]:
    manifest, started, finished = run.manifest, conversation.started, conversation.finished
    case = next(c for c in manifest.cases if c.caseId == started.caseId)
    kind = next((k for k in manifest.questionKinds if k.asks == started.asks), None)
    instructions = kind.instructions if kind else manifest.instructions
    messages = _messages(conversation, instructions, manifest.model)
    usage = _usage(conversation)
    _add_usage(total, usage)
    final_text = finished.finalText if finished else None
    end = finished.ts if finished else started.ts
    seconds = (parse_ts(end) - parse_ts(started.ts)).total_seconds()
    expected = {field: case.expected.get(field) for field in started.asks}
    status = finished.status if finished else "unfinished"
    return {
        "id": f"{started.caseId}.{started.design}", "epoch": started.repetition,
        "input": case.question, "target": json.dumps(expected, ensure_ascii=False),
        "messages": messages,
        "output": {"model": manifest.model, "completion": final_text or "",
                   "choices": [{"message": _assistant([{"type": "text", "text": final_text or ""}], manifest.model),
                                "stop_reason": "stop" if status == "answered" else "unknown"}],
                   "usage": usage},
        "scores": _scores(conversation),
        "metadata": {"design": started.design, "case": started.caseId, "order": started.orderId,
                     "conversation_id": started.conversationId, "attempt": started.attempt, "status": status,
                     "budget_hit": finished.budgetHit if finished else None,
                     "tokens_estimated": any(t.response.usage.estimated for t in conversation.turns if t.response),
                     "turns": len(conversation.turns),
                     "tool_calls": sum(len(t.tools) for t in conversation.turns)},
        "model_usage": {manifest.model: usage},
        "started_at": started.ts, "completed_at": end, "total_time": seconds, "working_time": seconds,
        "uuid": f"{manifest.runId}/{started.conversationId}/{started.attempt}",
        "error": None if status in ("answered", "invalid_answer", "budget_exhausted", "provider_limit", "refused")
        else {"message": f"{status}: {(finished.error if finished else None) or 'no finish line'}",
              "traceback": "", "traceback_ansi": ""},
    }


def eval_log(run: RunRead, options: ExportOptions) -> dict[str, Any]:
    """The run as an EvalLog (Inspect's JSON schema), one sample per conversation."""
    manifest = run.manifest
    total: dict[str, int | None] = {}
    samples = [_sample(run, c, total) for c in run.conversations]
    scored = [s for s in samples if ANSWER_SCORER in s["scores"]]
    correct = sum(s["scores"][ANSWER_SCORER]["value"] == "C" for s in scored)
    complete = all(c.finished is not None for c in run.conversations) and \
        len(run.conversations) == len(manifest.plan)
    return {
        "version": 2, "status": "success" if complete else "cancelled",
        "eval": {"eval_id": manifest.runId, "run_id": manifest.runId, "task_id": manifest.dataset.hash,
                 "created": manifest.startedAt, "task": f"wismo/{manifest.dataset.name}", "task_version": 0,
                 "dataset": {"name": manifest.dataset.name, "location": manifest.dataset.folder,
                             # Inspect counts dataset samples apart from epochs (repetitions)
                             "samples": len({s["id"] for s in samples})},
                 "model": f"{manifest.provider.name}/{manifest.model}", "model_base_url": manifest.baseUrl,
                 "config": {"epochs": manifest.repetitions, "message_limit": None},
                 "packages": {"wismo": manifest.wismoVersion},
                 "metadata": {"wismo_run": manifest.runId, "designs": manifest.designs,
                              "provider": manifest.provider.label, "token_counts": manifest.tokenCounts,
                              "validated": options.validated, "exported_by": f"wismo {__version__}"}},
        "plan": {"name": "plan", "steps": [{"solver": f"wismo agent loop ({', '.join(manifest.designs)})",
                                            "params": {"budgets": manifest.budgets.model_dump()}}]},
        "results": {"total_samples": len(samples), "completed_samples": len(scored),
                    "scores": [{"name": ANSWER_SCORER, "scorer": ANSWER_SCORER, "scored_samples": len(scored),
                                "metrics": {"accuracy": {"name": "accuracy",
                                                         "value": correct / len(scored) if scored else 0.0}}}]},
        "stats": {"started_at": manifest.startedAt, "completed_at": manifest.finishedAt or "",
                  "model_usage": {manifest.model: total}},
        "invalidated": not options.validated,
        "samples": samples,
    }


def write_inspect_log(run: RunRead, out: Path, options: ExportOptions) -> None:
    """Write the log: `.json` as it is, `.eval` through Inspect's own writer (inspect-ai needed)."""
    log = eval_log(run, options)
    if out.suffix == ".eval":
        try:
            from inspect_ai.log import EvalLog, write_eval_log
        except ImportError:
            raise WismoError(_MISSING_INSPECT) from None
        temporary = temporary_beside(out)
        failure = None
        # Inspect's zip writer closes itself again when collected after a failed write and would print
        # that second failure as a traceback: the one line below says it already.
        hook, sys.unraisablehook = sys.unraisablehook, lambda unraisable: None
        try:
            try:
                write_eval_log(EvalLog.model_validate(log), str(temporary), format="eval")
                temporary.replace(out)
            except OSError as exc:
                failure = write_failure(out, exc)
            gc.collect()
        finally:
            sys.unraisablehook = hook
        if failure is not None:
            temporary.unlink(missing_ok=True)
            raise failure
        return
    if out.suffix != ".json":
        raise WismoError(f"--out {out}: an Inspect log is a .json or .eval file")
    replace_text(out, json.dumps(log, ensure_ascii=False, indent=1) + "\n")
