"""Templated sentences: the same frame said over and over with only its values changed.

"Batch LV-25119 of the tent was restocked on 21 October 2027", then the same with another
batch, product and date, again and again: boilerplate, each instance worth little once it is
the third. A sentence's frame is the set of its words that are not values (numbers, codes,
months, capitalised names); two facts of one speaker share a template when their frames
overlap by at least ``OVERLAP`` (Jaccard).

Instances rarely arrive together: one or two per reduction, while the summary holds only the
survivors. So the summarizer remembers, in its provenance (``extra["templates"]``), the
templates it has seen repeated and on how many occasions: at most ``MEMORY_SIZE`` of them, the
most recently seen kept. An occasion is a run of instances in one speaker's consecutive
candidate messages: a run ends only at a message of theirs whose candidates have at least
``MIN_WORDS`` frame words, no correction word, and none of them saying the frame (a short
reply or an update between two instances does not end it). A user who lists their children,
appointments or medications one message after another says one list, once, while filler comes
back at one turn, then another. Boilerplate repeated in each of one speaker's consecutive
replies is likewise one occasion within a reduction (deliberate: it is learned over the
reductions that follow). A run may cross a reduction: the frames of each speaker's last
candidate message are kept (``extra["open_runs"]``), and when the next span's first candidate
message of theirs says one again, the run goes on rather than being counted anew (a list told
one message per reduction stays one occasion). Earlier occasions are the most of: those
remembered, the runs of the previous summary's lines saying the frame (a list kept whole is one
run), and the count a carried line saying it records (its provenance entry's ``"seen"``, set
here on every candidate counted twice or more: a frame the memory forgot, thrashed by a larger
phrasebook, keeps its count as long as one instance of it is carried).
A fact whose template has ``n >= 3`` occasions so far (this round's plus earlier ones) has its
priority divided by ``(n - 1) ** POWER``. A statement that says it updates something
(``actually``, ``now``...) or that supersedes an earlier fact is an update, never boilerplate.

Limit: any other fact of the speaker's between two items ends the run (a user answering a
follow-up question in the middle of a list says it on two occasions); a gap tolerance of one
or two messages let filler back in and lost more than it saved (evals/README.md, "Lists,
round 5").

Summaries written before occasions were counted (no ``extra[COUNTED_BY]``) counted instances:
their ``seen`` values are read as at most 2, so a list counted there is not a template forever
while real filler is relearned on its next occasion.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from summem.summarizers.extractive.lexicon import CORRECTION_WORDS, MONTH_WORDS
from summem.summarizers.extractive.selection import Fact

__all__ = [
    "COUNTED_BY",
    "MEMORY_SIZE",
    "OVERLAP",
    "POWER",
    "Template",
    "discount_templates",
    "read_memory",
    "read_open_runs",
    "write_memory",
    "write_open_runs",
]

MIN_INSTANCES = 3
"""A frame said on this many occasions is a template."""
OVERLAP = 0.5
"""Jaccard overlap of two frames that makes them one template: half the words shared, so a
frame's slot may hold a common noun as well as a value ("Batch ... of the day pack was
restocked", then "... of the trekking pole set ..."). With instances counted one by one
instead of by occasions this also discounted users' own lists (see evals/README.md,
"Realistic filler, round 4" and "Lists, round 5")."""
POWER = 1.5
"""How steeply a template is discounted: on its ``n``-th occasion by ``(n - 1) ** POWER``."""
MIN_WORDS = 5
"""Shorter frames are too common to call a template."""
MEMORY_SIZE = 32
"""Templates remembered across reductions."""
COUNTED_BY = "templates_counted_by"
"""The key of a summary's extra saying its templates' ``seen`` counts occasions (its value
``"occasions"``); summaries without it counted instances."""
_OLD_SEEN = 2
"""An old summary's ``seen`` is read as at most this."""
_OPEN_SIZE = 16
"""Open-run frames kept across a reduction, all speakers together."""

OpenRuns = dict[str, list[frozenset[str]]]
"""Per speaker, the frames of their last candidate message: a run that may go on."""
_WORD_RE = re.compile(r"[A-Za-z0-9][\w'.@+-]*")
_VALUE_RE = re.compile(r"\d")


@dataclass
class Template:
    """A template seen repeated: whose it is, its frame, and the occasions seen so far."""

    speaker: str
    frame: frozenset[str]
    seen: int


