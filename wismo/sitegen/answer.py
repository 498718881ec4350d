"""The answer first: what each run says, in one block at the top of the overview, before any detail.

Per valid run: the headline's lead sentence (analysis.headline, the same words `wismo summarize`
prints), the pass rate per design, each other design's difference from the baseline on the headline
metric over the pairs both answered correctly with its interval (or that a run of one design has nothing
to compare), and every warning a reader needs before trusting those figures, each linking to where its
details are.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from analysis.costs import RunMoney
from analysis.headline import HEADLINE_METRIC, Headline, headline
from analysis.labels import METRIC_LABELS
from analysis.model import CLAIM_COUNT_TOTALS as NOT_FINDINGS
from analysis.model import CrossoverView, MetricComparison, RunSummary
from wismo.sitegen import fmt
from wismo.sitegen.context import SiteData, names_baseline, review_counts
from wismo.sitegen.pages import AnswerRun, AnswerWarning, RunCard
from wismo.sitegen.recommendation import recommend
from wismo.sitegen.typical import typical_case


def run_section(card: RunCard) -> str:
    """The anchor of a run's figures on the overview."""
    return f"run-{card.slug}"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def run_headline(summary: RunSummary) -> Headline:
    """The run's headline: analysis.headline's, word for word what `wismo summarize` prints."""
    return headline(summary)


def _sign(value: float | None, tolerance: float = 0.0) -> int:
    """-1, 0 or +1 (0 within `tolerance` of zero, so a rounded ±0 reads as zero)."""
    return 0 if value is None or abs(value) <= tolerance else (1 if value > 0 else -1)


def disagreement(metric: str, comparison: MetricComparison) -> str:
    """Why the paired difference and the change on the medians point different ways ("" when they agree).

    Both read `other − baseline` (below zero: the other design used less), yet they are different
    statistics: the change compares each design's median, taken over that design alone; the paired
    difference is the median of the differences pair by pair.
    """
    difference, saving = comparison.median_difference, comparison.saving_pct
    if difference is None or saving is None:
        return ""
    change = -saving
    if _sign(difference) == _sign(change, 0.05):
        return ""
    title = METRIC_LABELS[metric].title
    return (f"{title}, {comparison.other} − {comparison.baseline}: the median per pair is "
            f"{fmt.signed_metric(metric, difference)} but the medians differ by {fmt.signed_pct(change)}. "
            "Each median is taken over one design's conversations alone, the paired difference pair by pair, "
            "so a few pairs with large differences move one and not the other; the paired difference, with its "
            "interval, is the like-for-like figure.")


def difference(comparison: MetricComparison, correct_pairs: int | None) -> str:
    """One comparison over the both-correct pairs: the median paired difference, its interval, the saving."""
    metric, other, baseline = comparison.metric, comparison.other, comparison.baseline
    title = METRIC_LABELS[metric].title
    if correct_pairs == 0:
        return (f"{title}: no (case, repetition) pair was answered correctly by both designs, so there is no "
                f"like-for-like comparison.")
    if comparison.median_difference is None:
        return f"{title}, {other} − {baseline}: not reported for the pairs both answered correctly."
    low, high = comparison.ci_low, comparison.ci_high
    interval = (f" [95 % CI {fmt.signed_metric(metric, low)} to {fmt.signed_metric(metric, high)}]"
                if low is not None and high is not None else " (no interval)")
    saving = comparison.saving_pct
    on_medians = ("" if saving is None else
                  f"; {abs(saving):.1f} % {'fewer' if saving >= 0 else 'more'} on the medians")
    reason = disagreement(metric, comparison)
    return (f"{other} − {baseline}: median {fmt.signed_metric(metric, comparison.median_difference)} per pair"
            f"{interval}{on_medians}, over the {_plural(comparison.paired_n, 'pair')} both answered correctly."
            + (f" † {reason}" if reason else ""))


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _by_design(counts: dict[str, int]) -> str:
    return ", ".join(f"{design} {n:,}" for design, n in counts.items())


def _failures(summary: RunSummary) -> str | None:
    total = sum(m.conversations - m.passed for m in summary.designs)
    if not total:
        return None
    # Per design, what the failures were: wrong answers, or no valid answer (a status other than answered).
    per_design = []
    for m in summary.designs:
        failed = m.conversations - m.passed
        wrong = m.status_counts.get("answered", 0) - m.passed
        parts = ([_plural(wrong, "wrong answer")] if wrong > 0 else []) + \
            [fmt.status_count(n, s) for s, n in sorted(m.status_counts.items()) if s != "answered" and n]
        per_design.append(f"{m.design} {failed:,}" + (f" ({', '.join(parts)})" if failed and parts else ""))
    return f"{_plural(total, 'conversation')} failed: {', '.join(per_design)}."


