"""``blind13-chains``: a cricket club's end-of-season dinner, its details changed 2-4 times.

The club secretary plans the dinner with the assistant. Four of its details a seed
(:data:`SUBJECTS`: the date, the time the doors open, the hall's deposit, the caterer, the
marquee booking reference, the guest speaker, the ticket price) are stated, then changed two to
four times 30 or more turns apart, four ways (:data:`WAYS`): with a change word ("they've
moved the dinner to"), by scrapping the old one ("scrap that"), by the assistant after it
checks the club's bookings (the tool's record holds the new value), or implicitly, the new
value only said in a new context ("draft a save-the-date: dinner on ..."). The old value is
never said again. Beside them come look-alikes: values of the same shape about something else
("the juniors' presentation evening is on ..."), never replaced.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import build, timeline
from evals.families.blind13.base import Writer, writer
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["FIRST", "LAST", "SUBJECTS", "WAYS", "generate"]

FIRST = (
    "Aurelio", "Bronagh", "Cosimo", "Delphine", "Emrys", "Fenella", "Gideon", "Honora",
    "Ignatius", "Jocasta", "Lorcan", "Marisol", "Niamh", "Osric", "Perpetua", "Rafferty",
    "Saoirse", "Tobiah", "Wilfred", "Zenobia",
)  # fmt: skip
LAST = (
    "Ackroyd", "Blenkinsop", "Cartwright", "Dunmore", "Eggleston", "Fairclough", "Gaskell",
    "Hargreaves", "Iredale", "Jowett", "Kilburn", "Lazenby", "Moorhouse", "Nuttall", "Oldroyd",
    "Pilling", "Rigby", "Stansfield", "Tattersall", "Whiteley",
)  # fmt: skip


@dataclass(frozen=True)
class Subject:
    """One detail of the dinner: how it is said first, changed, and looked alike."""

    label: str
    kind: FactKind
    make: str  # "day", "time", "money", "fee", "person", "code"
    first: tuple[str, ...]
    change: tuple[str, ...]
    scrap: tuple[str, ...]
    implicit: tuple[str, ...]
    field: str
    alike: tuple[str, ...]


SUBJECTS: dict[str, Subject] = {
    "date": Subject(
        "dinner date", "date", "day",
        ("right, the end of season dinner is fixed for {v}, the committee finally agreed",),
        ("the hall double-booked us, so the dinner's been moved to {v}",
         "they've shifted the dinner to {v} because of the darts final"),
        ("scrap the date i gave you for the dinner, it's {v}",
         "scrap that, the dinner will be {v}, the hall rang back"),
        ("can you draft a save-the-date for members: dinner on {v}, partners welcome",
         "put it in the newsletter: dinner on {v}, dress smart"),
        "date",
        ("the juniors' presentation evening is {v}, that's a separate do",
         "the rugby club have their dinner on {v}, same hall, nothing to do with ours"),
    ),
    "doors": Subject(
        "doors time", "value", "time",
        ("doors for the dinner will be {v}, food about an hour after",),
        ("the caterer wants to serve earlier, so doors are now {v}",
         "the hall's bumped our doors to {v}, there's a christening party before us"),
        ("scrap the doors time, make it {v}",
         "scrap what i said about doors, it's {v}"),
        ("can you do the poster text: doors {v}, carriages at midnight",
         "write the reminder for the group chat, doors at {v} and bring cash for the raffle"),
        "doors_open",
        ("the bar staff get in at {v} to set up, that's not the doors",
         "the band sound-check at {v}, separate from the doors"),
    ),
    "deposit": Subject(
        "hall deposit", "value", "money",
        ("the hall wants a deposit of {v} to hold the booking",),
        ("they've put the hall deposit up to {v}, new management",
         "the hall deposit's gone up to {v} now we want the bar extension"),
        ("scrap the deposit figure i gave you, it's {v}",
         "scrap that deposit, the treasurer says it's {v}"),
        ("can you write a note for the treasurer to pay the hall {v} before the end of the month",
         "draft the committee update: hall paid {v}, the rest on the night"),
        "deposit_due",
        ("the raffle float is {v}, nothing to do with the hall",
         "the bar takings target is {v}, separate pot"),
    ),
    "caterer": Subject(
        "caterer", "name", "person",
        ("the caterer is {v}, they did the cricket teas last season",),
        ("{v} is taking over the catering, the other lot have folded",
         "we've switched the catering to {v}, cheaper and they do a proper pudding"),
        ("scrap that caterer, we're going with {v}",
         "scrap the caterer i mentioned, it'll be {v}"),
        ("draft a thank you to {v} for turning the menu round so quickly",
         "can you send the dietary list over to {v} with a friendly note"),
        "caterer",
        ("the bar is being run by {v} on the night, separate from the food",
         "{v} is doing the flowers for the tables, not the food"),
    ),
    "marquee": Subject(
        "marquee booking ref", "code", "code",
        ("the marquee booking ref is {v}, keep that handy",),
        ("the hire firm reissued the marquee booking as {v}",
         "the marquee booking has been moved onto a new ref, {v}"),
        ("scrap that marquee ref, the right one is {v}",
         "scrap the marquee reference, it's {v}"),
        ("email the hire firm quoting {v} and ask about heaters",
         "can you chase the marquee people about the flooring, quote {v}"),
        "booking_ref",
        ("the portaloo booking is {v}, different firm",
         "the generator hire ref is {v}, don't mix it up with the marquee"),
    ),
    "speaker": Subject(
        "guest speaker", "name", "person",
        ("our guest speaker is {v}, an old county opener",),
        ("{v} is stepping in as speaker, the first one needs a hip op",
         "the speaker's changed to {v}, who was free after all"),
        ("scrap that speaker, it's {v}",
         "scrap the speaker i told you about, we've got {v}"),
        ("write a short intro for {v} to read out before the speech",
         "draft a note to {v} about how long to speak and where to park"),
        "guest_speaker",
        ("{v} is doing the raffle, not a speech",
         "{v} will be the toastmaster, the speaker is someone else"),
    ),
    "tickets": Subject(
        "ticket price", "value", "fee",
        ("tickets for the dinner are {v} a head",),
        ("we've had to put the tickets up to {v} a head",
         "tickets are now {v}, the caterer's costs went up"),
        ("scrap that ticket price, it's {v}",
         "scrap the ticket figure, the committee went for {v}"),
        ("do the poster: tickets {v}, members and partners, from the bar",
         "write the email to members, tickets {v}, pay the treasurer"),
        "ticket_price",
        ("junior tickets are {v}, separate from the adult price",
         "the raffle strips are {v} each, nothing to do with the dinner"),
    ),
}  # fmt: skip
"""The dinner's details that a seed picks four of."""

