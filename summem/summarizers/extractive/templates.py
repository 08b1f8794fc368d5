"""Templated sentences: the same frame said over and over with only its values changed.

"Batch LV-25119 of the tent was restocked on 21 October 2027", then the same with another
batch, product and date, again and again: boilerplate, each instance worth little once it is
the third. A sentence's frame is the set of its words that are not values (numbers, codes,
months, capitalised names); two facts of one speaker share a template when their frames
overlap by at least ``OVERLAP`` (Jaccard).

Instances rarely arrive together: one or two per reduction, while the summary holds only the
survivors. So the summarizer remembers, in its provenance (``extra["templates"]``), the
templates it has seen repeated and on how many occasions: at most ``MEMORY_SIZE`` of them, the
most recently seen kept. An occasion is a run of instances in consecutive messages of one
speaker (no message of theirs between with other facts): a user who lists their children,
appointments or medications one message after another says one list, once, while filler
comes back at one turn, then another. Earlier occasions are those remembered or, if more, the
runs of the previous summary's lines saying the frame (a list kept whole is one run). A fact
whose template has ``n >= 3`` occasions so far (this round's plus earlier ones) has its
priority divided by ``(n - 1) ** POWER``. A statement that says it updates something
(``actually``, ``now``...) or that supersedes an earlier fact is an update, never boilerplate.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from summem.summarizers.extractive.lexicon import CORRECTION_WORDS, MONTH_WORDS
from summem.summarizers.extractive.selection import Fact

__all__ = [
    "MEMORY_SIZE",
    "OVERLAP",
    "POWER",
    "Template",
    "discount_templates",
    "read_memory",
    "write_memory",
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


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    return len(a & b) >= OVERLAP * len(a | b)


def discount_templates(facts: Sequence[Fact], memory: list[Template]) -> list[Template]:
    """Discount the templated facts among ``facts``; return the updated memory.

    ``facts`` are one round's candidates (the previous summary's, order 1, and the new span's,
    order 2); ``memory`` is what earlier rounds saw (see :func:`read_memory`).
    """
    by_speaker: dict[str, list[tuple[Fact, frozenset[str]]]] = {}
    for fact in facts:
        if fact.order[0] == 0 or fact.state == 2 or fact.supersedes:
            continue
        speaker, _, body = fact.line[2:].partition(": ")
        if speaker == "tool":
            continue  # records of one schema: each is data of its own, not boilerplate
        frame = frame_of(body)
        if len(frame) >= MIN_WORDS and CORRECTION_WORDS.isdisjoint(frame):
            by_speaker.setdefault(speaker, []).append((fact, frame))
    memory = list(memory)
    for speaker, group in by_speaker.items():
        counted: list[tuple[Fact, frozenset[str], int, bool]] = []
        for fact, frame in group:
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            runs = _runs(frame, group)
            before = max(template.seen if template else 0, _runs(frame, group, summary=True))
            n = before + runs
            counted.append((fact, frame, n, runs > 0))
        for fact, frame, n, fresh in counted:
            if n >= MIN_INSTANCES:
                fact.recorded = fact.priority  # the next round discounts afresh, not again
                fact.priority /= (n - 1) ** POWER
            if not fresh or n < 2:
                continue
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            if template is None:
                template = Template(speaker, frame, n)
            else:
                memory.remove(template)
                template.seen = max(template.seen, n)
            memory.append(template)  # the most recently seen last
    return memory[-MEMORY_SIZE:]


def _runs(
    frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]], summary: bool = False
) -> int:
    """The occasions ``frame`` is said in the new span: runs of the speaker's messages saying it.

    ``group`` is one speaker's candidates; a run ends at a message of theirs whose facts do not
    say the frame. Several instances in one message are one occasion. With ``summary``, the
    same over the previous summary's lines (in conversation order): a list kept whole is one
    run, filler kept from several rounds is several.
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
    """The templates a previous extractive summary remembered (none if it is not one)."""
    raw = extra.get("templates") if isinstance(extra, Mapping) else None
    out: list[Template] = []
    for item in raw if isinstance(raw, list) else ():
        if (
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and isinstance(item[1], int)
            and isinstance(item[2], str)
        ):
            out.append(Template(item[0], frozenset(item[2].split()), item[1]))
    return out[-MEMORY_SIZE:]


def write_memory(memory: Sequence[Template]) -> list[list[Any]]:
    """``memory`` as JSON: ``[speaker, seen, "frame words"]`` each."""
    return [[t.speaker, t.seen, " ".join(sorted(t.frame))] for t in memory]
