"""Corrections of many shapes, by the user or by a tool result, over long gaps.

A date moved twice, a misspelt name put right, a figure a tool result revises, a reference
reissued, a move that fell through, a headcount that keeps changing.

Plants ``facts`` values in one chain per shape in ``SHAPES`` (8), each 2 or 3 long (the
longest cut short at random to make ``facts``); every value after a chain's first is a
correction whose ``stale`` is the value before it (and ``older`` the ones before that),
stated 10 to 60 turns later. Who corrects
varies with the shape: the user ("they've moved me again, it's now ..."), a tool result (the
final invoice, the airline's amendment email, the contacts card) or the user correcting what a
tool said. No correction repeats the value it replaces. Scored by the trajectories runner: each
value is asked about until the next one in its chain, by kind (``date``, ``name``, ``value``,
``code``); the corrections also in ``stale``, ``stale unmarked`` and ``stale only``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind2.base import Writer
from evals.families.facts import FactKind

__all__ = ["SHAPES", "write"]

Step = Callable[[Writer, int, str], int]
"""Say step ``i`` of a chain with ``value``; the index of the message that holds it."""


def _user(frames: tuple[str, ...], reply: tuple[str, ...] = ("Updated.", "Okay, changed.")) -> Step:
    def step(w: Writer, i: int, value: str) -> int:
        where = w.say("user", w.fill(w.rng.choice(frames), v=value))
        w.say("assistant", w.fill(w.rng.choice(reply)))
        return where

    return step


def _tool(
    ask: tuple[str, ...],
    tool: str,
    body: Callable[[Writer, str], dict[str, object]],
    after: tuple[str, ...],
) -> Step:
    def step(w: Writer, i: int, value: str) -> int:
        w.say("user", w.fill(w.rng.choice(ask)))
        where = w.call(tool, {}, json.dumps(body(w, value)))
        w.say("assistant", w.fill(w.rng.choice(after)))
        return where

    return step


@dataclass(frozen=True)
class Shape:
    """A kind of chain: how its values are drawn, and how each step says one."""

    name: str
    kind: FactKind
    draw: Callable[[Writer], list[tuple[str, tuple[str, ...]]]]
    steps: tuple[Step, ...]


def _invoice(w: Writer, v: str) -> dict[str, object]:
    sender = w.rng.choice(("slateandtile", "warmhomes", "keystonebuild"))
    days = w.rng.randint(7, 30)
    return {
        "from": f"accounts@{sender}.co.uk",
        "subject": "Final invoice",
        "total_gbp": v,
        "due_in_days": days,
    }


def _amended(w: Writer, v: str) -> dict[str, object]:
    body = f"Please note your new reference is {v}. The previous one is no longer valid."
    return {"subject": "Your booking has been amended", "body": body}


def _dates(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    return [w.date(style=w.rng.choice((0, 1))) for _ in range(3)]


NAME_VARIANTS = (
    ("Katharine", "Catherine"), ("Stephen", "Steven"), ("Jon", "John"), ("Sara", "Sarah"),
    ("Aileen", "Eileen"), ("Philip", "Phillip"), ("Geoff", "Jeff"), ("Zoe", "Zoey"),
    ("Ann", "Anne"), ("Sean", "Shaun"), ("Rebekah", "Rebecca"), ("Alistair", "Alasdair"),
)  # fmt: skip
SURNAME_VARIANTS = (
    ("Thomson", "Thompson"), ("Reid", "Reade"), ("Mathews", "Matthews"),
    ("Macdonald", "McDonald"), ("Philips", "Phillips"), ("Clarke", "Clerk"), ("Grey", "Gray"),
    ("Browne", "Brown"), ("Smyth", "Smith"), ("Mackenzie", "McKenzie"), ("Stuart", "Stewart"),
)  # fmt: skip


def _misspelt(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    r = w.rng

    def make() -> tuple[str, tuple[str, ...]]:
        (fa, fb), (sa, sb) = r.choice(NAME_VARIANTS), r.choice(SURNAME_VARIANTS)
        wrong, right = (
            (f"{fa} {sb}", f"{fa} {sa}") if r.random() < 0.5 else (f"{fb} {sa}", f"{fa} {sa}")
        )
        return f"{wrong}|{right}", ()

    pair = w.fresh(make)[0]
    wrong, right = pair.split("|")
    w.used.update({wrong.lower(), right.lower()})
    return [(wrong, ()), (right, ())]


def _amounts(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    """A quote, the invoice 5-30 % above it, then a figure haggled 3-15 % down from that."""
    r = w.rng
    first = w.money(1200, 14000)
    invoice = int(float(first[0]) * r.uniform(1.05, 1.3))
    second = w.money(invoice, invoice + 40)
    haggled = int(float(second[0]) * r.uniform(0.85, 0.97))
    return [first, second, w.money(haggled, haggled + 40)]


def _codes(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    return [w.code() for _ in range(3)]


STREETS = (
    "Calder Street",
    "Rowan Terrace",
    "Mill Brow",
    "Ashgrove Road",
    "Quarry Lane",
    "Kestrel Close",
    "Hawthorn Avenue",
    "Bank Parade",
    "Tanners Row",
    "Orchard Walk",
)


def _addresses(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    r = w.rng
    return [w.fresh(lambda: (f"{r.randint(2, 180)} {r.choice(STREETS)}", ())) for _ in range(3)]


def _heads(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    r = w.rng
    heads = [r.randint(40, 140)]
    for _ in range(2):
        heads.append(heads[-1] + r.choice((-1, 1)) * r.randint(3, 20))

    def make(n: int) -> tuple[str, tuple[str, ...]]:
        return f"{n + r.randint(0, 2)} guests", ()

    return [w.fresh(functools.partial(make, n)) for n in heads]


def _people(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    return [w.person() for _ in range(3)]


def _flights(w: Writer) -> list[tuple[str, tuple[str, ...]]]:
    r = w.rng
    air = r.choice(("BA", "EZY", "FR", "LS", "KL"))
    return [w.fresh(lambda: (f"{air}{r.randint(100, 9899)}", ())) for _ in range(3)]


SHAPES = (
    Shape(
        "appointment moved twice",
        "date",
        _dates,
        (
            _user(
                (
                    "Hospital letter came, the knee op is on {v}. Can you block the week out?",
                    "Physio assessment's booked for {v}, put it in the calendar.",
                )
            ),
            _user(
                (
                    "They've moved the op. It's {v} now, so shift the week off to match.",
                    "Hospital rang, cancelled and rebooked me for {v}. Sigh.",
                )
            ),
            _user(
                (
                    "Moved AGAIN. {v}. I give up. Update everything please.",
                    "Third letter in a month, now it's {v}. Sooner or later, I've lost track.",
                )
            ),
        ),
    ),
    Shape(
        "name misspelt, then fixed",
        "name",
        _misspelt,
        (
            _user(
                (
                    "The new landlord is {v}, he's coming round about the damp on {day}.",
                    "Our new head of department is {v}, can you add her to my contacts?",
                    "The solicitor handling the will is {v}. Make a contact for them.",
                )
            ),
            _user(
                (
                    "Saw an email signature, I'd spelt that name wrong, it's {v}. Fix the contact?",
                    "Oops, the name's {v}, I'd typed it wrong. Can you correct it everywhere?",
                ),
                ("Fixed.", "Corrected in your contacts."),
            ),
        ),
    ),
    Shape(
        "estimate revised by the invoice",
        "value",
        _amounts,
        (
            _user(
                (
                    "The roofer reckons it'll be {v} all in. Put that in the house budget.",
                    "Quote for the new boiler was {v}, which I suppose is what they cost now.",
                )
            ),
            _tool(
                ("Did the final invoice come through?", "Check my email for the builder's bill?"),
                "search_email",
                _invoice,
                (
                    "It's not what they quoted. I've updated the budget to match the invoice.",
                    "The invoice total isn't what they quoted; budget updated to the invoice.",
                ),
            ),
            _user(
                (
                    "Rang them, they've knocked it down. We've agreed {v}. Budget to that please.",
                    "After some haggling: {v}, final. Put that in.",
                ),
                ("Budget updated.", "Done."),
            ),
        ),
    ),
    Shape(
        "reference reissued",
        "code",
        _codes,
        (
            _user(
                (
                    "Booking ref for the cottage is {v}, keep hold of it.",
                    "The garage gave me job number {v} for the MOT.",
                )
            ),
            _tool(
                (
                    "Anything from the cottage people or the garage?",
                    "New emails about the booking?",
                ),
                "search_email",
                _amended,
                (
                    "They've reissued the reference; I've replaced it in your notes.",
                    "Amendment email: a new reference, which I've saved over the old one.",
                ),
            ),
            _user(("They changed it again on the phone, it's {v} now.",), ("Saved.",)),
        ),
    ),
    Shape(
        "move that fell through",
        "value",
        _addresses,
        (
            _user(
                (
                    "Offer accepted on {v}! Can you start a moving checklist for it?",
                    "We've found a place, {v}. Start changing addresses over to it in a few weeks.",
                )
            ),
            _user(
                (
                    "The sale collapsed. We're going for {v} instead, different street entirely.",
                    "Bad news on the house, it's off. Good news: {v} is ours if the survey's fine.",
                ),
                (
                    "Sorry to hear it. Checklist updated to the new address.",
                    "Updated the checklist.",
                ),
            ),
            _user(
                ("Survey found subsidence. So, {v}. Third time lucky.",),
                ("Checklist updated again.",),
            ),
        ),
    ),
    Shape(
        "headcount that keeps changing",
        "value",
        _heads,
        (
            _user(
                (
                    "For the wedding we're at {v} now, tell the caterer.",
                    "Final numbers for Dad's seventieth: {v}. Let the venue know.",
                )
            ),
            _user(
                (
                    "Caterer needs updating, half the cousins dropped out: {v}.",
                    "Numbers have changed, {v}, so the venue needs to know.",
                )
            ),
            _user(("Okay, properly final now, {v}.",), ("Sent to them.", "Let them know.")),
        ),
    ),
    Shape(
        "contact handed over",
        "name",
        _people,
        (
            _user(
                (
                    "{v} at the estate agents is handling the sale. Save her number.",
                    "The caseworker for the planning appeal is {v}.",
                )
            ),
            _user(
                (
                    "Different person now, {v} has taken the case over. Update the contact.",
                    "Estate agent emailed, {v} is our contact from here on.",
                ),
                ("Updated.",),
            ),
        ),
    ),
    Shape(
        "flight changed by the airline",
        "code",
        _flights,
        (
            _user(
                (
                    "We're on {v} out on the Friday, put it in.",
                    "Booked: flight {v}, 06:50 departure.",
                )
            ),
            _tool(
                ("Any news from the airline?", "Check the airline app?"),
                "airline_trips",
                lambda w, v: {
                    "status": "schedule_change",
                    "new_flight": v,
                    "reason": "operational",
                },
                ("The airline's moved you to another flight; the calendar shows the new one.",),
            ),
        ),
    ),
)


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """One chain per shape in ``SHAPES``, some cut short at random, ``facts`` values in all."""
    w = Writer(rng)
    shapes = rng.sample(SHAPES, len(SHAPES))
    lengths = [len(shape.steps) for shape in shapes]
    if not len(shapes) <= facts <= sum(lengths):
        raise ValueError(f"revisions plants {len(shapes)} to {sum(lengths)} facts, got {facts}")
    while sum(lengths) > facts:  # shorten chains at random, none below one value
        longest = max(lengths)
        lengths[rng.choice([i for i, n in enumerate(lengths) if n == longest])] -= 1
    chains = list(zip(shapes, lengths, strict=True))
    plan: dict[int, tuple[int, int]] = {}
    for c, (_, length) in enumerate(chains):
        at = rng.randint(2, max(3, turns - 1 - 60 * length))
        for s in range(length):
            while at in plan:
                at += 1
            if at >= turns:
                raise ValueError(f"{facts} facts do not fit in {turns} turns")
            plan[at] = (c, s)
            at += rng.randint(10, 60)
    values = [shape.draw(w) for shape, _ in chains]
    latest: dict[int, int] = {}
    for t in range(turns):
        w.begin()
        if t not in plan:
            w.chatter()
            continue
        c, s = plan[t]
        shape = chains[c][0]
        value, aliases = values[c][s]
        where = shape.steps[s](w, s, value)
        if s == 0:
            w.record(shape.kind, value, aliases, t, where)
        else:
            prev = w.facts[latest[c]]
            w.facts[latest[c]] = dataclasses.replace(prev, until=where)
            older = (*prev.older, prev.stale) if prev.stale else ()
            w.record(
                shape.kind,
                value,
                aliases,
                t,
                where,
                stale=prev.value,
                stale_index=prev.message_index,
                older=older,
            )
        latest[c] = len(w.facts) - 1
    return w
