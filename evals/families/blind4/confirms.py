"""blind4-confirms: the assistant offers details, the user takes one in a few words.

The assistant finds an appointment slot, a quote, a plan or a flight and offers one to three of
them; the user answers in a few words: "go with that", "yes book it", "the later one works",
"cheaper one", "second please". The fact is the accepted detail, written only in the offer;
the options not taken are the fact's ``rejected`` and the user's answer its ``confirm_index``,
so the runner's ``choice unclear`` (the value in view beside an option not taken, the answer
gone) and ``rejected only`` columns are reported. The assistant confirms without repeating the
detail, sometimes after a booking call carrying only an opaque offer id. Some offers are turned
down and are not facts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind4.base import Convo, Slots, build, spread
from evals.families.blind4.chatter import Fresh, filler_turn
from evals.families.trajectories import Trajectory

__all__ = ["ACCEPTS", "OFFERS", "Offer", "generate"]


@dataclass(frozen=True)
class Offer:
    """Options as the assistant words them: each a (value, sort key, line) triple."""

    kind: str
    ask: str
    intro: str
    options: list[tuple[str, float, str]]
    order: str  # what sorting by key means: "time" or "price" (or "" when it means nothing)


def _times(rng: random.Random, n: int, taken: set[str]) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    while len(out) < n:
        h, m = rng.randint(8, 18), rng.choice((5, 20, 25, 35, 40, 55))
        value = f"{h:02d}:{m:02d}"
        if value in taken or any(value == o for o, _ in out):
            continue
        out.append((value, h * 60 + m))
    taken.update(v for v, _ in out)
    return out


def slot_offer(rng: random.Random, f: Fresh, n: int, taken: set[str]) -> Offer:
    what, who = rng.choice(
        (
            ("a dentist appointment", "Dr Kowalski"),
            ("the MOT", "the garage on Mill Lane"),
            ("a haircut", "Shannon"),
            ("the boiler service", "the engineer"),
            ("a GP phone consultation", "the duty doctor"),
            ("the dog's booster jab", "the vet"),
        )
    )
    day = rng.choice(("Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"))
    times = _times(rng, n, taken)
    lines = [(v, k, f"{day} at {v} with {who}") for v, k in times]
    return Offer(
        "date", f"Can you find me {what} next week?", f"For {what} I can see:", lines, "time"
    )


def quote_offer(rng: random.Random, f: Fresh, n: int, taken: set[str]) -> Offer:
    job = rng.choice(
        (
            "re-felting the shed roof",
            "a new garden fence",
            "rewiring the kitchen",
            "a loft ladder",
            "sanding the floors",
        )
    )
    firms = rng.sample(
        (
            "Harlow & Sons",
            "FixRight",
            "J. Pettigrew",
            "Oakbridge Builders",
            "Castle Trades",
            "Brightwork",
        ),
        n,
    )
    lines = []
    for firm in firms:
        while True:
            price = rng.randint(4, 39) * 100 + rng.choice((15, 40, 60, 85))
            value = f"£{price // 1000},{price % 1000:03d}" if price >= 1000 else f"£{price}"
            if value not in taken:
                break
        taken.add(value)
        lines.append(
            (value, float(price), f"{firm}: {value} all in, can start in {rng.randint(2, 6)} weeks")
        )
    return Offer(
        "value", f"Did the quotes for {job} come back?", "The quotes so far:", lines, "price"
    )


PLANS = {
    "broadband": (
        "Fibre Essential 150",
        "Fibre Plus 500",
        "Full Fibre 900",
        "Gig1 Flex",
        "Fibre Max 1000",
        "Broadband Basics 67",
        "Superfast 80 Saver",
        "Ultrafast 300 Plus",
    ),
    "mobile": (
        "Starter SIM 30GB",
        "Unlimited Lite",
        "Talk & Text 5GB",
        "Roam Free 100GB",
        "Pay Monthly Lite 8GB",
        "Student Sim 50GB",
        "Family Share 4x20GB",
    ),
    "the gym": (
        "Off-Peak Gym",
        "Anytime Gym Plus",
        "Swim & Gym Flex",
        "Classes Only Pass",
        "Weekend Gym Pass",
        "Peak Hours Pro",
        "Pool Only Monthly",
    ),
    "streaming": (
        "Family Stream Duo",
        "Solo Stream Basic",
        "Cinema Stream Plus",
        "Kids Stream Solo",
        "Sport Stream Day Pass",
        "Ad-Lite Stream",
    ),
    "energy": (
        "Greenleaf Fixed 24",
        "Greenleaf Tracker",
        "Octo Flexible Nov",
        "Ecoflex Saver 12",
        "Fixed Dual Fuel 18",
        "Night Saver E7",
    ),
    "home insurance": (
        "Home Cover Bronze",
        "Home Cover Silver",
        "Contents Cover Gold",
        "Buildings Essential",
        "Renters Contents Plus",
        "Home Cover Platinum",
    ),
}


def plan_offer(rng: random.Random, f: Fresh, n: int, taken: set[str]) -> Offer:
    what = rng.choice([w for w, names in PLANS.items() if len(set(names) - taken) >= n])
    names = rng.sample([p for p in PLANS[what] if p not in taken], n)
    taken.update(names)
    lines = []
    for name in names:
        price = rng.randint(12, 69)
        lines.append(
            (
                name,
                float(price),
                f"{name}, £{price} a month, {rng.choice(('12', '18', '24'))}-month contract",
            )
        )
    return Offer(
        "name", f"What are the options for {what} if I switch?", "Here's what fits:", lines, "price"
    )


def flight_offer(rng: random.Random, f: Fresh, n: int, taken: set[str]) -> Offer:
    dest = rng.choice(("Lisbon", "Kraków", "Bilbao", "Palermo", "Bergen", "Split"))
    times = _times(rng, n, set())
    lines = []
    for _t, key in times:
        while True:
            code = f"{rng.choice(('FR', 'U2', 'BA', 'W6', 'LS', 'TP'))} {rng.randint(1000, 8999)}"
            if code not in taken:
                break
        taken.add(code)
        hh, mm = int(key // 60), int(key % 60)
        lines.append(
            (code, key, f"{code}, leaves at {hh:02d}.{mm:02d}, £{rng.randint(38, 260)} return")
        )
    return Offer(
        "code",
        f"Find me flights to {dest} for the long weekend?",
        "Flights that fit:",
        lines,
        "time",
    )


OFFERS: dict[str, Callable[[random.Random, Fresh, int, set[str]], Offer]] = {
    "slot": slot_offer,
    "quote": quote_offer,
    "plan": plan_offer,
    "flight": flight_offer,
}

ACCEPTS = {
    "single": (
        "go with that",
        "yes book it",
        "perfect, do it",
        "yep that's fine",
        "sounds good, go ahead",
    ),
    "first": ("first one", "the first, please", "top one's fine"),
    "second": ("second please", "the second one", "number two"),
    "third": ("the third", "last one", "the bottom one"),
    "later": ("the later one works", "later one, I can't do early"),
    "earlier": ("the earlier one", "earlier please"),
    "cheaper": ("cheaper one", "the cheaper one's fine"),
    "dearer": ("dearer one, trust them more", "pricier one, honestly"),
}

CONFIRMS = (
    "Done, that's booked. Confirmation's on its way to your email.",
    "All sorted, you'll get a text to confirm.",
    "Great, I've locked that in.",
    "Lovely, booked.",
)


def _accept(rng: random.Random, offer: Offer) -> tuple[int, str]:
    """Which option the user takes and the words they take it with."""
    n = len(offer.options)
    if n == 1:
        return 0, rng.choice(ACCEPTS["single"])
    keys = [k for _, k, _ in offer.options]
    ways = ["first", "second"] + (["third"] if n == 3 else [])
    if n == 2 and offer.order == "time":  # "the later one" only reads well between two
        ways += ["later", "earlier"]
    elif n == 2 and offer.order == "price" and len(set(keys)) == n:
        ways += ["cheaper", "dearer"]
    way = rng.choice(ways)
    index = {
        "first": 0,
        "second": 1,
        "third": 2,
        "later": keys.index(max(keys)),
        "earlier": keys.index(min(keys)),
        "cheaper": keys.index(min(keys)),
        "dearer": keys.index(max(keys)),
    }[way]
    words = rng.choice(ACCEPTS[way])
    return index, words


def _offer_text(offer: Offer) -> str:
    if len(offer.options) == 1:
        return f"{offer.intro} {offer.options[0][2]}. Want me to go ahead?"
    lines = "\n".join(f"{i + 1}. {line}" for i, (_, _, line) in enumerate(offer.options))
    return f"{offer.intro}\n{lines}\nWhich would you like?"


def _episode(convo: Convo, f: Fresh, kind: str, taken: set[str], plant: bool) -> None:
    n = convo.rng.choice((1, 2, 2, 3, 3))
    offer = OFFERS[kind](convo.rng, f, n, taken)
    convo.user(offer.ask)
    if convo.rng.random() < 0.5:
        convo.call(
            f"search_{kind}s",
            {"query": offer.ask[:40]},
            json.dumps(
                {
                    "results": len(offer.options),
                    "offer_ids": [f"of_{convo.rng.getrandbits(32):08x}" for _ in offer.options],
                }
            ),
        )
    offer_index = convo.say(_offer_text(offer))
    if not plant:
        convo.user(
            convo.rng.choice(("none of those, leave it", "hmm, I'll wait a bit", "nah, too much"))
        )
        convo.say("No problem, I'll leave it for now.")
        return
    chosen, words = _accept(convo.rng, offer)
    accept_index = convo.user(words)
    value = offer.options[chosen][0]
    rejected = tuple(v for i, (v, _, _) in enumerate(offer.options) if i != chosen)
    convo.plant(offer.kind, value, offer_index, rejected=rejected, confirm_index=accept_index)
    if convo.rng.random() < 0.5:
        convo.call(
            "book",
            {"offer_id": f"of_{convo.rng.getrandbits(32):08x}"},
            json.dumps({"ok": True, "status": "confirmed"}),
        )
    convo.say(convo.rng.choice(CONFIRMS))


def write(convo: Convo, turns: int, facts: int) -> None:
    f = Fresh(convo.rng)
    convo.system(
        "You are Juniper, a personal assistant who books appointments, compares quotes and "
        "plans trips. Offer options clearly and book what the user chooses."
    )
    slots = Slots(turns)
    taken: set[str] = set()
    kinds = list(OFFERS)
    for i, at in enumerate(spread(convo.rng, facts, turns)):
        kind = kinds[i % len(kinds)]
        slots.put(at, partial(_episode, convo, f, kind, taken, True))
    for _ in range(facts // 5):
        kind = convo.rng.choice(kinds)
        slots.put(convo.rng.randrange(turns), partial(_episode, convo, f, kind, taken, False))
    slots.run(lambda: filler_turn(convo, f))


def generate(seed: int, *, turns: int = 600, facts: int = 20) -> Trajectory:
    """The ``blind4-confirms`` conversation for ``seed``."""
    return build(
        "b4-confirms", seed, lambda c: write(c, turns, facts), {"turns": turns, "facts": facts}
    )
