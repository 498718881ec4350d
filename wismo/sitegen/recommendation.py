"""The verdict at the top of each run's answer: which design to pick, for which questions, and why.

Every figure comes from the run's summary (pass counts, medians over the pairs both designs answered
correctly), its conversations (the tokens each request re-sent from earlier turns) and its crossover view
(per question kind and order size); the template only prints the strings built here.

The rule, in order: a design right more often is preferred, whatever it costs, when chance alone would
rarely give the difference (McNemar's exact test on the pairs, p < 0.05; otherwise there is no clear pick);
among designs right as often, the one using fewer total tokens where both were right. The reason names
the mechanism the run measured: every request re-sends the whole conversation so far, so a design that
needs more requests carries more tokens; where the requests are as many, the size of the tool results decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from statistics import median

from analysis.costs import RunMoney
from analysis.headline import HEADLINE_METRIC, by_chance
from analysis.model import ConversationDetail, CrossoverPoint, CrossoverView, DesignMetrics, RunSummary
from analysis.money_words import comparison_sentence
from wismo.sitegen import fmt
from wismo.sitegen.pages import KindVerdict, Recommendation


def _median(values: Sequence[float]) -> float | None:
    return float(median(values)) if values else None


def carried_per_conversation(details: Sequence[ConversationDetail], design: str) -> float | None:
    """Median over a design's conversations of the input tokens its requests re-sent from earlier turns."""
    totals = [sum(t.carried_tokens or 0 for t in d.turn_details) for d in details
              if d.design == design and any(t.carried_tokens is not None for t in d.turn_details)]
    return _median(totals)


def _stat(metrics: DesignMetrics, metric: str) -> float | None:
    stat = metrics.stats.get(metric)
    return stat.median if stat is not None else None


def _rate(m: DesignMetrics) -> tuple[int, int]:
    return m.passed, m.conversations


def _better_rate(a: tuple[int, int], b: tuple[int, int]) -> int:
    """+1 when a passed a larger share than b, −1 smaller, 0 the same (cross-multiplied: no rounding decides)."""
    return (a[0] * b[1] > b[0] * a[1]) - (a[0] * b[1] < b[0] * a[1])


def _pick(summary: RunSummary) -> tuple[DesignMetrics, DesignMetrics, bool]:
    """The preferred design, the one it is contrasted with, and whether it was right more often than that one."""
    designs = list(summary.designs)
    best = max(designs, key=lambda m: (m.pass_rate, m.passed))
    right_as_often = [m for m in designs if _better_rate(_rate(m), _rate(best)) == 0]
    if len(right_as_often) > 1:
        # Right as often: the fewest total tokens over every conversation (the like-for-like figure below says
        # by how much where both were right).
        best = min(right_as_often, key=lambda m: (_stat(m, HEADLINE_METRIC) is None, _stat(m, HEADLINE_METRIC) or 0))
    baseline = next((m for m in designs if m.design == summary.run.baseline), designs[0])
    others = [m for m in designs if m is not best]
    # Contrast with the baseline, or (when the baseline is the pick) with the design closest to it.
    rival = baseline if best is not baseline else max(others, key=lambda m: (m.pass_rate, -(_stat(m, HEADLINE_METRIC)
                                                                                          or 0)))
    return best, rival, _better_rate(_rate(best), _rate(rival)) > 0


def _like_for_like(summary: RunSummary, best: str, rival: str) -> tuple[float, float, float] | None:
    """(saving %, best's median, rival's median) of total tokens over the pairs both answered correctly."""
    for c in summary.comparisons:
        if c.metric != HEADLINE_METRIC or c.saving_pct is None or c.other_median is None or c.baseline_median is None:
            continue
        medians = {c.other: c.other_median, c.baseline: c.baseline_median}
        if {c.other, c.baseline} == {best, rival} and medians[rival]:
            return (medians[rival] - medians[best]) / medians[rival] * 100, medians[best], medians[rival]
    return None


def _mean_turns(details: Sequence[ConversationDetail], design: str) -> float | None:
    turns = [d.turns for d in details if d.design == design]
    return sum(turns) / len(turns) if turns else None


