"""What a `--resume` does with each planned conversation: keep its attempt, or supersede it and run it again.

Pure bookkeeping over the event lines, so every rule is testable without running anything:

- a clean finished attempt (one conversation_started, one conversation_finished, seq 1..n) is kept,
  unless it ended in an infrastructure fault (provider_error, tool_error, timeout, interrupted) and
  the faults are not kept: then it is superseded and the conversation runs again;
- an attempt without conversation_finished (the run stopped during it) is superseded and re-run;
- an attempt whose lines are duplicated (two writers at once, before runs were locked) is superseded
  and re-run, as is every lower attempt no earlier resume superseded: one live attempt remains;
- a conversation with no attempt at all runs.

Superseded attempts keep their lines; an `attempt_superseded` line says they no longer count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.runformat.events import FAULT_STATUSES


@dataclass(frozen=True)
class Supersede:
    """An attempt that no longer counts, and why."""

    conversation_id: str
    attempt: int
    reason: str


@dataclass
class ResumePlan:
    """The attempts to supersede, the conversations to run (with their new attempt number), those kept."""

    supersede: list[Supersede] = field(default_factory=list)
    rerun: dict[str, int] = field(default_factory=dict)  # conversationId -> attempt number to run
    kept: int = 0


@dataclass
class _Attempt:
    started: int = 0
    finished: int = 0
    seqs: list[int] = field(default_factory=list)
    finished_seq: int | None = None
    status: str | None = None

    @property
    def clean(self) -> bool:
        """Exactly one start and one finish, and seq exactly 1..n with the finish last."""
        return (self.started == 1 and self.finished == 1 and sorted(self.seqs) == list(range(1, len(self.seqs) + 1))
                and self.finished_seq == len(self.seqs))


def plan_resume(events: Sequence[tuple[int, dict[str, Any]]], conversation_ids: Sequence[str], *,
                keep_errors: bool = False) -> ResumePlan:
    """Decide, for every planned conversation, what a resume does with it."""
    superseded = {(e["conversationId"], e["attempt"]) for _, e in events if e["type"] == "attempt_superseded"}
    attempts: dict[str, dict[int, _Attempt]] = defaultdict(dict)
    highest: dict[str, int] = {}
    for _, event in events:
        conversation = event.get("conversationId")
        if not conversation:
            continue
        number = event.get("attempt", 1)
        highest[conversation] = max(highest.get(conversation, 0), number)
        if event["type"] == "attempt_superseded" or (conversation, number) in superseded:
            continue
        attempt = attempts[conversation].setdefault(number, _Attempt())
        attempt.seqs.append(event.get("seq", 0))
        if event["type"] == "conversation_started":
            attempt.started += 1
        elif event["type"] == "conversation_finished":
            attempt.finished += 1
            attempt.finished_seq, attempt.status = event.get("seq"), event.get("status")

    plan = ResumePlan()
    for conversation in conversation_ids:
        counted = attempts.get(conversation, {})
        if not counted:
            plan.rerun[conversation] = highest.get(conversation, 0) + 1
            continue
        live = max(counted)
        for lower in sorted(n for n in counted if n < live):
            plan.supersede.append(Supersede(conversation, lower, "a lower attempt still counted beside "
                                            f"attempt {live} (two writers at once); only one may count"))
        attempt = counted[live]
        reason = _rerun_reason(attempt, keep_errors)
        if reason is None:
            plan.kept += 1
            continue
        plan.supersede.append(Supersede(conversation, live, reason))
        plan.rerun[conversation] = highest[conversation] + 1
    return plan


def _rerun_reason(attempt: _Attempt, keep_errors: bool) -> str | None:
    """Why the live attempt must run again, or None to keep it."""
    if attempt.finished == 0:
        return "no conversation_finished: the run stopped during this attempt"
    if not attempt.clean:
        return (f"its lines are duplicated ({attempt.started} conversation_started, {attempt.finished} "
                "conversation_finished: two writers at once); run again")
    if attempt.status in FAULT_STATUSES and not keep_errors:
        return f"ended in {attempt.status} (an infrastructure fault); re-run by --resume"
    return None
