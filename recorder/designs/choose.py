"""Which designs a run records, and where each design's MCP server comes from.

wismo ships two designs (granular, focused). `--server NAME=COMMAND` adds a design whose server is
started over stdio, `--server NAME=http(s)://…` one reached over streamable HTTP; a built-in name
replaces that design. `--designs` picks and orders them; the baseline (every other design is
compared with it) is the first unless `--baseline` names another. Every mistake is one line that
names it, raised before any server starts.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import WismoError
from core.runformat.manifest import DesignSource, Manifest
from core.runformat.redact import REDACTED, key_like_segments, strip_url_secrets, url_secrets
from recorder.designs.mcp_client import ServerTarget, server_command

BUILT_IN = ("granular", "focused")
# Wismo's granular server is what every design's records are compared with (recorder.designs.comparison).
REFERENCE = "granular"
# A design name is part of every conversation id (`<case>.<design>.r<n>`) and of file names.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")
# An HTTP header name is an RFC 9110 token.
HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
ENV_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


@dataclass(frozen=True)
class DesignSpec:
    """One design: its name and its server (a command, or a URL with headers from the environment)."""

    name: str
    command: tuple[str, ...] = ()
    url: str | None = None
    # (header name, value template): `$VAR`/`${VAR}` in a template are read from the environment at start-up
    headers: tuple[tuple[str, str], ...] = ()
    built_in: bool = False

    def target(self, environment: Mapping[str, str] | None = None) -> ServerTarget:
        """How to reach the server, the URL and header values resolved (they are sent, never written)."""
        return ServerTarget(command=self.command, url=self.url_value(environment),
                            headers=self.header_values(environment), shown_url=self.shown_url())

    def url_value(self, environment: Mapping[str, str] | None = None) -> str | None:
        """The URL with its `$VAR`/`${VAR}` read from the environment (a key kept out of the command line)."""
        if self.url is None:
            return None
        env = os.environ if environment is None else environment

        def fill(match: re.Match[str]) -> str:
            variable = match.group(1) or match.group(2)
            if variable not in env:
                raise WismoError(f"--server {self.name}=...: the URL reads ${variable}, which is not set")
            return env[variable]
        return ENV_REFERENCE.sub(fill, self.url)

    def key_segments(self) -> list[str]:
        """Segments of the URL as written that look like keys: they are hidden wherever the URL is written."""
        return [s for s in key_like_segments(self.url) if not ENV_REFERENCE.search(s)] if self.url else []

    def shown_url(self) -> str | None:
        """The URL as written down: `${VAR}` left as is, credentials stripped, key-like segments redacted."""
        if self.url is None:
            return None
        shown = strip_url_secrets(self.url)
        for segment in self.key_segments():
            shown = shown.replace(f"/{segment}", f"/{REDACTED}")
        return shown

    def url_warnings(self) -> list[str]:
        """A warning for a URL written with a key in it (it is redacted, so the run cannot be resumed)."""
        if not self.key_segments():
            return []
        return [f"--server {self.name}=...: the URL's path looks like it holds a key; it is written as "
                f"{self.shown_url()}, and a resume cannot reach it: put the key in a variable and write "
                f"--server '{self.name}=https://…/${{MY_MCP_KEY}}' (single-quoted)"]

    def header_values(self, environment: Mapping[str, str] | None = None) -> dict[str, str]:
        """Every header with its environment references filled in; a variable that is not set is an error."""
        env = os.environ if environment is None else environment
        values = {}
        for header, template in self.headers:
            def fill(match: re.Match[str], header: str = header) -> str:
                variable = match.group(1) or match.group(2)
                if variable not in env:
                    raise WismoError(f"--header {self.name}={header}: ... reads ${variable}, which is not set")
                return env[variable]
            values[header] = ENV_REFERENCE.sub(fill, template)
            _check_header_value(self.name, header, values[header], "its value (from the environment)")
        return values

    def secret_values(self, environment: Mapping[str, str] | None = None) -> list[str]:
        """What must never reach disk: every header value, and every variable a header reads."""
        env = os.environ if environment is None else environment
        templates = [template for _, template in self.headers] + ([self.url] if self.url else [])
        variables = [m.group(1) or m.group(2) for template in templates for m in ENV_REFERENCE.finditer(template)]
        url = self.url_value(env)
        return [*self.header_values(env).values(), *(env[v] for v in variables if v in env),
                *url_secrets(url), *self.key_segments()]

    def source(self) -> dict[str, Any]:
        """The manifest's designSources entry: the command or the URL without secrets, header names only."""
        if self.url:
            return {"url": self.shown_url(), "headers": [h for h, _ in self.headers], "builtIn": False}
        # wismo's own servers run with this interpreter; the manifest names it `python`, not a machine path
        command = ["python", *self.command[1:]] if self.built_in else list(self.command)
        return {"command": command, "headers": [], "builtIn": self.built_in}


