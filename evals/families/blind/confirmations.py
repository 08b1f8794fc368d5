"""``confirmations``: the assistant offers options, the user takes one in a few words.

The fact is the accepted option's value (a tradesperson, a flight, an appointment date, a
price): it is written once, in the assistant's offer, beside the options not taken; the user's
acceptance never repeats it ("the second one", "go for it", "whichever is cheaper, that
one"), and the assistant's reply confirms without restating it. A view that keeps the offer but
not the acceptance holds the value without saying it was chosen; the probe reports that apart
(``rejected`` and ``confirm_index`` on each fact).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind.base import Writer, spread
from evals.families.facts import FactKind

__all__ = ["OFFERS", "Offer", "write"]


@dataclass(frozen=True)
class Offer:
    """A request and how each option is described (``{v}`` is its value)."""

    kind: FactKind
    requests: tuple[str, ...]
    option: str
    order: str  # what "the cheaper/earlier one" means for this kind: "" when nothing does


OFFERS = (
    Offer(
        "name",
        ("Can you find someone to fix the fence?", "I need a decorator for the hallway."),
        "{v} ({n} reviews, free from {weekday})",
        "",
    ),
    Offer(
        "code",
        ("Get me to Dublin on {weekday}, morning if possible.", "Find a flight to Bilbao."),
        "flight {v} leaving {time}, {price} return",
        "",
    ),
    Offer(
        "date",
        ("When can the dentist fit me in?", "Find a slot for the car's MOT."),
        "{v} at {time}",
        "earlier",
    ),
    Offer(
        "value",
        ("Any cottages in {place} for the half-term week?", "Quote me for the loft insulation."),
        "{v} all in, from {first}'s firm",
        "cheaper",
    ),
)
"""What the assistant offers options for."""

_SINGLE = (
    "Yep, go for it.",
    "Perfect, book it.",
    "Sounds right, confirm it.",
    "do it",
    "Great, yes.",
    "ok that's fine, go ahead",
    "Brilliant, that'll do nicely.",
)
_ORDINALS = ("first", "second", "third")
_PICK = (
    "The {ord} one.",
    "{Ord} option, thanks.",
    "Let's take the {ord}.",
    "{Ord} sounds best, book that.",
    "hmm. the {ord} I think. yes, the {ord}.",
    "Go with number {n}.",
)
_BY_ORDER = {
    "cheaper": ("Whichever is cheapest, that one.", "The cheaper one, obviously."),
    "earlier": ("The earliest, please.", "Sooner is better, take the earliest one."),
}
_DONE = (
    "Booked.",
    "Done, the confirmation is in your inbox.",
    "All set.",
    "Confirmed, I've let them know.",
    "Sorted. I'll put it in the calendar.",
)


def _offer_text(w: Writer, options: list[str]) -> str:
    r = w.rng
    if len(options) == 1:
        lead = r.choice(("The best I can find is", "There's one that fits:", "Only one option:"))
        return f"{lead} {options[0]}. Shall I book it?"
    if r.random() < 0.5:
        listed = "\n".join(f"{i}. {o}" for i, o in enumerate(options, start=1))
        return f"I found {len(options)}:\n{listed}\nWhich one?"
    listed = "; ".join(f"{o}" for o in options[:-1]) + f"; or {options[-1]}"
    return f"Options: {listed}. Any of those?"


def _acceptance(w: Writer, pick: int, count: int, order_word: str, ranked_first: bool) -> str:
    r = w.rng
    if count == 1:
        return r.choice(_SINGLE)
    if order_word and ranked_first and r.random() < 0.4:
        return r.choice(_BY_ORDER[order_word])
    text = r.choice(_PICK).replace("{n}", str(pick + 1))
    text = text.replace("{ord}", _ORDINALS[pick]).replace("{Ord}", _ORDINALS[pick].title())
    return text


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` offers, each accepted in a short reply, among small talk and reports."""
    if turns < 2 * facts:
        raise ValueError(f"confirmations needs turns >= 2 * facts, got {turns=} {facts=}")
    w = Writer(rng)
    offers = dict(zip(spread(rng, turns, facts), range(facts), strict=True))
    kinds = [OFFERS[i % len(OFFERS)] for i in range(facts)]
    rng.shuffle(kinds)
    for t in range(turns):
        w.begin()
        if t not in offers:
            w.small_talk()
            continue
        offer = kinds[offers[t]]
        count = rng.choice((1, 2, 2, 3, 3))
        make: Callable[[], tuple[str, tuple[str, ...]]] = {
            "name": w.person,
            "code": _flight(w),
            "date": w.date,
            "value": w.money,
        }[offer.kind]
        values = [make() for _ in range(count)]
        pick = rng.randrange(count)
        ranked_first = False
        if offer.order == "cheaper":
            ranked_first = float(values[pick][0]) == min(float(v) for v, _ in values)
        elif offer.order == "earlier":
            iso = [next(a for a in (v, *al) if a[:4].isdigit()) for v, al in values]
            ranked_first = iso[pick] == min(iso)
        options = [w.fill(offer.option).replace("{v}", v) for v, _ in values]
        w.say("user", w.fill(rng.choice(offer.requests)))
        where = w.say("assistant", _offer_text(w, options))
        confirm = w.say("user", _acceptance(w, pick, count, offer.order, ranked_first))
        w.say("assistant", rng.choice(_DONE))
        value, aliases = values[pick]
        rejected = tuple(v for i, (v, _) in enumerate(values) if i != pick)
        w.record(offer.kind, value, aliases, t, where, rejected=rejected, confirm_index=confirm)
    return w


def _flight(w: Writer) -> Callable[[], tuple[str, tuple[str, ...]]]:
    r = w.rng
    airlines = ("EI", "IB", "VY", "FR", "BA", "TP")
    return lambda: w.fresh(lambda: (f"{r.choice(airlines)}{r.randint(100, 9899)}", ()))
