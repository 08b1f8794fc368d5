"""``blind11-chains``: a potter's craft-fair arrangements changed again and again, with traps.

A potter taking a stand at a craft trade fair states four of eight arrangements (the stand
number, the van unloading slot, the pitch fee, the organiser's contact, the card reader's hire
reference, the packing-down time, the electrics charge, the hotel booking reference) and sees
each changed two to four times, thirty turns or more apart: by the potter ("they've moved the
stand again, it's ... now", "scrap what i said about ..., ...", or the subject and value bare)
or by the fair office's email, found by a ``search_email`` look-up. The old value is never
said again. Between them come values of the same kind about something else, worded like a
change ("the glassblower next to us had their unloading slot changed to 08:10, ours is
unaffected", "not to be confused with the stand number: the storage cage is F27"): facts,
never replaced.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind11.base import Writer11, writer
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["ARRANGEMENTS", "TRAPS", "generate"]

ARRANGEMENTS: tuple[tuple[str, str, FactKind], ...] = (
    ("the stand number", "stand", "code"),
    ("the van unloading slot", "time", "value"),
    ("the pitch fee", "money", "value"),
    ("the organiser's contact", "person", "name"),
    ("the card reader hire ref", "ref", "code"),
    ("the packing-down time", "time", "value"),
    ("the electrics charge", "money", "value"),
    ("the hotel booking ref", "ref", "code"),
)
"""(subject, what its values are, their kind)."""

SORTS: dict[str, FactKind] = {shape: kind for _, shape, kind in ARRANGEMENTS}
"""Each shape of value's kind."""

TRAPS = {
    "stand": ("the storage cage", "the glassblower's stand", "the overflow table"),
    "time": ("the raffle prize drop-off", "the glassblower's unloading slot", "the judges' walk"),
    "money": ("the parking permit", "the glassblower's pitch fee", "the raffle donation"),
    "person": ("the first-aid contact", "the glassblower's helper", "the hall steward"),
    "ref": ("the parking permit ref", "the courier's ref", "the glassblower's hotel ref"),
}
"""Other things with values of the same shape, said beside an arrangement."""

_STATE = (
    "{s} is {v}, got the confirmation today",
    "so {s}: {v}",
    "fair admin done for now. {s} {v}",
    "they've sent the details through, {s} is {v}",
)
_CHANGE = (
    "they've moved {s} again, it's {v} now",
    "scrap what i said about {s}, {v}",
    "{s} got changed: {v}",
    "small change, {s} is {v}",
    "{s} {v}",
    "ugh, the organisers again. {s} is {v}",
)
_TRAP = (
    "{t} had theirs changed to {v}, ours is unaffected",
    "not to be confused with {s}: {t} is {v}",
    "separate thing from {s}, {t} is {v}",
    "{t} is {v}, that one's fixed, nothing to do with ours",
)


def _value(w: Writer11, shape: str) -> str:
    if shape == "stand":
        return w.code("A99")
    if shape == "time":
        return w.time()
    if shape == "money":
        return w.money(60, 900)
    if shape == "person":
        return w.person()
    return w.code("AAA-9A99")


def _write(w: Writer11, turns: int, facts: int) -> None:
    r = w.rng
    chains = 4 if facts >= 16 else 1
    lengths = [r.choice((3, 4, 4, 5)) for _ in range(chains)]
    while sum(lengths) > facts - max(1, facts // 5):
        lengths[lengths.index(max(lengths))] -= 1
    traps = facts - sum(lengths)
    picked = r.sample(ARRANGEMENTS, chains)
    last = turns - 6
    events: list[tuple[int, Callable[[], None]]] = []
    steps = []
    for (subject, shape, kind), length in zip(picked, lengths, strict=True):
        gap = max(30, (last - 4) // length) if last > 30 * length + 4 else max(4, last // length)
        start = r.randint(2, max(2, last - gap * (length - 1)))
        turns_at = [start + k * gap + r.randint(0, max(0, gap // 4)) for k in range(length)]
        held: list[PlantedFact] = []
        for k, at in enumerate(turns_at):
            steps.append((min(at, last), subject, shape))

            def step(subject: str = subject, shape: str = shape, kind: FactKind = kind,
                     k: int = k, held: list[PlantedFact] = held) -> None:  # fmt: skip
                v = _value(w, shape)
                if k == 0:
                    i = w.user(r.choice(_STATE).format(s=subject, v=v))
                    w.say("assistant", w.short())
                    held.append(w.plant(kind, v, i))
                    return
                if r.random() < 0.3:
                    w.user(r.choice(("anything new from the fair office?",
                                     "check my email for the organisers' latest")))  # fmt: skip
                    i = w.tool(
                        "search_email",
                        {"from": "fair office"},
                        f"From: fair office. Update for exhibitors: {subject} is now {v}. "
                        "Please check your exhibitor pack.",
                    )
                    w.say("assistant", "There's one update from the fair office, shown above.")
                else:
                    i = w.user(r.choice(_CHANGE).format(s=subject, v=v))
                    w.say("assistant", w.short())
                old = held[-1]
                w.supersede(old, i)
                held.append(
                    w.plant(
                        "correction",
                        v,
                        i,
                        stale=old.value,
                        stale_index=old.message_index,
                        older=tuple(h.value for h in held[:-1]),
                    )
                )

            events.append((min(at, last), step))
    for _ in range(traps):
        at, subject, shape = r.choice(steps)
        sort = SORTS[shape]

        def trap(subject: str = subject, shape: str = shape, kind: FactKind = sort) -> None:
            v = _value(w, shape)
            said = r.choice(_TRAP).format(s=subject, t=r.choice(TRAPS[shape]), v=v)
            w.plant(kind, v, w.user(said))
            w.say("assistant", w.short())

        events.append((min(at + r.randint(1, 3), last), trap))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """A potter's conversation: values changed 2-4 times among look-alikes (see the module)."""
    return build(
        seed,
        "b11-chains",
        turns,
        facts,
        _write,
        "You are an assistant helping a potter get ready for a craft trade fair.",
        writer=writer("potter"),
        prefix="blind11",
    )
