"""``blind17-chains``: a sponsored walk's details changed two to four times, beside look-alikes.

The organiser of a hospice's coast-to-coast sponsored walk settles its date, the start time,
the meeting point, the coach booking reference, the coach hire price and the lead marshal.
Each chain's first value is said by the user (or read from an email); every later one is a
``correction`` fact with the earlier values as its stale ones, arriving as the user's plain
new value ("we're going for ... now, the ... fell through"), a "sorry, I misread" the turn
after, a revised email read by ``read_inbox`` (beside other values of the same shape), or the
assistant reporting what the coach firm or the council said. Values of the same shape about
other things (a sponsored swim's date, the return coach, a niece's school trip ref) are facts
of their own, never replaced, some of them after the last change.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import timeline
from evals.families.blind17.base import Writer17, write
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["SUBJECTS", "generate"]

SYSTEM = (
    "You are a helpful assistant for a volunteer organising a hospice's sponsored walk. Keep "
    "track of the arrangements as they change."
)

PLACES = (
    "the Lifeboat Station slipway", "the Coastguard Cottages", "the Old Toll House",
    "the Priory Gate", "the Harbour Master's steps", "the Fisherman's Rest", "the Cliff Top cafe",
    "the Abbey car park", "the Salt Pans bridge", "the Lighthouse lawn", "the Quayside kiosk",
    "the Beacon Hill stile",
)  # fmt: skip

SUBJECTS = ("date", "time", "place", "ref", "price", "marshal")
"""What a chain is about: the walk's date, start time, meeting point, coach ref, coach price,
lead marshal."""

_KIND: dict[str, FactKind] = {
    "date": "date",
    "time": "value",
    "place": "name",
    "ref": "code",
    "price": "value",
    "marshal": "name",
}
_WHAT = {
    "date": "the walk",
    "time": "the start time",
    "place": "the meeting point",
    "ref": "the coach booking reference",
    "price": "the coach hire",
    "marshal": "the lead marshal",
}


def _value(w: Writer17, subject: str) -> tuple[str, tuple[str, ...]]:
    """A fresh value of ``subject``'s shape, and its other forms."""
    if subject == "date":
        return w.day()
    if subject == "time":
        return w.time(), ()
    if subject == "place":
        return w.fresh(lambda: w.rng.choice(PLACES)), ()
    if subject == "ref":
        return w.code("AAA-9999"), ()
    if subject == "price":
        return w.money(300, 2900), ()
    return w.person(), ()


def _first(subject: str, value: str, r: Callable[[tuple[str, ...]], str]) -> str:
    """The user stating a chain's first value."""
    lines = {
        "date": (
            f"Right, the hospice has settled it: the walk is on {value}. Can you help me plan "
            "backwards from that?",
            f"We've pencilled the walk in for {value}. What needs doing first?",
        ),
        "time": (
            f"Walkers set off at {value} from the start. How early should the marshals arrive?",
            f"Start time will be {value}, so the coach needs to be there well before.",
        ),
        "place": (
            f"Everyone meets at {value} on the morning. Any tips for the registration table?",
            f"The meeting point is going to be {value}, it's easy to find.",
        ),
        "ref": (
            f"The coach firm gave me {value} as our booking reference. Keep hold of that please.",
            f"Booking ref for the coach is {value}, in case I need it later.",
        ),
        "price": (
            f"The coach hire came in at {value} for the day. Is that reasonable?",
            f"We've agreed {value} for the coach, return trip included.",
        ),
        "marshal": (
            f"{value} has agreed to be lead marshal. Could you draft a short briefing for them?",
            f"Lead marshal this year is {value}, they did it for the fun run too.",
        ),
    }
    return r(lines[subject])


def _plain(subject: str, value: str, r: Callable[[tuple[str, ...]], str]) -> str:
    """The user giving a new value in ordinary words."""
    lines = {
        "date": (
            f"The hospice had a clash, so the walk is now {value}. Everything else stays.",
            f"We're going for {value} now, the tide tables were wrong for the other day.",
        ),
        "time": (
            f"Let's start at {value} instead, the first stretch is longer than I thought.",
            f"Change of plan on the start: {value}, to fit the low tide.",
        ),
        "place": (
            f"We'll meet at {value} now, the other spot has no parking that morning.",
            f"Meeting point is {value} after all, easier for the coach to turn.",
        ),
        "ref": (
            f"The coach firm rebooked us, new reference {value}.",
            f"They cancelled and redid the booking, so it's {value} now.",
        ),
        "price": (
            f"The coach firm came back with {value} once we added the second pickup.",
            f"Coach is {value} now, they knocked some off for a charity.",
        ),
        "marshal": (
            f"Change of lead marshal: {value} is taking over, the other one's away.",
            f"{value} will lead the marshals now, swapped at last night's meeting.",
        ),
    }
    return r(lines[subject])


