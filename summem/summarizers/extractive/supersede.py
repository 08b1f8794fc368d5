"""Superseded facts: a later statement of the same thing with a new value replaces the older.

"My budget for the new sofa is 1879 pounds", later "actually my budget is now 2300": a memory
that keeps both, or only the first, answers wrongly. Before selection, the extractive
summarizer walks its candidates in conversation order (the previous summary's first) and drops
each fact that a later one from the same speaker restates with a different value; the later
fact records the ids of what it replaced (provenance ``"supersedes"``) and ranks at least as
high as it did, so a correction is never lost where the stale value would have been kept.

A later fact replaces an earlier one when it says it corrects or updates something
(``actually``, ``now``, ``instead``, ``changed``, ``moved to``...) and, values aside, adds no
content word to the earlier one's: it may leave words out ("actually my budget is now 2300"
after "my budget for the new sofa is 1879") but not name something the earlier one does not
("my budget for the tent is now 8882" never replaces "my budget for the headlamps is 7919").
A clause that only announces the correction ("Change of plan:", "I made a mistake,") is not
part of the subject. Without a correction word nothing is replaced: "Room 12 is booked" and
"Room 14 is booked", or a run of 5 miles one day and of 7 the next, are two facts. A
correction that fits several earlier facts about different things ("my budget is now 900"
after the tent's budget and the stove's) replaces none of them.

A value is a number, an amount, a date or a time (words with digits and no letters, and month
names), or a name (a capitalised word inside the sentence: "the plumber is Dev Okafor", then
"sorry, the plumber is Ines Baptiste"). Identifiers (``BW-58214-K``) are not values but
subjects: two facts naming different identifiers are about different things and never
replace each other (order BW-1 shipped, order BW-2 delayed). A reply kept with the other
speaker's sentence it answers ("..., in reply to assistant: Is the delivery still on 7 May?")
is read whole, the quote included: a correction of the quoted value replaces it, so the
stale value goes, and with it the reply's own words (reading the reply's own words only kept
them, but left the quoted stale value in the summary: blind2-revisions after 10 reductions
0.898 -> 0.874 at 2,000, 20 seeds; dropping only the quote is not built). Tool results are
left alone: each is an observation of its own call.

When the evidence is weaker, the older fact is **marked** rather than dropped: a later fact of
the same speaker with other values that either says it corrects something and shares most of
the older one's subject, or says exactly the same subject with no correction word ("Room 12 is
booked for the workshop", later "Room 14 is booked for the workshop") from its third
statement on: said twice with two values, it may be two things (two contacts, two bookings;
marking from the second statement cost 0.02 of the plain family's facts at the end), said
three times or more it is a running status (a balance, a sync report) and only the latest
statement is current (not marking at all cost 0.05 of the held-out family's facts at
4,000 tokens, 10 seeds, the stale statements crowding out other facts). The older fact's
priority is halved, the later one ranks above what the older one was worth, and the older one
is only ever kept beside it (:attr:`Fact.corrected_by`; the link is recorded in provenance as
``"marks"`` and restored on the next round): when room runs out the correction is kept ahead of
the stale line, and a stale line is never the only one left.

Weaker still, with no link at all, **the older goes first**: two statements of the same
speaker said of one subject, each giving it a value of one shape the other lacks, trade
priorities when the older ranks higher, so when room runs out the later one is not the first
to go ("Venue deposit has gone up, they now want 3975", later "They knocked the venue deposit
down to 9881": neither replaces nor marks the other, each has words of its own). One subject:
at least two content words in common, names not counted (a person named in two statements is
what both are said of, not what is said: "Ana Costa's fee is 300", "Ana Costa's deadline for
the fee is 12 May"); the same shape of values (the same kinds: a time, another number, a
month, a code); and not two people in one frame (each names someone the other does not while
another kind of value differs too: "Ana's flight lands at 9:40", "Ben's flight lands at
11:20"). Nothing is dropped and nothing else moves (see ``docs-notes/fidelity-round6.md``,
"Supersession, fourth round").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from summem.summarizers.extractive.facts import tokenize
from summem.summarizers.extractive.lexicon import (
    CORRECTION_WORDS,
    MONTH_WORDS,
    MONTH_WORDS_WITH_DIGIT,
    STOPWORDS,
)
from summem.summarizers.extractive.selection import Fact

__all__ = ["CORRECTION_WORDS", "link_marks", "supersede"]


_CLAUSE_RE = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]+\s")
"""Where a sentence's clauses part: a comma, semicolon or colon before a space, or a dash."""
_VALUE_RE = re.compile(r"^[\d.,:/-]*\d[\d.,:/-]*(?:st|nd|rd|th|am|pm|k|m)?$")
_NAME_RE = re.compile(r"(?<=[\w,;] )[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")
"""A capitalised word (or run of them) inside a sentence: a name, a value like a number."""
_COMMON = 0.2
"""Share of a round's statements a word may be in and still name a subject."""
_COMMON_MIN = 4
"""A word in at most this many statements is never too common to name a subject."""
_NOT_NAMES = frozenset(("i", "i'm", "i'll", "i've", "i'd"))
_STALE = 0.5
"""What a marked (probably stale) fact keeps of its priority."""
_LEAD = 0.01
"""How far a probable correction ranks above what the fact it marks was worth."""
_SOFT_OVERLAP = 0.5
"""Share of a correction's subject words the older fact must mention to be marked by it."""
_SAME_SUBJECT_WORDS = 3
"""Without a correction word, an identical subject of at least this many words marks."""
_RESTATED = 3
"""Without a correction word, a subject is marked only from its third statement on."""
_SHARED = 2
"""Content words two statements must share to be said of one subject (:func:`_latest_first`)."""


