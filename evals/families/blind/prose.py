"""``prose-preferences``: tastes, habits and personal facts said in plain prose, among small talk.

People rarely announce a preference ("I prefer..."); they say "Coffee-wise it's a cortado for
me" or "Anything with coriander goes back to the kitchen". Every planted sentence here is
checked against :data:`BANNED` (the cue words a rule could key on), and each frame is used once
before any comes back. Kinds: ``preference`` (half the facts: the thing, the habit, the dish),
``name``, ``date`` and ``value`` (personal facts), said by the user among small talk on both
sides that is dense with incidental values.
"""

from __future__ import annotations

import random
import re

from evals.families.blind.base import Writer, spread
from evals.families.facts import FactKind

__all__ = ["BANNED", "DATE_FRAMES", "NAME_FRAMES", "TASTES", "VALUE_FRAMES", "banned_in", "write"]

BANNED = re.compile(
    r"\b(prefer\w*|always|never|hate\w*|loathe\w*|lov(?:e|es|ed|ing)|like[sd]?|favou?rite\w*|rather|"
    r"enjoy\w*|dislike\w*|fond|keen|allerg\w*|can'?t stand|cannot stand|remember|note|"
    r"important|usually|tend to|every time|whenever|please|must)\b",
    re.IGNORECASE,
)
"""Cue words no planted sentence may contain (checked on every one the writer says)."""


def banned_in(text: str) -> list[str]:
    """The cue words of :data:`BANNED` in ``text``."""
    return [m.group(0) for m in BANNED.finditer(text)]


TASTES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Sunday mornings are for {v}, rain or shine.",
        ("open-water swimming", "the flea market on Harbour Road", "a long ride up the valley"),
    ),
    (
        "Coffee-wise it's a {v} for me, nothing fancier.",
        ("cortado with oat milk", "plain filter with a splash of cream", "single ristretto"),
    ),
    (
        "Anything with {v} in it goes straight back to the kitchen.",
        ("coriander", "blue cheese", "tinned pineapple", "raw celery"),
    ),
    (
        "Since the knee operation, {v} is the only exercise that doesn't hurt.",
        ("aqua jogging", "the rowing machine", "cycling on the flat"),
    ),
    (
        "The kids won't touch breakfast unless it's {v}, so stock up on that.",
        ("buckwheat pancakes", "porridge with grated apple", "rye toast with honey"),
    ),
    (
        "Our house runs on {v}; meat went off the menu years ago.",
        ("lentil dal", "black bean chilli", "halloumi traybakes"),
    ),
    (
        "Music in the car is {v} or nothing.",
        ("old Cuban son records", "the Bach cello suites", "nineties drum and bass"),
    ),
    (
        "Dairy and me parted ways a while back, so it's {v} in everything now.",
        ("soya yoghurt", "coconut cream", "almond butter"),
    ),
    (
        "The first thing I do each morning is {v}, before anyone else is up.",
        ("twenty minutes of stretching", "a walk round the reservoir", "the cryptic crossword"),
    ),
    (
        "For birthdays the family knows to get me {v} and nothing else.",
        ("fountain pen ink", "bonsai tools", "seed packets for the allotment"),
    ),
    (
        "On planes I'm in {v}, earplugs in, out cold before take-off.",
        ("the last row by the galley", "an exit row seat", "a bulkhead seat"),
    ),
    (
        "Holidays for us mean {v}: no hotels, no airports.",
        ("a narrowboat on the canals", "wild camping in the Cairngorms", "a tent in Brittany"),
    ),
    (
        "Books at bedtime are {v}; anything heavier keeps me awake.",
        ("old Agatha Christies", "seafaring adventure stories", "short Japanese novels"),
    ),
    (
        "Spicy is fine, but nothing past {v}, my stomach won't have it.",
        ("a mild jalfrezi", "jalapeno level", "a korma"),
    ),
)
NAME_FRAMES = (
    "{v} from the choir gives me a lift on rehearsal nights.",
    "My sister married {v} last spring, lovely man.",
    "The twins' swimming coach is {v}.",
    "{v} next door has the spare key while we're away.",
    "Our GP retired, so it's {v} at the surgery now.",
    "Dad's carer on weekdays is {v}, she's brilliant with him.",
)
DATE_FRAMES = (
    "Our wedding anniversary falls on {v}.",
    "The twins turn seven on {v}, party at the leisure centre.",
    "We got the keys to this place on {v}, what a day.",
    "Mum's hip operation is booked for {v}.",
    "The allotment lease comes up for renewal on {v}.",
)
VALUE_FRAMES = (
    "The mortgage comes out at {v} a month since the rate went up.",
    "What we've put aside for the wedding so far: {v}.",
    "The van's insurance went up to {v} this year, ridiculous.",
    "Nursery fees are {v} a term for the two of them.",
)


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """A conversation of ``turns`` turns with ``facts`` facts said in plain prose."""
    if facts > len(TASTES) + len(NAME_FRAMES) + len(DATE_FRAMES) + len(VALUE_FRAMES):
        raise ValueError(f"prose-preferences supports at most 29 facts, got {facts}")
    prefs = min(len(TASTES), facts // 2)
    others: list[FactKind] = ["name", "date", "value"]
    kinds: list[FactKind] = ["preference"] * prefs
    kinds += [others[i % 3] for i in range(facts - prefs)]
    rng.shuffle(kinds)
    plan = dict(zip(spread(rng, turns, facts), kinds, strict=True))
    tastes = rng.sample(TASTES, len(TASTES))
    decks = {
        "name": rng.sample(NAME_FRAMES, len(NAME_FRAMES)),
        "date": rng.sample(DATE_FRAMES, len(DATE_FRAMES)),
        "value": rng.sample(VALUE_FRAMES, len(VALUE_FRAMES)),
    }
    w = Writer(rng)
    leads = ("", "", "", "Random thing, but ", "Oh, and ", "Anyway. ", "For the record, ")
    for t in range(turns):
        w.begin()
        kind = plan.get(t)
        if kind is None:
            w.small_talk()
            continue
        aliases: tuple[str, ...] = ()
        if kind == "preference":
            frame, values = tastes.pop()
            value = w.take(values)
        else:
            frame = decks[kind].pop()
            make = {"name": w.person, "date": w.date, "value": w.money}[kind]
            value, aliases = make()
        sentence = frame.replace("{v}", value)
        lead = rng.choice(leads)
        if lead:  # a name opening the frame keeps its capital
            head = sentence[0] if frame.startswith("{v}") else sentence[0].lower()
            sentence = lead + head + sentence[1:]
        if rng.random() < 0.4:  # said in passing, beside small talk
            chat = w.fill(rng.choice(_ASIDES))
            sentence = f"{chat} {sentence}" if rng.random() < 0.5 else f"{sentence} {chat}"
        if banned_in(sentence):  # pragma: no cover - the frames are written without them
            raise AssertionError(f"cue words {banned_in(sentence)} in {sentence!r}")
        where = w.say("user", sentence)
        w.say("assistant", w.fill(rng.choice(_REPLIES)))
        w.record(kind, value, aliases, t, where)
    return w


_ASIDES = (
    "Bit grey here today, {temp} degrees.",
    "Just back from {place}.",
    "{first} says hello.",
    "Sorry, typing on the bus.",
    "The {time} meeting ran over again.",
)
_REPLIES = (
    "Ha, fair enough.",
    "Got it. By the way, {first} replied about {weekday}.",
    "Okay! The forecast for {place} is {temp} degrees, if that helps.",
    "Makes sense.",
    "Noted. Anything else for today?",
    "Sounds good. Your {time} is still on.",
)
