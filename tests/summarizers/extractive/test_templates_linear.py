"""The template count indexed by frame gives what comparing every two candidates gave.

``discount_templates`` used to compare each candidate of a speaker's with every other (and each
against the whole group several times over): quadratic per speaker. It now counts each distinct
frame once, from an index of positions and a prefix-filtered join of similar frames. The old
algorithm is kept here, verbatim, as the reference: on random candidates, memories and open
runs, both leave the very same priorities, ``recorded`` scores, ``seen`` counts, memory and open
runs.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from summem.summarizers.extractive.lexicon import CORRECTION_WORDS
from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.templates import (
    _OPEN_SIZE,
    MEMORY_SIZE,
    MIN_INSTANCES,
    MIN_WORDS,
    OVERLAP,
    POWER,
    OpenRuns,
    Template,
    _similar_frames,
    discount_templates,
    frame_of,
)

# --- the reference: discount_templates as it was before the index (round 11) -----------------


def _updates(frame: frozenset[str]) -> bool:
    return not CORRECTION_WORDS.isdisjoint(frame)


def _seen_by(
    frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]]
) -> Sequence[tuple[Fact, frozenset[str]]]:
    return group if _updates(frame) else [(f, o) for f, o in group if not _updates(o)]


def _latest_update(
    fact: Fact, frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]]
) -> bool:
    if not _updates(frame):
        return False
    order = max(f.order for f, other in group if _similar(frame, other))
    return fact.order == order


def _similar(a: frozenset[str], b: frozenset[str]) -> bool:
    if _updates(a) or _updates(b):
        return a == b
    return len(a & b) >= OVERLAP * len(a | b)


def _continues(
    frame: frozenset[str],
    group: Sequence[tuple[Fact, frozenset[str]]],
    open_frames: Sequence[frozenset[str]],
) -> bool:
    if not any(_similar(frame, other) for other in open_frames):
        return False
    kept = [(fact.order[1], other) for fact, other in group if fact.order[0] == 1]
    if not kept or not any(
        position == max(p for p, _ in kept) and _similar(frame, other) for position, other in kept
    ):
        return False
    new = [(fact.order[1], other) for fact, other in group if fact.order[0] == 2]
    first = min(position for position, _ in new)
    return any(position == first and _similar(frame, other) for position, other in new)


def _runs(
    frame: frozenset[str], group: Sequence[tuple[Fact, frozenset[str]]], summary: bool = False
) -> int:
    said: dict[int, bool] = {}
    for fact, other in group:
        if fact.order[0] == (1 if summary else 2):
            said[fact.order[1]] = said.get(fact.order[1], False) or _similar(frame, other)
    runs, before = 0, False
    for position in sorted(said):
        runs += said[position] and not before
        before = said[position]
    return runs


def reference(
    facts: Sequence[Fact],
    memory: list[Template],
    open_runs: OpenRuns | None = None,
    *,
    stock_updates: bool = True,
) -> list[Template]:
    by_speaker: dict[str, list[tuple[Fact, frozenset[str]]]] = {}
    for fact in facts:
        if fact.order[0] == 0 or fact.state == 2 or fact.supersedes:
            continue
        speaker, _, body = fact.line[2:].partition(": ")
        if speaker == "tool":
            continue
        frame = frame_of(body)
        if len(frame) >= MIN_WORDS and (stock_updates or CORRECTION_WORDS.isdisjoint(frame)):
            by_speaker.setdefault(speaker, []).append((fact, frame))
    memory = list(memory)
    for speaker, group in by_speaker.items():
        counted: list[tuple[Fact, frozenset[str], int, bool]] = []
        for fact, frame in group:
            seen = _seen_by(frame, group)
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
                n -= 1
            counted.append((fact, frame, n, runs > 0))
        for fact, frame, n, fresh in counted:
            fact.seen = n if n > 1 else 0
            if n >= MIN_INSTANCES and not _latest_update(fact, frame, group):
                fact.recorded = fact.priority
                fact.priority /= (n - 1) ** POWER
            if not fresh or n < 2 or _updates(frame):
                continue
            template = next(
                (t for t in memory if t.speaker == speaker and _similar(frame, t.frame)), None
            )
            if template is None:
                template = Template(speaker, frame, n)
            else:
                memory.remove(template)
                template.seen = max(template.seen, n)
            memory.append(template)
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


# --- random inputs ----------------------------------------------------------------------------

WORDS = ("the", "tent", "was", "restocked", "by", "team", "pack", "on", "we", "a", "of", "day")
UPDATES = ("actually", "now")
VALUES = ("LV-2511", "Maya", "May", "12")
SPEAKERS = ("user", "assistant", "tool")

_frame = st.frozensets(st.sampled_from(WORDS + UPDATES), min_size=3, max_size=9)


def _random_case(seed: int) -> tuple[list[Fact], list[Template], OpenRuns | None, bool]:
    """Candidates of a few speakers over a small vocabulary (frames collide often), a memory,
    open runs: drawn from ``seed`` (cheaper than drawing each word through hypothesis)."""
    rng = random.Random(seed)
    vocabulary = WORDS + WORDS + UPDATES + VALUES
    facts: list[Fact] = []
    for k in range(rng.randint(0, 40)):
        body = " ".join(rng.choices(vocabulary, k=rng.randint(4, 10)))
        order = (rng.choice((0, 1, 2, 2)), rng.randint(0, 12), rng.randint(0, 2))
        line = f"- {rng.choice(SPEAKERS)}: {body}"
        fact = make_fact(line, None, 5.0 + k % 3, [f"m{k}"], order, frozenset())
        fact.seen = rng.choice((0, 0, 2, 3, 5))
        fact.state = rng.choice((0, 0, 0, 1, 2))
        if rng.randint(0, 9) == 0:
            fact.supersedes = ["m0"]
        facts.append(fact)

    def frame() -> frozenset[str]:
        return frozenset(rng.sample(WORDS + UPDATES, rng.randint(3, 9)))

    memory = [
        Template(rng.choice(SPEAKERS), frame(), rng.randint(1, 5)) for _ in range(rng.randint(0, 5))
    ]
    open_runs: OpenRuns | None = None
    if rng.random() < 0.8:
        open_runs = {
            s: [frame() for _ in range(rng.randint(1, 3))] for s in rng.sample(SPEAKERS, 2)
        }
    return facts, memory, open_runs, rng.random() < 0.8


State = tuple[object, ...]
"""What a count leaves: each fact's scores, the memory, the open runs."""


