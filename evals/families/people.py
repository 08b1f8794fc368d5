"""The ``people-details`` style: details about other people, said with a contracted pronoun.

People set the scene with one sentence about someone (a brother, a neighbour, the cat) and
give the detail in the next, which opens with that someone's pronoun contracted: "My brother
is flying in for the wedding. He'll land on 14 March 2027, early." Some details are then
revised turns later the same way ("Update on my brother's flight. He'll land on 2 May 2027
instead."), the old value stale from then on. The detail's sentence means little alone (who
lands?), so a summary should keep it with the sentence before or not at all; the probe counts
the value, the fragment check (:mod:`evals.metrics.fragments`) the lines that lean on a
dropped sentence. Written from how people talk about others (round 13, issue #29), not from
any held-out family; own, tuned on.
"""

from __future__ import annotations

import random

from evals.families.blind.base import Writer, spread
from evals.families.facts import FactKind

__all__ = ["FRAMES", "write"]

_DISHES = ("mushroom risotto", "chickpea curry", "halloumi skewers", "lentil shepherd's pie")
_FOODS = ("the salmon pouches", "dry biscuits from the blue bag", "chicken in jelly")

FRAMES: tuple[tuple[FactKind, str, str, str, str], ...] = (
    (
        "date",
        "My brother is flying in for the wedding.",
        "He'll land on {v}, early.",
        "Update on my brother's flight.",
        "He'll land on {v} instead.",
    ),
    (
        "date",
        "Mum finally booked her knee operation.",
        "She's going in on {v}.",
        "Mum's operation moved.",
        "She's going in on {v} now.",
    ),
    (
        "value",
        "The twins need new school uniforms.",
        "They'll cost {v} all in.",
        "The uniform shop rang back.",
        "They'll cost {v} after all.",
    ),
    (
        "name",
        "Our lodger moved out last month.",
        "She's been replaced by {v}.",
        "The new lodger fell through.",
        "She's been replaced by {v} instead.",
    ),
    (
        "code",
        "My sister ordered the pram online.",
        "She'll collect it with code {v}.",
        "The pram order was redone.",
        "She'll collect it with code {v} now.",
    ),
    (
        "value",
        "My son wants a new bike for his birthday.",
        "He's found one for {v}.",
        "My son changed his mind about the bike.",
        "He's found one for {v} now.",
    ),
    (
        "name",
        "Dad's getting a new GP after the move.",
        "He's with {v} from now on.",
        "Dad's GP changed again.",
        "He's with {v} now.",
    ),
    (
        "date",
        "The neighbours asked us to water their plants.",
        "They're away from {v}.",
        "The neighbours changed their trip.",
        "They're away from {v} now.",
    ),
    (
        "preference",
        "My partner's parents are staying over the weekend.",
        "They've gone off meat, so {v} it is.",
        "",
        "",
    ),
    ("preference", "The new cat is fussier than the old one.", "She'll only eat {v}.", "", ""),
    (
        "code",
        "My aunt is borrowing the car next week.",
        "She'll need the gate fob, number {v}.",
        "The gate fobs were all reissued.",
        "She'll need number {v} instead.",
    ),
    (
        "value",
        "My daughter's school trip is confirmed.",
        "It'll cost us {v} in total.",
        "The school trip price went up.",
        "It'll cost us {v} now.",
    ),
)
"""(kind, the sentence that sets the scene, the detail, a revision's scene, its detail)."""

_ACKS = ("Noted.", "Good to know.", "Okay, I'll remember that.", "Thanks, got it.")


def _value(w: Writer, kind: FactKind, detail: str) -> tuple[str, tuple[str, ...]]:
    if kind == "preference":
        pool = _FOODS if "only eat" in detail else _DISHES
        return w.take(pool), ()
    make = {"date": w.date, "value": w.money, "name": w.person, "code": w.code}[kind]
    return make()


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` details (a third revised later, once each) among small talk."""
    revisable = [f for f in FRAMES if f[3]]
    if facts > len(FRAMES):
        raise ValueError(f"people-details supports at most {len(FRAMES)} facts")
    frames = rng.sample(FRAMES, facts)
    revised = [f for f in frames if f in revisable][: max(1, facts // 3)]
    events: list[tuple[str, tuple[FactKind, str, str, str, str]]] = [("say", f) for f in frames]
    events += [("revise", f) for f in revised]
    order = events[: len(frames)]
    rng.shuffle(order)
    plan_turns = spread(rng, turns, len(events))
    # revisions come after what they revise: place them in the later half of the plan
    first_half = plan_turns[: len(order)]
    later = plan_turns[len(order) :]
    plan = dict(zip(first_half, order, strict=True))
    plan.update(zip(later, [("revise", f) for f in revised], strict=True))
    w = Writer(rng)
    said: dict[str, tuple[str, int]] = {}
    for t in range(turns):
        w.begin()
        event = plan.get(t)
        if event is None:
            w.small_talk()
            continue
        what, (kind, scene, detail, rescene, redetail) = event
        value, aliases = _value(w, kind, detail)
        if what == "say":
            where = w.say("user", f"{scene} {detail.format(v=value)}")
            w.say("assistant", rng.choice(_ACKS))
            said[scene] = (value, where)
            if (kind, scene, detail, rescene, redetail) not in revised:
                w.record(kind, value, aliases, t, where)  # a revised one counts as revised
        else:
            old, old_at = said[scene]
            where = w.say("user", f"{rescene} {redetail.format(v=value)}")
            w.say("assistant", rng.choice(_ACKS))
            w.record("correction", value, aliases, t, where, stale=old, stale_index=old_at)
    return w