@dataclass(frozen=True)
class _Slot:
    speaker: str
    subject: frozenset[str]
    """Content words of the clauses that say the fact (not of one announcing a correction)."""
    mentioned: frozenset[str]
    """Content words of the whole sentence."""
    ids: frozenset[str]
    values: frozenset[str]
    correcting: bool
    names: frozenset[str] = frozenset()
    """Words of the capitalised names among ``values``."""
    capitals: frozenset[str] = frozenset()
    """Words of every capitalised word inside the sentence, in any script ("José Müller"):
    :data:`_NAME_RE` reads ASCII names only, and a name is not what a value is said of."""


def supersede(facts: Sequence[Fact]) -> int:
    """Drop (``state = 2``) every fact a later one replaces; return how many were dropped.

    ``facts`` are the candidates of one summary: previous-summary facts and the new span's.
    The later fact's ``supersedes`` gets the ids of what it replaced (and of what that had
    replaced). Must-keep items and tool results are never dropped nor used to drop.
    """
    dropped = 0
    slots: list[tuple[Fact, _Slot]] = []
    for fact in sorted(facts, key=lambda f: f.order[:2]):
        slot = _slot(fact)
        if slot is None:
            continue
        replaced = [(o, s) for o, s in slots if o.state != 2 and _replaces(slot, s)]
        if any(_apart(a, b) for i, (_, a) in enumerate(replaced) for _, b in replaced[:i]):
            replaced = []  # it fits facts about different things: which one is unclear
        for older, _old_slot in replaced:
            older.state = 2
            dropped += 1
            fact.priority = max(fact.priority, older.priority)  # it inherits what it replaced
            for i in (*older.ids, *older.supersedes):
                if i not in fact.supersedes:
                    fact.supersedes.append(i)
        if not replaced:
            marked = [(o, s) for o, s in slots if o.state != 2 and _marks(slot, s)]
            if marked and not any(_apart(marked[-1][1], b) for _, b in marked[:-1]):
                if slot.correcting:
                    _mark(marked[-1][0], fact)  # the latest statement of it, if it is clear
                elif len(marked) >= _RESTATED - 1:  # a running status: only the latest is current
                    for older, _s in marked:
                        _mark(older, fact)
        slots.append((fact, slot))
    _latest_first(slots)
    return dropped


