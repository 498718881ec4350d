"""Reading a summary: sentences, clauses, item mentions, dates, and the stance a claim is made in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_FLAGS = re.I

# --- sentences and clauses -------------------------------------------------------------------------

# A bullet or a middle dot between entries on one line ("delivered Sep 14 · Rechargeable headlamp: ...") ends one too.
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s|$)|\n+|[ \t]+[·•|][ \t]+")
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "no", "vs", "etc", "e.g", "i.e", "approx", "inc", "ltd", "co"}
# A month or weekday shortened with a full stop ends the sentence unless a day or lower-case word follows it:
# "due 21 Sep. Table: ..." ends there; "Sep. 21" and "Wed. afternoon" do not.
_DATE_ABBREVIATIONS = {"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon",
                       "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"}
# Where one assertion ends and the next begins inside a sentence. Conjunctions stay with the clause they open;
# a comma ends a clause too (not before a digit: "October 5, 2026"), and a clause that names items but makes
# no claim ("the laptop, the monitor and") hands them to the next one.
_CLAUSE_BREAK = re.compile(
    r"\s*;\s*|:\s+|\s+[-–—]+\s+"
    r"|(?<!everything)(?<!anything)(?<!\ball)(?<!every item)(?<!nothing),?\s+(?=but\b)"  # not "everything but X"
    r"|,?\s+(?=(?:while|whereas|although|though|because|since|however|unlike)\b)"
    r"|,\s+(?!\d)"
    r"|\s+(?=(?:and|or)\s+(?:the|your|a|an|its|it|they|their|both|we|i|it['’]s|they['’]re|there|this|that)\b)"
    r"|(?<=\))\s+(?=(?:and|or)\b)",
    _FLAGS)


@dataclass(frozen=True)
class Span:
    """A stretch of the summary, by absolute character offsets."""

    start: int
    end: int


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start] in " \t\r\n":
        start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return Span(start, end) if end > start else None


def sentences(text: str) -> list[Span]:
    """Split on sentence punctuation and line breaks, not after common abbreviations."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        word = re.search(r"([\w.]+)\.*$", text[start:m.start() + 1].rstrip(".!?\"')]"))
        abbreviation = word.group(1).lower().rstrip(".") if m.group().startswith(".") and word else ""
        if abbreviation in _ABBREVIATIONS or (abbreviation in _DATE_ABBREVIATIONS
                                              and re.match(r"[ \t]+[\da-z]", text[m.end():])
                                              # "eta 22 nov. shin guards: delivered": a new entry, in lower case
                                              and not re.match(r"[ \t]+[a-z][^.:;\n\d]{0,40}:", text[m.end():])):
            continue
        span = _trimmed(text, start, m.start() if m.group().strip() in "·•|" else m.end())  # not the bullet
        if span:
            spans.append(span)
        start = m.end()
    span = _trimmed(text, start, len(text))
    if span:
        spans.append(span)
    return spans


def _inside_parentheses(text: str, start: int, at: int) -> bool:
    depth = 0
    for char in text[start:at]:
        depth += {"(": 1, ")": -1}.get(char, 0)
    return depth > 0


def clauses(text: str, sentence: Span) -> list[Span]:
    """Split one sentence into clauses at conjunctions and strong punctuation, not inside parentheses.

    "delivered (wool throw, cushion inserts) or on its way (side table)": a parenthesis lists what the claim
    before it is about, so it stays in that claim's clause.
    """
    spans, start = [], sentence.start
    for m in _CLAUSE_BREAK.finditer(text, sentence.start, sentence.end):
        if _inside_parentheses(text, sentence.start, m.start()):
            continue
        span = _trimmed(text, start, m.start())
        if span:
            spans.append(span)
        start = m.end()
    span = _trimmed(text, start, sentence.end)
    if span:
        spans.append(span)
    return spans


# --- dates -----------------------------------------------------------------------------------------

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10,
           "nov": 11, "dec": 12}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?" \
         r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", _FLAGS)
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+(\d{{4}})\b)?", _FLAGS)
# not "the 3rd fire steel", "the 2nd parcel": an ordinal before a noun counts things
_NO_NOUN_AFTER = (r"(?!\s+(?!(?:of|and|or|to|for|at|by|but|so|with|when|as|in|on|from|until|till|through"
                  r"|which|while|if|because|after|before|instead|rather|than|too|also|is|are|was|were|will"
                  r"|should|would|it|they|we|i|you|this|that|the|a|an|your|our|via|per|—)\b)[a-z])"
                  # "1 of 2 delivered Mon, 2nd in transit": the second unit, not the 2nd
                  r"(?!\s+(?:in\s+transit|one|unit|parcel)\b)")
