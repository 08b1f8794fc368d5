"""``b5-fixups``: a value stated once, then fixed by a short message that names only the value.

Most arrangements are stated by the assistant after a request ("I've put you down for the
14:30 slot with Dr Ferreira"); some by the user. A later user message, the next turn or a few
turns of chatter later, changes only the value ("hmm, can we do 16:15 instead?", "no, Thursday
not Tuesday", "scratch that, 3 people not 4"), leaving the subject to the earlier message. A
quarter are reworded: the user says the subject again in other words ("my flat's rent" ->
"what I pay the landlord"). Each fix is a ``correction`` fact, its ``stale`` the old value.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind5.base import Writer, build, spread
from evals.families.trajectories import Trajectory

__all__ = ["generate"]

SYSTEM = (
    "You are a personal assistant with access to the user's calendar, bookings and notes. "
    "Keep track of arrangements and update them when the user changes their mind."
)

# Each setup: value kind, the user's request, the assistant's statement ({old}; {x} a fresh
# surname) or None when the user states it, and the user's own statement when there is one.
SETUPS: tuple[tuple[str, str, str], ...] = (
    (
        "time",
        "can you get me in with the GP this week? any slot is fine, I'll take what's going",
        "I've put you down for the {old} slot with Dr {x}. They'll text a reminder the day before.",
    ),
    (
        "time",
        "book the car in for its service please, morning if possible",
        "Booked: drop-off at {old}, the garage says it should be ready by late afternoon.",
    ),
    (
        "time",
        "sort out a call with the landlord about the leak?",
        "The landlord's free at {old}, so I've sent an invite for then, fifteen minutes.",
    ),
    (
        "time",
        "get me a haircut appointment, usual place",
        "You're in at {old} with {x}. They asked you to arrive five minutes early.",
    ),
    (
        "time",
        "I need a taxi to the station tomorrow",
        "Taxi's ordered for a {old} pickup outside the house.",
    ),
    (
        "time",
        "set up the team retro for tomorrow, whatever's free for everyone",
        "Everyone's calendars are clear at {old}, so the retro's booked then in the small room.",
    ),
    (
        "weekday",
        "when's the plumber coming again?",
        "The plumber is pencilled in for {old} morning, between eight and noon.",
    ),
    (
        "weekday",
        "can you arrange the sofa delivery",
        "Delivery's arranged for {old}; they'll give a two-hour window the evening before.",
    ),
    (
        "weekday",
        "book the kids' swimming taster session",
        "Done, the taster session is on {old} after school.",
    ),
    (
        "weekday",
        "organise a dinner with my parents next week",
        "I've suggested {old} evening to your parents and blocked it in your calendar.",
    ),
    (
        "people",
        "could you book somewhere for dinner on the weekend? something relaxed",
        "I've reserved a table for {old} at a little trattoria near the canal, half past seven.",
    ),
    (
        "people",
        "get tickets for the museum tour please",
        "Reserved {old} on the guided tour; you pay on the door.",
    ),
    (
        "nights",
        "book the cottage we looked at",
        "The cottage is held for {old}, check-in from four in the afternoon.",
    ),
    (
        "copies",
        "order prints of the flyer for the school fair",
        "I've put through an order for {old} on the glossy paper.",
    ),
    (
        "boxes",
        "order moving boxes, the medium ones",
        "Ordered {old} of the medium size, arriving with the tape and markers.",
    ),
    (
        "name",
        "can you find me a physio appointment for my knee",
        "I've booked you with {old} at the sports clinic, first thing on the day you asked for.",
    ),
    (
        "name",
        "who's the contact for the kitchen fitters?",
        "Your contact at the fitters is {old}; I've saved the number under Kitchen.",
    ),
    (
        "name",
        "sort the reference for the flat application",
        "I've put {old} down as your referee on the form.",
    ),
    (
        "money",
        "log the electricity bill in the budget sheet",
        "Logged the electricity bill at {old} under this month's utilities.",
    ),
    (
        "money",
        "note what we agreed with the builder",
        "Noted: the builder's quote of {old} for the back wall, half up front.",
    ),
    (
        "money",
        "add the school trip payment to the to-do list",
        "Added: pay {old} for the school trip, due before the end of term.",
    ),
    (
        "day",
        "put the car's MOT in the calendar",
        "The MOT is in the calendar for {old} at the garage on the high street.",
    ),
    (
        "day",
        "when's the bin collection changing to?",
        "The council's new collection starts on {old}, so I've moved the reminder.",
    ),
    (
        "day",
        "book the vet for the cat's jabs",
        "The vet has the cat down for {old}, morning clinic.",
    ),
    (
        "seat",
        "check me in for the flight and grab a seat",
        "You're checked in, seat {old}. Boarding pass is in your email.",
    ),
    (
        "seat",
        "book me a seat on the train, quiet coach if there is one",
        "Seat {old} in the quiet coach is yours.",
    ),
)
USER_SETUPS: tuple[tuple[str, str], ...] = (
    ("people", "We're booking the escape room for {old}, can you put it in the group chat note?"),
    ("people", "Heads up, the barbecue is {old} so far, I'll need to buy more buns."),
    ("time", "My train gets in at {old}, so plan the pickup around that."),
    ("time", "The kids' party starts at {old} and I still haven't got a present."),
    ("weekday", "I'm working from home on {old} this week if anything needs a delivery."),
    ("name", "The tutor for maths this term is {old}, she'll email the homework."),
    ("money", "I paid {old} for the concert tickets, can you split it four ways later?"),
    ("day", "The passport renewal appointment is {old}, I've got the photos already."),
    ("nights", "We're staying {old} at my sister's place over the holidays."),
    ("seat", "They gave me seat {old} at the gala dinner, table near the front."),
)
FIXES: dict[str, tuple[str, ...]] = {
    "time": (
        "hmm, can we do {new} instead?",
        "{new} would suit me better actually",
        "could you push it to {new}?",
        "ah, not {old} — {new}, sorry",
        "make it {new}, I've got the school run before",
        "is {new} possible? the earlier one clashes",
        "ugh, change that to {new} please",
        "on second thoughts {new}",
        "wait, can it be {new}",
        "sorry to be a pain, {new}?",
    ),
    "weekday": (
        "no — {new}, not {old}",
        "hmm, {new} would be better",
        "can we switch that to {new}?",
        "sorry, I meant {new}",
        "not {old}, I'm out all day. {new}?",
        "actually {new} works better for us",
        "can that move to {new}",
    ),
    "people": (
        "scratch that, {new} not {n}",
        "sorry, make that {new}",
        "one change: it'll be {new}",
        "can you change it to {new}?",
        "ah numbers changed — {new}",
        "correction, {new}",
    ),
    "name": (
        "actually can it be {new}? they've seen me before",
        "hmm, I'd rather go with {new} if possible",
        "wrong one — it should be {new}",
        "can you swap that to {new}",
        "oh, change it to {new} please",
        "not them, {new}",
    ),
    "money": (
        "hang on, it was {new}, I misread it",
        "typo on my end — {new}",
        "sorry, {new}, not what I said",
        "correction: {new}",
        "wait no it's {new}",
        "small fix, the real figure is {new}",
    ),
    "day": (
        "oh wait, {new} is better for us",
        "could that be {new} instead?",
        "ugh no, {new} — I mixed up the dates",
        "can we move it to {new}",
        "not {old}, {new}",
        "I'm away then, {new}?",
    ),
    "seat": (
        "can you swap me to {new}",
        "actually {new}, the one by the window",
        "could I have {new} instead",
        "change it to {new} please, I want the aisle",
    ),
}
FIXES["nights"] = FIXES["people"]
FIXES["copies"] = FIXES["people"]
FIXES["boxes"] = FIXES["people"]
ACK_FIXES = (
    "Done, changed it.",
    "No problem, updated.",
    "Sure, I've moved it.",
    "Okay, sorted.",
    "Changed, and I've let them know.",
    "All right, that's amended.",
    "Updated. Anything else?",
    "Fixed on my side.",
    "Okay, switched over.",
    "Consider it done.",
)
STATE_REPLIES = (
    "Noted.",
    "Got it, that's written down.",
    "Okay, I'll keep that in the notes.",
    "Thanks, saved.",
    "Right, added to your notes.",
)
# Reworded: the user states the subject one way, then fixes its value under another name.
REWORDED: tuple[tuple[str, str, str], ...] = (
    (
        "money",
        "Budget stuff: my flat's rent is {old} a month, bills on top.",
        "update — what I pay the landlord is going up to {new} from next month",
    ),
    (
        "money",
        "The car insurance renewal came through at {old}, which feels steep.",
        "the quote for covering the car got revised, {new} now",
    ),
    (
        "money",
        "Our broadband is {old} a year, worth checking if there's something cheaper.",
        "the internet bill is actually {new}, I looked at the wrong line",
    ),
    (
        "money",
        "Gym membership is {old} for the year, just so the budget's right.",
        "what I pay for the gym went up to {new}, annoyingly",
    ),
    (
        "time",
        "My daughter's piano lesson is at {old} on weekdays now.",
        "the kid's music lesson moved to {new}",
    ),
    (
        "time",
        "The dentist is at {old}, I'll need to leave work early.",
        "my teeth appointment got shifted to {new}",
    ),
    (
        "name",
        "We've got {old} as the wedding photographer, booked and paid.",
        "the person doing the pictures at the wedding dropped out, it's {new} now",
    ),
    (
        "name",
        "My line manager is {old}, in case any emails come from them.",
        "new boss from next week: {new}",
    ),
    (
        "day",
        "The lease on the flat ends on {old}, so that's our move-out date.",
        "turns out the tenancy runs until {new}, the agent got it wrong",
    ),
    (
        "people",
        "We're expecting {old} at the birthday party, mostly kids.",
        "numbers for the birthday do: {new} now",
    ),
    (
        "day",
        "My passport expires on {old}, which is cutting it close for the trip.",
        "checked the travel document again, expiry is {new} actually",
    ),
)

UNITS = {"people": "people", "nights": "nights", "copies": "copies", "boxes": "boxes"}


def _value(w: Writer, kind: str, sign: str) -> tuple[str, tuple[str, ...], str]:
    """A fresh value of ``kind``, its aliases and its bare number (counts; else the value)."""
    r = w.rng
    if kind == "time":
        v = w.time()
        return v, (), v
    if kind == "weekday":
        day = w.weekday()
        assert day is not None
        return day, (), day
    if kind in UNITS:
        lo, hi = {"people": (3, 14), "nights": (2, 9), "copies": (40, 400), "boxes": (12, 60)}[kind]
        v = w.fresh(lambda: f"{r.randint(lo, hi)} {UNITS[kind]}")
        return v, (), v.split()[0]
    if kind == "name":
        v = w.person()
        return v, (), v
    if kind == "money":
        v = w.money(60, 3900, sign=sign)
        return v, (), v
    if kind == "day":
        v, aliases = w.day()
        return v, aliases, v
    v = w.seat()
    return v, (), v


def _pair(w: Writer, kind: str) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """An old and a new value of ``kind`` (two counts of one unit never equal)."""
    sign = w.rng.choice("£££€$")
    return _value(w, kind, sign), _value(w, kind, sign)


def generate(seed: int, *, turns: int = 340, facts: int = 20) -> Trajectory:
    """A ``b5-fixups`` conversation: ``facts`` values each fixed once by a short message."""
    return build(seed, "b5-fixups", turns, facts, _write, SYSTEM)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    starts = spread(r, turns, facts, 8)
    setups = list(SETUPS)
    users = list(USER_SETUPS)
    reworded = list(REWORDED)
    for deck in (setups, users, reworded):
        r.shuffle(deck)
    weekdays_left = 3  # each weekday fix uses two of the seven, and the value pool must last
    actions: dict[int, Callable[[], None]] = {}
    pending: dict[int, tuple[str, str, str, int, str, tuple[str, ...], str]] = {}
    for i, start in enumerate(starts):
        gap = r.choice((0, 0, 1, 1, 2, 3, 4, 5))
        roll = r.random()
        if roll < 0.25 and reworded:
            kind, first, fix = reworded.pop()
            mode = "reworded"
        elif roll < 0.45 and users:
            kind, first = users.pop()
            fix, mode = "", "user"
        else:
            kind, ask, first = setups.pop()
            fix, mode = ask, "assistant"
        if kind == "weekday":
            if weekdays_left == 0:
                kind, ask, first = next(s for s in setups if s[0] == "time")
                setups.remove((kind, ask, first))
                fix, mode = ask, "assistant"
            else:
                weekdays_left -= 1

        def state(
            i: int = i, kind: str = kind, first: str = first, fix: str = fix, mode_: str = mode
        ) -> None:
            (old, _, n_old), (new, aliases, _) = _pair(w, kind)
            text = first.replace("{old}", old).replace("{x}", w.surname())
            if mode_ == "assistant":
                w.user(fix)
                at = w.say("assistant", text)
                template = r.choice(FIXES[kind])
            else:
                at = w.user(text)
                w.say("assistant", r.choice(STATE_REPLIES) + " " + w.reply((1, 3)))
                template = fix if mode_ == "reworded" else r.choice(FIXES[kind])
            pending[i] = (kind, old, new, at, template, aliases, n_old)

        def correct(i: int = i) -> None:
            _, old, new, at, template, aliases, n_old = pending[i]
            text = template.replace("{new}", new).replace("{old}", old).replace("{n}", n_old)
            where = w.user(text)
            w.say("assistant", r.choice(ACK_FIXES))
            w.plant("correction", new, where, aliases=aliases, stale=old, stale_index=at)

        actions[start] = state
        actions[start + 1 + gap] = correct
    for t in range(turns):
        action = actions.get(t)
        if action is None:
            w.chatter()
        else:
            action()
