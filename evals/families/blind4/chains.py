"""blind4-chains: the same arrangement given 4-6 values in turn; only the latest counts.

A family organising a party, a kitchen refit and a visit keeps changing its mind. Each chain
(a date, a budget, a tradesman, an airport pickup time, a headcount, a booking reference, a
paint colour) is stated once and revised 3-5 times, 12 or more turns apart. A revision may be
explicit ("No wait", "Change of plan"), implicit ("They couldn't get the hall, so it's ...") and
may name the subject by another word ("the do", "the bash", "Gran's party"). Every value is a
fact until the next revision supersedes it (``until``); each revision's ``stale`` is the value
it replaced and ``older`` the ones before that, which is what the runner's ``stale``,
``stale unmarked`` and ``stale only`` columns read.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from evals.families.blind4.base import Convo, Plant, Slots, build
from evals.families.blind4.chatter import MONTHS, Fresh, filler_turn
from evals.families.trajectories import Trajectory

__all__ = ["CHAINS", "Chain", "generate"]

WORDS = (
    "nine",
    "ten",
    "eleven",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty-two",
    "twenty-five",
)
NUMBERS = dict(zip(WORDS, (9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 22, 25), strict=True))


def _date(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    d, m = rng.randint(1, 28), rng.randint(1, 12)
    month = MONTHS[m - 1]
    return f"{d} {month} 2027", (f"{month} {d}, 2027", f"2027-{m:02d}-{d:02d}")


def _money(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    n = rng.randint(52, 190) * 100 + rng.choice((0, 0, 50, 25))
    return f"£{n // 1000},{n % 1000:03d}", ()


def _person(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    first = rng.choice(
        (
            "Gareth",
            "Lorna",
            "Stefan",
            "Imogen",
            "Declan",
            "Fenella",
            "Kwame",
            "Rosalind",
            "Tadhg",
            "Marguerite",
        )
    )
    last = rng.choice(
        (
            "Abernethy",
            "Quilliam",
            "Tregenza",
            "Okonjo",
            "Vardy-Pike",
            "Mountford",
            "Ellacott",
            "Huxtable",
            "Sandoval",
            "Prothero",
        )
    )
    return f"{first} {last}", ()


def _time(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    return f"{rng.randint(5, 23):02d}:{rng.choice((5, 20, 25, 35, 40, 55)):02d}", ()


def _heads(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    word = rng.choice(WORDS)
    n = NUMBERS[word]
    return f"{word} of us", (f"{n} people", f"{n} guests", f"{n} of us")


def _ref(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    letters = "".join(rng.choice("BCDFGHJKMNPQRTVWXZ") for _ in range(3))
    return f"{letters}{rng.randint(100, 999)}{rng.choice('ABCDEFGH')}", ()


def _paint(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    return rng.choice(
        (
            "Sage Whisper",
            "Hague Blue",
            "Setting Plaster",
            "Card Room Green",
            "Skimming Stone",
            "Sulking Room Pink",
            "Pigeon Grey",
            "Oval Room Blue",
            "India Yellow",
            "Mizzle",
            "Calke Green",
            "Dead Salmon",
            "Stiffkey Blue",
            "Railings",
            "Bone White",
        )
    ), ()


@dataclass(frozen=True)
class Chain:
    """One arrangement: its kind, its names, how its values are drawn and said."""

    key: str
    kind: str
    names: tuple[str, ...]
    draw: Callable[[random.Random], tuple[str, tuple[str, ...]]]
    first: tuple[str, ...]
    implicit: tuple[str, ...]


CHAINS = (
    Chain(
        "party",
        "date",
        ("the party", "Gran's eightieth", "the do", "the bash", "the get-together"),
        _date,
        ("We've finally pinned down {s}: it's on {v}. Can you help me think about food?",),
        (
            "The hall's double-booked, so {s} has shifted to {v}.",
            "Half the cousins are away that weekend. {v} then, for {s}.",
            "Gran wants it nearer her actual birthday, so we're looking at {v} now.",
        ),
    ),
    Chain(
        "budget",
        "value",
        (
            "the kitchen budget",
            "what we can spend on the kitchen",
            "the kitchen money",
            "the refit ceiling",
        ),
        _money,
        ("Right, kitchen. We sat down with the numbers and {s} is {v}, units and fitting.",),
        (
            "Looked at the savings again. Realistically {v} for the kitchen.",
            "The worktop quote changed everything, call it {v}.",
            "Mum's chipping in but the boiler needs doing too, so {s} is {v}.",
        ),
    ),
    Chain(
        "builder",
        "name",
        ("the builder", "whoever's doing the extension", "the extension guy", "our contractor"),
        _person,
        ("Signed with a builder for the extension today, {v}, came recommended by next door.",),
        (
            "The first one pulled out, family emergency. {v} is taking it on instead.",
            "Went with {v} in the end, the other quote had no insurance.",
            "Our contractor's off sick for a month, so {v} from his firm is running the job.",
        ),
    ),
    Chain(
        "pickup",
        "date",
        (
            "the airport pickup",
            "collecting Auntie Bev",
            "the airport run",
            "Bev's lift from arrivals",
        ),
        _time,
        ("Auntie Bev lands on Friday, so someone needs to be at Terminal 2 for {v}.",),
        (
            "Her flight got moved, so it's {v} now for {s}.",
            "She's on a different flight after all, so be at arrivals for {v}.",
            "Bev just texted, delayed again. {v}.",
        ),
    ),
    Chain(
        "heads",
        "value",
        (
            "numbers for Sunday lunch",
            "the headcount",
            "how many we're feeding",
            "the table booking",
        ),
        _heads,
        ("For Sunday lunch at the Swan it's {v}, can you put that on the booking?",),
        (
            "The Hendersons can't make it but Jo's bringing her lot, so it's {v}.",
            "Colds and a christening have wrecked the numbers, it's {v} now.",
            "Tell the Swan {v}, the kids are eating with us.",
        ),
    ),
    Chain(
        "hotel",
        "code",
        ("the hotel booking", "where we're staying in York", "the York room", "the reservation"),
        _ref,
        ("Booked the hotel in York for the weekend, reference {v}.",),
        (
            "They moved us to a bigger room and the reference changed to {v}.",
            "Had to rebook after the card was declined, it's {v} now.",
            "Booking.com reissued it as {v}, don't ask me why.",
        ),
    ),
    Chain(
        "paint",
        "preference",
        (
            "the hallway colour",
            "the paint for the hall",
            "what's going on the hall walls",
            "the hall",
        ),
        _paint,
        ("We're doing the hall in {v}, I've got a tester pot already.",),
        (
            "Went off it, looks grim in daylight. Trying {v} instead.",
            "The partner vetoed it, so it's {v} for {s}.",
            "Bought a tin of {v} on impulse, that's what's happening now.",
        ),
    ),
)

EXPLICIT = (
    "No wait, {s} is {v}, I had it wrong.",
    "Change of plan on {s}: {v}.",
    "Scratch what I said about {s}, it's {v}.",
    "Small update, {s} is now {v}.",
    "Sorry, correction: {s} is {v}, not what I told you before.",
)
REPLIES = (
    "Okay, updated.",
    "Got it, I've changed that.",
    "Right, noted the change.",
    "Fair enough, updated on my side.",
    "No worries, changed.",
)


@dataclass
class _Run:
    chain: Chain
    values: list[tuple[str, tuple[str, ...]]]
    plants: list[Plant] = field(default_factory=list)


def _say(convo: Convo, run: _Run) -> None:
    step = len(run.plants)
    value, aliases = run.values[step]
    rng = convo.rng
    subject = rng.choice(run.chain.names)
    if step == 0:
        text = rng.choice(run.chain.first)
    elif rng.random() < 0.5:
        text = rng.choice(run.chain.implicit)
    else:
        text = rng.choice(EXPLICIT)
    text = text.format(s=subject, v=value)
    text = text[0].upper() + text[1:]
    index = convo.user(text)
    extra: dict[str, object] = {"aliases": aliases}
    if run.plants:
        prev = run.plants[-1]
        prev.until = index
        extra.update(
            stale=prev.value,
            stale_index=prev.message_index,
            older=tuple(p.value for p in run.plants[:-1]),
        )
    run.plants.append(convo.plant(run.chain.kind, value, index, **extra))
    convo.say(rng.choice(REPLIES))


def write(convo: Convo, turns: int, chains: int) -> None:
    f = Fresh(convo.rng)
    rng = convo.rng
    convo.system(
        "You are Hazel, a family organiser assistant: parties, home projects, travel and "
        "bookings. Keep track of the arrangements as they change."
    )
    slots = Slots(turns)
    for chain in rng.sample(CHAINS, min(chains, len(CHAINS))):
        count = rng.randint(4, 6)
        values: list[tuple[str, tuple[str, ...]]] = []
        while len(values) < count:
            v = chain.draw(rng)
            if all(v[0] != w[0] for w in values):
                values.append(v)
        run = _Run(chain, values)
        at = rng.randint(2, turns // 8)
        for _ in range(count):
            slots.put(at, partial(_say, convo, run))
            at += rng.randint(12, max(13, (turns - at) // 4))
    slots.run(lambda: filler_turn(convo, f))


def generate(seed: int, *, turns: int = 640, facts: int = 6) -> Trajectory:
    """The ``blind4-chains`` conversation for ``seed``; ``facts`` is the number of chains."""
    return build(
        "b4-chains", seed, lambda c: write(c, turns, facts), {"turns": turns, "chains": facts}
    )
