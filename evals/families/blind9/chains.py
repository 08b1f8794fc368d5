"""``blind9-chains``: a touring musician's plans, changed two to four times, beside numbered lists.

A few subjects a seed (a venue's soundcheck time, the hotel in a town, a ferry booking
reference, a show's fee, a promoter's contact) are stated by the user and then changed two to
four times, tens of turns apart, in ordinary words ("scratch that", "turns out", "they moved
it to") or with no correction word at all, never naming the old value. Between them the user
pastes numbered items that are NOT corrections (``step 1 ... step 2``, ``Room 1 ... Room 2``,
``van 1 ... van 2``): each item's value is a fact of its own, never replaced. Every value is a
fact; a replaced one has ``until``, each change is a ``correction`` with ``stale`` (and
``older`` in a chain).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from evals.families.blind6 import base as b6
from evals.families.blind9.base import Writer, build, correct
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["CHANGES", "SUBJECTS", "generate"]

VENUES = (
    "the Crescent", "Lantern Hall", "the Boiler Room", "the Foundry", "Saltmarket Social",
    "the Old Library", "Union Chapel", "the Roundhouse Bar", "the Mill", "Cobalt Studios",
)  # fmt: skip
PLACES = ("Galway", "Leeds", "Bristol", "Aberdeen", "Cork", "Norwich", "Swansea", "Hull")
HOTELS = (
    "Kestrel", "Albany", "Marlin", "Regent", "Belvedere", "Thistle", "Lindum", "Cavendish",
    "Osprey", "Northgate", "Sandringham", "Harbourside", "Merchant", "Fernhill",
)  # fmt: skip


def _value(w: Writer, what: str) -> str:
    if what == "time":
        return w.time()
    if what == "hotel":
        return w.fresh(lambda: f"{w.rng.choice(HOTELS)} Hotel")
    if what == "code":
        return w.code("AA99999")
    if what == "fee":
        return w.money(400, 2400)
    return w.person()


SUBJECTS: dict[str, tuple[FactKind, str, tuple[str, ...]]] = {
    "soundcheck": (
        "value",
        "time",
        (
            "ok so soundcheck at {s} is {v}, can you put that in the day sheet",
            "{s} got back to us, soundcheck {v}. that's early-ish but fine",
        ),
    ),
    "hotel": (
        "name",
        "hotel",
        (
            "booked us into the {v} for the {s} night, it's cheap but it has parking",
            "for {s} we're at the {v}, the promoter sorted it",
        ),
    ),
    "ferry": (
        "code",
        "code",
        (
            "ferry for the {s} leg is booked, ref {v}, keep hold of that",
            "got the crossing sorted for {s}!! booking ref {v}",
        ),
    ),
    "fee": (
        "value",
        "fee",
        (
            "{s} are paying {v} for the show, which covers the van at least",
            "agreed {v} with {s}. not amazing but it's a saturday crowd",
        ),
    ),
    "contact": (
        "name",
        "person",
        (
            "our contact at {s} is {v}, they're the one with the keys",
            "if anything goes wrong at {s}, {v} is who we ring",
        ),
    ),
}
"""Subject -> (fact kind, value shape, statements)."""

CHANGES: dict[str, tuple[str, ...]] = {
    "soundcheck": (
        "scratch that, soundcheck at {s} is {v} now",
        "turns out {s} have a kids thing in the afternoon so soundcheck's {v}",
        "they moved the {s} soundcheck to {v}",
        "{s} soundcheck {v}",
        "promoter just texted - {s}, soundcheck {v} instead",
    ),
    "hotel": (
        "scratch that, the {s} hotel fell through, we're in the {v} now",
        "turns out the place in {s} double booked us. moved to the {v}",
        "{s} night: {v}",
        "they've put us in the {v} for {s} instead, no idea why",
    ),
    "ferry": (
        "had to rebook the {s} crossing, new ref {v}",
        "turns out the earlier sailing was cancelled, {s} ferry ref is {v} now",
        "{s} ferry: {v}",
        "scratch that ferry booking for {s}, it's {v}",
    ),
    "fee": (
        "{s} came back and it's {v} now after the ticket sales",
        "turns out {s} can only do {v}, sigh",
        "they bumped {s} up to {v}!",
        "{s} fee {v}, final answer apparently",
    ),
    "contact": (
        "scratch that, {v} is our contact at {s} now, the other one left",
        "turns out {s} have a new booker, {v}",
        "{s}: ask for {v} on the night",
        "they've handed {s} over to {v}",
    ),
}
"""Subject -> ways the user changes its value (never naming the old one)."""

_LISTS: dict[str, tuple[FactKind, str, str, tuple[str, ...]]] = {
    "steps": (
        "value",
        "time",
        "day sheet for {p}, tell me if it looks daft:",
        ("step {n}: load in {v}", "step {n}: line check {v}", "step {n}: doors {v}"),
    ),
    "rooms": (
        "name",
        "person",
        "rooms in {p} are split like this",
        ("Room {n} is under {v}",),
    ),
    "vans": (
        "code",
        "code",
        "for the hire company, {p} pickup:",
        ("van {n} booking {v}",),
    ),
    "shows": (
        "value",
        "fee",
        "merch float per show, {p} weekend:",
        ("show {n}: {v}",),
    ),
}
"""Numbered lists that are not corrections: kind, value shape, lead-in, item lines."""


def _state(w: Writer, subject: str, place: str, chain: list[PlantedFact]) -> None:
    kind, what, statements = SUBJECTS[subject]
    value = _value(w, what)
    text = w.pick(CHANGES[subject]) if chain else w.rng.choice(statements)
    if place.startswith("the "):
        text = text.replace("the {s}", "{s}")
    at = w.user(text.replace("{s}", place).replace("{v}", value))
    if chain:
        chain.append(correct(w, chain[-1], value, at))
    else:
        chain.append(w.plant(kind, value, at))
    w.say("assistant", w.short() if w.rng.random() < 0.6 else w.reply((2, 4)))


def _numbered(w: Writer, name: str, items: int) -> None:
    kind, what, lead, lines = _LISTS[name]
    values = [_value(w, what) for _ in range(items)]
    start = 1
    body = [
        lines[k % len(lines)].replace("{n}", str(start + k)).replace("{v}", v)
        for k, v in enumerate(values)
    ]
    text = lead.replace("{p}", w.rng.choice(PLACES)) + "\n" + "\n".join(body)
    at = w.user(text)
    for v in values:
        w.plant(kind, v, at)
    w.say("assistant", w.reply((2, 5)))


def _sizes(w: Writer, total: int) -> list[int]:
    out: list[int] = []
    while total > 0:
        n = total if total <= 3 else (2 if total == 4 else w.rng.randint(2, 3))
        out.append(n)
        total -= n
    return out


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    chains = max(1, min(3, facts // 5))
    lengths = [r.randint(3, 5) for _ in range(chains)]
    while sum(lengths) > facts - 2 and max(lengths) > 2:
        lengths[lengths.index(max(lengths))] -= 1
    subjects = r.sample(list(SUBJECTS), chains)
    towns, venues = r.sample(PLACES, chains), r.sample(VENUES, chains)
    places = [
        towns[k] if subject in ("hotel", "ferry") else venues[k]
        for k, subject in enumerate(subjects)
    ]
    events: list[tuple[int, Callable[[], None]]] = []
    for subject, place, length in zip(subjects, places, lengths, strict=True):
        gap = max(3, min(40, (turns - 20) // length - 5))
        starts = b6.spread(r, turns - 15, length, gap)
        chain: list[PlantedFact] = []
        for t in starts:
            events.append((t, partial(_state, w, subject, place, chain)))
    for n in _sizes(w, facts - sum(lengths)):
        name = r.choice(list(_LISTS))
        events.append((r.randint(2, turns - 10), partial(_numbered, w, name, n)))
    b6.timeline(w, turns, events)


def generate(seed: int, turns: int = 455, facts: int = 20) -> Trajectory:
    """A touring musician's conversation: ``facts`` values, some changed two to four times."""
    return build(
        seed,
        "b9-chains",
        turns,
        facts,
        _write,
        "You are an assistant helping a musician plan and run a small tour.",
        "band",
    )