def _misread(subject: str, value: str, r: Callable[[tuple[str, ...]], str]) -> str:
    """The user, a turn after the value, saying it was misread."""
    return r(
        (
            f"sorry, I misread my own notes earlier, {_WHAT[subject]} is {value}",
            f"oops, wrong line of the spreadsheet before. {_WHAT[subject].capitalize()}: {value}",
            f"hang on, that was last year's. This year {_WHAT[subject]} is {value}.",
        )
    )


def _email(w: Writer17, subject: str, value: str, revised: bool = True) -> str:
    """An email from the events team (``revised``: replacing one), beside look-alikes."""
    other_time, other_day = w.time(), w.day()[0]
    field = {
        "date": f"Walk date: {value}",
        "time": f"Start: {value}",
        "place": f"Meeting point: {value}",
        "ref": f"Booking reference: {value}",
        "price": f"Total hire charge: {value}",
        "marshal": f"Lead marshal: {value}",
    }[subject]
    return (
        f"From: events team\nSubject: {'Revised' if revised else 'Confirmed'} details for the "
        f"sponsored walk\n\nHello,\n\n{_LEADS[revised]}\n\n{field}\n"
        f"Return coach leaves the finish at {other_time}\n"
        f"Deadline for sponsor forms: {other_day}\n\nKind regards,\nthe events team"
    )


_LEADS = {
    True: "Please note the updated arrangements below, which replace our earlier message.",
    False: "Thank you for organising this. Here are the arrangements as they stand.",
}


def _relay(subject: str, value: str, r: Callable[[tuple[str, ...]], str]) -> str:
    """The assistant reporting what a firm or the council said."""
    lines = {
        "date": f"The council came back: the coast path is closed that weekend, so they "
        f"have approved {value} for the walk instead. I've moved the plan to that.",
        "time": f"The coach company replied: the earliest they can get there now means a "
        f"start of {value}. I've updated the schedule.",
        "place": f"The council said the usual spot is taken by a market, and offered "
        f"{value} instead. I've changed the meeting point in the plan.",
        "ref": f"The coach firm replied: they moved us to a bigger vehicle under a new "
        f"reference, {value}. I've noted it.",
        "price": f"The coach firm confirmed the bigger vehicle at {value} for the day. I've "
        f"put that in the budget.",
        "marshal": f"The hospice replied: they've asked {value} to lead the marshals now. "
        f"I've updated the briefing.",
    }
    return r((lines[subject],))


def _alike(w: Writer17, subject: str) -> tuple[str, tuple[str, ...], str]:
    """A value of ``subject``'s shape about something else, and the user's line saying it."""
    value, aliases = _value(w, subject)
    line = w.rng.choice(
        {
            "date": (
                f"Separate thing, my sister's sponsored swim is on {value}, not the walk.",
                f"Unrelated, but the hospice quiz night is {value}.",
            ),
            "time": (
                f"The return coach leaves the finish at {value}, that's nothing to do with the "
                "start.",
                f"Totally separate, the hospice shop opens at {value} on the day.",
            ),
            "place": (
                f"For the after-party we've booked {value}, separate from the meeting point.",
                f"The hospice's own stall will be at {value}, away from the start.",
            ),
            "ref": (
                f"Not the coach, but my niece's school trip ref is {value}, I said I'd keep it.",
                f"The t-shirt order is {value}, separate from the coach booking.",
            ),
            "price": (
                f"Oh, and the t-shirts cost {value} in total, that's separate from transport.",
                f"We've raised {value} so far in sponsorship, which is lovely.",
            ),
            "marshal": (
                f"{value} is doing the photos, nothing to do with marshalling.",
                f"The hospice's press contact is {value}, if the paper asks.",
            ),
        }[subject]
    )
    return value, aliases, line