def _reason(summary: RunSummary, details: Sequence[ConversationDetail], best: DesignMetrics,
            rival: DesignMetrics) -> str:
    """Why the pick uses fewer tokens, in the run's figures: more requests re-send more, or bigger tool results."""
    # Means, not medians: a design that needs a third request in some cases differs there, and a median hides it.
    turns_b, turns_r = _mean_turns(details, best.design), _mean_turns(details, rival.design)
    carried_b, carried_r = (carried_per_conversation(details, best.design),
                            carried_per_conversation(details, rival.design))
    carried = ("" if carried_b is None or carried_r is None else
               f": {rival.design} re-sent a median {round(carried_r):,} tokens of earlier turns, "
               f"{best.design} {round(carried_b):,}")
    if turns_b is not None and turns_r is not None and round(turns_r, 1) > round(turns_b, 1):
        return (f"because {rival.design} needs more requests ({turns_r:.1f} per conversation against {turns_b:.1f}) "
                f"and every request re-sends the whole conversation so far{carried}")
    bytes_b, bytes_r = _stat(best, "toolResultBytes"), _stat(rival, "toolResultBytes")
    if bytes_b is not None and bytes_r is not None and bytes_r > bytes_b:
        return (f"because its tool results are smaller (median {fmt.count(bytes_b)} bytes against "
                f"{fmt.count(bytes_r)}) and every request re-sends them with the whole conversation so far{carried}")
    return f"with every request re-sending the whole conversation so far{carried}"


def _failures(m: DesignMetrics) -> str:
    """How a design's failures ended: wrong answers, or a budget or fault that stopped it."""
    wrong = m.status_counts.get("answered", 0) - m.passed
    parts = ([f"{wrong} wrong answer{'s' * (wrong != 1)}"] if wrong > 0 else []) + \
        [fmt.status_count(n, s) for s, n in sorted(m.status_counts.items()) if s != "answered" and n]
    return ", ".join(parts)


def exceptions(kinds: Sequence[KindVerdict]) -> list[str]:
    """The question kinds and order sizes where another design is the pick, one sentence each."""
    return [f"{design} for '{k.kind}' questions on orders of {sizes}" + (f": {grounds}" if grounds else "")
            for k in kinds for sizes, design, grounds in k.exceptions]


def _sentence(summary: RunSummary, details: Sequence[ConversationDetail],
              view: CrossoverView | None) -> tuple[str, str, list[KindVerdict]]:
    """(the design picked, the verdict sentence, the picks per question kind)."""
    designs = summary.designs
    if len(designs) < 2:
        only = designs[0] if designs else None
        return "", ("Nothing to choose between: this run recorded one design"
                    + (f" ({only.design}, right in {only.passed}/{only.conversations})." if only else ".")), []
    if not any(m.passed for m in designs):
        return "", "No design to prefer: no conversation of any design was answered correctly.", []
    best, rival, more_often = _pick(summary)
    pairs = next((p for p in summary.pairs if {p.baseline, p.other} == {best.design, rival.design}), None)
    if more_often and pairs is not None and not pairs.beyond_chance:
        # A pass-rate difference chance alone could give picks nothing, and neither do its kinds' single points.
        why = _failures(rival)
        return "", (f"No clear pick: {best.design} was right in {best.passed}/{best.conversations} and {rival.design} "
                    f"in {rival.passed}/{rival.conversations}" + (f" ({rival.design}'s failures: {why})" if why else "")
                    + f", {by_chance(pairs)}."), []
    kinds = kind_verdicts(view, best.design)
    # The exceptions follow the sentence as a list of their own (Recommendation.exceptions).
    scope = f"Prefer {best.design}" + (" for every kind of question" if kinds and not any(k.exceptions for k in kinds)
                                        else " (exceptions below)" if any(k.exceptions for k in kinds) else "")
    saving = _like_for_like(summary, best.design, rival.design)
    fewer = ("" if saving is None else f"{abs(saving[0]):.1f} % {'fewer' if saving[0] >= 0 else 'more'} tokens")
    reason = _reason(summary, details, best, rival)
    if more_often:
        why = _failures(rival)
        also = (f"; where both were right it also used {fewer}, {reason}"
                if saving is not None and saving[0] > 0 else "")
        return best.design, (
            f"{scope}: it was right more often ({best.passed}/{best.conversations} against "
            f"{rival.design}'s {rival.passed}/{rival.conversations}"
            + (f", whose failures were {why}" if why else "") + f"), and correctness, not tokens, is the result"
            f"{also}."), kinds
    same = (f"right as often as {rival.design} ({best.passed}/{best.conversations} each)"
            if (best.passed, best.conversations) == (rival.passed, rival.conversations) else
            f"right as often as {rival.design} ({best.passed}/{best.conversations} and {rival.passed}/"
            f"{rival.conversations})")
    if saving is None or saving[0] <= 0:
        return best.design, (f"{scope}: {same}, with no like-for-like token saving over {rival.design} to tell "
                             "them apart."), kinds
    return best.design, f"{scope}: {same} with {fewer} where both were right, {reason}.", kinds


