"""What `wismo doctor` reports: one Check per capability, and the verdict with the record flags."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

DETAIL_LIMIT = 240


@dataclass(frozen=True)
class Check:
    """One capability of the endpoint: yes (True), no (False) or only told (None), and what was seen."""

    label: str
    ok: bool | None
    detail: str

    def line(self) -> str:
        """The check as one line of the report."""
        mark = {True: "yes", False: "NO ", None: " - "}[self.ok]
        detail = self.detail if len(self.detail) <= DETAIL_LIMIT else self.detail[:DETAIL_LIMIT] + "…"
        return f"  {mark}  {self.label:<46} {detail}"


@dataclass
class Diagnosis:
    """Everything doctor found about one endpoint and model."""

    provider: str
    model: str
    base_url: str | None
    base_url_required: bool = False  # the provider cannot work without it: the record command repeats it
    checks: list[Check] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    usable: bool = False
    verdict: str = ""
    notes: list[str] = field(default_factory=list)  # what will make the figures weaker even when record works
    latencies_s: list[float] = field(default_factory=list)
    # Not usable, but with these flags added every design called a tool: the command to take on from.
    closest: list[str] | None = None

    def check(self, label: str) -> Check | None:
        """The check with this label, if it was made."""
        return next((check for check in self.checks if check.label == label), None)

    def record_command(self) -> str:
        """The `wismo record` command line doctor suggests (the closest one when not usable)."""
        parts = ["wismo record", f"--provider {self.provider}"]
        if self.base_url and self.base_url_required:
            parts.append(f"--base-url {self.base_url}")
        parts += [f"--model {self.model}", *self.flags, *(self.closest or [])]
        return " ".join(parts)

    def latency_line(self) -> str | None:
        """The median and slowest request time, when any request answered."""
        if not self.latencies_s:
            return None
        return (f"request time: median {statistics.median(self.latencies_s):.1f} s, slowest "
                f"{max(self.latencies_s):.1f} s over {len(self.latencies_s)} answered requests")