def _state(facts: Sequence[Fact], memory: Sequence[Template], open_runs: OpenRuns | None) -> State:
    return (
        [(f.priority, f.recorded, f.seen) for f in facts],
        [(t.speaker, sorted(t.frame), t.seen) for t in memory],
        None if open_runs is None else [(s, [sorted(f) for f in v]) for s, v in open_runs.items()],
    )


def _both(
    facts: list[Fact], memory: list[Template], open_runs: OpenRuns | None, stock: bool
) -> tuple[State, State]:
    inputs = copy.deepcopy((facts, memory, open_runs))
    out = discount_templates(facts, memory, open_runs, stock_updates=stock)
    facts2, memory2, open2 = inputs
    expected = reference(facts2, memory2, open2, stock_updates=stock)
    return _state(facts, out, open_runs), _state(facts2, expected, open2)


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**32))
def test_the_index_counts_what_every_pair_counted(seed: int) -> None:
    facts, memory, open_runs, stock = _random_case(seed)
    got, expected = _both(facts, memory, open_runs, stock)
    assert got == expected


def test_a_long_mixed_session_counts_the_same() -> None:
    """Hundreds of candidates of a few near frames, updates and other facts, over two rounds."""
    rng = random.Random(11)
    lines = [
        "Batch {v} of the {p} was restocked on {d} by the warehouse team.",
        "Actually the batch {v} of the {p} was restocked by the night team.",
        "I think the {p} we bought in {d} is still in the car.",
        "Now the {p} costs {v} after the discount on the new price list.",
    ]
    products = ("tent", "day pack", "trail runner", "sleeping pad", "stove", "lantern")
    facts: list[Fact] = []
    for k in range(600):
        speaker = rng.choice(("user", "assistant"))
        line = rng.choice(lines).format(
            v=f"LV-{rng.randint(100, 999)}", p=rng.choice(products), d="May"
        )
        order = (rng.choice((1, 2, 2)), rng.randint(0, 300), rng.randint(0, 1))
        facts.append(make_fact(f"- {speaker}: {line}", None, 5.0, [f"m{k}"], order, frozenset()))
    memory = [Template("user", frame_of(lines[2].format(v="", p="stove", d="")), 3)]
    got, expected = _both(facts, memory, {"assistant": [frame_of(lines[0])]}, True)
    assert got == expected
    assert any(f.recorded is not None for f in facts)  # the case discounts something


@settings(max_examples=300, deadline=None)
@given(st.lists(_frame, max_size=30, unique=True))
def test_the_prefix_join_finds_every_similar_pair(frames: list[frozenset[str]]) -> None:
    similar = _similar_frames(frames)
    for a in frames:
        assert sorted(map(sorted, similar[a])) == sorted(
            sorted(b) for b in frames if _similar(a, b)
        )