def _size_winner(points: Sequence[CrossoverPoint]) -> tuple[str, str] | None:
    """At one kind and size: the design right most often, then with the fewest tokens; and on what grounds."""
    ranked = sorted(points, key=lambda p: (-p.pass_rate, p.medians.get(HEADLINE_METRIC) is None,
                                           p.medians.get(HEADLINE_METRIC) or 0))
    if not ranked or ranked[0].passed == 0:
        return None
    first, rest = ranked[0], ranked[1:]
    if not rest:
        return first.design, "the only design"
    if first.pass_rate > rest[0].pass_rate:
        return first.design, "right more often"
    return first.design, "fewer tokens, right as often"


# A size's grounds as the verdict sentence says them.
GROUNDS = {"fewer tokens, right as often": "right as often with fewer tokens", "right more often": "right more often",
           "the only design": "the only design measured there"}


def _lines(sizes: list[int]) -> str:
    return f"{sizes[0]} line{'s' * (sizes[0] != 1)}" if len(sizes) == 1 else f"{sizes[0]}–{sizes[-1]} lines"


def kind_verdicts(view: CrossoverView | None, pick: str) -> list[KindVerdict]:
    """Per question kind, the design to pick by order size (from the crossover view's medians)."""
    if view is None or (len(view.kinds) < 2 and len(view.sizes) < 2):
        return []
    verdicts = []
    for kind in view.kinds:
        winners = []
        for size in view.sizes:
            at = [p for p in view.points if p.kind == kind and p.order_lines == size]
            if at:
                winners.append((size, _size_winner(at)))
        if not winners:
            continue
        # One segment per run of sizes with the same pick, each size range with its grounds.
        segments = [(design, list(group)) for design, group in
                    groupby(winners, key=lambda w: w[1][0] if w[1] else None)]
        parts = []
        for design, group in segments:
            grounds = [(why, [size for size, _ in same]) for why, same in
                       groupby(group, key=lambda w: w[1][1] if w[1] else "")]
            where = ", ".join(f"{_lines(sizes)} ({why})" if design else _lines(sizes) for why, sizes in grounds)
            parts.append(f"{design} at {where}" if design else f"none at {where} (no design passed)")
        verdicts.append(KindVerdict(kind, "; ".join(parts), any(d is not None and d != pick for d, _ in segments),
                                    [(_lines([size for size, _ in group]), design,
                                      GROUNDS.get(group[0][1][1], "") if group[0][1] else "")
                                     for design, group in segments if design is not None and design != pick]))
    return verdicts


def _money(money: RunMoney | None) -> str:
    """Money in USD where the run was priced; otherwise "unknown", and why."""
    if money is None:
        return "unknown: no prices were applied to this run."
    priced = [d for d in money.designs if d.priced]
    if not priced:
        reasons = "; ".join(money.unknown_reasons) or "no price is known for its model"
        return f"unknown: {reasons}."
    return comparison_sentence(money) or "priced: see the money section of this run."


def _time(summary: RunSummary) -> str:
    times = ", ".join(f"{m.design} {fmt.ms(_stat(m, 'elapsedMs'))}" for m in summary.designs)
    if summary.run.is_language_model:
        return f"median per conversation: {times}."
    return f"{times} (medians): wismo and the MCP servers, not a model."


def recommend(summary: RunSummary, details: Sequence[ConversationDetail], view: CrossoverView | None,
              money: RunMoney | None) -> Recommendation:
    """The verdict card of one valid run."""
    design, sentence, kinds = _sentence(summary, details, view)
    return Recommendation(design=design, sentence=sentence, kinds=kinds,
                          money=_money(money), time=_time(summary), exceptions=exceptions(kinds))