_ORDINAL_DAY = re.compile(r"\b(?:the|on|by|until|till|from|before|after|since|mon|tue|tues|wed|thu|thur|thurs|fri|sat"
                          r"|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\.?,?\s+"
                          r"(\d{1,2})(?:st|nd|rd|th)\b" + _NO_NOUN_AFTER, _FLAGS)
# "on the 12th and 13th": either day (not "between the 8th and the 13th", a range read as such elsewhere).
_ORDINAL_LIST = re.compile(r"(?<!between )(?<!from )\bthe\s+(\d{1,2})(?:st|nd|rd|th)"
                           r"((?:,\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th))*)\s+(?:and|&|or)\s+"
                           r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b" + _NO_NOUN_AFTER, _FLAGS)
# Ranges: "20-22 September", "between 20 and 22 Sep", "Sep 20 to 22"; one mention that any day in it matches.
_RANGE_LINK = r"\s*(?:-|–|—|to|or|through|till|until)\s*"
_DAY_RANGE = re.compile(rf"\b(?:(between)\s+)?(\d{{1,2}})(?:st|nd|rd|th)?(?(1)\s+and\s+|{_RANGE_LINK})"
                        rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+(\d{{4}})\b)?", _FLAGS)
_MONTH_RANGE = re.compile(rf"\b(?:(between)\s+)?{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?(1)\s+and\s+|{_RANGE_LINK})"
                          rf"(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?::|am|pm|%|/))(?:,?\s+(\d{{4}})\b)?", _FLAGS)
# Days listed before one month: "14 and 16 Sep", "Sep 14 and 16", "3, 4 and 6 March": any of them.
_DAY_LIST = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?((?:,\s*\d{{1,2}}(?:st|nd|rd|th)?)*)\s+(?:and|&)\s+(\d{{1,2}})"
                       rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+(\d{{4}})\b)?", _FLAGS)
_MONTH_LIST = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?((?:,\s*\d{{1,2}}(?:st|nd|rd|th)?)*)"
                         rf"\s+(?:and|&)\s+"
                         rf"(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*(?::|am|pm|%|/|{_MONTH}))(?:,?\s+(\d{{4}})\b)?", _FLAGS)
