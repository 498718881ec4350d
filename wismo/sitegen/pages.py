"""The page-level dataclasses: everything a template prints, already computed and formatted.

The builders (overview.py, cases.py, conversation.py, review_page.py, checks.py) turn the analysis
dataclasses into these; templates only loop over them and print their strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup


@dataclass(frozen=True)
class Link:
    """A link between pages; `url` is relative to the site's root."""

    text: str
    url: str


@dataclass(frozen=True)
class RunCard:
    """A run as every page names it: provider (the offline one labelled as such), model, validation status."""

    run_id: str
    slug: str
    provider: str
    model: str
    is_language_model: bool
    label: str  # `model · provider`, then what differs from the site's other runs (run_names)
    dataset: str
    token_counts: str
    started_at: str
    repetitions: int
    valid: bool
    check_url: str
    failed_checks: list[str]
    faults: str = ""  # infrastructure faults of a valid run, e.g. "14: granular 14, focused 0 (biased)"
    requests: str | None = None  # openai-chat's answer format and tool choice
    warnings: tuple[str, ...] = ()  # where the run's figures would mislead
    budgets: str = ""  # the recorder's budgets in words
    short: str = ""  # for column heads on a site of several runs: the model and what differs (run_names)
    differs: tuple[str, ...] = ()  # what differs from the site's other runs, in words


@dataclass(frozen=True)
class Piece:
    """A run of summary text; `kinds` is set when claim-check findings cover it (rendered as <mark>)."""

    text: str
    kinds: str | None = None


@dataclass(frozen=True)
class FindingNote:
    """A claim-check finding listed under a summary (analysis.claims' finding, as JSON)."""

    kind: str
    severity: str
    detail: str
    located: bool
    meaning: str = ""  # what the kind flags, in words (empty for a kind this version does not know)
    sentences: tuple[str, ...] = ()  # the sentences holding the claim; identical findings are merged into one note


@dataclass(frozen=True)
class UncheckedNote:
    """A claim the checker could not check (claim_unchecked), listed beside the findings and never counted as one."""

    kind: str  # the kind of finding it would have been
    claim: str
    reason: str
    sentences: tuple[str, ...] = ()  # identical claims in several sentences are one note


@dataclass(frozen=True)
class FieldCell:
    """One assessment field: the answer's value against the expectation; `ok` None when there is no answer."""

    name: str
    value: str
    expected: str
    ok: bool | None
    code: str = ""  # the raw value (a code, `null`) where the words differ from it, for the tooltip
    expected_code: str = ""


@dataclass(frozen=True)
class ToolDef:
    """A tool exactly as the model received it."""

    name: str
    description: str
    parameters_json: str


@dataclass(frozen=True)
class DesignTools:
    """One design's tool definitions, shared by the runs listed."""

    design: str
    tools: list[ToolDef]
    runs: str


@dataclass(frozen=True)
class Chart:
    """An SVG rendered at build time from an Altair spec, with its title and a text alternative."""

    chart_id: str
    title: str
    alt_text: str
    svg: Markup
    svg_narrow: Markup | None = None  # the same chart drawn for a phone (one panel per row, narrow plots)


@dataclass(frozen=True)
class HeadlineRow:
    """One row of the headline table: a label, one cell per design, one cell per comparison."""

    label: str
    cells: list[str]
    comparisons: list[str]
    note: str = ""
    section: str = ""


@dataclass(frozen=True)
class HeadlineTable:
    """Per design: pass rate, pass^k, medians and ranges, savings with their paired bootstrap intervals."""

    designs: list[str]
    comparison_headers: list[str]
    rows: list[HeadlineRow]
    interval_note: str
    column_count: int  # label + designs + comparisons, for section rows that span the table
    baseline: str = ""  # the design the others are compared with, marked where a run must say it (names_baseline)
    compact: bool = False  # one cell per comparison, its figures a line each (several other designs)
    footnotes: list[str] = field(default_factory=list)  # † a paired difference and a change pointing different ways
    comparison_labels: list[str] = field(default_factory=list)  # short heads, beside each cell on a phone


@dataclass(frozen=True)
class DeterministicRow:
    """One order of the deterministic comparison; bytes, interactions and backend reads in the table's design order."""

    order_id: str
    matched: bool
    bytes: list[str]
    interactions: list[str]
    lookups: list[str] = field(default_factory=list)  # empty when the comparison recorded no backend reads