def _states(w: Writer17, facts: int) -> tuple[list[int], int]:
    """How many states each chain has (three to five), and how many look-alikes."""
    chains = max(1, (facts - 2) // 4)
    sizes = [3] * chains
    spare = facts - 2 - 3 * chains
    while spare > 0 and any(s < 5 for s in sizes):
        k = w.rng.choice([i for i, s in enumerate(sizes) if s < 5])
        sizes[k] += 1
        spare -= 1
    return sizes, facts - sum(sizes)


def episodes(w: Writer17, turns: int, facts: int) -> None:
    """Schedule every chain's states and the look-alikes, then write the conversation."""
    r = w.rng
    sizes, alikes = _states(w, facts)
    subjects = r.sample(SUBJECTS, len(sizes))
    events: list[tuple[int, Callable[[], None]]] = []
    for subject, size in zip(subjects, sizes, strict=True):
        hi = max(3, (turns - 10) // size)
        modes = ["first"]
        for _ in range(size - 1):
            said = modes[-1] in ("first", "plain")  # only the user's own words are misread
            modes.append(r.choice(("plain", "plain", "email", "relay", *("misread",) * said)))
        gaps = [1 if m == "misread" else r.randint(max(2, hi // 4), hi) for m in modes[1:]]
        start = r.randint(2, max(2, turns - 8 - sum(gaps)))
        chain: list[PlantedFact] = []
        at = start
        for k, mode in enumerate(modes):
            events.append((at, _state(w, subject, mode, chain)))
            if k < len(gaps):
                at += gaps[k]
    alike_subjects = [r.choice(subjects) for _ in range(alikes)]
    for subject in alike_subjects:
        events.append((r.randint(turns // 3, turns - 4), _alike_turn(w, subject)))
    timeline(w, turns, events)


def _state(w: Writer17, subject: str, mode: str, chain: list[PlantedFact]) -> Callable[[], None]:
    """The event writing one state of a chain (``chain`` holds the states so far)."""

    def event() -> None:
        r = w.rng
        pick: Callable[[tuple[str, ...]], str] = r.choice
        value, aliases = _value(w, subject)
        if mode == "first":
            if r.random() < 0.25:
                w.user("Can you check the inbox for anything about the walk?")
                where = w.tool("read_inbox", {"folder": "walk"}, _email(w, subject, value, False))
                w.say("assistant", "Yes, there's an email from the events team with the details.")
            else:
                where = w.user(_first(subject, value, pick))
                w.say("assistant", w.reply((2, 4)))
            chain.append(w.plant(_KIND[subject], value, where, aliases=aliases))
            return
        if mode == "misread":
            where = w.user(_misread(subject, value, pick))
            w.say("assistant", w.short())
        elif mode == "email":
            w.user("Anything new in the inbox about the walk?")
            where = w.tool("read_inbox", {"folder": "walk"}, _email(w, subject, value))
            w.say("assistant", "There's a revised email from the events team; I've noted it.")
        elif mode == "relay":
            w.user(
                r.choice(
                    ("Did anyone get back to us?", "any news from the coach people or the council?")
                )
            )
            where = w.say("assistant", _relay(subject, value, pick))
            w.user(r.choice(("ok", "fine by me", "right, thanks")))
            w.say("assistant", "Noted.")
        else:
            where = w.user(_plain(subject, value, pick))
            w.say("assistant", w.short())
        prev = chain[-1]
        fact = w.plant(
            "correction",
            value,
            where,
            aliases=aliases,
            stale=prev.value,
            stale_index=prev.message_index,
            older=tuple(f.value for f in chain[:-1]),
        )
        w.supersede(prev, where)
        chain.append(fact)

    return event


def _alike_turn(w: Writer17, subject: str) -> Callable[[], None]:
    """The event writing one look-alike, a fact never replaced."""

    def event() -> None:
        value, aliases, line = _alike(w, subject)
        where = w.user(line)
        w.say("assistant", w.rng.choice(("Noted, I'll keep that apart.", "Got it, separate.")))
        w.plant(_KIND[subject], value, where, aliases=aliases)

    return event


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """The ``blind17-chains`` conversation for ``seed``."""
    return write(seed, "b17-chains", turns, facts, episodes, SYSTEM, "walk")