@dataclass(frozen=True)
class DesignChoice:
    """The designs of a run in order, and its baseline."""

    designs: tuple[DesignSpec, ...]
    baseline: str
    reference: DesignSpec = field(default_factory=lambda: built_in(REFERENCE, None))

    @property
    def names(self) -> tuple[str, ...]:
        """The design names in the run's order."""
        return tuple(d.name for d in self.designs)


def built_in(name: str, dataset_dir: Path | str | None) -> DesignSpec:
    """One of wismo's own designs, served by this interpreter."""
    return DesignSpec(name, command=tuple(server_command(name, dataset_dir)), built_in=True)


def parse_server(value: str) -> DesignSpec:
    """`NAME=COMMAND` (stdio) or `NAME=http(s)://…` (streamable HTTP)."""
    name, sep, where = value.partition("=")
    name, where = name.strip(), where.strip()
    if not sep or not where:
        raise WismoError(f"--server {value!r}: expected NAME=COMMAND or NAME=http(s)://HOST/PATH")
    check_name(name, "--server")
    if re.match(r"https?://", where):
        return DesignSpec(name, url=where)
    try:
        command = tuple(shlex.split(where))
    except ValueError as exc:
        raise WismoError(f"--server {name}=...: the command cannot be split into words ({exc})") from None
    return DesignSpec(name, command=command)


def parse_header(value: str) -> tuple[str, str, str]:
    """`DESIGN=Header-Name: value` → (design, header name, value template)."""
    design, sep, header = value.partition("=")
    name, colon, template = header.partition(":")
    if not sep or not colon or not name.strip() or not template.strip():
        raise WismoError(f"--header {value!r}: expected DESIGN=Header-Name: value (e.g. "
                         "'mine=Authorization: Bearer ${MY_TOKEN}', single-quoted so the shell leaves $ alone)")
    if not HEADER_NAME.fullmatch(name.strip()):
        raise WismoError(f"--header {design.strip()}=...: {name.strip()!r} is not a valid HTTP header name (letters, "
                         "digits and !#$%&'*+-.^_`|~ only)")
    _check_header_value(design.strip(), name.strip(), template)
    return design.strip(), name.strip(), template.strip()


def _check_header_value(design: str, header: str, value: str, source: str = "its value") -> None:
    """A header value may not hold a line break or a NUL: it would end the header (or the request) early."""
    if any(c in value for c in "\r\n\0"):
        raise WismoError(f"--header {design}={header}: ... {source} holds a line break or NUL, which no HTTP "
                         "header may carry")


def check_name(name: str, flag: str) -> None:
    """A design name: a letter, then letters, digits, '_' or '-' (it becomes part of file names)."""
    if not NAME.fullmatch(name):
        raise WismoError(f"{flag}: design name {name!r} must start with a letter and hold only letters, digits, "
                         "'_' and '-' (at most 40)")