WAYS = ("change", "scrap", "tool", "implicit")
"""How a value is replaced."""

_CHECK = (
    "can you check the {label} against the club bookings, i'm not sure we've got it right",
    "double-check the {label} in the bookings system for me",
    "what does the bookings system have for the {label}?",
)
_CHECKED = (
    "The bookings system has a newer {label} than the one we were working with, so I've gone "
    "with the record above from now on.",
    "That's changed since we last spoke about it: the record above is the current {label}, and "
    "I've updated my notes.",
    "The booking was amended; the {label} in that record is the current one, not the earlier one.",
)
_DRAFTED = (
    "Here's a draft you can paste straight in. Have a read and tweak the tone if it's too stiff.",
    "Done. Keep it short and friendly and people will actually read it.",
    "Here you go, a short version first and you can add the detail underneath.",
)


def _value(w: Writer, make: str) -> tuple[str, tuple[str, ...]]:
    r = w.rng
    if make == "day":
        return w.day()
    if make == "time":
        return w.fresh(lambda: f"{r.randint(17, 20)}:{r.choice((0, 15, 30, 45)):02d}"), ()
    if make == "money":
        return w.money(300, 2400), ()
    if make == "fee":
        return w.money(24, 75), ()
    if make == "code":
        return w.code("AA-9999"), ()
    return w.fresh(lambda: f"{r.choice(FIRST)} {r.choice(LAST)}"), ()