@dataclass(frozen=True)
class DesignSource:
    """One design of a run: its role in the comparison, where its server came from, what it called itself."""

    design: str
    role: str  # "baseline", "compared with granular"; "the only design" for a run of one design
    origin: str  # "built in" (one of wismo's own designs) or "brought"
    source: str  # the command that started it, or the URL it was reached at (with the names of headers sent)
    server: str  # the name and version the server gave, a dash when it gave none
    tools: str  # how many tools it listed


@dataclass(frozen=True)
class ReviewCounts:
    """Imported review verdicts for one design (of one run, or of one case of one run)."""

    design: str
    justified: int
    not_justified: int
    unsure: int
    stale: int
    summaries: int


@dataclass(frozen=True)
class FindingCount:
    """Summaries with a claim-check finding of one kind, per design."""

    kind: str
    cells: list[str]
    meaning: str = ""  # what the kind flags, in words
    # Per design, the review page filtered to the run, the design and this kind ("any": any finding); "" for none.
    urls: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MatrixCell:
    """One case × design of the results matrix: passed of run, marked in text (never by colour alone)."""

    passes: str  # "2/3", or a dash where the design has no conversation of the case
    mark: str  # ✓ every conversation passed, ✗ some failed, "" none recorded
    failed: bool
    tokens: str  # median total tokens over the case's conversations of this design
    turns: str  # median turns
    title: str  # the cell in words, for the tooltip and screen readers
    share: float | None = None  # passed / conversations; None where none was recorded


@dataclass(frozen=True)
class CaseRow:
    """One case on the overview: the customer's question, and how often each run × design passed it."""

    case_id: str
    order_id: str
    question: str
    url: str
    passes: list[str]
    cells: list[MatrixCell] = field(default_factory=list)  # as `passes`, with marks, tokens and turns
    kind: str = ""  # the question kind, in the customer's words
    asked: int = 0  # how many fields the question asks (what "passed" means for this case)
    lines: int | None = None  # the order's size in lines (None in runs recorded before sizes were stored)
    failing: bool = False  # some design failed some conversation of the case
    differ: bool = False  # the designs' pass counts differ


@dataclass(frozen=True)
class CaseListPage:
    """cases.html (cases-2.html, …): every case with its passes, CASES_PER_PAGE per page."""

    number: int
    pages: int
    first: int  # 1-based position of the first case on this page
    total: int
    columns: list[tuple[str, str]]  # as OverviewPage.case_columns
    cases: list[CaseRow]
    previous_url: str | None
    next_url: str | None


@dataclass(frozen=True)
class OverviewRun:
    """A valid run's figures on the overview."""

    card: RunCard
    conversations: int
    headline: HeadlineTable
    charts: list[Chart]
    deterministic_designs: list[str]
    deterministic: list[DeterministicRow]
    deterministic_status: str
    reviews: list[ReviewCounts]
    finding_designs: list[str]
    findings: list[FindingCount]
    unchecked: str = ""  # summaries holding a claim the checker could not check, per design (never findings)
    lead: str = ""  # the headline in words: correctness first (analysis.headline)
    details: list[str] = field(default_factory=list)  # the like-for-like saving and who alone was right
    fault_warnings: list[str] = field(default_factory=list)  # infrastructure faults, each cause once
    pass_rates_differ: bool = False
    biased: bool = False  # the faults are unequal between the designs
    # whose servers the comparison went through, "both" or "all 3" (designs'); "" for a run of one design
    deterministic_through: str = ""
    deterministic_lookups: bool = False  # the comparison recorded each design's backend reads
    sources: list[DesignSource] = field(default_factory=list)  # empty for runs recorded before designSources
    time_note: str = ""  # what a scripted run's time measures (wismo and the servers), "" for a model's run


@dataclass(frozen=True)
class AnswerWarning:
    """Something a reader must know before trusting a run's answer (or that a check found nothing), and where
    its details are."""

    text: str
    url: str  # relative to the site root: a section of the overview, the review page, the check report
    ok: bool = False  # an all-clear (the claim check flagged nothing): shown with ✓, not ⚠


@dataclass(frozen=True)
class KindVerdict:
    """One question kind: which design to pick over which order sizes, and on what grounds."""

    kind: str
    text: str  # "focused at 1–5 lines (right more often); granular at 25–50 lines (fewer tokens)"
    exception: bool  # the pick differs from the run's overall pick somewhere
    # (order sizes, design picked there instead, on what grounds)
    exceptions: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Recommendation:
    """The verdict card's strings: one sentence with its reason, then the exceptions and the figures."""

    design: str  # the design picked ("" when nothing can be picked: one design, nothing passed)
    sentence: str  # "Prefer focused: …, because …"
    kinds: list[KindVerdict]  # per question kind, from the crossover view (empty when it has one kind)
    money: str  # money in USD where priced, else "unknown" and why
    time: str  # elapsed time, with what it measures for the scripted policy
    exceptions: list[str] = field(default_factory=list)  # where another design is the pick, by kind and size


