"""``b10-chains``: a couple's wedding arrangements, each changed two to four times.

Three arrangements a seed (a time, an amount, an address or a person's name) are stated by the
user and changed two to four times, tens of turns apart, with a correction word or none
("update: ...", "they've shifted the cake tasting again, 15:20", "hair trial 11:45"); the old
value is never said again. Between them the user says things that look like corrections and
are not, each value a fact of its own, never replaced: quantities of different things in one
sentence ("120 chairs, 14 round tables and 6 highchairs"), numbered steps ("1. collect the
rings at 09:15 2. drop the favours at 11:40") and a pair told apart by "the other one".
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from evals.families.blind6 import base as b6
from evals.families.blind10.base import Writer, build
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["ARRANGEMENTS", "generate"]

ARRANGEMENTS: tuple[tuple[str, str], ...] = (
    ("cake tasting", "time"),
    ("hair trial", "time"),
    ("first dance lesson", "time"),
    ("venue deposit", "money"),
    ("band's fee", "money"),
    ("catering balance", "money"),
    ("suit hire pickup", "address"),
    ("dress fitting", "address"),
    ("registrar", "person"),
    ("photographer", "person"),
    ("celebrant", "person"),
)
"""What a chain is about, and the kind of value it holds."""

_GIVEN = ("Marisol", "Tobiah", "Ingrid", "Lachlan", "Oksana", "Ravi", "Perpetua", "Edmund",
          "Soraya", "Caspian", "Henrietta", "Ambrose", "Zinnia", "Florian")  # fmt: skip
_FAMILY = ("Ashdown", "Penhaligon", "Mbeki", "Strachan", "Voss", "Okonkwo", "Tremayne",
           "Halloran", "Kowal", "Dunmore", "Fitzwilliam", "Castellane")  # fmt: skip
_STREETS = ("Larkspur Lane", "Cobbler's Row", "Quarry Hill", "Mill Race Road",
            "Tanner Street", "Orchard Mews", "Ferry Approach", "Glebe Terrace", "Chapel Walk",
            "Kiln Yard")  # fmt: skip

_FIRST = {
    "time": ("the {s} is at {v}", "booked the {s} for {v}", "{s} confirmed, {v}"),
    "money": ("the {s} comes to {v}", "{s} is {v}", "they've quoted {v} for the {s}"),
    "address": ("the {s} is at {v}", "{s} address: {v}", "for the {s} we go to {v}"),
    "person": ("the {s} is {v}", "we're booked with {v} as {s}", "{s} will be {v}"),
}
_AGAIN = (
    "update: the {s} is now {v}",
    "sorry, got that wrong earlier - {s}: {v}",
    "they've shifted the {s} again, {v}",
    "change of plan on the {s}. {v}",
    "ugh, {s} has changed, it's {v} now",
    "{s} {v}",
    "{s}: {v}",
    "re the {s} - {v}",
)
_THINGS = ("chairs", "round tables", "highchairs", "fairy light strings", "tablecloths",
           "champagne flutes", "hay bales", "lanterns", "parasols", "name cards")  # fmt: skip
_STEPS = ("collect the rings", "drop the favours at the venue", "pick up the buttonholes",
          "meet the florist", "set out the place cards", "fetch gran from the station",
          "check in at the hotel", "hand over the playlist")  # fmt: skip
_PAIRS = (
    ("two deposits went out today: the {a} was {x}, and the other one, the {b}, {y}", "money",
     ("photo booth", "marquee"), ("ice cream van", "cake stand hire")),
    ("two lots of guests are staying over: the {a} lot are at {x}, the other one, the {b} lot, "
     "at {y}", "address", ("groom's side", "bride's side"), ("uni friends", "cousins")),
    ("we've got two cars sorted: the {a} leaves at {x}, the other one, the {b}, at {y}", "time",
     ("vintage car", "minibus"), ("taxi", "shuttle")),
)  # fmt: skip
_KIND_OF: dict[str, FactKind] = {"time": "value", "money": "value", "address": "value",
                                 "person": "name"}  # fmt: skip


def _value(w: Writer, kind: str) -> str:
    r = w.rng
    if kind == "time":
        return w.time()
    if kind == "money":
        return w.money(250, 4800)
    if kind == "address":
        return w.fresh(lambda: f"{r.randint(2, 98)} {r.choice(_STREETS)}")
    return w.fresh(lambda: f"{r.choice(_GIVEN)} {r.choice(_FAMILY)}")


def _say(w: Writer, subject: str, kind: str, chain: list[PlantedFact]) -> None:
    value = _value(w, kind)
    templates = _AGAIN if chain else _FIRST[kind]
    text = w.rng.choice(templates).replace("{s}", subject).replace("{v}", value)
    at = w.user(text)
    chain.append(w.replace(chain[-1], value, at) if chain else w.plant(_KIND_OF[kind], value, at))
    w.say("assistant", w.short())


def _count(w: Writer, thing: str) -> str:
    return w.fresh(lambda: f"{w.rng.randint(3, 160)} {thing}")


def _quantities(w: Writer, size: int) -> None:
    r = w.rng
    things = r.sample(_THINGS, size)
    values = [_count(w, t) for t in things]
    lead = r.choice(("the hire company needs numbers:", "final counts for the barn:", "order:"))
    at = w.user(f"{lead} {', '.join(values[:-1])} and {values[-1]}")
    for v in values:
        w.plant("value", v, at)
    w.say("assistant", w.reply((2, 4)))


def _steps(w: Writer, size: int) -> None:
    steps = w.rng.sample(_STEPS, size)
    times = [w.time() for _ in steps]
    lines = [f"{k + 1}. {s} at {t}" for k, (s, t) in enumerate(zip(steps, times, strict=True))]
    at = w.user("plan for the morning before:\n" + "\n".join(lines))
    for t in times:
        w.plant("value", t, at)
    w.say("assistant", w.reply((2, 4)))


def _pair(w: Writer) -> None:
    template, kind, *names = w.rng.choice(_PAIRS)
    a, b = w.rng.choice(names)
    x, y = _value(w, kind), _value(w, kind)
    text = template.replace("{a}", a).replace("{b}", b).replace("{x}", x).replace("{y}", y)
    at = w.user(text)
    w.plant(_KIND_OF[kind], x, at)
    w.plant(_KIND_OF[kind], y, at)
    w.say("assistant", w.reply((2, 4)))


def _sizes(w: Writer, total: int) -> list[int]:
    """Distractors of two or three values summing to ``total`` (at least two)."""
    sizes: list[int] = []
    while total > 0:
        size = total if total <= 3 else w.rng.choice((2, 3)) if total != 4 else 2
        sizes.append(size)
        total -= size
    return sizes


def _changes(w: Writer, facts: int) -> list[int]:
    """How often each chosen arrangement changes (two to four, fewer in a short conversation)."""
    changes = [w.rng.randint(2, 4) for _ in range(max(1, min(3, facts // 4)))]
    while sum(changes) + len(changes) > facts and max(changes) > 1:
        changes[changes.index(max(changes))] -= 1
    return changes


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    changes = _changes(w, facts)
    events: list[tuple[int, Callable[[], None]]] = []
    for (subject, kind), n in zip(r.sample(ARRANGEMENTS, len(changes)), changes, strict=True):
        chain: list[PlantedFact] = []
        at = r.randint(2, turns // 4)
        step = (turns - 12 - at) // n
        for _ in range(n + 1):
            events.append((at, partial(_say, w, subject, kind, chain)))
            at += r.randint(min(28, step), step)
    for size in _sizes(w, facts - sum(changes) - len(changes)):
        make = (
            partial(_pair, w)
            if size == 2 and r.random() < 0.5
            else partial(r.choice((_quantities, _steps)), w, size)
        )
        events.append((r.randint(5, turns - 15), make))
    b6.timeline(w, turns, events)


def generate(seed: int, turns: int = 450, facts: int = 20) -> Trajectory:
    """One couple's wedding planning, three arrangements changed two to four times each."""
    return build(
        seed,
        "b10-chains",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a couple planning their wedding on a tight budget.",
        "wedding",
    )
