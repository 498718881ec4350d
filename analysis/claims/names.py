"""Where a summary names an ordered item: by SKU code, by its product name, or by the words people shorten it to.

A product name is read as a head part and qualifiers ("Mesh office chair, black (CHR-MESH-BLK)": the head part
is "Mesh office chair"). An item is named by its full name, by any run of two or more words of its head part
("office chair", "bunk bed"), by the head part's last word ("chair", "chairs"), and by a word of its head part or
SKU code that no other item of the order shares when that word is the head of its phrase ("the vacuum is out
for delivery", "your desk arrived": a determiner before it, a function word or punctuation after it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FLAGS = re.I

# Single words too generic to stand for an item on their own ("your card was declined" is not a gift card).
_GENERIC_WORDS = {"order", "item", "product", "package", "parcel", "card", "payment", "record", "update", "date",
                  "delivery", "carrier", "tracking", "stock", "status", "shipment", "case", "set", "pack", "kit",
                  "unit", "part", "piece", "pair", "one", "bundle", "size", "colour", "color", "model", "edition"}
_IRREGULAR_PLURALS = {"mouse": "mice", "person": "people", "child": "children", "foot": "feet", "knife": "knives",
                      "shelf": "shelves", "leaf": "leaves"}
_QUALIFIER = re.compile(r"\s*[,(;]")
_WORD = re.compile(r"[\w'’]+(?:-[\w'’]+)*")
# A bare modifier ("vacuum" of "Robot vacuum cleaner") names its item only as the head of a phrase.
_BEFORE_HEAD = re.compile(r"\b(?:the|your|my|our|their|its|this|that|these|those|both|each|every|either|neither"
                          r"|remaining|last|other|first|\d+|one|two|three|four|five|six)\s+$", _FLAGS)
_AFTER_HEAD = re.compile(
    r"^(?:s|es)?(?:\s*(?:[.,;:!?)\]–—]|\s-\s|$)|\s+(?:and|or|is|are|was|were|has|have|had|hasn['’]t|haven['’]t|isn['’]t"
    r"|aren['’]t|wasn['’]t|weren['’]t|will|won['’]t|would|should|shall|can|can['’]t|could|may|might|must|did|didn['’]t"
    r"|does|doesn['’]t|got|came|arrived|itself|too|also|still|already|from|with|to|on|in|at|by|for|itself|yet|now"
    r"|itself|hasn['’]t|seems?|appears?|went|left|should|one|ones)\b)", _FLAGS)


@dataclass(frozen=True)
class Mention:
    """Where the summary names an item; a name shared by several items names them all.

    `ambiguous` says the name is shared and nothing around it ("both", a plural, an SKU in brackets, a
    qualifier word such as "black", an exact full name) tells which item is meant: claims about it cannot be
    checked.
    """

    start: int
    end: int
    skus: tuple[str, ...]
    ambiguous: bool = False


def _word_pattern(word: str, last: bool) -> str:
    core = r"[-\s]?".join(re.escape(part) for part in word.lower().split("-"))
    if not last or not word.isalpha():
        return core
    lower = word.lower()
    if lower in _IRREGULAR_PLURALS:
        return f"(?:{core}|{_IRREGULAR_PLURALS[lower]})"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return f"{re.escape(lower[:-1])}(?:y|ies)"
    if lower.endswith("ies") and len(lower) > 4:
        return f"{re.escape(lower[:-3])}(?:y|ies)"  # "AA batteries" is also named "battery" ("two battery packs")
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(lower) > 3:
        return f"{re.escape(lower[:-1])}s?"  # a plural name ("Paper filters") is also named in the singular
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return f"{core}(?:es)?"
    return f"{core}s?"


def _phrase(words: list[str]) -> str:
    """Words in a row, with no comma between them: a list ("the hub tent, footprint") is not another item's name
    ("Tent footprint")."""
    return r"[-\s]+".join(_word_pattern(w, j == len(words) - 1) for j, w in enumerate(words))


def _can_stand_alone(word: str, *, shortest: int = 3) -> bool:
    letters_only = re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", word)  # "e-reader" yes, "4K" and "3-pack" no
    return word.lower() not in _GENERIC_WORDS and len(word) >= shortest and bool(letters_only)


# "Glass lid for enamel stockpot": what follows "for"/"with" is the complement, not the thing itself (a lid).
_COMPLEMENT = re.compile(r"\s+(?:for|with|to fit)\s+", _FLAGS)


def _head_words(name: str) -> list[str]:
    head = _QUALIFIER.split(name, maxsplit=1)[0]
    return _WORD.findall(_COMPLEMENT.split(head, maxsplit=1)[0])


def _full_name(name: str) -> str:
    """The full name as a pattern: a comma between two of its words only where the name has one ("Hub tent, 4-person"),
    so that a list ("hammock, bug net") is not read as another item's full name ("Hammock bug net")."""
    found = list(_WORD.finditer(name))
    parts = []
    for j, word in enumerate(found):
        if j:
            parts.append(r"[-\s,]+" if "," in name[found[j - 1].end():word.start()] else r"[-\s]+")
        parts.append(_word_pattern(word.group(), j == len(found) - 1))
    return "".join(parts)