def _lengths(r_int: Callable[[int, int], int], chains: int, values: int) -> list[int]:
    lengths = [3] * chains
    while sum(lengths) < values and any(n < 5 for n in lengths):
        k = r_int(0, chains - 1)
        if lengths[k] < 5:
            lengths[k] += 1
    return lengths


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    chains = max(1, facts // 5)
    lengths = _lengths(r.randint, chains, facts - chains)
    alikes = facts - sum(lengths)
    names = r.sample(tuple(SUBJECTS), chains)
    events: list[tuple[int, Callable[[], None]]] = []
    alike_left = alikes
    for c, (name, length) in enumerate(zip(names, lengths, strict=True)):
        subject = SUBJECTS[name]
        span = turns - 12
        gap = max(30, (span - 10) // length)
        t = r.randint(0, max(0, span - gap * (length - 1) - 1))
        ways = [WAYS[(k + c) % 4] for k in range(length - 1)]
        r.shuffle(ways)
        state: list[PlantedFact] = []
        alike_at = r.randrange(length) if alike_left > 0 else -1
        for k in range(length):
            way = "first" if k == 0 else ways[k - 1]
            events.append((t, functools.partial(_step, w, subject, way, state)))
            if k == alike_at:
                n = (alike_left + chains - c - 1) // (chains - c)
                for j in range(n):
                    events.append((t + 2 + j * 2, functools.partial(_alike, w, subject)))
                alike_left -= n
            t += r.randint(gap, gap + 8) if k < length - 1 else 0
            t = min(t, turns - 4)
    timeline(w, turns, events)


def _step(w: Writer, subject: Subject, way: str, state: list[PlantedFact]) -> None:
    r = w.rng
    value, aliases = _value(w, subject.make)
    if way == "tool":
        w.user(r.choice(_CHECK).format(label=subject.label))
        record = f"item: {subject.label}\n{subject.field}: {value}\nstatus: amended\n"
        at = w.tool("club_bookings", {"item": subject.label}, record)
        w.say("assistant", r.choice(_CHECKED).format(label=subject.label))
    else:
        pool = {
            "first": subject.first,
            "change": subject.change,
            "scrap": subject.scrap,
            "implicit": subject.implicit,
        }[way]
        at = w.user(r.choice(pool).replace("{v}", value))
        if way == "implicit":
            w.say("assistant", r.choice(_DRAFTED))
        elif way == "first":
            w.say("assistant", w.reply((2, 5)))
        else:
            w.say("assistant", w.short())
    if not state:
        state.append(w.plant(subject.kind, value, at, aliases=aliases))
        return
    prev = state[-1]
    w.supersede(prev, at)
    older = tuple(f.value for f in state[:-1])
    state.append(
        w.plant(
            "correction",
            value,
            at,
            aliases=aliases,
            stale=prev.value,
            stale_index=prev.message_index,
            older=older,
        )
    )


def _alike(w: Writer, subject: Subject) -> None:
    r = w.rng
    value, aliases = _value(w, subject.make)
    at = w.user(r.choice(subject.alike).replace("{v}", value))
    w.say("assistant", r.choice(("Noted, I'll keep that separate.", "Okay, kept apart.")))
    w.plant(subject.kind, value, at, aliases=aliases)


SYSTEM = "You are a helpful assistant to the secretary of a village cricket club."


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """Seed ``seed``'s conversation of ``turns`` turns with ``facts`` facts."""
    return build(
        seed, "b13-chains", turns, facts, _write, SYSTEM, writer=writer("cricket"), prefix="blind13"
    )
