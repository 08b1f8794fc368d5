"""``fragments``: a value in a sentence that leans on the one before it.

People set the scene, then give the detail in a sentence that means nothing alone: "We settled
on a name for the boat. She's going to be Salt Fiddle." or "Got the roofer's quote back.
4,120.50, scaffolding included." Each fact is in the second sentence of its message, which
opens with a pronoun or leaves its subject out; some messages run on with a third sentence of
chatter. A quarter are the assistant's answers, built the same way. A summary that keeps the
value's sentence without the one before keeps a value without what it is; the fragment check
(:mod:`evals.metrics.fragments`) counts such lines, the probe counts the value.
"""

from __future__ import annotations

import random

from evals.families.blind.base import Writer, spread
from evals.families.facts import FactKind

__all__ = ["ANSWERS", "PAIRS", "THINGS", "write"]

THINGS = {
    "boat": ("Salt Fiddle", "Wandering Heron", "Puffin's Rest", "Low Tide Lucy"),
    "sandwich": ("the beetroot and feta", "the smoked trout on rye", "the spiced chickpea wrap"),
    "pizza": ("nduja and honey", "mushroom and truffle", "anchovy and caper"),
    "dog": ("Pumpernickel", "Captain Biscuit", "Mrs Wobbles"),
}
"""Names of things and dishes, for the frames that need them (one of each per conversation)."""

PAIRS: tuple[tuple[FactKind, str, str], ...] = (
    ("name", "We finally settled on a name for the boat.", "She's going to be {boat}."),
    ("name", "Met the new head of year at parents' evening.", "Her name's {person}, very sharp."),
    ("name", "There's a new vet since the practice changed hands.", "He's called {person}."),
    ("name", "The puppy's name is decided, after a week of arguing.", "{dog}, obviously."),
    ("date", "The hospital finally wrote back about Dad's scan.", "It's on {date}, first thing."),
    ("date", "Booked the car in for its service.", "Same garage as last time, on {date}."),
    ("date", "The council got back to me about the bins.", "From {date} they go fortnightly."),
    ("value", "Got the quote back from the roofer.", "{money}, scaffolding included."),
    ("value", "Sold the old camper van in the end.", "Got {money} for it, more than I hoped."),
    ("value", "The solicitor's bill arrived.", "{money}. For three letters."),
    ("code", "The printer's replacement part finally shipped.", "Tracking is {code}."),
    ("code", "The gym gave me a locker at last.", "It opens with {code}."),
    (
        "preference",
        "Tried every sandwich at the new place by the station.",
        "Only {sandwich} is worth it.",
    ),
    ("preference", "The kids agreed on a Friday pizza at last.", "Half {pizza}, half plain."),
)
"""(kind, the sentence that sets the scene, the one with the value)."""

ANSWERS: tuple[tuple[FactKind, str, str, str], ...] = (
    ("date", "When's the boiler service?", "I checked with the engineer.", "It's {date}."),
    ("name", "Who's covering for Ravi?", "The agency confirmed this morning.", "{person}."),
    ("code", "Did the new bank card get sent?", "Yes, it's on its way.", "Card ref {code}."),
    ("value", "How much did the kitchen come to?", "I added up every invoice.", "{money} in all."),
)
"""(user question, the assistant's first sentence, the one with the value)."""

_AFTER = (
    "Anyway, how's your day going?",
    "No idea how we'll fit it all in.",
    "{first} thinks it's hilarious.",
    "Raining again here, {temp} degrees.",
)


def _value(w: Writer, sentence: str) -> tuple[str, str, tuple[str, ...]]:
    """``sentence`` with its value slot filled; the value and its aliases."""
    for thing, pool in THINGS.items():
        slot = "{" + thing + "}"
        if slot in sentence:
            value = w.take(pool)
            return sentence.replace(slot, value), value, ()
    makers = {"{person}": w.person, "{date}": w.date, "{money}": w.money, "{code}": w.code}
    for slot, make in makers.items():
        if slot in sentence:
            value, aliases = make()
            return sentence.replace(slot, value), value, aliases
    raise ValueError(f"no value slot in {sentence!r}")


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` two- or three-sentence messages, the value in the second, among small talk."""
    if facts > len(PAIRS) + len(ANSWERS):
        raise ValueError(f"fragments supports at most {len(PAIRS) + len(ANSWERS)} facts")
    answers = min(len(ANSWERS), facts // 4)
    frames = rng.sample(PAIRS, facts - answers) + rng.sample(ANSWERS, answers)
    rng.shuffle(frames)
    plan = dict(zip(spread(rng, turns, facts), frames, strict=True))
    w = Writer(rng)
    for t in range(turns):
        w.begin()
        frame = plan.get(t)
        if frame is None:
            w.small_talk()
            continue
        if len(frame) == 4:
            kind, question, first, second = frame
            text, value, aliases = _value(w, second)
            w.say("user", question)
            where = w.say("assistant", f"{first} {text}")
        else:
            kind, first, second = frame
            text, value, aliases = _value(w, second)
            message = f"{first} {text}"
            if rng.random() < 0.4:
                message = f"{message} {w.fill(rng.choice(_AFTER))}"
            where = w.say("user", message)
            w.say("assistant", w.fill(rng.choice(("Ha, nice.", "Okay, noted.", "Good to know."))))
        w.record(kind, value, aliases, t, where)
    return w