def _latest_first(slots: Sequence[tuple[Fact, _Slot]]) -> None:
    """Of two statements of one subject with other values, the older goes first.

    When room runs out a carried line competes on the score it was given when new, and a
    correction said in fewer or plainer words ("They knocked the venue deposit down to 9881")
    often scores below the statement it replaced ("Venue deposit has gone up, they now want
    3975"): the correction was evicted while the stale line stayed. No link says which value
    is current; only that the two lines are said of one subject (:func:`_same_subject`), so
    the later one should not be the first to go. The pair trades priorities (the later takes
    the higher): nothing else in the summary moves up or down, only the order within the pair.
    """
    kinds = [_kinds(slot) for _, slot in slots]
    common = _common_words([slot for _, slot in slots])
    for i, (newer, new) in enumerate(slots):
        if newer.state == 2:
            continue
        for j, (older, old) in enumerate(slots[:i]):
            if older.state == 2 or older.priority <= newer.priority:
                continue
            if _same_subject(new, old, kinds[i], kinds[j], common):
                older.priority, newer.priority = newer.priority, older.priority


def _kinds(slot: _Slot) -> dict[str, frozenset[str]]:
    """A fact's values by kind: a time, another number, a month, a name, a code."""
    months = frozenset(v for v in slot.values if v in MONTH_WORDS or v in MONTH_WORDS_WITH_DIGIT)
    names = slot.names - months  # "due 12 June": a month inside a sentence is capitalised too
    numbers = slot.values - names - months
    times = frozenset(v for v in numbers if ":" in v or v.endswith(("am", "pm")))
    return {
        "time": times,
        "number": frozenset(v for v in numbers - times if any(c.isdigit() for c in v)),
        "month": months | frozenset(v for v in numbers if not any(c.isdigit() for c in v)),
        "name": names,
        "code": slot.ids,
    }


def _common_words(slots: Sequence[_Slot]) -> frozenset[str]:
    """Words in too many of a round's statements to name what one of them is said of.

    The stopword list is English: in another language "de", "la", "und" are content words
    to :func:`_slot`, and two statements sharing them are not one subject. Counting how many
    statements say a word needs no word list: a function word of any language, or a name
    said all session long, is in many; a subject restated is in a few.
    """
    seen: dict[str, int] = {}
    for slot in slots:
        for w in slot.mentioned:
            seen[w] = seen.get(w, 0) + 1
    limit = max(_COMMON_MIN, _COMMON * len(slots))
    return frozenset(w for w, n in seen.items() if n > limit)