@dataclass(frozen=True)
class RequestBar:
    """One model request: widths on the shared 0–1000 scale, and the figures in words."""

    turn: int
    carried_width: int
    new_width: int
    output_x: int
    output_width: int
    words: str  # "request 3: 1,579 carried + 661 new input, 130 output"


@dataclass(frozen=True)
class TypicalDesign:
    """One design's conversation of the typical case."""

    design: str
    url: str  # its conversation page, relative to the site root
    summary: str  # "3 requests · 3 tool calls · 5,369 tokens (1,579 of them re-sent)"
    bars: list[RequestBar]


@dataclass(frozen=True)
class TypicalCase:
    """The case drawn under the verdict, with each design's requests."""

    case_id: str
    repetition: int
    url: str  # the case page, relative to the site root
    designs: list[TypicalDesign]
    chosen: str = ""  # how this case was chosen, in words


@dataclass(frozen=True)
class AnswerRun:
    """One run at the top of the overview: the lead sentence, pass rate per design, the difference on pairs
    both designs answered correctly with its interval, and the warnings."""

    card: RunCard
    section_url: str  # the run's figures further down the overview
    lead: str
    pass_rates_differ: bool
    passed: list[tuple[str, str]]  # (design, "20/21 (95.2 %)")
    differences: list[str]  # one per other design on the headline metric, over the pairs both got right
    warnings: list[AnswerWarning]
    baseline: str = ""  # which design the others are compared with, where a run must say it (names_baseline)
    nothing_to_compare: str = ""  # a run of one design says so instead of any difference
    recommendation: Recommendation | None = None  # the verdict: which design to pick and why
    typical: TypicalCase | None = None  # one typical case's requests per design, drawn under the verdict


@dataclass(frozen=True)
class ModelDesignRow:
    """One (run, design) in the model × design table of a site holding several runs."""

    run_id: str
    model: str  # `model · provider`, the offline policy labelled as not a language model
    is_language_model: bool
    design: str
    passed: str
    turns: str
    tool_calls: str
    total_tokens: str
    time: str
    saving: str  # total tokens saved over the run's baseline, medians over the pairs both answered right
    findings: str  # summaries with at least one claim-check finding


@dataclass(frozen=True)
class ReviewImport:
    """What folding `--reviews` files into this build did."""

    files: list[str]
    applied: int
    stale: int
    unknown: int
    duplicates: int
    notes_only: int = 0


@dataclass(frozen=True)
class ReviewedConversation:
    """A conversation a review applies to, named by repetition (the design is hidden in blind review)."""

    repetition: int
    design: str
    url: str


@dataclass(frozen=True)
class ReviewNote:
    """An imported review (verdict and/or note) and the conversations it was given for."""

    verdict: str  # the label, "" for a note without a verdict
    verdict_code: str  # justified / not_justified / unsure, "" without a verdict
    note: str
    reviewer: str
    reviewed_at: str
    source: str  # the exported file's name
    conversations: list[ReviewedConversation]


@dataclass(frozen=True)
class NotJustified:
    """A summary judged not justified, for the overview: where it is, what it said, what the reviewers wrote."""

    run_label: str
    case_id: str
    case_url: str
    summary: str
    conversations: list[ReviewedConversation]
    notes: list[ReviewNote]


@dataclass(frozen=True)
class OverviewPage:
    """index.html."""

    title: str
    runs: list[RunCard]
    valid_runs: list[OverviewRun]
    invalid_runs: list[RunCard]
    case_columns: list[tuple[str, str]]  # (design, model when several runs)
    cases: list[CaseRow]
    designs: list[DesignTools]
    instructions: list[tuple[str, str]]  # (runs, text)
    reviews: ReviewImport | None
    model_table: list[ModelDesignRow] = field(default_factory=list)  # filled when several runs are shown
    case_total: int = 0  # all cases; `cases` holds at most OVERVIEW_CASES of them
    not_justified: list[NotJustified] = field(default_factory=list)  # at most OVERVIEW_NOT_JUSTIFIED
    not_justified_total: int = 0
    answers: list[AnswerRun] = field(default_factory=list)  # the answer first: one per valid run
    brought: list[str] = field(default_factory=list)  # designs other than wismo's own two, in the site's order
    model_baseline_first: bool = True  # every run's baseline is its first design: the model table says so


