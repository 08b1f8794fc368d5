"""``b16-chains``: a grandson plans his gran's surprise ninetieth; its details change 2-4 times.

Each chain (the party's date, start time, venue, cake order ref, price a head, singer) has 3-5
states. The first is stated by the user; each later one comes one of five ways: the user says
the new value with no change word or with "scratch that" ("we'll do the {v} instead", "{v} it
is"), a revised confirmation email read by ``read_inbox`` (the fact is the tool result), the
assistant reporting it, or only in the invitation draft the user pastes (``Start: {v}``). The
fact is the latest value (``correction`` with ``stale`` and ``older``); an old value is never
said again. Look-alikes of the same shape about something else are never replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind6.base import timeline
from evals.families.blind16.base import Writer16, make
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["SUBJECTS", "generate"]

SYSTEM = (
    "You help a young man organise a surprise ninetieth birthday party for his grandmother: "
    "bookings, messages to the family, the invitation. You can read his inbox."
)
VENUES = (
    "the Old Forge", "Hartwell Village Hall", "the Cricketers Arms", "Ashgrove Community Centre",
    "the Lantern Rooms", "the Bowls Club pavilion", "Fernleigh Golf Club", "the Coach House",
    "St Bride's parish rooms", "the Riverside Marquee",
)  # fmt: skip


@dataclass(frozen=True)
class Subject:
    kind: FactKind
    first: tuple[str, ...]
    says: tuple[str, ...]  # the user, later, with no change word or "instead"
    scratch: str  # the user, a turn or two after the last value
    org: str  # who emails or rings
    label: str  # the field in an email or the invitation
    told: str  # the assistant reports it


SUBJECTS: dict[str, Subject] = {
    "date": Subject(
        "date",
        (
            "gran's party is going to be on {v}, keep it under your hat",
            "we've settled on {v} for gran's do",
        ),
        (
            "we'll do {v} instead, half the cousins are away the other weekend",
            "right, gran's party is {v} now, the caterer couldn't manage the first date",
            "{v} suits everyone better according to mum, so that's the party date",
        ),
        "scratch that, {v}, the hall was double booked",
        "the venue",
        "Date",
        "The venue has written: they can only offer {v} for the party now.",
    ),
    "time": Subject(
        "value",
        ("the party kicks off at {v}", "we're telling people to arrive for {v}"),
        (
            "we'll do the {v} instead, gran naps after lunch",
            "people can come for {v}, the band needs longer to set up",
            "{v} start it is, the oldies want to be home before dark",
        ),
        "scratch that, {v} start, the room's in use till then",
        "the venue",
        "Start time",
        "The venue's confirmed the room is only free from {v}.",
    ),
    "venue": Subject(
        "name",
        ("we've got {v} for gran's do", "the party's at {v}, mum sorted it"),
        (
            "going with {v} now, it's got a ramp for gran's chair",
            "{v} it is, mum's friend runs it and it's half the price",
            "we'll have it at {v} instead, the other place wanted a fortune",
        ),
        "scratch that, {v}, the first place had a flood",
        "the venue",
        "Venue",
        "The first place cancelled, and {v} say they can host instead.",
    ),
    "cake": Subject(
        "code",
        ("the bakery's order ref for the cake is {v}", "cake's ordered, ref {v}"),
        (
            "the bakery put the cake through again as {v}, use that one",
            "new ref from the bakery for the cake, {v}, they split the order",
        ),
        "scratch that, the cake ref is {v}, I read the old receipt",
        "the bakery",
        "Order reference",
        "The bakery emailed: the cake order was reissued as {v}.",
    ),
    "price": Subject(
        "value",
        ("the caterer quoted {v} a head", "food is {v} a head from the caterer"),
        (
            "the caterer came back at {v} a head with the trifle added",
            "they'll do {v} a head if we skip the canapés, so we're doing that",
        ),
        "scratch that, {v} a head, mum haggled",
        "the caterer",
        "Price per head",
        "The caterer's revised quote is {v} a head.",
    ),
    "singer": Subject(
        "name",
        ("we've booked {v} to sing gran's old favourites", "{v} is doing the singing"),
        (
            "{v} is singing now, the other one broke his wrist",
            "got {v} for the music, cheaper and gran will love the old songs",
        ),
        "scratch that, it's {v} doing the songs",
        "the agency",
        "Performer",
        "The agency says {v} will cover the singing.",
    ),
}
LOOK_ALIKES = {
    "date": "my cousin's wedding is on {v}, nothing to do with gran's party",
    "value": "the hall next door has a christening at {v}, separate thing entirely",
    "name": "the carer who visits gran is {v}, she's not coming to the party",
    "code": "my train ticket ref for getting home is {v}, totally unrelated",
}


def _value(w: Writer16, key: str) -> tuple[str, tuple[str, ...]]:
    if key in ("date",):
        return w.day()
    if key == "time":
        return w.time(), ()
    if key == "venue":
        return w.fresh(lambda: w.rng.choice(VENUES)), ()
    if key == "cake":
        return w.code("CK-9999"), ()
    if key == "price":
        return w.money(14, 48), ()
    return w.person(), ()


def _state(w: Writer16, key: str, step: int, scratch: bool) -> None:
    """One state of the chain ``key``: the first said by the user, a later one by any way."""
    r, s = w.rng, SUBJECTS[key]
    value, aliases = _value(w, key)
    prev = next((f for f in reversed(w.facts) if f.id in w.chain_ids[key]), None)
    if prev is None:
        i = w.user(r.choice(s.first).replace("{v}", value))
        w.say("assistant", r.choice(("Lovely, noted.", "Got it, that's in the plan.", "Noted.")))
        fact = w.plant(s.kind, value, i, aliases=aliases)
        w.chain_ids[key].append(fact.id)
        return
    way = "scratch" if scratch else r.choice(("says", "says", "email", "told", "draft"))
    if way == "scratch":
        i = w.user(s.scratch.replace("{v}", value))
        w.say("assistant", w.short())
    elif way == "says":
        i = w.user(r.choice(s.says).replace("{v}", value))
        w.say("assistant", w.short())
    elif way == "email":
        w.user(f"anything from {s.org} yet?")
        body = (
            f"Hello,\n\nFurther to your booking, please see the revised confirmation below.\n\n"
            f"{s.label}: {value}\n\nAny questions, just reply to this email.\n\nBest wishes"
        )
        i = w.tool("read_inbox", {"from": s.org}, body, lead=r.choice((None, "Checking now.")))
        w.say("assistant", f"Yes, {s.org} sent a revised confirmation; I've updated the plan.")
    elif way == "told":
        w.user(f"did {s.org} get back to us?")
        i = w.say("assistant", s.told.replace("{v}", value) + " I've put that in the plan.")
        w.user(r.choice(("ok", "fine by me", "ok cheers")))
        w.say("assistant", "Noted.")
    else:
        i = w.user(
            "can you tidy up the invite for me\n\nSHHH it's a surprise!!\nGran is turning "
            f"ninety and we're throwing her a party\n{s.label}: {value}\ndon't tell her!!"
        )
        w.say("assistant", "Here's a tidier version, with the details kept as you gave them.")
    w.supersede(prev, i)
    chain = [f for f in w.facts if f.id in w.chain_ids[key]]
    fact = w.plant(
        "correction",
        value,
        i,
        aliases=aliases,
        stale=prev.value,
        stale_index=prev.message_index,
        older=tuple(f.value for f in chain[:-1]),
    )
    w.chain_ids[key].append(fact.id)
    del step


def _alike(w: Writer16, kind: str) -> None:
    value, aliases = (
        w.day() if kind == "date" else (w.time(), ()) if kind == "value" else
        (w.person(), ()) if kind == "name" else (w.code("CK-9999"), ())
    )  # fmt: skip
    i = w.user(LOOK_ALIKES[kind].replace("{v}", value))
    w.say("assistant", w.rng.choice(("Noted, I'll keep that apart.", "Got it, separate.")))
    w.plant(kind, value, i, aliases=aliases)  # type: ignore[arg-type]


def write(w: Writer16, turns: int, facts: int) -> None:
    r = w.rng
    w.chain_ids = {k: [] for k in SUBJECTS}
    alikes = 2 if facts >= 14 else 0
    left, sizes = facts - alikes, []
    while left > 5:
        sizes.append(r.randint(3, min(5, left - 3)))
        left -= sizes[-1]
    sizes.append(left)
    keys = r.sample(list(SUBJECTS), len(sizes))
    events: list[tuple[int, Callable[[], None]]] = []
    for key, size in zip(keys, sizes, strict=True):
        at = r.randint(1, max(2, turns // 4))
        cuts = sorted(r.randint(1, turns - 8 - at) for _ in range(size - 1))
        last = at
        for step, cut in enumerate([0, *cuts]):
            scratch = step > 0 and r.random() < 0.2  # right after the value it replaces
            t = last + 1 if scratch else at + cut
            events.append((t, partial(_state, w, key, step, scratch)))
            last = t
    for _ in range(alikes):
        kind = SUBJECTS[r.choice(keys)].kind
        events.append((r.randint(2, turns - 6), partial(_alike, w, kind)))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 460, facts: int = 20) -> Trajectory:
    return make(seed, "b16-chains", turns, facts, write, SYSTEM, "chains")