def _same_subject(
    new: _Slot,
    old: _Slot,
    a: dict[str, frozenset[str]],
    b: dict[str, frozenset[str]],
    common: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``new`` gives the subject of ``old`` another value (see the module docstring).

    Names are left out of the shared words: the stale3 rule counted them and paired two
    statements about one person (a deadline and a fee), pushing a live fact down on held-out
    families that name people often.
    """
    if new.speaker != old.speaker:
        return False
    shared = (new.mentioned & old.mentioned) - new.capitals - old.capitals - common
    if len(shared) < _SHARED:
        return False
    shape = [k for k in a if k != "name"]
    if any(bool(a[k]) != bool(b[k]) for k in shape):
        return False  # a date and an amount are not one value said again
    differ = {k for k in a if a[k] - b[k] and b[k] - a[k]}
    if "name" in differ and differ - {"name"}:
        return False  # two people, each with a value: one frame said of two subjects
    return bool(differ)


def link_marks(facts: Sequence[Fact]) -> None:
    """Restore the links recorded as ``"marks"`` by a previous round (see :func:`_mark`)."""
    for fact in facts:
        if not fact.marks:
            continue
        marks = set(fact.marks)
        for other in facts:
            if other is not fact and other.corrected_by is None and marks & set(other.ids):
                other.corrected_by = fact


def _mark(older: Fact, newer: Fact) -> None:
    """``newer`` probably corrects ``older``: it ranks above it, and ``older`` needs it."""
    if older.corrected_by is not None or older is newer:
        return
    newer.priority = max(newer.priority, older.priority + _LEAD)
    older.priority *= _STALE
    older.corrected_by = newer
    for i in older.ids:
        if i not in newer.marks and i not in newer.ids:
            newer.marks.append(i)


def _slot(fact: Fact) -> _Slot | None:
    if fact.order[0] == 0 or fact.state:
        return None
    speaker, sep, body = fact.line[2:].partition(": ")
    if not sep or speaker == "tool":
        return None
    clauses = [tokenize(c) for c in _CLAUSE_RE.split(body)]
    words = [w for c in clauses for w in c]
    numbers = {w for w in words if _VALUE_RE.match(w)}
    months = {w for w in words if w in MONTH_WORDS}
    if not numbers:  # "I may go", "the march": a month word alone is not a date
        months -= MONTH_WORDS_WITH_DIGIT
    names = {w for m in _NAME_RE.findall(body) for w in tokenize(m)} - _NOT_NAMES
    values = frozenset(numbers | months | names)
    if not values:
        return None
    ids = frozenset(w for w in words if any(c.isdigit() for c in w) and w not in values)

    def content(chosen: list[list[str]]) -> frozenset[str]:
        return frozenset(
            w
            for c in chosen
            for w in c
            if w not in values and w not in ids and w not in STOPWORDS and w not in CORRECTION_WORDS
        )

    # "Change of plan: ...", "I made a mistake, ...": a clause with a correction word and
    # no value announces the correction; the subject is in the other clauses.
    told = [c for c in clauses if CORRECTION_WORDS.isdisjoint(c) or not values.isdisjoint(c)]
    mentioned = content(clauses)
    subject = content(told) or mentioned
    correcting = not CORRECTION_WORDS.isdisjoint(words)
    capitals = _capitals(body)
    return _Slot(
        speaker,
        subject,
        mentioned,
        ids,
        values,
        correcting,
        frozenset(names),
        capitals,
    )


def _capitals(body: str) -> frozenset[str]:
    """Words of the capitalised words of ``body``, in any script (see :attr:`_Slot.capitals`).

    A capitalised word opening a sentence is one only when the next word is capitalised too
    ("Ana Costa booked ..."): "The", "Venue" open sentences as often as names do.
    """
    words = body.split()
    found: set[str] = set()
    for i, word in enumerate(words):
        if not word[0].isupper():
            continue
        opening = i == 0 or words[i - 1][-1] in ".!?:"
        if not opening or (i + 1 < len(words) and words[i + 1][0].isupper()):
            found.update(tokenize(word))
    return frozenset(found - _NOT_NAMES)


def _replaces(new: _Slot, old: _Slot) -> bool:
    """Whether ``new`` restates ``old`` with a new value (see the module docstring).

    Every subject word of the new fact must be in the old one: a word of its own names
    something else ("my budget for the tent is now 8882 pounds" after "my budget for the
    headlamps is 7919 pounds"). The announcing clause may add words ("Change of plan:") but
    not while the old fact has words of its own too ("Actually for the tent, my budget is
    now 900" after the headlamps' budget: two things). When in doubt nothing is replaced: a
    stale fact followed by its correction misleads less than a fact lost to another one's
    correction.
    """
    if new.speaker != old.speaker or new.ids != old.ids or new.values <= old.values:
        return False
    if not new.correcting or not new.subject or not old.subject:
        return False
    return new.subject <= old.mentioned and not _apart(new, old)


def _marks(new: _Slot, old: _Slot) -> bool:
    """Whether ``new`` probably restates ``old`` with other values (see the module docstring)."""
    if new.speaker != old.speaker or new.ids != old.ids or new.values <= old.values:
        return False
    if not new.subject or not old.subject:
        return False
    if new.subject - old.mentioned and old.subject - new.mentioned:
        return False  # each names something the other does not: two things
    if new.correcting:
        return len(new.subject & old.mentioned) >= _SOFT_OVERLAP * len(new.subject)
    return new.subject == old.subject and len(new.subject) >= _SAME_SUBJECT_WORDS


def _apart(a: _Slot, b: _Slot) -> bool:
    """Whether two facts are about different things: each has a content word the other lacks."""
    return bool(a.mentioned - b.mentioned) and bool(b.mentioned - a.mentioned)