def _name_patterns(name: str) -> list[str]:
    """The full name, every run of two or more head-part words, and the head part's last word."""
    words, head = _WORD.findall(name), _head_words(name)
    patterns = [_full_name(name)] if words else []
    for i in range(len(head)):
        for j in range(i + 2, len(head) + 1):
            patterns.append(_phrase(head[i:j]))
    if _stand_in(head):
        patterns.append(_word_pattern(_stand_in(head), True))
    return patterns


def _stand_in(head: list[str]) -> str:
    """The word of a head part that names the item alone: its last word, or the one before a generic last word."""
    if head and _can_stand_alone(head[-1]):
        return head[-1]
    if len(head) > 1 and head[-1].lower() in _GENERIC_WORDS and _can_stand_alone(head[-2]):
        return head[-2]  # "Side brush set": "brushes" names it
    return ""


def _modifiers(items: list[tuple[str, str | None]]) -> dict[str, str]:
    """Words of a head part or SKU code that only one item has, and are not already its last head word."""
    owners: dict[str, set[str]] = {}
    for sku, name in items:
        head = _head_words(name) if name else []
        words = [w for w in head[:-1] if _can_stand_alone(w)]
        words += [w for w in sku.split("-") if _can_stand_alone(w, shortest=4)]
        for word in words:
            owners.setdefault(word.lower(), set()).add(sku)
    lasts = {_stand_in(_head_words(name)).lower() for _, name in items if name}
    return {word: next(iter(skus)) for word, skus in owners.items() if len(skus) == 1 and word not in lasts}


def _shared_modifiers(items: list[tuple[str, str | None]]) -> dict[str, set[str]]:
    """Words of several items' head parts that are none's last word ("gyuto" of two gyuto knives): a shared name,
    resolved like any other by a qualifier, an SKU or the item named before."""
    owners: dict[str, set[str]] = {}
    for sku, name in items:
        for word in (_head_words(name) if name else [])[:-1]:
            if _can_stand_alone(word, shortest=4):
                owners.setdefault(word.lower(), set()).add(sku)
    lasts = {_stand_in(_head_words(name)).lower() for _, name in items if name}
    return {word: skus for word, skus in owners.items() if len(skus) > 1 and word not in lasts}


# A verb right after a bare modifier makes it the head of its phrase: "the noren arrives", "the Damascus gyuto passed".
_VERB_AFTER = re.compile(r"^\s+(?:[a-z]{2,}(?:ed|es|ing)|[a-z]{3,}s|went|came|left|got|made|took|sent)\b")


def _heads_phrase(text: str, end: int, name_words: set[str]) -> bool:
    """Whether the word ending at `end` heads its phrase: punctuation, a function word or a verb after it."""
    if _AFTER_HEAD.match(text[end:]):
        return True
    verb = _VERB_AFTER.match(text[end:])
    return verb is not None and verb.group().strip().lower() not in name_words