def frame_of(body: str) -> frozenset[str]:
    """The words of a sentence that stay when its values change."""
    words: set[str] = set()
    for k, m in enumerate(_WORD_RE.finditer(body)):
        word = m.group(0)
        if _VALUE_RE.search(word) or (k and word[0].isupper()):
            continue
        lower = word.lower().rstrip(".'-")
        if lower not in MONTH_WORDS:
            words.add(lower)
    return frozenset(words)


def _updates(frame: frozenset[str]) -> bool:
    """Whether ``frame`` has a correction word (it says it updates something)."""
    return not CORRECTION_WORDS.isdisjoint(frame)


def _seen_by(
    frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]]
) -> Sequence[tuple[Fact, frozenset[str]]]:
    """The speaker's candidates that count ``frame``'s occasions.

    A frame with no correction word sees none of the frames with one, as before the
    ``stock_updates`` rule: they neither end its runs nor start them.
    """
    return group if _updates(frame) else [(f, o) for f, o in group if not _updates(o)]


def _latest_update(
    fact: Fact, frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]]
) -> bool:
    """Whether ``fact`` is the latest instance of ``frame``, a frame with a correction word.

    It keeps its score: if the instances were one thing updated again and again (the links of
    supersession missed), the latest is what is true now; if stock small talk, one line of it.
    """
    if not _updates(frame):
        return False
    order = max(f.order for f, other in group if _similar(frame, other))
    return fact.order == order


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether frames ``a`` and ``b`` are one template.

    Half their words shared; the very same words when either has a correction word (see
    :func:`discount_templates`).
    """
    if _updates(a) or _updates(b):
        return a == b
    return len(a & b) >= OVERLAP * len(a | b)


def discount_templates(
    facts: Sequence[Fact],
    memory: list[Template],
    open_runs: OpenRuns | None = None,
    *,
    stock_updates: bool = True,
) -> list[Template]:
    """Discount the templated facts among ``facts``; return the updated memory.

    ``facts`` are one round's candidates (the previous summary's, order 1, and the new span's,
    order 2); ``memory`` is what earlier rounds saw (see :func:`read_memory`). ``open_runs``
    (see :func:`read_open_runs`), if given, is updated in place: a speaker's entry becomes the
    frames of their last candidate message in the new span (kept as it was if they have none).

    A frame with a correction word ("actually", "wrong", "sorry"...) says it updates
    something, so it is one template only with frames of the very same words, and only with
    ``stock_updates`` (else never): "Parcel XZ-2081-A turned up, it was the wrong size of
    course." said again and again with a new code is stock small talk, and its correction word
    otherwise won it the correction and novelty bonuses every time while it could never be
    discounted. Updates of different things ("Actually, my budget for the sofa is now ...",
    "... for the lamp ...") differ in a word and stay apart; an update that supersedes an
    earlier statement is never counted, and the latest instance of such a frame keeps its
    score (:func:`_latest_update`). Such a frame's count lives on its carried lines
    (``seen``) and the summary's runs only: it takes no place in ``memory`` and no open run,
    and frames without a correction word are counted as if it were not there.
    """
    by_speaker: dict[str, list[tuple[Fact, frozenset[str]]]] = {}
    for fact in facts:
        if fact.order[0] == 0 or fact.state == 2 or fact.supersedes:
            continue
        speaker, _, body = fact.line[2:].partition(": ")
        if speaker == "tool":
            continue  # records of one schema: each is data of its own, not boilerplate
        frame = frame_of(body)
        if len(frame) >= MIN_WORDS and (stock_updates or CORRECTION_WORDS.isdisjoint(frame)):
            by_speaker.setdefault(speaker, []).append((fact, frame))
    memory = list(memory)
    for speaker, group in by_speaker.items():
        counted: list[tuple[Fact, frozenset[str], int, bool]] = []
        for fact, frame in group:
            seen = _seen_by(frame, group)  # a frame without a correction word: as before
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            runs = _runs(frame, seen)
            carried = max(
                (f.seen for f, other in seen if f.order[0] == 1 and _similar(frame, other)),
                default=0,
            )
            before = max(
                template.seen if template else 0, _runs(frame, seen, summary=True), carried
            )
            n = before + runs
            if runs and before and _continues(frame, seen, (open_runs or {}).get(speaker, [])):
                n -= 1  # the previous round's last run goes on: the same occasion
            counted.append((fact, frame, n, runs > 0))
        for fact, frame, n, fresh in counted:
            fact.seen = n if n > 1 else 0  # carried on its line: outlives the memory
            if n >= MIN_INSTANCES and not _latest_update(fact, frame, group):
                fact.recorded = fact.priority  # the next round discounts afresh, not again
                fact.priority /= (n - 1) ** POWER
            if not fresh or n < 2 or _updates(frame):
                continue  # stock updates are counted on their lines only, not remembered
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            if template is None:
                template = Template(speaker, frame, n)
            else:
                memory.remove(template)
                template.seen = max(template.seen, n)
            memory.append(template)  # the most recently seen last
        if open_runs is not None:
            new = [
                (fact.order[1], frame)
                for fact, frame in group
                if fact.order[0] == 2 and not _updates(frame)
            ]
            if new:
                last = max(position for position, _ in new)
                open_runs.pop(speaker, None)
                open_runs[speaker] = [frame for position, frame in new if position == last]
    if open_runs is not None:
        while sum(len(v) for v in open_runs.values()) > _OPEN_SIZE:
            oldest = next(iter(open_runs))
            open_runs[oldest] = open_runs[oldest][1:]
            if not open_runs[oldest]:
                del open_runs[oldest]
    return memory[-MEMORY_SIZE:]


def _continues(
    frame: frozenset[str],
    group: Sequence[tuple[Fact, frozenset[str]]],
    open_frames: Sequence[frozenset[str]],
) -> bool:
    """Whether the speaker's first new candidate message goes on an open run of ``frame``.

    It does when the previous span's last candidate message of theirs said the frame
    (``open_frames``) and this one says it too.
    """
    if not any(_similar(frame, other) for other in open_frames):
        return False
    kept = [(fact.order[1], other) for fact, other in group if fact.order[0] == 1]
    if not kept or not any(
        position == max(p for p, _ in kept) and _similar(frame, other) for position, other in kept
    ):
        return False  # the run's last piece was not kept: counted afresh, as dropped filler is
    new = [(fact.order[1], other) for fact, other in group if fact.order[0] == 2]
    first = min(position for position, _ in new)
    return any(position == first and _similar(frame, other) for position, other in new)


def _runs(
    frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]], summary: bool = False
) -> int:
    """The occasions ``frame`` is said in the new span: runs of the speaker's messages saying it.

    ``group`` is one speaker's candidates (only facts with at least ``MIN_WORDS`` frame words
    and no correction word); a run ends at a message with such a candidate but none saying the
    frame: shorter facts and updates do not end it. Several instances in one message are one
    occasion. With ``summary``, the same over the previous summary's lines (in conversation
    order): a list kept whole is one run, filler kept from several rounds is several.
    """
    said: dict[int, bool] = {}
    for fact, other in group:
        if fact.order[0] == (1 if summary else 2):
            said[fact.order[1]] = said.get(fact.order[1], False) or _similar(frame, other)
    runs, before = 0, False
    for position in sorted(said):
        runs += said[position] and not before
        before = said[position]
    return runs


def read_memory(extra: Mapping[str, Any] | None) -> list[Template]:
    """The templates a previous extractive summary remembered (none if it is not one).

    Without ``extra[COUNTED_BY] == "occasions"`` the summary counted instances: ``seen`` is
    read as at most 2 (the next occasion makes a real template one again).
    """
    raw = extra.get("templates") if isinstance(extra, Mapping) else None
    cap = None
    if isinstance(extra, Mapping) and extra.get(COUNTED_BY) != "occasions":
        cap = _OLD_SEEN
    out: list[Template] = []
    for item in raw if isinstance(raw, list) else ():
        if (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and isinstance(item[1], int)
            and isinstance(item[2], str)
        ):
            seen = item[1] if cap is None else min(item[1], cap)
            out.append(Template(item[0], frozenset(item[2].split()), seen))
    return out[-MEMORY_SIZE:]


def write_memory(memory: Sequence[Template]) -> list[list[Any]]:
    """``memory`` as JSON: ``[speaker, seen, "frame words"]`` each."""
    return [[t.speaker, t.seen, " ".join(sorted(t.frame))] for t in memory]


def read_open_runs(extra: Mapping[str, Any] | None) -> OpenRuns:
    """The open runs a previous extractive summary recorded (none if it is not one)."""
    raw = extra.get("open_runs") if isinstance(extra, Mapping) else None
    out: OpenRuns = {}
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            out.setdefault(item[0], []).append(frozenset(item[1].split()))
    return out


def write_open_runs(open_runs: OpenRuns) -> list[list[str]]:
    """``open_runs`` as JSON: ``[speaker, "frame words"]`` each."""
    return [[s, " ".join(sorted(f))] for s, frames in open_runs.items() for f in frames]
