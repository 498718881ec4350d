"""Number and text formatting for the pages; the page builders call these so templates only print strings."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from analysis.model import Stat

DASH = "–"
MINUS = "\u2212"  # the one minus sign the site prints (a hyphen is not a minus to a reader or a screen reader)


def minus(text: str) -> str:
    """A formatted number with its leading hyphen-minus replaced by the true minus sign."""
    return MINUS + text[1:] if text.startswith("-") else text
VERDICT_LABELS = {"justified": "justified", "not_justified": "not justified", "unsure": "unsure"}


def count(value: float | None) -> str:
    """A count or token figure with thousands separators; a dash when nothing was reported."""
    if value is None:
        return DASH
    if float(value).is_integer():
        return minus(f"{int(value):,}")
    return minus(f"{value:,.1f}")


def ms(value: float | None) -> str:
    """Milliseconds as people read them: `8.4 ms`, `412 ms`, `2.35 s`."""
    if value is None:
        return DASH
    if value < 0:
        return MINUS + ms(-value)
    if value < 10:
        return f"{value:.1f} ms"
    if value < 1000:
        return f"{value:,.0f} ms"
    return f"{value / 1000:,.2f} s"


def metric(name: str, value: float | None) -> str:
    """One metric value in its unit."""
    return ms(value) if name == "elapsedMs" else count(value)


def signed_metric(name: str, value: float | None) -> str:
    """A difference with an explicit sign (a true minus sign, so screen readers say it)."""
    if value is None:
        return DASH
    sign = "+" if value > 0 else "−" if value < 0 else "±"
    return sign + metric(name, abs(value))


def pct(value: float | None, decimals: int = 1) -> str:
    """A percentage of 100: `52.3 %`."""
    return DASH if value is None else minus(f"{value:.{decimals}f} %")


def signed_pct(value: float | None, decimals: int = 1) -> str:
    """A change in percent with an explicit sign: `−49.8 %`, `+5.0 %`, `±0.0 %`."""
    if value is None:
        return DASH
    text = f"{abs(value):.{decimals}f} %"
    return ("+" if value > 0 else MINUS if value < 0 else "±") + text if text != f"{0:.{decimals}f} %" else "±" + text


def share(value: float | None) -> str:
    """A share of 1 as a percentage: 0.952 -> `95.2 %`."""
    return DASH if value is None else pct(value * 100)


def stat(name: str, value: Stat | None) -> str:
    """`median (min–max)` in the metric's unit."""
    if value is None or value.median is None:
        return DASH
    if value.min == value.max:
        return metric(name, value.median)
    return f"{metric(name, value.median)} ({metric(name, value.min)}–{metric(name, value.max)})"


def field_value(value: Any) -> str:
    """An assessment field as text: lists joined, null as `null`, a missing field as a dash."""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "(none)"
    if value is None:
        return "null"
    return str(value)


# Answer fields whose values are codes (delay reasons, payment statuses): shown in words, the code in a tooltip.
CODED_FIELDS = ("delayReasons", "paymentStatus")


def code_words(code: str) -> str:
    """A snake_case code in words: `stock_shortage` -> `stock shortage`."""
    return code.replace("_", " ")


def field_words(name: str, value: Any) -> str:
    """An answer field as a support lead reads it: codes in words, null as `none`; see field_value for the raw."""
    if value is None:
        return "none"
    if name in CODED_FIELDS:
        if isinstance(value, list):
            return ", ".join(code_words(str(v)) for v in value) if value else "(none)"
        return code_words(str(value))
    return field_value(value)


# A conversation's tool results and arguments come back in the next one of its case (each repetition reads the
# same records), and json.dumps with an indent runs in pure Python: each distinct text is printed once per process.
JSON_TEXTS_KEPT = 4096


