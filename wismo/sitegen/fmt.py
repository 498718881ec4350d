"""Number and text formatting for the pages; the page builders call these so templates only print strings."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from analysis.model import Stat

DASH = "–"
VERDICT_LABELS = {"justified": "justified", "not_justified": "not justified", "unsure": "unsure"}


def count(value: float | None) -> str:
    """A count or token figure with thousands separators; a dash when nothing was reported."""
    if value is None:
        return DASH
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}"


def ms(value: float | None) -> str:
    """Milliseconds as people read them: `8.4 ms`, `412 ms`, `2.35 s`."""
    if value is None:
        return DASH
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
    return DASH if value is None else f"{value:.{decimals}f} %"


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
    except (ValueError, TypeError):
        return text
    if not isinstance(value, dict | list):
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


@lru_cache(maxsize=JSON_TEXTS_KEPT)
def compact_json(text: str) -> str:
    """Arguments on one line, for the turn diagram."""
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, separators=(", ", ": "))
    except (ValueError, TypeError):
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