@dataclass(frozen=True)
class RepetitionRow:
    """One conversation in a summary group on a case page."""

    repetition: int
    conversation_id: str
    status: str
    passed: bool
    turns: str
    tool_calls: str
    tokens: str
    time: str
    url: str
    verdict: str | None
    ending: str = ""  # how it ended, in words (shown when it did not answer)


@dataclass(frozen=True)
class SummaryGroup:
    """Repetitions that gave the same summary and the same answer, shown once with a count."""

    has_summary: bool
    pieces: list[Piece]
    findings: list[FindingNote]
    no_summary_reason: str
    count: int
    fields: list[FieldCell]
    mismatches: int
    passed: bool
    repetitions: list[RepetitionRow]
    reviews: list[ReviewNote] = field(default_factory=list)  # imported reviews of its repetitions
    conflict: str = ""  # set when the same text of this run and case was judged in more than one way
    invalid_text: str | None = None  # an invalid answer's final text, shown beside the reason it could not be read
    unchecked: list[UncheckedNote] = field(default_factory=list)  # claims it could not check: never findings


@dataclass(frozen=True)
class CaseColumn:
    """One run × design on a case page."""

    card: RunCard
    design: str
    model: str  # set when the site holds several runs
    passed: str
    reviews: ReviewCounts | None
    groups: list[SummaryGroup]
    role: str = ""  # "baseline" or "vs granular", where the run must name its baseline (names_baseline)
    versus: str = ""  # this design against the baseline on this case, in words ("" for runs that need no role)


@dataclass(frozen=True)
class CompareConversation:
    """One design's conversation in a side-by-side view: its outcome, figures, summary and timeline."""

    design: str
    url: str
    passed: bool
    figures: str  # "3 requests · 5 tool calls · 5,369 tokens · 86 ms"
    pieces: list[Piece]
    no_summary_reason: str
    timeline: Timeline | None


@dataclass(frozen=True)
class CompareRepetition:
    """One repetition of a case, every design's conversation side by side."""

    repetition: int
    anchor: str
    conversations: list[CompareConversation]
    outcome: str  # "both passed", "only focused passed", …


@dataclass(frozen=True)
class CaseRun:
    """One run's designs on a case page, side by side."""

    card: RunCard
    columns: list[CaseColumn]
    compare: list[CompareRepetition] = field(default_factory=list)  # empty for a run of one design


@dataclass(frozen=True)
class CasePage:
    """cases/<case>.html: the designs side by side, per run; runs side by side while two fit, else stacked."""

    case_id: str
    order_id: str
    question: str
    expected: list[FieldCell]
    runs: list[CaseRun]
    invalid_runs: list[RunCard]
    previous: Link | None
    next: Link | None
    stacked: bool = False  # three or more runs: one run per row, so the page never scrolls sideways

    @property
    def columns(self) -> list[CaseColumn]:
        """Every run × design, in the order the page shows them."""
        return [column for run in self.runs for column in run.columns]


@dataclass(frozen=True)
class ToolCallView:
    """A tool call with its result, for the turn diagram and the transcript."""

    call_id: str
    name: str
    arguments: str
    arguments_pretty: str
    latency: str
    result: str
    is_error: bool
    error_kind: str | None
    bytes: str
    turn: int = 0  # the model request whose response asked for it
    anchor: str = ""  # the id of its full printing in the transcript
    not_run: str = ""  # why it never ran (a budget refused it, the conversation ended); "" when it ran
    lookups: str = ""  # the backend reads its server reported, in words; "" when not recorded
    from_text: bool = False  # the model wrote it in its text and wismo read it (--text-tool-calls)


@dataclass(frozen=True)
class TurnBar:
    """One model request in the turn diagram; widths are shares of the run's widest request (0–1000)."""

    turn: int
    has_tokens: bool
    carried: str
    new: str
    input: str
    output: str
    cached: str
    uncached: str | None  # input - cached, when the provider reported cached tokens
    reasoning: str | None  # reasoning tokens (part of the output), when reported
    carried_width: int
    new_width: int
    output_x: int  # where the output segment starts: after the input, with a small gap
    output_width: int
    estimated: bool
    latency: str
    tool_calls: list[ToolCallView]  # those it ran, then those it asked for that never ran
    final_text: str | None
    error: str | None
    alt_text: str
    is_last: bool = False
    text_anchor: str = ""  # where the transcript prints its text output in full
    server_time: str | None = None  # where the server says the request's time went; None: it did not say
    # tool_calls split as the page lists them (computed here, not filtered by the template on every page)
    ran_calls: list[ToolCallView] = field(default_factory=list)
    refused_calls: list[ToolCallView] = field(default_factory=list)  # asked for, never run