def with_headers(specs: Mapping[str, DesignSpec],
                 headers: Sequence[tuple[str, str, str]]) -> dict[str, DesignSpec]:
    """The designs with each --header attached to its design; a header for a design not reached by URL is an error."""
    attached = dict(specs)
    for design, header, template in headers:
        reached = attached.get(design)
        if reached is None or not reached.url:
            raise WismoError(f"--header {design}=...: headers go to a design reached over HTTP; "
                             f"{design!r} is not one (add --server {design}=https://…)")
        attached[design] = DesignSpec(design, url=reached.url, headers=(*reached.headers, (header, template)))
    return attached


def choose_designs(servers: Sequence[DesignSpec] = (), designs: Sequence[str] | None = None,
                   baseline: str | None = None, headers: Sequence[tuple[str, str, str]] = (),
                   dataset_dir: Path | str | None = None) -> DesignChoice:
    """The run's designs: the built-in ones, replaced or joined by `servers`, picked and ordered by `designs`."""
    available: dict[str, DesignSpec] = {name: built_in(name, dataset_dir) for name in BUILT_IN}
    brought: set[str] = set()
    for spec in servers:
        if spec.name == REFERENCE:
            raise WismoError(f"--server {REFERENCE}=...: {REFERENCE} is wismo's reference design (every design's "
                             "records are compared with it); give yours another name")
        if spec.name in brought:
            raise WismoError(f"two --server options name the design {spec.name!r}; give each design its own name")
        brought.add(spec.name)
        available[spec.name] = spec
    available = with_headers(available, headers)
    order = list(designs) if designs else [*BUILT_IN, *(s.name for s in servers if s.name not in BUILT_IN)]
    repeated = sorted({d for d in order if order.count(d) > 1})
    if repeated:
        raise WismoError(f"--designs names {', '.join(repeated)} more than once; a run records each design once")
    unknown = [d for d in order if d not in available]
    if unknown:
        raise WismoError(f"unknown design(s) {', '.join(unknown)}; known: {', '.join(available)} "
                         "(bring your own with --server NAME=COMMAND or --server NAME=URL)")
    if not order:
        raise WismoError("--designs names no design")
    chosen = baseline or order[0]
    if chosen not in order:
        raise WismoError(f"--baseline {chosen}: not one of the recorded designs ({', '.join(order)})")
    for spec in (available[d] for d in order):
        spec.header_values()  # a header or URL whose variable is not set fails now, before anything starts
        spec.url_value()
    return DesignChoice(tuple(available[d] for d in order), chosen, built_in(REFERENCE, dataset_dir))


def designs_of_run(manifest: Manifest, dataset_dir: Path | str | None,
                   headers: Sequence[tuple[str, str, str]] = ()) -> tuple[DesignSpec, ...]:
    """A recorded run's designs as its manifest says they were served (a resume starts the same servers).

    Header values were never written: a design reached with headers needs them given again (--header).
    """
    sources = manifest.designSources
    given: dict[str, list[tuple[str, str]]] = {}
    for design, header, template in headers:
        given.setdefault(design, []).append((header, template))
    specs = []
    for name in manifest.designs:
        source = sources.get(name) or DesignSource(builtIn=True)
        if source.builtIn:
            specs.append(built_in(name, dataset_dir))
        elif source.url:
            if REDACTED in source.url:
                raise WismoError(f"design {name}'s URL held a key and was written as {source.url}, so this run "
                                 f"cannot reach it again; record anew with the key in a variable: --server "
                                 f"'{name}=https://…/${{MY_MCP_KEY}}'")
            wanted = [h.lower() for h in source.headers]
            missing = sorted(set(wanted) - {h.lower() for h, _ in given.get(name, [])})
            if missing:
                raise WismoError(f"design {name} was reached with the header(s) {', '.join(missing)}, whose values "
                                 f"are never stored: give them again with --header '{name}=Header: value'")
            specs.append(DesignSpec(name, url=source.url, headers=tuple(given.get(name, []))))
        else:
            specs.append(DesignSpec(name, command=tuple(source.command or ())))
    for spec in specs:
        spec.header_values()
        spec.url_value()
    return tuple(specs)
