"""What is never written: API keys and credentials in URLs, wherever a provider or a user puts them.

A `Redactor` knows the secret values of one invocation (the API key variables of the environment
and the credentials inside `--base-url`) and replaces each of them, in every form a writer could
produce (verbatim, JSON-escaped, percent-encoded, inside HTTP Basic auth), by `[redacted]`. The run
writer passes every line and every JSON file through it, so a provider that echoes the key in a
successful body cannot get it onto disk, and so not onto the site either.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote, urlsplit, urlunsplit

REDACTED = "[redacted]"
# Names of variables, flags and query parameters whose values are secrets.
SECRET_NAME = re.compile(r"(key|token|secret|passw|auth|signature|sig$|credential)", re.I)
# The userinfo of a URL inside any text ("https://user:password@host/..."), up to the "@".
USERINFO = re.compile(r"://[^/\s@\"']+@")
# A URL inside any text, up to whitespace, a quote, a parenthesis or a backslash (JSON's escapes).
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>\\)]+")
# An environment variable is taken for a secret from this length on (shorter values are too common).
ENV_SECRET_MIN = 8
# A variable named explicitly as the API key is a secret from this length on.
KEY_MIN = 4


def strip_url_secrets(url: str) -> str:
    """`url` without userinfo and with the values of secret-looking query parameters redacted."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    query = "&".join(_redact_parameter(p) for p in parts.query.split("&")) if parts.query else ""
    return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))


# A path segment that looks like a key: long, of key characters, mixing letters and digits (hosted MCP
# servers often put the key in the path: https://host/mcp/<key>). A false positive only hides a name.
KEY_SEGMENT = re.compile(r"[A-Za-z0-9_\-.~+=]{16,}")
KEY_SEGMENT_DIGITS = 3
KEY_SEGMENT_LETTERS = 3


def key_like_segments(url: str) -> list[str]:
    """The segments of a URL's path that look like keys (see KEY_SEGMENT)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return []
    return [segment for segment in path.split("/") if KEY_SEGMENT.fullmatch(segment)
            and sum(c.isdigit() for c in segment) >= KEY_SEGMENT_DIGITS
            and sum(c.isalpha() for c in segment) >= KEY_SEGMENT_LETTERS]


def _redact_parameter(parameter: str) -> str:
    name, sep, value = parameter.partition("=")
    secret = sep and value != REDACTED and SECRET_NAME.search(unquote(name))
    return f"{name}={REDACTED}" if secret else parameter


def url_secrets(url: str | None) -> list[str]:
    """The secret values inside a URL: its userinfo (and the Basic auth built from it), secret query values."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    if userinfo:
        user, _, password = userinfo.partition(":")
        found += [v for v in (unquote(password) or unquote(user), password or user) if v]
        plain = f"{unquote(user)}:{unquote(password)}"
        found.append(base64.b64encode(plain.encode()).decode())
    for parameter in parts.query.split("&") if parts.query else []:
        name, sep, value = parameter.partition("=")
        if sep and value and SECRET_NAME.search(unquote(name)):
            found += [value, unquote(value)]
    return found


class Redactor:
    """Replaces known secret values, in every form a writer could produce, by `[redacted]`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = list(secrets)
        forms: set[str] = set()
        for secret in self._secrets:
            if len(secret) < KEY_MIN:
                continue
            forms.update({secret, json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1],
                          quote(secret, safe="")})
        # Longest first, so a secret that contains another is replaced whole.
        self._forms = sorted((f for f in forms if len(f) >= KEY_MIN), key=len, reverse=True)

    @classmethod
    def from_environment(cls, key_env: str | None = None, urls: Iterable[str | None] = ()) -> Redactor:
        """The secrets of this process: secret-looking variables, the named key variable, URL credentials."""
        values = [v for k, v in os.environ.items() if SECRET_NAME.search(k) and len(v) >= ENV_SECRET_MIN]
        if key_env and os.environ.get(key_env):
            values.append(os.environ[key_env])
        for url in urls:
            values += url_secrets(url)
        return cls(values)

    def with_secrets(self, more: Iterable[str]) -> Redactor:
        """A redactor that also hides `more` (header values sent to a server, say)."""
        return Redactor([*self._secrets, *more])

    def __bool__(self) -> bool:
        return bool(self._forms)

    def scrub(self, text: str) -> str:
        """`text` with every known secret replaced and no userinfo left in any URL."""
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        if "://" in text:
            if "@" in text:
                text = USERINFO.sub("://", text)
            if "?" in text:
                text = URL.sub(lambda match: strip_url_secrets(match.group()), text)
        return text

    def scrub_args(self, argv: Iterable[str]) -> list[str]:
        """A command line with URL credentials stripped and every known secret replaced."""
        return [self.scrub(strip_url_secrets(arg) if "://" in arg else arg) for arg in argv]
