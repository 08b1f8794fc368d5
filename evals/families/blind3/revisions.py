"""``blind3-revisions``: values the user changes their mind about, several times, in passing.

Each chain is one thing being arranged (a move date, a budget, a pickup time, who collects the
keys, how many boxes, a paint colour, a table booking). The user states a first value, then
revises it two or three times, 5-30 turns apart, in the phrasings people use: "no wait",
"scratch that", "make it", "actually", and implicit ones ("the 19th works better for them",
"Keira's doing it now"). Every value is stated once; each is a fact until the next one
supersedes it (``until``), ``stale`` and ``older`` hold the values before it, so the runner's
``stale``, ``stale unmarked`` and ``stale only`` columns flag a view that still has an old
value (or only an old value).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from evals.families.blind3.base import MONTHS, Conversation, smalltalk

__all__ = ["CHAINS", "write"]

Step = tuple[str, str]  # (value, message)


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _move(rng: random.Random) -> tuple[str, list[Step]]:
    month = MONTHS[rng.randrange(12)]
    d1, d2, d3 = rng.sample(range(3, 28), 3)
    v1, v2, v3 = f"{d1} {month}", f"{d2} {month}", _ordinal(d3)
    return "date", [
        (
            v1,
            f"Can you help me plan the move? The van's booked for {v1}, first thing, and I've "
            f"got no boxes yet.",
        ),
        (
            v2,
            f"No wait, I had the move wrong. It's {v2}, the van company moved us because of a "
            f"cancellation. Does the plan still work?",
        ),
        (
            v3,
            f"Ugh, they rang again. The {v3} works better for them apparently, so that's the day "
            f"now. Same plan otherwise.",
        ),
    ]


def _budget(rng: random.Random) -> tuple[str, list[Step]]:
    a, b, c = (f"£{x:,}" for x in rng.sample(range(1150, 4950, 35), 3))
    return "value", [
        (
            a,
            f"Looking at sofas. Budget is roughly {a} all in, including delivery. What should I "
            f"look for in the frame?",
        ),
        (
            b,
            f"Spoke to my partner about the sofa money. Make it {b}, we'd rather not scrimp on "
            f"something we sit on every day.",
        ),
        (
            c,
            f"Scratch that, the car needs tyres. {c} for the sofa, tops. Does that change what "
            f"you'd go for?",
        ),
    ]


def _pickup(rng: random.Random) -> tuple[str, list[Step]]:
    times = [
        f"{h}:{m:02d}pm"
        for h, m in zip(rng.sample(range(5, 10), 3), rng.sample(range(5, 56, 5), 3), strict=True)
    ]
    return "value", [
        (
            times[0],
            f"Gran's train gets in Friday evening. I'll be at the station for {times[0]}, can "
            f"you remind me what platform info to check?",
        ),
        (
            times[1],
            f"Actually, her train's been retimed. Pickup is {times[1]} now, which clashes with "
            f"swimming, brilliant.",
        ),
        (
            times[2],
            f"Right, final answer on Gran: she's getting the earlier one, so I need to be there "
            f"at {times[2]}. Can you think of anything I've missed?",
        ),
    ]


_PEOPLE = (
    "Keira Odunsi",
    "Magnus Ellery",
    "Priya Venkataraman",
    "Tobias Wren",
    "Solenne Achterberg",
    "Rufus Delacroix-Mbeki",
    "Anouk Haverkamp",
)


def _keys(rng: random.Random) -> tuple[str, list[Step]]:
    a, b, c = rng.sample(_PEOPLE, 3)
    return "name", [
        (
            a,
            f"The estate agent needs to know who's collecting the keys on completion day. {a} "
            f"said they could do it since I'm at work.",
        ),
        (
            b,
            f"No wait, {b} is collecting the keys, the other plan fell through because of a "
            f"hospital appointment. Should I tell the agent in writing?",
        ),
        (
            c,
            f"Change of plan again with the keys, sorry: {c} is doing it now, they live two "
            f"streets from the agent's office.",
        ),
    ]


def _tiles(rng: random.Random) -> tuple[str, list[Step]]:
    a, b, c = (f"{x} boxes" for x in rng.sample(range(14, 60), 3))
    return "value", [
        (
            a,
            f"Ordering the bathroom tiles tonight. I've worked it out at {a} including the ten "
            f"percent extra. Does that sound right for a small room?",
        ),
        (
            b,
            f"Measured again because I don't trust myself. Make it {b}, I'd forgotten the bit "
            f"behind the door.",
        ),
        (
            c,
            f"Ok, the fitter looked at it and said herringbone wastes more. So {c}, and I'll "
            f"return what's left unopened.",
        ),
    ]


_PAINTS = (
    "Sage Mist",
    "Harbour Grey",
    "Chalk Linen",
    "Burnt Apricot",
    "Marsh Fern",
    "Slate Plum",
    "Dune Ochre",
)


def _paint(rng: random.Random) -> tuple[str, list[Step]]:
    a, b, c = rng.sample(_PAINTS, 3)
    return "preference", [
        (
            a,
            f"We're doing the hallway this weekend. Leaning towards {a} from the sample pots, "
            f"does a mid tone work in a dark hall?",
        ),
        (
            b,
            f"Scratch the hallway colour, we saw it in daylight and it looked like a hospital. "
            f"{b} instead.",
        ),
        (
            c,
            f"Last word on the hall, promise: {c}. My partner won, as usual. How many coats for "
            f"a wall that's currently magnolia?",
        ),
    ]


def _table(rng: random.Random) -> tuple[str, list[Step]]:
    venue = rng.choice(("Osteria Lupo", "The Anchor", "Hanoi Kitchen", "Casa Verde"))
    a, b, c = (f"{n} of us" for n in rng.sample(range(6, 21), 3))
    return "value", [
        (
            a,
            f"Booking {venue} for the leaving do. Put it down as {a} for now, people are slow to "
            f"reply. Can you draft the message to them?",
        ),
        (
            b,
            f"Leaving do update: two more said yes and one can't, so it's {b}. Can you tweak the "
            f"draft?",
        ),
        (
            c,
            f"Honestly people are hopeless. It's {c} in the end, that's what I'm telling "
            f"{venue}, no more changes.",
        ),
    ]


CHAINS: tuple[Callable[[random.Random], tuple[str, list[Step]]], ...] = (
    _move,
    _budget,
    _pickup,
    _keys,
    _tiles,
    _paint,
    _table,
)
"""One chain per topic: a first value and its revisions (3 values each)."""

_ACKS = (
    "Got it, updated. Shout if anything else changes.",
    "No problem, I'll go with that from here on.",
    "Noted, the plan's the same apart from that.",
    "Fine by me. Everything else stays as it was.",
    "Makes sense. I've adjusted the rest around it.",
)


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """Chains of 3 values (facts // 3 chains, at most one per topic) among small talk."""
    conv = Conversation("You are a helpful personal assistant for household planning.")
    chains = rng.sample(CHAINS, min(len(CHAINS), max(1, facts // 3)))
    # each chain: start turn, then 2 revisions 5-30 turns apart, interleaved across the run
    schedule: dict[int, tuple[int, int]] = {}
    usable = turns - 3
    for c in range(len(chains)):
        start = 2 + (c * (usable // 3)) // max(1, len(chains))
        t = start
        for step in range(3):
            while t in schedule:
                t += 1
            schedule[t] = (c, step)
            t += rng.randint(8, 30) if step == 0 else rng.randint(5, 30)
    if max(schedule) >= turns:
        raise ValueError(f"blind3-revisions: {turns} turns are too few for {len(chains)} chains")
    drafted = [chain(rng) for chain in chains]
    last: dict[int, Any] = {}
    for turn in range(turns):
        if turn not in schedule:
            user, answer = smalltalk(rng)
            conv.user(user)
            conv.assistant(answer)
            continue
        c, step = schedule[turn]
        kind, steps = drafted[c]
        value, text = steps[step]
        idx = conv.user(text)
        conv.assistant(
            rng.choice(_ACKS)
            if step
            else "Sounds good. I'll work from that; here's a rough plan to start with."
        )
        if step == 0:
            last[c] = conv.plant(kind, value, idx)
            continue
        before = last[c]
        conv.supersede(before, idx)
        older = tuple(s[0] for s in steps[: step - 1])
        last[c] = conv.plant(
            kind,
            value,
            idx,
            stale=steps[step - 1][0],
            stale_index=before.message_index,
            older=older,
        )
    return conv
