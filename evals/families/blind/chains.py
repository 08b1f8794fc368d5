"""``correction-chains``: a value, or a person, replaced two to four times over long gaps.

Each chain is about one thing (the venue's deposit, who does the catering, the party's date,
the gate code): stated once, then corrected 2 to 4 times, 10 to 40 turns apart, each time in
another phrasing, never repeating the old value (a replaced person is not named again). Every
correction is a fact asked about from its message until the next correction supersedes it
(``until``), so the latest must win; its ``stale`` is the value it replaced and ``older`` the
ones before. Facts keep their own kind (``name``, ``value``, ``date``, ``code``), so the report
shows corrected names apart; every fact of the family is a correction, so the ``stale``,
``stale unmarked`` and ``stale only`` columns cover them all.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from evals.families.blind.base import Writer
from evals.families.facts import FactKind

__all__ = ["TOPICS", "Topic", "write"]


@dataclass(frozen=True)
class Topic:
    """One thing corrected: its first statement's frames and its corrections' frames."""

    kind: FactKind
    first: tuple[str, ...]
    then: tuple[str, ...]


TOPICS = (
    Topic(
        "value",
        ("The venue wants a deposit of {v} by the end of the month.",),
        (
            "Venue deposit has gone up, they now want {v}.",
            "Update on the deposit: it's {v} after all.",
            "They knocked the venue deposit down to {v}.",
            "Ignore the earlier deposit figure, {v} is the real one.",
        ),
    ),
    Topic(
        "name",
        ("{v} is doing the food for the party.",),
        (
            "Change of plan with the food: {v} is doing it now.",
            "Our caterer dropped out, so {v} has taken the party food over.",
            "Party food is with {v} now. Third time lucky.",
            "One more switch on catering, it's {v} in the end.",
        ),
    ),
    Topic(
        "date",
        ("The leaving do is on {v}.",),
        (
            "We've moved the leaving do to {v}.",
            "Leaving do shifted again, now {v}.",
            "Final answer on the leaving do: {v}.",
            "Sorry, the leaving do is {v} now, the room was double-booked.",
        ),
    ),
    Topic(
        "code",
        ("The gate code at the holiday let is {v}.",),
        (
            "Owner texted, the holiday let's gate code is now {v}.",
            "Gate code at the let changed again: {v}.",
            "New gate code for the let, {v}, the old one stopped working.",
            "They reset the holiday let gate to {v}.",
        ),
    ),
    Topic(
        "name",
        ("Our mortgage adviser at the bank is {v}.",),
        (
            "The bank has moved us to a new mortgage adviser, {v}.",
            "Mortgage adviser changed again, it's {v} now.",
            "We've got {v} as mortgage adviser from today.",
            "Heads up, {v} is our mortgage adviser now; the last one left.",
        ),
    ),
    Topic(
        "value",
        ("We set the kitchen refit budget at {v}.",),
        (
            "We've stretched the kitchen budget to {v}.",
            "Kitchen budget is now {v}, we cut the island.",
            "Revised kitchen budget: {v}.",
            "OK the kitchen budget ends at {v}, no more changes.",
        ),
    ),
    Topic(
        "date",
        ("Our flight home from Lanzarote is on {v}.",),
        (
            "We changed the flight home to {v}.",
            "The airline moved our flight home, it's {v} now.",
            "Flight home is on {v} after the rebooking.",
            "Moved the flight home once more, to {v}.",
        ),
    ),
    Topic(
        "code",
        ("The van hire booking reference is {v}.",),
        (
            "Van hire reissued the booking, new reference {v}.",
            "The van booking reference changed to {v} when I added a driver.",
            "Van hire reference is {v} now, after the date change.",
            "Another new van hire reference, {v}.",
        ),
    ),
)
"""What the chains are about (one chain per topic)."""


def _plan(rng: random.Random, turns: int, chains: int) -> dict[int, tuple[int, int]]:
    """Turn -> (chain, step): each chain's steps 10 to 40 turns apart."""
    for _ in range(500):
        plan: dict[int, tuple[int, int]] = {}
        ok = True
        for c in range(chains):
            steps = 1 + rng.randint(2, 4)
            at = rng.randrange(0, max(1, turns - 10 * steps))
            for s in range(steps):
                while at in plan and at < turns:
                    at += 1
                if at >= turns:
                    ok = False
                    break
                plan[at] = (c, s)
                at += rng.randint(10, 40)
            if not ok:
                break
        if ok:
            return plan
    raise ValueError(f"could not fit {chains} correction chains in {turns} turns")


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` chains (at most one per topic) of 2 to 4 corrections each, among small talk."""
    if facts > len(TOPICS):
        raise ValueError(f"correction-chains has {len(TOPICS)} topics, got {facts=}")
    topics = rng.sample(TOPICS, facts)
    plan = _plan(rng, turns, facts)
    w = Writer(rng)
    said: dict[int, list[str]] = {}
    where_said: dict[int, int] = {}
    latest: dict[int, int] = {}  # chain -> index in w.facts of its current value
    decks = {c: rng.sample(topics[c].then, len(topics[c].then)) for c in range(facts)}
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None:
            w.small_talk()
            continue
        c, s = step
        topic = topics[c]
        make = {"name": w.person, "date": w.date, "value": w.money, "code": w.code}[topic.kind]
        value, aliases = make()
        frame = rng.choice(topic.first) if s == 0 else decks[c].pop()
        where = w.say("user", frame.replace("{v}", value))
        w.say("assistant", w.fill(rng.choice(_ACKS)))
        if s > 0:
            if c in latest:
                i = latest[c]
                w.facts[i] = dataclasses.replace(w.facts[i], until=where)
            history = said[c]
            w.record(
                topic.kind,
                value,
                aliases,
                t,
                where,
                stale=history[-1],
                stale_index=where_said[c],
                older=tuple(history[:-1]),
            )
            latest[c] = len(w.facts) - 1
        said.setdefault(c, []).append(value)
        where_said[c] = where
    return w


_ACKS = (
    "Updated.",
    "Okay, changed it in your notes.",
    "Got it, I've replaced the old one.",
    "Noted. Anything else on that?",
    "Right, updated. Your {time} is still on.",
)