# Where the phrase before a name begins (punctuation, a bullet, "and"): a qualifier is one of its last three words.
_PHRASE_EDGE = re.compile(r"[.,;:!?()+&\n•*–—]|\s-\s|\band\b|\bor\b|\bwith\b", _FLAGS)
# "the 300-lumen one", "the long one": a word of one item's name standing for it with "one".
_ONE_OF = re.compile(r"\b(?:the|your|my)\s+((?:[\w'’]+[-\s]){0,2}?[\w'’]+)\s+ones?\b", _FLAGS)
# A one-word name after a word of parcels and post ("parcel box", "delivery box") is that container, unless the word is
# of the item's own name.
_CONTAINER_BEFORE = re.compile(r"\b(parcel|delivery|post|postal|mail|letter|shipping|cardboard|outer|package|courier"
                               r"|storage|home|locker|drop)[ \t]+$", _FLAGS)
# A shared word names its items after a determiner, perhaps with a qualifier between ("the Damascus gyuto").
_BEFORE_SHARED = re.compile(r"\b(?:the|your|my|our|both|two|three|four|this|that|these|those)\s+(?:[\w'’-]+\s+){0,2}$",
                            _FLAGS)
_OTHER_BEFORE = re.compile(r"\b(?:the|your)\s+(?:other|second|remaining)\s+$", _FLAGS)
# "the first lamp": one unit of an item ordered several times ("the other lamp" is the unit not yet spoken of: no
# count, so that "the other lamp arrived" is held against every unit).
_ONE_UNIT_BEFORE = re.compile(r"\b(?:the|a|your)\s+(?:first|single)\s+$", _FLAGS)
# Words that single out the plain one of several items sharing a name ("the standard headlamp").
_PLAIN_WORDS = {"standard", "regular", "basic", "plain", "normal", "ordinary", "original", "classic", "simple"}
# A word inside a carrier event ("Delayed at regional hub") names no item where the summary uses it as a place.
_PLACE_BEFORE = re.compile(r"\b(?:at|in|via|through|from|into|reached|left|to)\s+(?:(?:the|a|an|its|their|"
                           r"[\w'’-]+['’]s)\s+)?(?:[\w-]+\s+){0,2}$", _FLAGS)
_ALL_OF = re.compile(r"\b(?:both|all|all three|the two|the three|two|three|four|each of the|either|neither)\s+"
                     r"(?:of\s+)?(?:the\s+|your\s+)?$", _FLAGS)
_SKU_AFTER = re.compile(r"\s*[(\[]?\s*([A-Z0-9][A-Z0-9-]*[A-Z0-9])\b")


def _in_carrier_event(text: str, start: int, end: int, carrier_text: tuple[str, ...]) -> bool:
    """Whether a one-word mention is a word of a carrier event used as a place ("at the regional hub")."""
    word = text[start:end].lower()
    events = [e.lower() for e in carrier_text]
    if not any(re.search(rf"\b{re.escape(word)}\b", e) for e in events):
        return False
    before = text[max(0, start - 40):start]
    previous = re.search(r"([\w-]+)\s+$", before)
    if previous and any(re.search(rf"\b{re.escape(previous[1].lower())}\s+{re.escape(word)}\b", e) for e in events):
        return True  # "regional hub", as the carrier wrote it
    return bool(_PLACE_BEFORE.search(before)) and not re.search(r"\b(?:your|my)\s+(?:[\w-]+\s+)?$", before, _FLAGS)


