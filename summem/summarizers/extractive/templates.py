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

Cost: each distinct frame of a speaker's is counted once, from an index of the positions of the
frames it is one template with (found by a prefix-filtered join, not by comparing every two), so
a round of 2,000 instances of one frame costs about as much per line as one of 500
(``python -m benchmarks --only templates``); it compared every candidate with every other before.

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


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether frames ``a`` and ``b`` are one template.

    Half their words shared; the very same words when either has a correction word (see
    :func:`discount_templates`).
    """
    if _updates(a) or _updates(b):
        return a == b
    return len(a & b) >= OVERLAP * len(a | b)


def _similar_frames(frames: Sequence[frozenset[str]]) -> dict[frozenset[str], list[frozenset[str]]]:
    """For each of the distinct ``frames``, those of them it is one template with (itself too).

    A frame with a correction word is one only with itself. The others are joined by prefix
    filtering (words ordered rarest first over ``frames``): two frames sharing at least half of
    their union share at least ``ceil(len / 2)`` words, so the first ``len - ceil(len / 2) + 1``
    words of each in that order hold one in common (their rarest common word). Only frames
    sharing such a word are compared: near-linear for a conversation's mostly unlike sentences,
    the same pairs as comparing every two.
    """
    out: dict[frozenset[str], list[frozenset[str]]] = {}
    plain = [frame for frame in frames if not _updates(frame)]
    for frame in frames:
        out[frame] = [frame]
    df: dict[str, int] = {}
    for frame in plain:
        for word in frame:
            df[word] = df.get(word, 0) + 1
    index: dict[str, list[int]] = {}
    for k, frame in enumerate(plain):
        words = sorted(frame, key=lambda w: (df[w], w))
        prefix = words[: len(words) - (len(words) + 1) // 2 + 1]
        candidates = {j for word in prefix for j in index.get(word, ())}
        for j in sorted(candidates):
            other = plain[j]
            if _similar(frame, other):
                out[frame].append(other)
                out[other].append(frame)
        for word in prefix:
            index.setdefault(word, []).append(k)
    return out


def _previous(positions: list[int]) -> dict[int, int | None]:
    """Each of the sorted ``positions``' predecessor among them (``None`` for the first)."""
    return dict(zip(positions, [None, *positions], strict=False))


class _Group:
    """One speaker's candidates, indexed by distinct frame.

    Each frame's occasions are counted once, from the positions of the frames it is one
    template with, not by comparing every candidate with every other: a speaker's 2,000
    instances of one frame cost about 2,000 steps, not 4 million.
    """

    def __init__(self, group: Sequence[tuple[Fact, frozenset[str]]]) -> None:
        self.at: dict[frozenset[str], tuple[set[int], set[int]]] = {}
        """Per frame, the positions of the messages saying it: previous summary's, new span's."""
        self.carried: dict[frozenset[str], int] = {}
        """Per frame, the largest ``seen`` of the previous summary's lines saying it."""
        self.latest: dict[frozenset[str], tuple[int, int, int]] = {}
        """Per frame, the order of its latest candidate."""
        positions: dict[bool, tuple[set[int], set[int]]] = {
            True: (set(), set()),
            False: (set(), set()),
        }
        for fact, frame in group:
            which = fact.order[0] - 1
            self.at.setdefault(frame, (set(), set()))[which].add(fact.order[1])
            if fact.order[0] == 1:
                self.carried[frame] = max(self.carried.get(frame, 0), fact.seen)
            self.latest[frame] = max(self.latest.get(frame, fact.order), fact.order)
            positions[True][which].add(fact.order[1])
            if not _updates(frame):
                positions[False][which].add(fact.order[1])
        # The messages counted for a frame: all the speaker's with one, for a frame with a
        # correction word; those with a frame without one, for the others (as if frames with
        # a correction word were not there: they neither end a plain frame's runs nor start them).
        self.order: dict[bool, tuple[list[int], list[int]]] = {
            k: (sorted(v[0]), sorted(v[1])) for k, v in positions.items()
        }
        self.before: dict[bool, tuple[dict[int, int | None], dict[int, int | None]]] = {
            k: (_previous(kept), _previous(new)) for k, (kept, new) in self.order.items()
        }
        self.similar = _similar_frames(list(self.at))

    def runs(self, frame: frozenset[str], summary: bool = False) -> int:
        """The occasions ``frame`` is said in the new span: runs of messages saying it.

        A run ends at a counted message of the speaker's (see :meth:`__init__`) with none of its
        candidates saying the frame: shorter facts do not end it. Several instances in one
        message are one occasion. With ``summary``, the same over the previous summary's lines
        (in conversation order): a list kept whole is one run, filler kept from several rounds
        is several.
        """
        which = 0 if summary else 1
        said: set[int] = set()
        for other in self.similar[frame]:
            said |= self.at[other][which]
        before = self.before[_updates(frame)][which]
        return sum(1 for position in said if before[position] not in said)

    def carried_seen(self, frame: frozenset[str]) -> int:
        """The largest ``seen`` of the previous summary's lines saying ``frame``."""
        return max((self.carried.get(other, 0) for other in self.similar[frame]), default=0)

    def continues(self, frame: frozenset[str], open_frames: Sequence[frozenset[str]]) -> bool:
        """Whether the speaker's first new candidate message goes on an open run of ``frame``.

        It does when the previous span's last candidate message of theirs said the frame
        (``open_frames``) and this one says it too.
        """
        if not any(_similar(frame, other) for other in open_frames):
            return False
        kept, new = self.order[_updates(frame)]
        if not kept or not any(kept[-1] in self.at[o][0] for o in self.similar[frame]):
            return False  # the run's last piece was not kept: counted afresh, as dropped filler is
        return any(new[0] in self.at[o][1] for o in self.similar[frame])

    def latest_update(self, fact: Fact, frame: frozenset[str]) -> bool:
        """Whether ``fact`` is the latest instance of ``frame``, a frame with a correction word.

        It keeps its score: if the instances were one thing updated again and again (the links
        of supersession missed), the latest is what is true now; if stock small talk, one line
        of it.
        """
        return _updates(frame) and fact.order == self.latest[frame]


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
    score (:meth:`_Group.latest_update`). Such a frame's count lives on its carried lines
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
        index = _Group(group)
        open_frames = (open_runs or {}).get(speaker, [])
        counts: dict[frozenset[str], tuple[int, bool]] = {}
        for frame in index.at:  # each distinct frame once: its count is its candidates'
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            runs = index.runs(frame)
            before = max(
                template.seen if template else 0,
                index.runs(frame, summary=True),
                index.carried_seen(frame),
            )
            n = before + runs
            if runs and before and index.continues(frame, open_frames):
                n -= 1  # the previous round's last run goes on: the same occasion
            counts[frame] = (n, runs > 0)
        for fact, frame in group:
            n, fresh = counts[frame]
            fact.seen = n if n > 1 else 0  # carried on its line: outlives the memory
            if n >= MIN_INSTANCES and not index.latest_update(fact, frame):
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