@dataclass(frozen=True)
class TimelineRow:
    """One model request or tool call on a conversation's time axis; x and width are shares of the span (0–1000)."""

    kind: str  # "request" or "call"
    label: str  # "Model request 2" or "get_payment"
    detail: str  # "1,352 carried + 227 new input, 56 output" or the call's arguments
    x: int
    width: int
    time: str  # "36 ms, from 26 ms to 62 ms"
    overlapped: bool = False  # a tool call that ran while another of the same request was running
    anchor: str = ""  # where the page shows it in full


@dataclass(frozen=True)
class Timeline:
    """A conversation's model requests and tool calls on one time axis, from the trace lines' timestamps."""

    rows: list[TimelineRow]
    ticks: list[str]  # the axis labels at 0, ¼, ½, ¾ and the whole span
    overlap: str  # the calls that ran at once, in words ("" when none did)
    missing: str = ""  # what could not be placed (a timestamp missing or unreadable), "" when everything was


@dataclass(frozen=True)
class TranscriptItem:
    """One history or output item: a message, a tool call with its result, a tool result, or text.

    An item printed in full earlier on the page has an empty body and `ref_url` (an in-page anchor) and
    `ref_turn` (the model request it is printed under) instead.
    """

    kind: str
    title: str
    body: str
    is_error: bool = False
    call: ToolCallView | None = None  # a tool call the response asked for, with its result (or why it never ran)
    ref_url: str = ""
    ref_turn: int = 0
    anchor: str = ""


@dataclass(frozen=True)
class TranscriptTurn:
    """One model request and its response."""

    turn: int
    meta: str
    request_items: list[TranscriptItem]
    output_items: list[TranscriptItem]  # every tool call the response asked for is one of them, with its result
    error: str | None
    # output_items split as the page prints them: the tool calls asked for and never run are folded apart
    shown_items: list[TranscriptItem] = field(default_factory=list)
    refused_items: list[TranscriptItem] = field(default_factory=list)


@dataclass(frozen=True)
class ConversationPage:
    """conversations/<run>/<conversation>.html: the turn diagram and the full transcript."""

    card: RunCard
    conversation_id: str
    case_id: str
    case_url: str
    question: str
    design: str
    repetition: int
    attempt: int
    status: str
    passed: bool
    error: str | None
    budget_hit: str | None
    has_summary: bool
    pieces: list[Piece]
    findings: list[FindingNote]
    final_text: str | None
    fields: list[FieldCell]
    totals: list[tuple[str, str]]
    scale_note: str
    turns: list[TurnBar]
    transcript: list[TranscriptTurn]
    verdict: str | None
    others: list[Link]
    reviews: list[ReviewNote] = field(default_factory=list)  # the imported review of its summary, if any
    final_text_turn: int = 0  # the model request whose output prints final_text in full (0: printed apart)
    error_text: str = ""  # `error` in words: for an invalid answer, why the final text could not be read
    lookups_note: str = ""  # why the backend lookups are not recorded ("" when they are)
    ending: str = ""  # how it ended in words ("stopped by the tool-call budget")
    ending_code: str = ""  # the trace's codes for it ("budget_exhausted · max_tool_calls")
    timeline: Timeline | None = None  # None when no request has a readable timestamp
    compare_url: str = ""  # the case page's side-by-side view of this repetition ("" for a run of one design)


@dataclass(frozen=True)
class Cell:
    """A table cell of an offending row; a conversation ID links to its page."""

    text: str
    url: str | None = None


@dataclass(frozen=True)
class CheckRow:
    """One analysis check and its offending rows (formatted as text)."""

    name: str
    description: str
    sql_file: str
    severity: str
    passed: bool
    status: str
    columns: list[str]
    rows: list[list[Cell]]
    row_count: int
    truncated_note: str
    meaning: str = ""  # what would be wrong with the figures if it failed, in the reader's terms


@dataclass(frozen=True)
class CheckRun:
    """Every check of one run."""

    card: RunCard
    passed: bool
    checks: list[CheckRow]
    malformed: list[tuple[int, str]]
    superseded: int


@dataclass(frozen=True)
class CheckReportPage:
    """checks.html."""

    runs: list[CheckRun]


@dataclass(frozen=True)
class SiteNav:
    """What every page's header and footer need."""

    version: str
    built_at: str
    cases: list[Link] = field(default_factory=list)
    review_url: str = "review.html"
    has_review: bool = True