def _claims(summary: RunSummary, designs: list[str]) -> tuple[str, bool]:
    """What the claim check flagged, and whether that is an all-clear."""
    counts = {d: summary.claim_findings.get(d, {}) for d in designs}
    if not any(counts.values()):
        return "The summaries were not claim-checked: nothing here says whether they match the evidence.", False
    # Summaries with any finding; an older summary without that total counts at least its commonest kind.
    flagged = {d: c.get("any", max((n for k, n in c.items() if k not in NOT_FINDINGS), default=0))
               for d, c in counts.items()}
    checked = sum(c.get("checked", 0) for c in counts.values())
    total = sum(flagged.values())
    # Claims it could not check are said beside the count, never counted in it.
    unchecked = sum(c.get("unchecked", 0) for c in counts.values())
    beside = (f" {_plural(unchecked, 'summary', 'summaries')} also "
              f"{'holds a claim' if unchecked == 1 else 'hold claims'} it could not check." if unchecked else "")
    if not total:
        return f"The claim check flagged none of the {_plural(checked, 'summary', 'summaries')}.{beside}", True
    what = (f"{total:,} of {_plural(checked, 'summary', 'summaries')}" if checked
            else _plural(total, "summary", "summaries"))
    return f"The claim check flagged {what} ({_by_design(flagged)}).{beside}", False


def warnings(data: SiteData, run_id: str) -> list[AnswerWarning]:
    """What a reader must know before trusting the run's answer, most serious first, each with a link."""
    summary, card = data.summaries[run_id], data.cards[run_id]
    designs = list(summary.run.designs)
    section = f"#{run_section(card)}"
    found = []
    if card.faults:
        found.append(AnswerWarning(card.faults[:1].upper() + card.faults[1:] + ".", f"#faults-{card.slug}"))
    found += [AnswerWarning(text, section) for text in card.warnings]
    failures = _failures(summary)
    if failures:
        found.append(AnswerWarning(failures, section))
    # The findings table (and its anchor) exists only when some kind was counted.
    tabled = any(kind not in NOT_FINDINGS for counts in summary.claim_findings.values() for kind in counts)
    claims, clear = _claims(summary, designs)
    found.append(AnswerWarning(claims, f"#findings-{card.slug}" if tabled else section, clear))
    counts = [c for d in designs if (c := review_counts(data, run_id, d)) is not None]
    if counts:
        rejected = {c.design: c.not_justified for c in counts}
        reviewed = sum(c.justified + c.not_justified + c.unsure for c in counts)
        total = sum(rejected.values())
        text = (f"{_plural(total, 'summary', 'summaries')} reviewed as not justified ({_by_design(rejected)}), "
                f"of {reviewed:,} reviewed." if total else
                f"No summary reviewed as not justified ({reviewed:,} reviewed)." if reviewed else
                "None of its summaries has been reviewed yet.")
        found.append(AnswerWarning(text, "review.html#" + urlencode({"run": run_id, "status": "not_justified"}),
                                   ok=not total and reviewed > 0))
    return found


def build_answers(data: SiteData, crossover: Mapping[str, CrossoverView] | None = None,
                  money: Mapping[str, RunMoney] | None = None) -> list[AnswerRun]:
    """The answer block: one entry per valid run, in the site's run order, its verdict first."""
    answers = []
    for run_id in data.valid_ids:
        summary, card = data.summaries[run_id], data.cards[run_id]
        words = run_headline(summary)
        info = summary.run
        answers.append(AnswerRun(
            card=card, section_url=f"#{run_section(card)}", lead=words.lead,
            pass_rates_differ=words.pass_rates_differ,
            passed=[(m.design, f"{m.passed}/{m.conversations} ({fmt.share(m.pass_rate)})") for m in summary.designs],
            # Each other design against the baseline, over the pairs the two of them answered correctly.
            differences=[difference(c, pairs.correct_pairs if (pairs := summary.pairs_with(c.other)) else None)
                         for c in summary.comparisons if c.metric == HEADLINE_METRIC],
            warnings=warnings(data, run_id),
            baseline=(f"{info.baseline}: {_and(info.others)} {'is' if len(info.others) == 1 else 'are'} compared "
                      "with it" if names_baseline(info) else ""),
            nothing_to_compare=(f"Nothing to compare: this run recorded one design ({info.designs[0]})."
                                if len(info.designs) == 1 else ""),
            recommendation=recommend(summary, data.details[run_id], (crossover or {}).get(run_id),
                                     (money or {}).get(run_id)),
            typical=typical_case(info, data.details[run_id])))
    return answers