# Two dates of their own joined as a range: "Friday or Monday", "between 20 September and 2 October".
RANGE_BETWEEN = re.compile(rf"^{_RANGE_LINK}(?:the\s+|on\s+)?$", _FLAGS)
_NUMERIC = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?(?![\d/])")
# A weekday, in full or shortened with a capital ("Tue", "Wed"; "sat" and "sun" in lower case are other words).
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday" \
           r"|(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)(?!['’]))"
_NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|a few|a couple of|couple of|several)"
RELATIVE_DATE = re.compile(
    rf"\b(?:(?:later\s+|earlier\s+)?today|tonight|this (?:morning|afternoon|evening)|tomorrow"
    rf"|yesterday(?:\s+(?:morning|afternoon|evening))?|last night|(?:last|this past)\s+{_WEEKDAY}"
    rf"|(?:this|next|on|by)\s+{_WEEKDAY}|{_WEEKDAY}|next week|this week(?:end)?"
    rf"|(?:in|within)\s+(?:the next\s+)?{_NUMBER}(?:\s*(?:-|to)\s*\d+)?\s+(?:more\s+)?(?:business\s+|working\s+)?"
    rf"(?:days?|weeks?)|(?:the\s+)?end of (?:the|this|next) week)\b", _FLAGS)
_DATE_AFTER_WEEKDAY = re.compile(r"\.?,?\s+(?:the\s+)?")
_WEEKDAY_AFTER_DATE = re.compile(r"\s*(?:\(|,\s*|\s)(?:a\s+|on\s+|which is\s+|that is\s+)?")
# A day named from the date before it: "the day before", "the same day", "a day later", "the next day".
_ANAPHORIC_DATE = re.compile(r"\b(?:the\s+(?:day|evening|morning|afternoon)\s+(?:before|after)"
                             r"|the\s+(?:same|next|following|previous)\s+(?:day|morning|afternoon|evening)|that\s+same\s+day|(?:a|one)\s+day\s+"
                             r"(?:later|earlier|before|after))\b"
                             rf"(?!\s+(?:than|the|your|our|its|their|this|that|yesterday|today|tomorrow|\d|{_MONTH}\b"
                             rf"|{_WEEKDAY}))", _FLAGS)
# "as soon as they arrive" is a condition, not a vague time.
VAGUE_TIME = re.compile(r"\b(?:(?<!as )soon(?!\s+as\b)|shortly|any day now|in no time|right away|quickly|imminently"
                        r"|very soon)\b", _FLAGS)
_PROMISED_PHRASE = re.compile(rf"\b(?:the|your|its|their)\s+(?:original(?:ly)?\s+)?promised\s+(?:delivery\s+)?date\b"
                              rf"(?!\s*(?:of|,|:|\(|was|is)?\s*(?:\d|{_MONTH}\b))", _FLAGS)


@dataclass(frozen=True)
class DateMention:
    """A date in the text: calendar candidates (year may be None), or a relative/promised-date reference."""

    start: int
    end: int
    kind: str  # "calendar" | "relative" | "promised" | "anaphoric" ("the day before": `shift` days from the last)
    candidates: tuple[tuple[int | None, int | None, int], ...] = ()  # (year, month, day); None: any
    shift: int = 0

    def shifted(self, last: DateMention) -> DateMention | None:
        """An anaphoric date placed from the calendar date named before it; None when that cannot be done."""
        days = []
        for year, month, day in last.candidates:
            try:
                moved = date(year or 2000, month or 1, day) + timedelta(days=self.shift)
            except ValueError:
                return None
            if month is None and moved.month != 1:
                return None  # "the 1st" and "the day before": no month to step back into
            days.append((year and moved.year, month and moved.month, moved.day))
        return DateMention(self.start, self.end, "calendar", tuple(days)) if days else None

    def matches(self, iso_day: str) -> bool:
        """Whether this calendar mention can be the given ISO day."""
        y, m, d = (int(x) for x in iso_day.split("-"))
        return any((cy is None or cy == y) and (cm is None or cm == m) and cd == d for cy, cm, cd in self.candidates)


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Past relative days: never an estimate, whatever cue the sentence carries ("reached the terminal this morning").
_PAST_DAY = re.compile(r"^(?:yesterday|last|this past|this morning|earlier)\b", _FLAGS)


def weekday_index(word: str) -> int | None:
    """Monday 0 ... Sunday 6, for a weekday in full or shortened ("Tue", "Thurs"); None for any other word."""
    lower = word.lower().rstrip(".")
    return next((i for i, name in enumerate(_WEEKDAYS) if len(lower) >= 3 and name.startswith(lower)), None)


def is_past_day(mention_text: str) -> bool:
    """Whether a relative day can only be in the past ("yesterday", "last night", "this morning")."""
    return bool(_PAST_DAY.match(mention_text))


def resolve_relative(mention_text: str, clock: str | None) -> tuple[int, int, int] | None:
    """The calendar day of "today", "tomorrow" or "(on/by/this) Friday", counted from the clock day."""
    if not clock:
        return None
    words = mention_text.lower().split()
    today = date.fromisoformat(clock)
    if words[0] in ("yesterday", "last") or words[:2] == ["this", "past"]:
        return None  # a past day is never an estimate
    if words[-1] in ("today", "tonight", "morning", "afternoon", "evening"):
        day = today
    elif words[-1] == "tomorrow":
        day = today + timedelta(days=1)
    elif (weekday := weekday_index(words[-1])) is not None and words[0] != "next":
        day = today + timedelta(days=(weekday - today.weekday()) % 7)
    else:
        return None
    return day.year, day.month, day.day


def resolve_past(mention_text: str, clock: str | None) -> tuple[tuple[int, int, int], ...]:
    """The calendar days a past relative day can be, counted back from the clock's own (local) day.

    "yesterday" the day before; "last night" the day before or, after midnight, the clock day; "this morning",
    "today" the clock day; "(on) Monday" the latest Monday up to today (or a week before it when today is Monday);
    "last Monday" the one before today, or the week before that when it was only a day or two ago. Nothing for
    anything else ("next week", "in 3 days"): those cannot be a delivery day.
    """
    if not clock:
        return ()
    words = mention_text.lower().split()
    today = date.fromisoformat(clock)
    days: list[date] = []
    if words[0] == "yesterday":
        days = [today - timedelta(days=1)]
    elif words[:2] == ["last", "night"]:
        days = [today - timedelta(days=1), today]
    elif words[-1] in ("today", "morning", "afternoon", "evening") and words[0] in ("today", "this", "earlier"):
        days = [today]
    elif (weekday := weekday_index(words[-1])) is not None and words[0] not in ("next",):
        back = (today.weekday() - weekday) % 7
        if words[0] in ("last", "this"):
            back = back or 7
            days = [today - timedelta(days=back)] + ([today - timedelta(days=back + 7)] if back < 3 else [])
        else:
            days = [today - timedelta(days=back)] + ([today - timedelta(days=7)] if back == 0 else [])
    return tuple((d.year, d.month, d.day) for d in days)


def _year(text: str | None) -> int | None:
    if not text:
        return None
    return int(text) + 2000 if len(text) == 2 else int(text)


def date_mentions(text: str, start: int, end: int) -> list[DateMention]:
    """Dates in text[start:end]: ISO, "October 9", "9 Oct", "10/9" (both readings), relative days."""
    found: list[DateMention] = []

    def add(mention: DateMention) -> None:
        if all(mention.end <= f.start or mention.start >= f.end for f in found):
            found.append(mention)

    for m in _DAY_RANGE.finditer(text, start, end):
        year, month = _year(m[5]), _MONTHS[m[4][:3].lower()]
        if 1 <= int(m[2]) < int(m[3]) <= 31:
            add(DateMention(m.start(), m.end(), "calendar",
                            tuple((year, month, d) for d in range(int(m[2]), int(m[3]) + 1))))
    for m in _MONTH_RANGE.finditer(text, start, end):
        year, month = _year(m[5]), _MONTHS[m[2][:3].lower()]
        if 1 <= int(m[3]) < int(m[4]) <= 31:
            add(DateMention(m.start(), m.end(), "calendar",
                            tuple((year, month, d) for d in range(int(m[3]), int(m[4]) + 1))))
    # after the ranges: "between 8 and 13 September" is every day between, not two days
    for m in _DAY_LIST.finditer(text, start, end):
        year, month = _year(m[5]), _MONTHS[m[4][:3].lower()]
        days = [int(m[1]), *(int(x) for x in re.findall(r"\d+", m[2])), int(m[3])]
        if all(1 <= x <= 31 for x in days):
            add(DateMention(m.start(), m.end(), "calendar", tuple((year, month, x) for x in days)))
    for m in _MONTH_LIST.finditer(text, start, end):
        year, month = _year(m[5]), _MONTHS[m[1][:3].lower()]
        days = [int(m[2]), *(int(x) for x in re.findall(r"\d+", m[3])), int(m[4])]
        if all(1 <= x <= 31 for x in days):
            add(DateMention(m.start(), m.end(), "calendar", tuple((year, month, x) for x in days)))
    for m in _ISO.finditer(text, start, end):
        add(DateMention(m.start(), m.end(), "calendar", ((int(m[1]), int(m[2]), int(m[3])),)))
    for m in _MONTH_DAY.finditer(text, start, end):
        add(DateMention(m.start(), m.end(), "calendar", ((_year(m[3]), _MONTHS[m[1][:3].lower()], int(m[2])),)))
    for m in _DAY_MONTH.finditer(text, start, end):
        add(DateMention(m.start(), m.end(), "calendar", ((_year(m[3]), _MONTHS[m[2][:3].lower()], int(m[1])),)))
    for m in _ORDINAL_LIST.finditer(text, start, end):  # "on the 12th and 13th": either day, of the records' month
        days = [int(m[1]), *(int(x) for x in re.findall(r"\d+", m[2])), int(m[3])]
        if all(1 <= x <= 31 for x in days):
            add(DateMention(m.start(1), m.end(), "calendar", tuple((None, None, x) for x in days)))
    for m in _ORDINAL_DAY.finditer(text, start, end):
        if 1 <= int(m[1]) <= 31:  # "the 19th": a day of whichever month the records give
            add(DateMention(m.start(1), m.end(), "calendar", ((None, None, int(m[1])),)))
    for m in _NUMERIC.finditer(text, start, end):
        a, b, y = int(m[1]), int(m[2]), _year(m[3])
        readings = tuple({(y, a, b), (y, b, a)} & {(y, x, z) for x in range(1, 13) for z in range(1, 32)})
        if readings:
            add(DateMention(m.start(), m.end(), "calendar", readings))
    for m in _ANAPHORIC_DATE.finditer(text, start, end):
        shift = -1 if re.search(r"before|earlier|previous", m.group(), _FLAGS) else \
            1 if re.search(r"after|later|next|following", m.group(), _FLAGS) else 0
        add(DateMention(m.start(), m.end(), "anaphoric", shift=shift))
    for m in RELATIVE_DATE.finditer(text, start, end):
        add(DateMention(m.start(), m.end(), "relative"))
    for m in _PROMISED_PHRASE.finditer(text, start, end):
        add(DateMention(m.start(), m.end(), "promised"))
    # "Wednesday 8 September", "Monday the 13th", "Tue 21st": a weekday naming the calendar date after it is
    # that date, not a second one counted from the clock.
    # "21 Sep (Tuesday)", "17 September, a Friday": so is one naming the date before it; and so are "tomorrow, 22
    # November", "22 Nov (today)": one day said twice, not two days the clause gives.
    calendar_starts = {f.start for f in found if f.kind == "calendar"}
    calendar_ends = [f.end for f in found if f.kind == "calendar"]

    def names_a_calendar_date(f: DateMention) -> bool:
        if f.kind != "relative" or not re.fullmatch(rf"(?:on\s+|this\s+)?{_WEEKDAY}|today|tomorrow|yesterday|tonight",
                                                    text[f.start:f.end], _FLAGS):
            return False
        after = _DATE_AFTER_WEEKDAY.match(text, f.end)
        return bool(after and after.end() in calendar_starts) or any(
            _WEEKDAY_AFTER_DATE.fullmatch(text, end, f.start) for end in calendar_ends if end <= f.start)

    found = [f for f in found if not names_a_calendar_date(f)]
    return _joined_ranges(text, sorted(found, key=lambda f: f.start))


def _joined_ranges(text: str, found: list[DateMention]) -> list[DateMention]:
    """Two calendar dates joined as a range ("8 September to 10 September") become one mention of every day
    between them; a year left out is taken as the same for both."""
    out: list[DateMention] = []
    for mention in found:
        before = out[-1] if out else None
        if before and before.kind == mention.kind == "calendar" and len(before.candidates) == 1 \
                and len(mention.candidates) == 1 and (RANGE_BETWEEN.match(text[before.end:mention.start]) or (
                    re.fullmatch(r"\s+and\s+", text[before.end:mention.start])
                    and re.search(r"\bbetween\s+(?:the\s+)?$", text[:before.start]))):
            days = _days_between(before.candidates[0], mention.candidates[0])
            if days:
                out[-1] = DateMention(before.start, mention.end, "calendar", days)
                continue
        out.append(mention)
    return out


def _days_between(first: tuple[int | None, int | None, int],
                  last: tuple[int | None, int | None, int]) -> tuple[tuple[int | None, int | None, int], ...]:
    """Every (year, month, day) from first to last inclusive; () when either lacks a month or the order is wrong."""
    (y1, m1, d1), (y2, m2, d2) = first, last
    if m1 is None or m2 is None:
        return ()
    year = y1 or y2
    try:
        start, end = date(year or 2000, m1, d1), date(year or 2000, m2, d2)  # 2000: a leap year, any 29 Feb
    except ValueError:
        return ()
    if end < start:
        return ()
    span = (end - start).days
    if span > 62:
        return ()
    return tuple((year, d.month, d.day) for d in (start + timedelta(days=i) for i in range(span + 1)))


# --- stance: is a claim asserted, denied, hedged, hypothetical or about the future? ----------------

_APOS = "['’]"
_WORDS = r"(?:[\w'’-]+\s+)"
_HEDGE = re.compile(
    # A modal hedges the verb it governs ("could arrive"), not one after a clause of its own ("what we could track
    # has arrived").
    rf"\b(?:(?:may|might|could(?!\s+not|n{_APOS}t))(?=\s+(?:(?!(?:has|have|had|is|are|was|were)\b)[\w'’-]+\s+){{0,2}}$)|maybe|perhaps|possibly|unclear|unsure"
    rf"|not sure|uncertain|no idea"
    rf"|can(?:not|{_APOS}t| not)\s+(?:yet\s+)?(?:confirm|say|tell|see|know|verify|check|guarantee|promise|be sure)"
    rf"|(?:unable|not able)\s+to\s+(?:confirm|say|tell|see|verify|check|guarantee)"
    rf"|(?:don{_APOS}t|do not|didn{_APOS}t|did not)\s+know|no way to (?:know|tell))\b", _FLAGS)
_HYPOTHETICAL = re.compile(r"\b(?:if|once|when|whenever|until|unless|before|whether|in case|as soon as)\b[^,;:]*$",
                           _FLAGS)
# "I don't know why they're delayed" still asserts the delay.
_PRESUPPOSED = re.compile(r"\b(?:why|reason|cause)\b", _FLAGS)
_NEGATION = re.compile(
    # "has not only shipped, it's all been delivered": more than the claim, not its denial
    rf"(?:\bnot|n{_APOS}t|\bnever|\bno longer|\byet to|\bwithout|\bnothing|\bneither|\bnor)"
    rf"(?!\s+(?:only|just|merely)\b)\s+{_WORDS}{{0,3}}$"
    rf"|\bno\s+{_WORDS}{{0,2}}$", _FLAGS)
# "I don't see any sign of a delay", "there's nothing to suggest the curtains are delayed".
_NO_SIGN = re.compile(
    rf"(?:n{_APOS}t|\bnot|\bno|\bnothing|\bnever|\bwithout)\s+{_WORDS}{{0,3}}?(?:see|seeing|find|sign|signs|indication"
    rf"|indications|evidence|suggest\w*|mention|reason to (?:think|believe|expect))\s+{_WORDS}{{0,6}}$", _FLAGS)
_CLAUSE_NEGATION = re.compile(r"^\W*(?:(?:and|but|so|or|yet)\s+)?(?:neither|none|nothing|no\s+items?)\b", _FLAGS)
# "nothing in your order is delayed", "none of the parcels has been lost": a subject that denies the claim, however far
# the clause began before it.
_NEGATED_SUBJECT = re.compile(r"\b(?:nothing|none|no\s+(?:item|parcel|package|part)s?)\s+(?:(?:in|on|of|from)\s+"
                              r"(?:your|the|this|these|those|our)\s+(?:[\w-]+\s+){0,2})?(?:is|are|was|were|has|have|had)"
                              r"(?:\s+been)?\s+(?:\w+ly\s+)?$", _FLAGS)
_COUNTERFACTUAL = re.compile(
    rf"\b(?:(?:should|would|could|might|may|must)(?:n{_APOS}t| not)?\s+have|supposed to|meant to"
    rf"|(?:was|were)\s+(?:due|expected|scheduled|set|meant)\s+to)\s+{_WORDS}{{0,3}}$", _FLAGS)
_FUTURE = re.compile(
    rf"(?:\bwill|{_APOS}ll|\bshould|\bshall|\bgoing to|\bexpected to|\bscheduled to|\bdue to|\bset to|\blikely to"
    rf"|\bon track to)\s+{_WORDS}{{0,2}}$", _FLAGS)
_CERTAIN_FUTURE = re.compile(rf"(?:\bwill|{_APOS}ll|\bgoing to|\bshall)\s+{_WORDS}{{0,2}}$", _FLAGS)
_REPORTED = re.compile(r"\b(?:says?|shows?|reads?|marked(?: as)?|listed(?: as)?|status(?: is| of)?|as)\s+['\"‘“]?$",
                       _FLAGS)


def _unless_presupposed(match: re.Match[str] | None, before: str) -> bool:
    """A hedge or negation counts unless "why"/"the reason" follows it: those presuppose the claim."""
    return bool(match) and not _PRESUPPOSED.search(before[match.start():])  # type: ignore[union-attr]


def stance(clause_text: str, at: int) -> str:
    """How the clause holds the claim starting at `at` (clause-relative).

    One of: hedged, hypothetical, counterfactual, negated, future, certain_future, reported, plain.
    """
    before = clause_text[:at]
    hedges = list(_HEDGE.finditer(before))
    if hedges and _unless_presupposed(hedges[-1], before):
        return "hedged"
    if _HYPOTHETICAL.search(before):
        return "hypothetical"
    if _COUNTERFACTUAL.search(before):
        return "counterfactual"
    negation = _NEGATION.search(before) or _NO_SIGN.search(before)
    if _unless_presupposed(negation, before) or _CLAUSE_NEGATION.search(before) or _NEGATED_SUBJECT.search(before):
        return "negated"
    if _CERTAIN_FUTURE.search(before):
        return "certain_future"
    if _FUTURE.search(before):
        return "future"
    if _REPORTED.search(before):
        return "reported"
    return "plain"