def _resolve(text: str, start: int, end: int, skus: set[str],
             names: dict[str, str | None]) -> tuple[int, tuple[str, ...], bool]:
    """Which of several items sharing a name the mention means: (start, SKUs, still ambiguous)."""
    if len(skus) == 1:
        return start, tuple(skus), False
    said = text[start:end].lower()
    sku_after = _SKU_AFTER.match(text, end)
    if sku_after and sku_after[1] in skus:
        return start, (sku_after[1],), False  # "tenkeyless keyboard (KEYBOARD-TKL)"
    bracket = re.match(r"\s*[(\[]([^()\[\]]{0,80})[)\]]", text[end:])
    inside = [s for s in skus if bracket and re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", bracket[1])]
    if len(inside) == 1:
        return start, tuple(inside), False  # "Gyuto knives (the standard 210 mm, KNF-GYT210)"
    exact = [s for s in skus if names.get(s) and re.sub(r"\W+", " ", names[s] or "").strip().lower()
             == re.sub(r"\W+", " ", said).strip().lower()]
    # A qualifier that only one of them has, in the words just before the name ("the black keyboard", "your
    # regular-length sleeping bag", "the 300-lumen headlamp") or in brackets after it ("Sleeping bag (regular)").
    words = {s: {w.lower() for w in re.findall(r"[^\W_]+", names.get(s) or "")} for s in skus}
    edge = max([0, start - 60] + [m.end() for m in _PHRASE_EDGE.finditer(text, max(0, start - 60), start)])
    qualifiers = list(re.finditer(r"[^\W_]+", text[edge:start]))[-3:]
    offset = edge
    for word in reversed(qualifiers):
        owners = [s for s in skus if word.group().lower() in words[s]]
        if len(owners) == 1:
            return offset + word.start(), tuple(owners), False
    # ... or just after it, in brackets or before the phrase ends: "Sleeping bag (regular)", "Headlamp 300 lm:".
    bracket = re.match(r"\s*\(([^()]{1,30})\)|[ \t]+((?:[\w'’-]+[ \t]+)?[\w'’-]+)(?=\s*[:,;(–—])", text[end:])
    if bracket:
        for word in re.findall(r"[^\W_]+", bracket[1] or bracket[2]):
            owners = [s for s in skus if word.lower() in words[s]]
            if len(owners) == 1:
                return start, tuple(owners), False
    # "the standard headlamp": the one whose name is just what was said, when another adds a word to it.
    if qualifiers and qualifiers[-1].group().lower() in _PLAIN_WORDS:
        plain = [s for s in skus if [w.lower() for w in _head_words(names.get(s) or "")] == said.split()]
        # ... or the one whose name the others only add words to ("Gyuto knife, 210 mm" beside "..., Damascus").
        plain = plain or [s for s in skus if all(words[s] < words[o] for o in skus if o != s)]
        if len(plain) == 1:
            return start, tuple(plain), False
    if len(exact) == 1:
        return start, tuple(exact), False  # the exact full name wins over another item's head part
    # "the rain barrel" beside "Rain barrel, 200 L" and "Rain barrel diverter kit": the item whose whole head part was
    # said wins over the items whose names only begin or end with it, unless the next word is one of theirs ("rain
    # barrel kit").
    said_words = re.findall(r"[^\W_]+", said)
    whole_head = [s for s in skus if [w.lower() for w in _head_words(names.get(s) or "")] == said_words]
    following = re.match(r"[\s-]+([^\W_]+)", text[end:])
    if len(whole_head) == 1 and not (following and any(following[1].lower() in words[s] for s in skus
                                                       if s not in whole_head)):
        return start, tuple(whole_head), False
    # "the keyboards": every item whose head noun that is; a word several names share only as a modifier ("seeds" of
    # "Seed compost" and "Tomato seed collection") stays unresolved, plural or not.
    nouns = {_stand_in(_head_words(names.get(s) or "")).lower() for s in skus}
    plural = said.endswith("s") and not any((names.get(s) or "").lower().endswith(said) for s in skus) \
        and len(nouns) == 1 and bool(said_words) and re.fullmatch(_word_pattern(next(iter(nouns)), True),
                                                                  said_words[-1]) is not None
    if plural or _ALL_OF.search(text, 0, start):
        return start, tuple(sorted(skus)), False  # "both keyboards", "the keyboards": every item so named
    return start, tuple(sorted(skus)), True


def item_mentions(text: str, items: list[tuple[str, str | None]],
                  carrier_text: tuple[str, ...] = ()) -> list[Mention]:
    """Every mention of an item by SKU code or (part of) its name; the longest match wins an overlap."""
    found: dict[tuple[int, int], set[str]] = {}
    one_word: set[tuple[int, int]] = set()
    for sku, name in items:
        for pattern in [re.escape(sku)] + (_name_patterns(name) if name else []):
            for m in re.finditer(rf"(?<![\w-])(?:{pattern})(?![\w-])", text, _FLAGS):
                found.setdefault((m.start(), m.end()), set()).add(sku)
                if pattern != re.escape(sku) and not re.search(r"\s", m.group()):
                    one_word.add((m.start(), m.end()))
    name_words = {w.lower() for _, name in items for w in _WORD.findall(name or "")}
    names_of = dict(items)
    for word, sku in _modifiers(items).items():
        for m in re.finditer(rf"(?<![\w-]){_word_pattern(word, True)}(?![\w-])", text, _FLAGS):
            if _BEFORE_HEAD.search(text, 0, m.start()) and _heads_phrase(text, m.end(), name_words):
                found.setdefault((m.start(), m.end()), set()).add(sku)
                one_word.add((m.start(), m.end()))
    for word, skus in _shared_modifiers(items).items():
        for m in re.finditer(rf"(?<![\w-]){_word_pattern(word, True)}(?![\w-])", text, _FLAGS):
            if _BEFORE_SHARED.search(text, 0, m.start()) and _heads_phrase(text, m.end(), name_words):
                found.setdefault((m.start(), m.end()), set()).update(skus)
                one_word.add((m.start(), m.end()))
    for span in [s for s in one_word if _in_carrier_event(text, *s, carrier_text)]:
        del found[span]
    for span in [s for s in one_word if s in found]:
        container = _CONTAINER_BEFORE.search(text, 0, span[0])
        own = {w.lower() for sku in found[span] for w in _WORD.findall(names_of.get(sku) or "")}
        if container and container[1].lower() not in own:
            del found[span]  # "your parcel box", "the delivery box": a container, not the bento box ordered
    for span in sorted(one_word):
        # "the stockpot lid": a one-word name right before another item's one-word name modifies it.
        after = next((o for o in one_word if o in found and re.fullmatch(r"[ \t]+", text[span[1]:o[0]])), None)
        if span in found and after is not None and (not found[span] & found[after] or found[after] <= found[span]):
            del found[span]  # ... and "Gyuto knives": a shared word before a name of (no more than) its items too
    owners: dict[str, set[str]] = {}
    for sku, name in items:
        for word in re.findall(r"[^\W_]+", name or ""):
            owners.setdefault(word.lower(), set()).add(sku)
    for m in _ONE_OF.finditer(text):
        unique = [w for w in re.finditer(r"[^\W_]+", m[1]) if len(owners.get(w.group().lower(), ())) == 1]
        if unique:
            found.setdefault((m.start(1) + unique[0].start(), m.end()), set()).update(owners[unique[0].group().lower()])
    names = dict(items)
    taken: list[Mention] = []
    for (start, end), skus in sorted(found.items(), key=lambda kv: (kv[0][0] - kv[0][1], kv[0][0])):
        if all(end <= t.start or start >= t.end for t in taken):
            begin, resolved, ambiguous = _resolve(text, start, end, skus, names)
            if begin != start and any(t.start < start and t.end > begin for t in taken):
                begin = start
            taken.append(Mention(begin, end, resolved, ambiguous))
    return _resolved_by_earlier(text, sorted(taken, key=lambda m: m.start))


def _resolved_by_earlier(text: str, mentions: list[Mention]) -> list[Mention]:
    """A shared name said as "the other ..." after the rest of its items were named alone means the one not named yet
    ("the black keyboard ... the other keyboard"). Since checker v9 a shared name is no longer given to the one of its
    items named alone before it ("the diverter kit ... the rain barrel" is not the kit): a guess, not a reading."""
    out: list[Mention] = []
    for m in mentions:
        if m.ambiguous and _OTHER_BEFORE.search(text, 0, m.start):
            earlier = {s for e in out if not e.ambiguous and len(e.skus) == 1 for s in e.skus if s in m.skus}
            earlier = set(m.skus) - earlier if len(earlier) == len(m.skus) - 1 else set()
            if len(earlier) == 1:
                m = Mention(m.start, m.end, tuple(earlier), False)
        out.append(m)
    return out


_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a pair of": 2}
_COUNT = re.compile(r"(?<![/\d])\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of"
                    r"|a pair of)\b"
                    r"(?!\s*(?:st|nd|rd|th|%|:|/|\.\d|am|pm)\b)(?!\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
                    r"|days?|weeks?|hours?|working|business)\w*)", _FLAGS)
_COUNT_WINDOW = 5  # words before a mention that can state how many of it: "two of the four mesh office chairs"


# "lunch boxes (SKU): 2 of 3 delivered", "Junior sticks [HK-4410-JR]: 1 of 2 delivered": a count after the name.
_AFTER_COUNT = re.compile(r"\s*(?:\([^()]{0,40}\)\s*|\[[^\[\]]{0,40}\]\s*)?(?::\s*|\(|(?<=\s))"
                          r"(\d{1,3}|one|two|three|four|five|six)( of |\s*/\s*(?=\d))"
                          r"(?:the |your )?(\d{1,3}|one|two|three|four|five|six"
                          r"|seven|eight|nine|ten|eleven|twelve)\b", _FLAGS)
_MEASURE_BEFORE = re.compile(r"(?<=\s)(?!(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|some|all"
                             r"|both|each|most|half|none|any|either|neither|first|last|rest|remainder|couple|pair|few"
                             r"|many|several|none|out|because|instead|front|top|part|lots?)\s)[a-z]+s?\s+of\s+"
                             r"(?:the\s+|your\s+)?(?:[a-z-]+\s+)?$", _FLAGS)
_HALF = re.compile(r"\bhalf\s+(?:of\s+)?(?:the|your|my)?\s*$", _FLAGS)
# "2/4 bowls": two of the four.
_FRACTION = re.compile(r"(?<![/\d])\b(\d{1,3})\s*/\s*\d{1,3}\s+(?:[\w'’-]+\s+){0,2}$")


def stated_count(text: str, lo: int, mention: Mention, quantity: int) -> int | None:
    """How many units of an item of `quantity` the words around its mention state, looking no further back than `lo`.

    "two of the four chairs", "the first 2 chairs", "half of your chairs", "your chairs (2 of 4)".
    """
    after = _AFTER_COUNT.match(text, mention.end)
    # "whetstones: 2/3 delivered" is a count only when the 3 is the quantity ordered (else "2/3" may be a date)
    if after and ("/" not in after[2] or _number(after[3]) == quantity):
        return _number(after[1])
    if quantity > 1 and _ONE_UNIT_BEFORE.search(text, max(lo, mention.start - 30), mention.start) \
            and not text[mention.start:mention.end].lower().endswith("s"):
        return 1  # "the first lamp" of two
    window_start = max(lo, mention.start - 60)
    # "two of the three rolls of jute twine": a measure word and its "of" are not among the words counted back.
    measure = _MEASURE_BEFORE.search(text, window_start, mention.start)
    window_end = measure.start() if measure else mention.start
    words = list(re.finditer(r"\S+", text[window_start:window_end]))[-_COUNT_WINDOW:]
    if not words:
        return None
    window = text[window_start + words[0].start():window_end]
    if _HALF.search(window):
        return max(1, quantity // 2)
    if fraction := _FRACTION.search(window):
        return int(fraction[1])
    found = _COUNT.search(window)
    return _number(found[1]) if found else None


def _number(value: str) -> int:
    return int(value) if value.isdigit() else _NUMBERS[value.lower()]


def plausibly_named(text: str, sku: str, name: str | None, mentions: list[Mention]) -> bool:
    """Whether a word of the item's name (its head part or a word in brackets: "the saya", "the donabe") or of its
    SKU code appears outside another item's name: then the item may be meant, and "unmentioned" is not sure."""
    head = _head_words(name) if name else []
    bracketed = [w for part in re.findall(r"\(([^()]*)\)", name or "") for w in _WORD.findall(part)]
    head += _WORD.findall(_QUALIFIER.split(name or "", maxsplit=1)[0])  # the complement too ("lid for ... pot")
    words = {w.lower() for w in head + bracketed if _can_stand_alone(w, shortest=4)}
    words |= {part.lower() for part in sku.split("-") if len(part) >= 3 and re.search(r"[A-Za-z]", part)}
    elsewhere = [(m.start, m.end) for m in mentions if sku not in m.skus]
    for word in words:
        for m in re.finditer(rf"(?<![\w-]){_word_pattern(word, True)}(?![\w-])", text, _FLAGS):
            if not any(start <= m.start() < end for start, end in elsewhere):
                return True
    return False

