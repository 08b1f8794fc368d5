"""Corrections that name their subject earlier: "No wait, make it 16:15" after a booking.

:func:`~.supersede.supersede` links a correction to an earlier fact of the same speaker whose
subject words it covers. Many corrections say no subject at all: the assistant says "I've booked
you the 14:30 slot." and the user answers "No wait, make it 16:15", "Thursday, not Tuesday" or
"actually 3 of us". Kept alone, such a line says nothing, and the stale statement it corrects
stays in the summary as the only one that says what the value is about.

:func:`link_bare_corrections` links them. A new fact (not a tool result) is a **bare
correction** of an earlier one, its **antecedent**, when:

- it says it corrects something: a correction word (:data:`~.lexicon.CORRECTION_WORDS`:
  "actually", "instead", "scratch"...), "no", "not", "wait", or "make it" / "make that";
- its values (:func:`value_kinds`: times, dates, weekdays, amounts, counts, names) bring a new
  value of exactly one kind, exactly one such value ("Thursday, not Tuesday" brings Thursday;
  "no, 5 is fine" after "5 people" brings nothing and accepts);
- the antecedent is the latest earlier fact (either speaker's, not a tool result's) with a
  value of that kind, and has exactly one value of it: "Is 14:30 or 16:15 better?" followed by
  "no, make it 17:00" is ambiguous and nothing is linked;
- the correction names nothing the antecedent does not: its content words, values and a
  closed class of correction phrasing ("wait", "make", "meant"...) aside, are all the
  antecedent's ("Actually I have 3 kids" after "2 lamps ship Monday" names the kids: a new
  fact, not a correction). When the antecedent is not in the message just before (a fact of
  another message lies between, or it comes from an earlier summary), the correction must
  also share a content word with it ("actually the delivery is Thursday"): "Thursday, not
  Tuesday" is only read against the message before it.

A linked correction is written with what it corrects, the stale statement first so that a
reader meets the new value after it::

    - user: correcting assistant's "I've booked you the 14:30 slot.": No wait, make it 16:15

and cites both messages; the antecedent's own line is dropped (its ids recorded in
``"supersedes"``, see :mod:`.supersede`). A later bare correction of that line replaces it
with the same quoted statement and its own words (a chain of corrections keeps the first
statement and the latest value). When the joined line would be longer than ``max_chars``,
the antecedent is only marked (kept only beside the correction, ranked below it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from summem.summarizers.extractive.facts import content_words, digit_words, tokenize
from summem.summarizers.extractive.lexicon import (
    CORRECTION_WORDS,
    EMPTY_WORDS,
    INTERJECTIONS,
    MONTH_WORDS,
    MONTH_WORDS_WITH_DIGIT,
)
from summem.summarizers.extractive.selection import Fact, bound_ids
from summem.summarizers.extractive.supersede import mark

__all__ = ["link_bare_corrections", "may_correct", "value_kinds"]

_CUES = CORRECTION_WORDS | frozenset(("no", "nope", "not", "wait", "scratch"))
"""Words by which a short statement says it corrects what was said before."""
_CUE_RE = re.compile(r"\b(?:make|change|switch|move) (?:it|that)\b", re.IGNORECASE)
_PHRASING = frozenset(
    (
        *("wait", "make", "let", "lets", "let's", "go", "put", "switch", "move", "meant"),
        *("mean", "like", "want", "prefer", "hold", "set", "change", "it's", "that's"),
        *("instead", "hmm", "um"),
    )
)
"""Words a correction is phrased with that name nothing it is about."""
_WEEKDAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)
_COUNT_WORDS = frozenset(
    ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
)
_MONTHS = "|".join(sorted(MONTH_WORDS | MONTH_WORDS_WITH_DIGIT, key=len, reverse=True))
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("time", re.compile(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE)),
    (
        "date",
        re.compile(
            rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?(?: of)? (?:{_MONTHS})\b"
            rf"|\b(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "amount",
        re.compile(
            r"[£$€]\s?\d[\d,]*(?:\.\d+)?k?\b"
            r"|\b\d[\d,]*(?:\.\d+)?k? ?(?:pounds|dollars|euros|usd|eur|gbp|quid|bucks)\b",
            re.IGNORECASE,
        ),
    ),
)
_COUNT_RE = re.compile(r"(?<![\w.,:/£$€-])\d{1,3}(?![\w.,:/%-]|[.,]\d)")
_NAME_RE = re.compile(r"(?<=[\w,;] )[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")
_NOT_NAMES = frozenset(("i", "i'm", "i'll", "i've", "i'd")) | _WEEKDAYS
_PLAIN_WORDS = EMPTY_WORDS | INTERJECTIONS | CORRECTION_WORDS | _CUES | _PHRASING
_COMBINED_RE = re.compile(r'^correcting (?P<who>[^"]{1,40})\'s "(?P<old>.*)": (?P<own>.*)$')
_IN_REPLY = ", in reply to"
_BARE_WORDS = 8
"""The longest sentence that scored nothing taken as a possible bare correction."""
_NOT_RE = re.compile(r"\bnot (?:on |at |for |the )?[\w:./£$€-]+", re.IGNORECASE)


def value_kinds(text: str, leading_name: bool = False) -> dict[str, frozenset[str]]:
    """The values ``text`` states, by kind: time, date, weekday, amount, count, name.

    Times, dates and amounts are read first; the bare numbers left are counts ("3 of us",
    "a table for 2"), with the number words two to twelve; a capitalised word inside a
    sentence is a name unless it is a weekday or a month. With ``leading_name``, so is a
    capitalised first word that is no function, filler or correction word ("Oluwaseun
    instead.": a correction says the name first).
    """
    found: dict[str, set[str]] = {}
    rest = text
    for kind, pattern in _KINDS:
        for match in pattern.findall(rest):
            found.setdefault(kind, set()).add(re.sub(r"\s+", "", match.lower()))
        rest = pattern.sub(" ", rest)
    words = tokenize(rest)
    weekdays = {w for w in words if w in _WEEKDAYS}
    counts = set(_COUNT_RE.findall(rest)) | {w for w in words if w in _COUNT_WORDS}
    months = {w.lower() for w in re.findall(rf"\b(?:{_MONTHS})\b", rest, re.IGNORECASE)}
    names = {
        n.lower()
        for n in _NAME_RE.findall(rest)
        if n.lower() not in _NOT_NAMES and n.lower() not in months
    }
    first = re.match(r"\s*([A-Z][a-z]+)\b", rest)
    if leading_name and first is not None:
        word = first.group(1).lower()
        if word not in _NOT_NAMES and word not in months and word not in _PLAIN_WORDS:
            names.add(word)
    for kind, values in (("weekday", weekdays), ("count", counts), ("name", names)):
        if values:
            found[kind] = values
    return {k: frozenset(v) for k, v in found.items()}


def may_correct(sentence: str) -> bool:
    """Whether a sentence that scored nothing may be a bare correction ("Scratch that, nine.").

    Short, with a correction cue and a value; it is kept only if it is linked
    (:func:`link_bare_corrections`).
    """
    return (
        len(tokenize(sentence)) <= _BARE_WORDS
        and _cued(sentence)
        and bool(value_kinds(_asserted(sentence), leading_name=True))
    )


def link_bare_corrections(facts: Sequence[Fact], max_chars: int = 280) -> int:
    """Link each bare correction to its antecedent (see the module docstring).

    Returns how many antecedents were dropped (written into their correction's line).
    """
    dropped = 0
    ordered = sorted(facts, key=lambda f: f.order)
    for at, fact in enumerate(ordered):
        found = _link(ordered[:at], fact)
        if found is None:
            if fact.bare:
                fact.state = 2  # scored nothing alone and corrects nothing here
            continue
        older, speaker, quoted = found
        body = f'correcting {quoted[0]}\'s "{quoted[1]}": {quoted[2]}'
        if len(body) + len(speaker) + 4 > max_chars or not older.ids:
            mark(older, fact)
            continue
        older.state = 2
        dropped += 1
        fact.line = f"- {speaker}: {body}"
        fact.words = content_words(words=tokenize(fact.line[2:]))
        fact.digits = digit_words(fact.words)
        fact.cost = None
        ids = list(older.ids) + [i for i in fact.ids if i not in older.ids]
        fact.ids, fact.more = bound_ids(ids, fact.more + older.more)
        fact.priority = max(fact.priority, older.priority)
        for i in (*older.ids, *older.supersedes):
            if i not in fact.supersedes and i not in fact.ids:
                fact.supersedes.append(i)
    return dropped


def _link(earlier: Sequence[Fact], fact: Fact) -> tuple[Fact, str, tuple[str, str, str]] | None:
    """What ``fact`` corrects, its speaker and what to quote, if it is a bare correction."""
    if fact.order[0] != 2 or fact.state == 2 or fact.supersedes or fact.marks:
        return None
    speaker, own = _parts(fact)
    if speaker is None or speaker == "tool" or not _cued(own):
        return None
    found = _antecedent(earlier, fact, own)
    if found is None:
        return None
    quoted = _quoted(found[0], own, found[1])
    return None if quoted is None else (found[0], speaker, quoted)


def _parts(fact: Fact) -> tuple[str | None, str]:
    """The fact's speaker and its own words (a joined line's antecedent left out)."""
    if not fact.line.startswith("- "):
        return None, ""
    speaker, sep, body = fact.line[2:].partition(": ")
    if not sep:
        return None, ""
    combined = _COMBINED_RE.match(body)
    if combined:
        return speaker, combined.group("own")
    return speaker, body.partition(_IN_REPLY)[0]


def _quoted(older: Fact, own: str, kind: str) -> tuple[str, str, str] | None:
    """Who said the statement ``own`` corrects, that statement, and the correction to write.

    A joined correction (a chain) gives its quoted statement; its own words stay when they
    corrected a value of another kind ("Thursday, not Friday; actually 3 of us").
    """
    speaker, sep, body = older.line[2:].partition(": ")
    if not sep or not older.line.startswith("- "):
        return None
    combined = _COMBINED_RE.match(body)
    if combined is None:
        return speaker, body, own
    before = combined.group("own")
    if value_kinds(_asserted(before)).get(kind):
        return combined.group("who"), combined.group("old"), own
    return combined.group("who"), combined.group("old"), f"{before.rstrip(' .;')}; {own}"


def _cued(own: str) -> bool:
    return not _CUES.isdisjoint(tokenize(own)) or _CUE_RE.search(own) is not None


def _antecedent(earlier: Sequence[Fact], fact: Fact, own: str) -> tuple[Fact, str] | None:
    """The fact ``fact`` corrects and the kind of value corrected; None if unclear."""
    kinds = value_kinds(_asserted(own), leading_name=True)
    if not kinds:
        return None
    for older in reversed(earlier):
        if older.state == 2 or older.order[0] == 0:
            continue
        theirs = _stated(older)
        if theirs is None:
            continue
        shared = [k for k in kinds if theirs.get(k)]
        if not shared:
            continue
        if len(shared) > 1:
            return None  # values of two kinds said before: which one it corrects is unclear
        kind = shared[0]
        new = kinds[kind] - theirs[kind]
        if len(theirs[kind]) != 1 or len(new) != 1 or older.corrected_by is not None:
            return None
        if any(kinds[k] - theirs.get(k, frozenset()) for k in kinds if k != kind):
            return None  # a new value of another kind too: more than a correction
        said = older.line[2:].partition(": ")[2]
        if not _about(own, said, _adjacent(earlier, older, fact)):
            return None
        return older, kind
    return None


def _asserted(text: str) -> str:
    """``text`` without the values it denies ("Thursday, not Tuesday" asserts Thursday)."""
    return _NOT_RE.sub(" ", text)


def _stated(fact: Fact) -> dict[str, frozenset[str]] | None:
    """The values a fact states now, by kind; None for a tool result or an unreadable line.

    A joined correction states its quoted statement's values, those of the kinds it
    corrected replaced by its own.
    """
    speaker, own = _parts(fact)
    if speaker is None or speaker == "tool":
        return None
    combined = _COMBINED_RE.match(fact.line[2:].partition(": ")[2])
    if combined is None:
        return value_kinds(own)
    return {**value_kinds(combined.group("old")), **value_kinds(_asserted(own))}


def _about(own: str, said: str, adjacent: bool) -> bool:
    """Whether the correction names nothing ``said`` does not (and shares a word, if far).

    Its values, the ones it denies too, are not words it names.
    """
    values = {w for v in value_kinds(own, True).values() for x in v for w in tokenize(x)}
    theirs = set(tokenize(said))
    mine = {
        w
        for w in tokenize(own)
        if w not in values and w not in EMPTY_WORDS and w not in _CUES and w not in _PHRASING
    }
    if not mine <= theirs:
        return False
    return adjacent or bool(mine)


def _adjacent(earlier: Sequence[Fact], older: Fact, fact: Fact) -> bool:
    """Whether ``older`` comes from the message just before ``fact``'s (or from the same one).

    Across a reduction, the previous summary's last line counts as the message before the
    span's first one.
    """
    said = [f for f in earlier if not f.line.startswith("- tool: ")]
    if older.order[0] == 1:
        last_old = max((f.order for f in said if f.order[0] == 1), default=None)
        first_new = min((f.order[1] for f in said if f.order[0] == 2), default=fact.order[1])
        return older.order == last_old and first_new >= fact.order[1]
    if older.order[0] != 2:
        return False
    between = {f.order[1] for f in said if f.order[0] == 2 and f.order > older.order}
    return not {p for p in between if older.order[1] < p < fact.order[1]}
