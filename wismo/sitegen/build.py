"""build_site: turn the analysis dataclasses into page dataclasses, then render them with Jinja (autoescaped)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from altair.utils.schemapi import debug_mode as altair_debug_mode
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from analysis.costs import RunMoney
from analysis.model import ConversationDetail, CrossoverView, RunSummary, RunValidation
from core import __version__
from wismo.sitegen import fmt
from wismo.sitegen.assets import STATIC_DIR, TEMPLATES_DIR, assets_dir, copy_static
from wismo.sitegen.cases import build_case_pages
from wismo.sitegen.charts import design_colours
from wismo.sitegen.checks import build_check_report
from wismo.sitegen.comparison import COMPARE_PAGE, ComparisonPage
from wismo.sitegen.context import SiteData, case_url, slug
from wismo.sitegen.crossover import crossover_sections
from wismo.sitegen.errors import SiteError, SiteWriteError
from wismo.sitegen.money import money_sections
from wismo.sitegen.output import finish_output, prepare_output, write_file
from wismo.sitegen.overview import build_case_list_pages, build_overview, case_list_url
from wismo.sitegen.pages import Link, ReviewImport, SiteNav
from wismo.sitegen.parallel import ConversationJob, default_jobs, render_conversations, write_page
from wismo.sitegen.review_page import build_review_pages, review_url
from wismo.sitegen.reviews import ReviewEntry, ReviewTally, fold_reviews

IMPORTED_REVIEWS = "imported-reviews.js"  # generated when --reviews were given



# Characters that embed, override or isolate text direction: in a product name or a model's text they
# would reverse what follows them on the page.
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def isolate_bidi(value: Any) -> Any:
    """A text holding direction controls, wrapped in <bdi> (escaped): its controls end where it ends.

    The text itself is unchanged (a review key hashes it); every other value passes as it is.
    """
    # Called for every value every page prints: a plain str (most of them) is told apart by its type alone.
    if (type(value) is str or (isinstance(value, str) and not isinstance(value, Markup))) \
            and BIDI_CONTROLS.search(value):
        return Markup("<bdi>{}</bdi>").format(value)
    return value


def make_environment(templates: Path) -> Environment:
    """Jinja with autoescape on for every template, undefined names as errors instead of blanks, and every
    text holding direction controls isolated (isolate_bidi)."""
    # auto_reload off: the templates do not change during a build, so a page need not stat their files again.
    return Environment(loader=FileSystemLoader(templates), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=isolate_bidi,
                       auto_reload=False)


def _review_import(tally: ReviewTally | None) -> ReviewImport | None:
    if tally is None:
        return None
    # File names only: the site may be shared, the reviewer's folders need not be.
    return ReviewImport(files=[Path(f).name for f in tally.files], applied=tally.applied, stale=len(tally.stale),
                        unknown=tally.unknown, duplicates=tally.duplicates, notes_only=tally.notes_only)


def imported_reviews_script(tally: ReviewTally, details: Mapping[str, Sequence[ConversationDetail]]) -> str:
    """review.js's view of the imported reviews: every entry, applied or carried, as the export writes it.

    One script for all review pages (rather than JSON inlined in each), loaded like the other static files.
    """
    cases = {(run_id, d.conversation_id): d.case_id for run_id, ds in details.items() for d in ds}
    entries = []
    for applied, group in ((True, tally.entries.values()), (False, tally.carried)):
        for entry in group:
            row = entry.to_json()
            row["caseId"] = row["caseId"] or cases.get((entry.run_id, entry.conversation_id), "")
            entries.append({**row, "source": Path(entry.source).name, "applied": applied})
    document = {"files": [Path(f).name for f in tally.files], "entries": entries}
    # ASCII with <, > and & escaped, as inlined JSON is: the script holds data and nothing a parser could misread.
    return f"window.wismoImportedReviews = {fmt.script_json(document)};\n"


def write_generated(out_dir: Path, name: str, text: str) -> str:
    """Write a file generated at build time into static/ under a hashed name, as copy_static does; its URL."""
    data = text.encode("utf-8")
    stem, suffix = name.rsplit(".", 1)
    hashed = f"{stem}.{hashlib.sha256(data).hexdigest()[:8]}.{suffix}"
    write_file(out_dir / STATIC_DIR / hashed, data)
    return f"{STATIC_DIR}/{hashed}"


def build_site(validations: Sequence[RunValidation], summaries: Sequence[RunSummary],
               details_by_run: Mapping[str, Sequence[ConversationDetail]], out_dir: Path,
               reviews: Sequence[ReviewEntry] | None = None,
               findings_by_run: Mapping[str, Mapping[str, list[dict[str, Any]]]] | None = None,
               *, built_at: str | None = None, mixed: Sequence[str] = (), jobs: int | None = None,
               money: Mapping[str, RunMoney] | None = None,
               crossover: Sequence[CrossoverView] | None = None, review_tally: ReviewTally | None = None,
               comparison: ComparisonPage | None = None,
               unchecked_by_run: Mapping[str, Mapping[str, list[dict[str, Any]]]] | None = None) -> Path:
    """Write the static site into `out_dir` and return the path of its index.html.

    `mixed` lists how the runs differ when they were allowed to mix datasets or tool definitions; every
    page that compares runs then says so. `jobs` processes render the conversation pages (default: one
    per CPU; 1 renders everything in this process); the site is the same bytes either way. `money`
    (run_id → its costs) adds a money section to each valid run on the overview; `crossover` (each run's
    view) a crossover section to each valid run over several order sizes or question kinds. `review_tally`:
    the `reviews` already folded over these runs' shown summaries (fold_reviews), so they are not folded again.
    `comparison` (build-site --compare-with) adds compare.html and a line on the overview that links to it.
    `unchecked_by_run` (run_id → conversationId → claims the checker could not check) lists them apart on the case
    and review pages.
    """
    if not validations:
        raise SiteError("no runs to build a site from")
    out_dir = Path(out_dir)
    source = assets_dir()
    data = SiteData.create(validations, summaries, details_by_run, findings_by_run, None,
                           unchecked_by_run=unchecked_by_run)
    if review_tally is not None:
        data.reviews = review_tally
    elif reviews is not None:
        # Verdicts only apply to summaries that are shown, i.e. those of runs that passed validation.
        data.reviews = fold_reviews(reviews, {run_id: data.details[run_id] for run_id in data.valid_ids})
    # The workers that render the conversation pages fork as soon as the folder is ready and inherit `data` as it
    # is then; this process builds and writes every other page meanwhile (other_pages), charts included. A chart
    # refused as unsafe (charts.render_svg) then stops the build after some conversation pages were written: the
    # folder stays buildable, as after a write error, and no page with that chart is written.
    try:
        previous = prepare_output(out_dir, source)
        written: list[str] = []  # relative names: the previous build's files not among them are deleted at the end
        try:
            env = make_environment(source / TEMPLATES_DIR)
            nav = SiteNav(version=__version__, built_at=built_at or datetime.now(UTC).isoformat(timespec="seconds"),
                          cases=[Link(case_id, case_url(case_id)) for case_id in data.cases])
            assets = copy_static(source, out_dir)
            written += assets.values()
            if data.reviews is not None:
                assets[IMPORTED_REVIEWS] = write_generated(out_dir, IMPORTED_REVIEWS, imported_reviews_script(
                    data.reviews, {run_id: data.details[run_id] for run_id in data.valid_ids}))
                written.append(assets[IMPORTED_REVIEWS])
            common = {"assets": assets, "nav": nav, "mixed": list(mixed)}
            invalid = [data.cards[run_id] for run_id in data.invalid_ids]

            def write(template: str, name: str, root: str, **context: Any) -> None:
                write_page(env, template, out_dir / name, root, **context)
                written.append(name)

            def other_pages() -> None:
                # One colour per design across the site, so a design looks the same on every chart of every run.
                colours = design_colours(data.designs())
                # Altair checks every object of a chart against the Vega-Lite schema as it is made ("debug mode"),
                # which took two thirds of the overview's time at 10,000 conversations; the charts are the same
                # without (the whole spec is still checked once, when rendered: charts.render_svg).
                with altair_debug_mode(False):
                    overview = build_overview(data, _review_import(data.reviews), colours, crossover, money)
                    crossover_by_run = crossover_sections(crossover, data.valid_ids, colours)
                money_by_run = money_sections(money, data.valid_ids)
                case_pages = build_case_pages(data)
                review_pages = build_review_pages(data)
                check_report = build_check_report(data)
                write("overview.html", "index.html", "", page=overview, invalid_runs=invalid, money=money_by_run,
                     crossover=crossover_by_run, comparison_page=comparison, **common)
                if comparison is not None:
                    write(COMPARE_PAGE, COMPARE_PAGE, "", page=comparison, **common)
                for case in case_pages:
                    write("case.html", case_url(case.case_id), "../", page=case, invalid_runs=invalid, **common)
                for review in review_pages:
                    write("review.html", review_url(review.number), "", page=review, **common)
                write("checks.html", "checks.html", "", page=check_report, **common)
                for case_list in build_case_list_pages(data):
                    write("case_list.html", case_list_url(case_list.number), "", page=case_list, **common)

            written += render_conversations(ConversationJob(env, data, out_dir, common),
                                            default_jobs() if jobs is None else jobs, meanwhile=other_pages)
        finally:
            finish_output(out_dir, previous, written)  # even a build that failed half-way lists what it wrote
    except OSError as exc:  # a read-only folder, a full disk: one line, exit 3, and the folder left buildable
        raise SiteWriteError(f"cannot write the site into {out_dir}: "
                             f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}") from None
    return out_dir / "index.html"


__all__ = ["build_site", "slug"]