@lru_cache(maxsize=JSON_TEXTS_KEPT)
def pretty_json(text: str | None) -> str:
    """Tool results and arguments pretty-printed when they are JSON, verbatim otherwise."""
    if text is None:
        return ""
    try:
        value = json.loads(text)
    except (ValueError, TypeError, RecursionError):  # not JSON, or nested past any reader: verbatim
        return text
    if not isinstance(value, dict | list):
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


@lru_cache(maxsize=JSON_TEXTS_KEPT)
def compact_json(text: str) -> str:
    """Arguments on one line, for the turn diagram."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, separators=(", ", ": "))
    except (ValueError, TypeError, RecursionError):
        return text


def timestamp(value: str | None) -> str:
    """An ISO timestamp as `2026-11-30 02:47:17 UTC` (kept verbatim when it does not parse)."""
    if not value:
        return DASH
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if moment.tzinfo is not None else "")


def provider_text(label: str, is_language_model: bool) -> str:
    """The provider as shown everywhere; the offline policy always says it is not a language model."""
    if not is_language_model and "not a language model" not in label:
        return f"{label} (scripted, not a language model)"
    return label


def script_json(value: Any) -> Markup:
    """JSON to inline in <script type="application/json">: `<`, `>`, `&` and line separators escaped.

    With `<` escaped no `</script>` or `<!--` can end or confuse the element, whatever the data says;
    JSON.parse reads the escapes back as the original characters.
    """
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


# A conversation's end in plain words, for support leads (the code itself stays in tooltips and tables).
STATUS_WORDS = {"answered": "answered", "invalid_answer": "answers in the wrong format",
                "provider_error": "provider errors", "tool_error": "tool errors",
                "budget_exhausted": "stopped by a turn or tool-call budget", "timeout": "timeouts",
                "interrupted": "interrupted", "provider_limit": "cut short by the provider",
                "refused": "refused by the model"}

# What the scripted policy's time measures: it answers instantly, so only wismo's loop and the MCP servers.
SCRIPTED_TIME = ("The scripted policy answers instantly: this time measures wismo and the MCP servers, not a "
                 "model.")


def status_words(status: str) -> str:
    """A status in plain words (the code itself when it is one wismo does not know)."""
    return STATUS_WORDS.get(status, status)


# The plural words that change for one conversation.
STATUS_ONE = {"invalid_answer": "answer in the wrong format", "provider_error": "provider error",
              "tool_error": "tool error", "timeout": "timeout"}


def status_count(n: int, status: str) -> str:
    """`3 answers in the wrong format`, `1 answer in the wrong format`: a count of conversations by status."""
    return f"{n:,} {STATUS_ONE[status] if n == 1 and status in STATUS_ONE else status_words(status)}"


# How one conversation ended, as a phrase after "the conversation", and the budget it hit.
STATUS_WORD = {"answered": "answered", "invalid_answer": "ended with an answer in the wrong format",
               "provider_error": "ended with a provider error", "tool_error": "ended with a tool error",
               "budget_exhausted": "was stopped by a budget", "timeout": "timed out",
               "interrupted": "was interrupted", "provider_limit": "was cut short by the provider",
               "refused": "was refused by the model"}
BUDGET_WORDS = {"max_tool_calls": "the tool-call budget", "max_turns": "the model-request budget",
                "deadline": "the conversation's deadline", "max_output_tokens": "the output-token budget"}


def ending_words(status: str, budget_hit: str | None = None) -> str:
    """How one conversation ended, after "the conversation": `was stopped by the tool-call budget`."""
    if status == "budget_exhausted" and budget_hit:
        return f"was stopped by {BUDGET_WORDS.get(budget_hit, code_words(budget_hit))}"
    return STATUS_WORD.get(status, f"ended with status {code_words(status)}")


def ending_code(status: str, budget_hit: str | None = None) -> str:
    """The codes behind ending_words, for a tooltip or a small aside: `budget_exhausted · max_tool_calls`."""
    return status + (f" · {budget_hit}" if budget_hit else "")
