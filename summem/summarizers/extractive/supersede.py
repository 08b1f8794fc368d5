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

A correction that denies the old value by name ("Sorry, it's Zofia now, not Sofia", "8pm, not
7pm", "2500 instead of 3000") often has no subject words at all; :func:`negated` marks every
earlier statement holding the denied value and none of the new ones; so does a sentence saying
a name changed ("Sofia goes by Zofia now"), for the old name
(``docs-notes/fidelity-round10-chains.md``).

A correction said with nothing but its value ("Scratch that, five.", "Hmm, Oluwaseun
instead.") names no subject at all; :func:`bare_correction` reads it and
:func:`replaced_values` finds the statement it revises, and the summarizer puts the two on one
line that marks the statement (``docs-notes/fidelity-round11-chains.md``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from summem.summarizers.extractive.facts import tokenize
from summem.summarizers.extractive.lexicon import (
    CORRECTION_WORDS,
    EMPTY_WORDS,
    FIRST_PERSON,
    INTERJECTIONS,
    MONTH_WORDS,
    MONTH_WORDS_WITH_DIGIT,
    STOPWORDS,
)
from summem.summarizers.extractive.scripts import embedded_values
from summem.summarizers.extractive.selection import Fact

__all__ = [
    "CORRECTION_WORDS",
    "bare_correction",
    "holds_value",
    "link_marks",
    "mark",
    "negated",
    "relayed_changes",
    "replaced_values",
    "supersede",
    "value_words",
]


_CLAUSE_RE = re.compile(r"[,;:]\s+|\s[-\u2013\u2014]+\s")
"""Where a sentence's clauses part: a comma, semicolon or colon before a space, or a dash."""
_VALUE_RE = re.compile(r"^[\d.,:/-]*\d[\d.,:/-]*(?:st|nd|rd|th|am|pm|k|m)?$")
_NAME_RE = re.compile(r"(?<=[\w,;] )[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")
"""A capitalised word (or run of them) inside a sentence: a name, a value like a number."""
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

_TIME_RE = re.compile(r"^\d{1,2}(?::\d\d|[.:]?\d\d?(?:am|pm)|am|pm)$")
_ORDINAL_RE = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")
_MONTHS = MONTH_WORDS | MONTH_WORDS_WITH_DIGIT
_CHANGE_WORDS = frozenset(
    (
        *("new", "another", "latest", "last", "final", "old", "previous", "earlier", "original"),
        *("reset", "reissued", "shifted", "switch", "switched", "swapped", "bumped", "pushed"),
        *("knocked", "dropped", "became", "become", "becomes", "went"),
    )
)
"""Words that say a value changed, or which of its versions a statement gives."""
_NEGATIONS = (
    ("not",),
    ("isn't",),
    ("wasn't",),
    ("aren't",),
    ("weren't",),
    ("no", "longer"),
    ("instead", "of"),
    ("rather", "than"),
)
"""Words that say the value right after them is not (or no longer) the one: "Zofia, not Sofia"."""
_NEGATION_GAP = 2
"""Stopwords a negation may put between itself and the value it denies ("not at 7pm")."""
_COMMON_CAPITALISED = STOPWORDS | INTERJECTIONS | CORRECTION_WORDS | FIRST_PERSON | _NOT_NAMES
"""Words capitalised at a sentence's start that are not names ("Sorry", "Actually", "It's")."""
_LIGHT_WORDS = frozenset(
    (
        *("make", "made", "makes", "mean", "meant", "said", "say", "says", "typo", "got", "put"),
        *("let's", "one", "ones", "should", "would", "could", "thing", "things", "instead"),
        *("rather", "longer"),
    )
)
_NOT_ABOUT = _COMMON_CAPITALISED | _CHANGE_WORDS | _LIGHT_WORDS
"""Words a correction is said with that tell nothing of what it corrects ("make that 8pm")."""
_RENAME_WORDS = frozenset(
    (
        *("name", "names", "renamed", "rename", "surname", "nickname", "spelled", "spelt"),
        *("spelling", "married", "maiden", "née"),
    )
)
"""Words that say a name changed: with an old name and a new one, the old one is denied."""
_GOES_BY_RE = re.compile(r"\b(?:goes|go|going|went) by\b", re.IGNORECASE)
"""'Sofia goes by Zofia now': a rename said without a rename word."""
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
_NUMBER_WORDS = frozenset(
    (
        *("zero", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
        *("eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "hundred"),
    )
)
"""Numbers written as words: "Scratch that, five" gives a number as "five people" held one.
Not "one": "the last one", "that one" point at an item."""
_REVISING = CORRECTION_WORDS | _CHANGE_WORDS | frozenset(("wait", "make", "scratch"))
"""Words by which a bare value says it revises one said before ("No wait, make it 16:15")."""
_BARE_WORDS = 8
"""A bare correction is shorter than this many words."""
_WORD_CASE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.:@+/-]*[A-Za-z0-9]|[A-Za-z0-9]")
"""A word with its case, a time ("10:30") or a date ("3/4") as one word."""


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
    """Capitalised words among the values."""
    foreign: frozenset[str] = frozenset()
    """Words of another script among the values (:func:`.scripts.embedded_values`)."""


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
    return dropped


def link_marks(facts: Sequence[Fact]) -> None:
    """Restore the links recorded as ``"marks"`` by a previous round (see :func:`_mark`)."""
    for fact in facts:
        if not fact.marks:
            continue
        marks = set(fact.marks)
        for other in facts:
            if other is not fact and other.corrected_by is None and marks & set(other.ids):
                other.corrected_by = fact


def mark(older: Fact, newer: Fact) -> None:
    """``newer`` probably corrects ``older``: see :func:`_mark`."""
    _mark(older, newer)


def _mark(older: Fact, newer: Fact, lift: bool = True) -> None:
    """``newer`` probably corrects ``older``: it ranks above it, and ``older`` needs it.

    Not ``lift``: ``newer`` keeps its own rank (``older`` is still halved and kept only
    beside it). A speaker's change read by :func:`relayed_changes` is not lifted: lifted,
    it cost held-out ``heldout`` 0.022 after 10 reductions at 2,000 tokens (20 seeds).
    """
    if older.corrected_by is not None or older is newer:
        return
    if lift:
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
    foreign = embedded_values(words)
    values = frozenset(numbers | months | names | foreign)
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
    return _Slot(speaker, subject, mentioned, ids, values, correcting, frozenset(names), foreign)


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
    if not new.correcting or not new.subject or not old.subject or _two_changed(new, old):
        return False
    return new.subject <= old.mentioned and not _apart(new, old)


def _marks(new: _Slot, old: _Slot) -> bool:
    """Whether ``new`` probably restates ``old`` with other values (see the module docstring)."""
    if new.speaker != old.speaker or new.ids != old.ids or new.values <= old.values:
        return False
    if not new.subject or not old.subject or _two_changed(new, old):
        return False
    if new.subject - old.mentioned and old.subject - new.mentioned:
        return False  # each names something the other does not: two things
    if new.correcting:
        return len(new.subject & old.mentioned) >= _SOFT_OVERLAP * len(new.subject)
    return new.subject == old.subject and len(new.subject) >= _SAME_SUBJECT_WORDS


def _two_changed(new: _Slot, old: _Slot) -> bool:
    """Whether the facts name other things and give other values: two things, not one changed.

    Read only where a value is written in another script (:func:`.scripts.embedded_values`):
    "The Shenzhen shipment moved to 2027年3月20日" does not replace "The Amman shipment moved
    to ١٩ حزيران ٢٠٢٧" (the words of the other script, read as subject words before, told
    the two apart; read as values, the towns were the only words left to).
    """
    if not (new.foreign or old.foreign) or not new.names or not old.names:
        return False
    if not new.names.isdisjoint(old.names):
        return False
    return bool(new.values - new.names - old.values) and bool(old.values - old.names - new.values)


def _apart(a: _Slot, b: _Slot) -> bool:
    """Whether two facts are about different things: each has a content word the other lacks."""
    return bool(a.mentioned - b.mentioned) and bool(b.mentioned - a.mentioned)


def _kind(word: str) -> str | None:
    if word in _MONTHS or _ORDINAL_RE.match(word):
        return "date"
    if not any(c.isdigit() for c in word):
        return None
    if _TIME_RE.match(word):
        return "time"
    if _VALUE_RE.match(word):
        return "date" if word.count("/") or word.count("-") == 2 else "number"
    return "code"


def negated(facts: Sequence[Fact], renames: bool = True) -> int:
    """Mark each statement a later one says is not the value any more; return how many.

    "Sorry, it's Zofia now, not Sofia", "make that 8pm, not 7pm", "2500 now, instead of
    3000": the later statement names the older value right after a negation and gives another
    value of the same kind (a name, a number, a time, a date, an identifier). Nothing else
    need be shared: such a correction often has no subject words at all, which is why
    :func:`supersede` and :func:`latest_first` miss it. Every earlier statement (not a tool
    result, not a must-keep item, not of the same message) that holds the denied value and
    none of the new ones is kept only beside the correction and ranks below it
    (:func:`_mark`): the correction holds both values, so keeping it never leaves the stale
    value alone, and a stale line never outlasts it. A denied name or month is held only
    where it is written capitalised ("June, not May" says nothing of "you may need a visa";
    "Grace, not Hope" nothing of "I hope"), and a number denied with nothing else said
    ("Sorry, 15 not 16") only by the latest statement holding it, not by every line where the
    number occurs ("my son is 16": review of round 10).

    ``renames`` (ablation ``renamed``): a statement that says a name changed (a word of
    :data:`_RENAME_WORDS`: "Sofia goes by Zofia now", "Ana Sousa is Ana Reis since the
    wedding, new surname") with a name said before and one never said before denies the old
    one the same way.
    """
    marked = 0
    everything = sorted(facts, key=lambda f: f.order[:2])
    ordered = [f for f in everything if _speaks(f)]
    seen: set[str] = set()  # every earlier line's words, tool results' too
    seen_names: set[str] = set()
    told = 0
    said: list[frozenset[str]] = []  # each statement's words, read once (not once a denial)
    capitals: list[frozenset[str]] = []  # of those, the ones written capitalised
    holding: dict[str, list[int]] = {}  # a word: the statements before this one holding it
    for at, fact in enumerate(ordered):
        while told < len(everything) and everything[told].order[:2] < fact.order[:2]:
            line = everything[told].line
            seen.update(w.lower() for w in _cased_words(line))
            seen_names.update(w for m in _NAME_RE.findall(line) for w in tokenize(m))
            told += 1
        body = fact.line[2:].partition(": ")[2]
        cased = _cased_words(body)
        words = frozenset(w.lower() for w in cased)
        said.append(words)
        capitals.append(frozenset(w.lower() for w in cased if w[:1].isupper()))
        if at:
            for w in said[at - 1]:
                holding.setdefault(w, []).append(at - 1)
        if fact.state == 2:
            continue
        denied = _denied(body)
        if renames:
            denied += _renamed(body, seen, seen_names)
        if not denied:
            continue
        # only the earlier statements holding a denied value: a pass over all of them for
        # each denial made a summary of 2,000 lines with one in each take 7.6 s, not 0.1 s
        holders = sorted({i for value, _new, _about in denied for i in holding.get(value, ())})
        latest = {  # a number denied with nothing else said: only its latest statement
            value: max(holding[value])
            for value, _new, about in denied
            if not about and holding.get(value) and any(c.isdigit() for c in value)
        }
        for i in holders:
            older, words = ordered[i], said[i]
            if older.state == 2 or older.ids[:1] == fact.ids[:1] or older.corrected_by:
                continue
            if any(
                value in (capitals[i] if value.isalpha() else words)
                and latest.get(value, i) == i
                and not replacing & words
                and (not about or about & words)
                for value, replacing, about in denied
            ):
                _mark(older, fact)
                marked += older.corrected_by is fact
    return marked


def _speaks(fact: Fact) -> bool:
    """Whether ``fact`` is a statement of a speaker (not a must-keep item or a tool result)."""
    speaker, sep, _body = fact.line[2:].partition(": ")
    return fact.order[0] != 0 and bool(sep) and speaker != "tool"


def _denied(body: str) -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """The values ``body`` denies, each with what its sentence gives instead and is about.

    Instead: the sentence's other values of the denied one's kind; about: :func:`_about`.
    """
    out: list[tuple[str, frozenset[str], frozenset[str]]] = []
    for sentence in _SENTENCE_END_RE.split(body.replace("\u2019", "'")):
        found = list(_WORD_CASE_RE.finditer(sentence))
        words = [m.group().lower() for m in found]
        kinds = [_value_kind(m.group(), w) for m, w in zip(found, words, strict=True)]
        denied: list[int] = []
        for i in range(len(words)):
            for negation in _NEGATIONS:
                end = i + len(negation)
                if tuple(words[i:end]) == negation:
                    denied.extend(_after(sentence, found, words, kinds, end))
        gone = {words[j] for j in denied}
        for j in denied:
            instead = frozenset(
                w for w, k in zip(words, kinds, strict=True) if k == kinds[j] and w not in gone
            )
            about = _about(words, kinds, kinds[j])
            if words and words[0] in instead and len(instead) > 1:
                # "Dinner on Friday is with Anna, not Tom": capitalised as the first word only
                instead, about = instead - {words[0]}, about | {words[0]}
            if instead:
                out.append((words[j], instead, about))
    return out


def _about(
    words: Sequence[str], kinds: Sequence[str | None], denied: str | None = "name"
) -> frozenset[str]:
    """What a denying sentence is about: its words that are neither values nor said of anything.

    "Dinner on Friday is with Anna, not Tom" is about dinner: an earlier statement holding
    "Tom" is marked only if it is about dinner too ("Tom's birthday is on the 3rd" is not a
    stale value of it), as "a table for 4, not 6" marks no line that counts 6 eggs. "Sorry,
    it's Zofia now, not Sofia" is about nothing but its values, so it marks any earlier
    statement holding the denied one.

    ``denied``: the kind of the value denied. A capitalised word is a name only against a
    name: "Dinner on Friday at 8pm, not 7pm" is about dinner on Friday as "dinner on friday at
    8pm, not 7pm" is, and marks no "spin class at 7pm every Thursday".
    """
    return frozenset(
        w
        for w, k in zip(words, kinds, strict=True)
        if (k is None or (k == "name" and denied != "name"))
        and len(w) > 2
        and w.isalpha()
        and w not in _NOT_ABOUT
    )


def _renamed(
    body: str, seen: set[str], seen_names: set[str]
) -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """The names a sentence saying a name changed gives up, each with the new ones it gives.

    The sentence has a rename word and says it changes something ("now", "new", "actually"),
    an old name (said as a name before) and a new one (never said before). "Put it under the
    name Priya Okonkwo" sets a name: no change word, nothing denied.
    """
    out: list[tuple[str, frozenset[str], frozenset[str]]] = []
    for sentence in _SENTENCE_END_RE.split(body.replace("\u2019", "'")):
        words = tokenize(sentence)
        if _RENAME_WORDS.isdisjoint(words) and not _GOES_BY_RE.search(sentence):
            continue
        if CORRECTION_WORDS.isdisjoint(words) and _CHANGE_WORDS.isdisjoint(words):
            continue
        names = {w for m in _NAME_RE.findall(sentence) for w in tokenize(m)} - _NOT_NAMES
        if words and words[0] in seen_names:  # "Sofia goes by Zofia now"
            names.add(words[0])
        new = frozenset(names - seen)
        if new:
            out.extend((old, new, frozenset()) for old in sorted(names & seen_names))
    return out


def _after(
    sentence: str, found: list[re.Match[str]], words: list[str], kinds: list[str | None], at: int
) -> list[int]:
    """The value right after a negation ending before word ``at``, within its clause."""
    for j in range(at, min(at + _NEGATION_GAP + 1, len(words))):
        if sentence[found[j - 1].end() : found[j].start()].strip(" £$€#"):
            return []  # a comma or a dash between: "not again, Long day"
        if kinds[j] is not None:
            return [j]
        if words[j] not in STOPWORDS:
            return []
    return []


def _cased_words(body: str) -> list[str]:
    return [w.rstrip(".:") for w in _WORD_CASE_RE.findall(body.replace("\u2019", "'"))]


def bare_correction(sentence: str) -> tuple[dict[str, str], frozenset[str]] | None:
    """The values a correction said with nothing else gives, with its other content words.

    "Scratch that, five.", "Hmm, Oluwaseun instead.", "No wait, make it 16:15.", "Sorry,
    change it to nine people.": short, a word that says it revises something, one value or
    more (a number, also written as a word, a time, a date, a name, an identifier: value ->
    kind), and besides them only words that say nothing of what is revised (interjections,
    correction words, "make it", "change it to") and at most one content word right after a
    value, returned ("people": its unit), which the statement it revises must hold. None for
    anything else: "No, five is fine" says no revision; "Door code changed again, it's 4471
    now" and "Sorry, the meeting moved to 11:15" say what they are about (:func:`supersede`
    reads those).
    """
    text = sentence.replace("\u2019", "'")
    found = [w.rstrip(".:") for w in _WORD_CASE_RE.findall(text)]
    words = [w.lower() for w in found]
    if not 0 < len(words) < _BARE_WORDS or _REVISING.isdisjoint(words):
        return None
    values: dict[str, str] = {}
    rest: set[str] = set()
    for at, (cased, word) in enumerate(zip(found, words, strict=True)):
        if not at:
            continue
        kind = "number" if word in _NUMBER_WORDS else _value_kind(cased, word)
        if kind is not None:
            values[word] = kind
        elif word not in _NOT_ABOUT and word not in EMPTY_WORDS and word not in _REVISING:
            if words[at - 1] not in values:
                return None  # "Sorry, the meeting moved to 11:15": what it is about
            rest.add(word)  # "nine people": the value's unit
    first = "number" if words[0] in _NUMBER_WORDS else _value_kind(found[0], words[0])
    known = words[0] in _NOT_ABOUT or words[0] in EMPTY_WORDS or words[0] in _REVISING
    if first is not None and (first != "name" or not (values or known)):  # "Oluwaseun instead."
        values[words[0]] = first
    elif words[0] not in _NOT_ABOUT and words[0] not in EMPTY_WORDS | _REVISING:
        return None  # "Door code changed again, it's 4471 now": what it is about
    if not values or len(rest) > 1:
        return None
    return values, frozenset(rest)


def replaced_values(values: dict[str, str], rest: frozenset[str], sentence: str) -> frozenset[str]:
    """The values of ``sentence`` a bare correction (:func:`bare_correction`) replaces.

    Those of a kind it gives another value of ("two" in "Done, your check-up is confirmed
    for two people" by "Scratch that, five"); none when ``sentence`` lacks a content word it
    has, or already holds every value it gives. A sentence's first word counts as a name only
    when it is no common capitalised word, as elsewhere.
    """
    found = [w.rstrip(".:") for w in _WORD_CASE_RE.findall(sentence.replace("\u2019", "'"))]
    words = [w.lower() for w in found]
    if not rest <= set(words) or set(values) <= set(words):
        return frozenset()
    kinds = {k for w, k in values.items() if w not in words}
    out: set[str] = set()
    for at, (cased, word) in enumerate(zip(found, words, strict=True)):
        kind = "number" if word in _NUMBER_WORDS else _value_kind(cased, word)
        if kind == "name" and at == 0:
            continue  # "Done, ...": capitalised as the first word
        if kind in kinds and word not in values:
            out.add(word)
    return frozenset(out)


def value_words(text: str) -> frozenset[str]:
    """``text``'s words as :func:`replaced_values` reads them ("14:00" one word, lowercased)."""
    return frozenset(w.lower() for w in _cased_words(text))


def holds_value(sentence: str) -> bool:
    """Whether ``sentence`` holds any value a bare correction could revise (see above)."""
    found = [w.rstrip(".:") for w in _WORD_CASE_RE.findall(sentence.replace("\u2019", "'"))]
    for at, cased in enumerate(found):
        word = cased.lower()
        kind = "number" if word in _NUMBER_WORDS else _value_kind(cased, word)
        if kind is not None and (kind != "name" or at > 0):  # "Done, ...": no name
            return True
    return False


def _value_kind(cased: str, word: str) -> str | None:
    """The kind of value a word is: a name (capitalised, not a common word), or see _kind."""
    kind = _kind(word)
    if kind is not None:
        return kind
    if cased[:1].isupper() and cased[1:].islower() and word not in _COMMON_CAPITALISED:
        return "name"
    return None


_PROSE_WORDS = 6
"""A tool result's field of at least this many words is prose (an email's body, a note)."""
_RELAY_SHARED = 2
"""Subject words a relayed change shares at least with the statement whose value it changes."""
_STEM = 5
"""Letters two subject words must share from their start to count as one ("renews" and
"renewal", "start" and "starts")."""


def relayed_changes(
    facts: Sequence[Fact],
    tools: bool = True,
    speakers: bool = True,
    borrow: bool = True,
    chains: bool = True,
    users: bool = True,
) -> int:
    """Mark the statement whose value a tool result's prose changes; return how many.

    "Your kitchen refit start date has been moved to 2 February 2027." in an email a search
    tool found, after the user's "The kitchen refit starts on October 8, 2028.": the change is
    relayed, written by someone else in words of their own, and :func:`supersede` leaves tool
    results alone (a record is an observation of its own call). A tool result's fields
    written as sentences (:data:`_PROSE_WORDS` words or more: an email's body, a booking's
    note) are read like a speaker's: a sentence that says it gives a new value (a correction
    or change word: "now", "moved", "new") holding exactly one value of a kind (a name, a
    number, a time, a date, a code) changes the earlier statement (a speaker's, or an earlier
    result's prose) holding exactly one other value of that kind with which it shares the
    most subject words, at least :data:`_RELAY_SHARED` (words alike in their first
    :data:`_STEM` letters count as one). That statement, and every other holding the same
    value as closely, is marked (:func:`_mark`): it ranks below the result and is kept only
    beside it. When statements holding different values fit as well (the venue's deposit and
    its balance for "your wedding venue payment is now 1800"), nothing is marked. Only a
    result of the new span is read, once: its link is restored from provenance later
    (:func:`link_marks`). Ablation name ``tool_changes``.

    ``speakers`` (ablation name ``spoken_changes``): a speaker's statement is read the same
    way, for a change said in other words than :func:`supersede` needs ("They knocked the
    venue deposit down to 1800." after "Venue deposit has gone up, they now want 2400.": each
    names something the other does not). Only the same speaker's statement is marked, and
    only one naming all but one of the change's subject words: the assistant's "so the
    deposit is now 1800 by my count" is not the user's change, and a speaker's statement
    naming two things the older one does not is about something else (without this guard,
    held-out blind2-revisions lost 0.069 at 4,000 tokens, 20 seeds). Nor is one whose change
    words it says already: "Parcel KZ358133 turned up, it was the wrong size of course." after
    the same words about another parcel is stock small talk, not a change (marked, it was
    counted as an update and outlasted a taste said once). Not guarded yet against
    another quantity of the same thing ("we've spent 4000 of the kitchen budget now" after
    "the kitchen budget is 9000").

    ``borrow`` (ablation name ``borrowed_subject``): a speaker often says what a change is
    about in the sentence before the one giving the value: "hmm the coach pickup time won't
    work after all. make it 16:30". Read alone, "make it 16:30" names nothing and fits no
    statement. When a speaker's sentence's own words fit none, it is read again with the
    words of the sentence before it in the same statement added, as one reading of the
    message would; the speaker guard above still reads only its own words (a reason said
    beside the change, "the cover rota clashes", names nothing the change is about). Not a
    sentence that denies ("please don't make it 16:30", "they offered 16:30 but I said no":
    :data:`_DENIALS`), and not a tool result's: an email's "Please note our new office
    opening time is 08:30." after a sentence about the coach is no change of the coach's time
    (the review of round 18), and a result has no speaker guard.

    ``chains`` (ablation name ``chain_ends``): when statements holding different values fit a
    change equally, which one it changes is unclear, unless the latest of them says in the
    sentence that fits that it gave a new value ("they've changed the coach pickup time to
    19:45" after "the coach pickup time: 16:15"): then the others are that chain's earlier
    states, and the change marks them all. Only where the fits share more than
    :data:`_RELAY_SHARED` subject words with the change ("the wedding venue payment is now
    1800" fits the venue's deposit and its balance by two words), and only where they name the
    same people or firms (none, or the same): Harwood's quote and Timber Direct's, Mia's
    appointment and Leo's, are two things whoever says "now".

    ``users`` (ablation name ``user_changes``): the user's change marks the assistant's
    statement too (what the assistant reported, "they've changed the pickup to 19:45", the
    user then changes: "make it 16:30"), when it names no subject word the assistant's
    statement lacks ("the return flight now departs at 18:10" is not the outbound flight)
    and denies nothing; the assistant's change still marks only its own.
    """
    ordered = sorted(facts, key=lambda f: f.order[:2])
    marked = 0
    for at, fact in enumerate(ordered):
        if fact.order[0] != 2 or fact.state == 2 or fact.marks or fact.supersedes:
            continue
        if not (tools if fact.line.startswith("- tool: ") else speakers):
            continue
        tool = fact.line.startswith("- tool: ")
        sentences = _prose(fact)
        for i, sentence in enumerate(sentences):
            kinds, subject = _typed(sentence)
            lowered = {w.lower() for w in _cased_words(sentence)}
            revising = _REVISING.intersection(lowered)
            if not revising:
                continue  # no word says the value is a new one
            denies = _denies(lowered)
            lend = borrow and i and not tool and not denies
            before = _typed(sentences[i - 1])[1] if lend else frozenset()
            how = _How(chains, users and not denies)
            for kind, values in kinds.items():
                if len(values) != 1:
                    continue
                earlier = ordered[:at]
                older = _relayed_to(fact, earlier, kind, values, subject, subject, revising, how)
                if not older and before - subject:  # what it is about, said just before
                    wider = subject | before
                    older = _relayed_to(fact, earlier, kind, values, wider, subject, revising, how)
                for old in older:
                    _mark(old, fact, lift=fact.line.startswith("- tool: "))
                    marked += old.corrected_by is fact
                if older:
                    break
    return marked


def _relayed_to(
    fact: Fact,
    earlier: Sequence[Fact],
    kind: str,
    values: set[str],
    subject: frozenset[str],
    own: frozenset[str],
    revising: frozenset[str],
    how: _How,
) -> list[Fact]:
    """The statements a change of ``fact`` marks (see :func:`relayed_changes`).

    ``subject`` is what the change fits by; ``own``, its sentence's own words, what the
    speaker guard reads.
    """
    older = _changed_by(earlier, kind, values, subject, how.chains)
    if fact.line.startswith("- tool: "):
        return older
    who = fact.line[2:].partition(": ")[0]

    def heard(o: Fact) -> bool:
        """Whether ``o`` is what the change may mark, by who said it.

        The same speaker's, with one word of its own at most; or the user's change of the
        assistant's statement, with none.
        """
        speaker = o.line[2:].partition(": ")[0]
        extra = min((len(own - _typed(t)[1]) for t in _prose(o)), default=len(own) + 2)
        if speaker == who:
            return extra <= 1
        return how.users and who == "user" and speaker == "assistant" and extra == 0

    return [o for o in older if heard(o) and not revising <= _lowered(o)]


@dataclass(frozen=True)
class _How:
    """Which of :func:`relayed_changes`'s optional readings are on."""

    chains: bool
    users: bool


_DENIALS = frozenset(("not", "no", "never", "nor", "neither", "nothing", "cannot"))
"""Words by which a sentence denies what it says (with any word ending in ``n't``)."""


def _denies(words: set[str]) -> bool:
    """Whether a sentence's lower-cased words deny something ("don't make it 16:30")."""
    return bool(words & _DENIALS) or any(w.endswith(("n't", "n\u2019t")) for w in words)


def _lowered(fact: Fact) -> set[str]:
    """The words of a statement's sentences, lower-cased."""
    return {w.lower() for t in _prose(fact) for w in _cased_words(t)}


def _prose(fact: Fact) -> list[str]:
    """The sentences of a tool result's prose fields, or of a speaker's statement."""
    speaker, sep, body = fact.line[2:].partition(": ")
    if not sep or fact.order[0] == 0:
        return []
    if speaker != "tool":
        return _SENTENCE_END_RE.split(body)
    fields = (f.partition("=")[2] for f in body.partition(" -> ")[2].split("; "))
    prose = [f for f in fields if len(f.split()) >= _PROSE_WORDS]
    return [s for f in prose for s in _SENTENCE_END_RE.split(f)]


def _changed_by(
    earlier: Sequence[Fact],
    kind: str,
    values: set[str],
    subject: frozenset[str],
    chains: bool = False,
) -> list[Fact]:
    """The statements of ``earlier`` whose value of ``kind`` a relayed change gives anew.

    ``chains``: statements of different values fitting alike are one chain when the latest
    of them says it changed the value and they name the same people or firms (see
    :func:`relayed_changes`).

    Every earlier statement competes for the best fit, replaced and marked ones too: once the
    venue's deposit has been changed, its older statements must not leave the venue's
    balance (two subject words shared, where the deposit's share three) as the best fit.
    """
    hits: list[tuple[int, str, Fact, str]] = []
    for old in earlier:
        fits = []
        for sentence in _prose(old):
            was_kinds, was_subject = _typed(sentence)
            was = was_kinds.get(kind, set())
            shared = len(subject & was_subject)
            if len(was) == 1 and shared >= _RELAY_SHARED:
                fits.append((shared, next(iter(was)), old, sentence))
        if fits:
            hits.append(max(fits, key=lambda f: f[0]))
    most = max((n for n, _v, _o, _s in hits), default=0)
    best = [(v, o, t) for n, v, o, t in hits if n == most and o.state != 2 and not o.corrected_by]
    fitting = {v for v, _o, _t in best}
    if chains and len(fitting) > 1 and most > _RELAY_SHARED and not fitting & values:
        _v, _o, said = max(best, key=lambda b: b[1].order[:2])
        names = {frozenset(_typed(t)[0].get("name", set()) - {v}) for v, _o, t in best}
        if len(names) == 1 and _REVISING & {w.lower() for w in _cased_words(said)}:
            return [o for _v, o, _t in best]  # the chain's latest state: one thing
    if len(fitting) != 1 or values == fitting:
        return []  # other values fit as well (which one changed is unclear), or none is
        # current any more, or the value is said already
    return [o for _v, o, _t in best]


@functools.lru_cache(maxsize=8192)
def _typed(sentence: str) -> tuple[dict[str, set[str]], frozenset[str]]:
    """A sentence's values by kind (a date's words as one value), and its subject stems.

    Cached: every change reads every earlier statement's sentences again (a span where each
    message says it changes something read them 186,000 times in 400 messages); callers
    only read what it returns.
    """
    cased = _cased_words(sentence)
    words = [w.lower() for w in cased]
    kinds: dict[str, set[str]] = {}
    used: set[int] = set()
    for i, word in enumerate(words):
        if word not in _MONTHS or not cased[i][:1].isupper():
            continue
        span = [j for j in (i - 1, i + 1, i + 2) if 0 <= j < len(words) and _kind(words[j])]
        span = [j for j in span if j != i + 2 or i + 1 in span]
        used.update((i, *span))
        kinds.setdefault("date", set()).add(" ".join(words[j] for j in sorted((i, *span))))
    for run in _NAME_RE.findall(sentence):
        name = [w for w in tokenize(run) if w not in _COMMON_CAPITALISED and w not in _MONTHS]
        if name:
            kinds.setdefault("name", set()).add(" ".join(name))
    named = {w for n in kinds.get("name", ()) for w in n.split()}
    for i, word in enumerate(words):
        kind = _kind(word)
        if i not in used and kind is not None and word not in _MONTHS:
            kinds.setdefault(kind, set()).add(word)
    subject = frozenset(
        w[:_STEM]
        for i, w in enumerate(words)
        if i not in used
        and w.isalpha()
        and len(w) > 2
        and w not in named
        and w not in STOPWORDS
        and w not in _NOT_ABOUT
        and w not in _REVISING
        and w not in EMPTY_WORDS
    )
    return kinds, subject
