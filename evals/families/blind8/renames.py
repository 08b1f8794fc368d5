"""``blind8-renames``: two subjects share an attribute, and one of them changes.

A lead at a software agency keeps track of pairs: two colleagues' flights, two projects'
deadlines or budgets, two meetings' slots, two clients' contacts, two teams' offsite towns,
two client apps' names. Both values are stated (together by the user, together in a tool's
record, or apart), then one subject changes once or twice: renamed, moved, revised, replaced
("scrap that, ...", "we went with ...", "she goes by ... now", a newer tool record, the
assistant's answer when asked). The other keeps its value to the end, so a summary that
takes one subject's change for the other's loses the unchanged one. Every value is a fact
(the replaced ones with ``until``); each change is a ``correction`` with ``stale``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind6.base import dumps
from evals.families.blind8.base import Writer, build
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["PAIRS", "generate"]


@dataclass(frozen=True)
class Pair:
    """A kind of pair: how its subjects are named, its values made and its changes said."""

    name: str
    kind: FactKind
    labels: tuple[str, ...]  # "{}" is a fresh first name where the label holds one
    both: tuple[str, ...]  # {a} {va} {b} {vb}
    one: tuple[str, ...]  # {x} {v}
    fixes: tuple[str, ...]  # {b} {new} {old}
    asked: str  # the user's question before the assistant gives a change: {b}


PAIRS: dict[str, Pair] = {
    p.name: p
    for p in (
        Pair(
            "flight",
            "value",
            ("{}", "{}", "{}", "{}"),
            (
                "flights are booked for the client visit: {a} is on the {va} and {b} is on the "
                "{vb}, both out of the same terminal",
                "so for the trip, {a} flies at {va} and {b} at {vb}. can you put them in the "
                "shared calendar",
            ),
            ("{x} is booked on the {v} flight for the workshop", "{x} got the {v} flight"),
            (
                "{b}'s flight has been moved, it's the {new} now",
                "the airline shifted {b} onto the {new}",
                "{b} swapped flights, she's going on the {new} instead",
            ),
            "did anything change with {b}'s flight",
        ),
        Pair(
            "deadline",
            "date",
            ("Heron", "Marlin", "Quarry", "Tundra", "Osprey", "Beacon", "Cobalt", "Juniper"),
            (
                "deadlines from the account meeting: {a} is due {va} and {b} is due {vb}",
                "right so {a} has to ship by {va}, {b} by {vb}. put both on the board please",
            ),
            ("the client wants {x} live by {v}", "{x} is due {v}, they confirmed it today"),
            (
                "{b} has slipped, the client's fine with {new}",
                "we went with {new} for {b} in the end, the client needed more time to test",
                "new date for {b}: {new}. they moved the launch event",
            ),
            "is the {b} deadline still where it was",
        ),
        Pair(
            "meeting",
            "value",
            ("sprint review", "design crit", "client demo", "board catch-up", "retro", "planning"),
            (
                "this week the {a} is at {va} and the {b} at {vb}, can you send round a reminder",
                "calendar for the team: {a} {va}, {b} {vb}",
            ),
            ("the {x} is at {v}", "we've set the {x} for {v}"),
            (
                "the {b} has been pushed to {new}, half the team are at the dentist or something",
                "moving the {b} to {new}",
                "the {b} is {new} now, the room was taken",
            ),
            "is the {b} still on at the same time",
        ),
        Pair(
            "budget",
            "value",
            ("Heron", "Marlin", "Quarry", "Tundra", "Osprey", "Beacon", "Cobalt", "Juniper"),
            (
                "signed off budgets: {a} gets {va}, {b} gets {vb}",
                "finance came back with {va} for {a} and {vb} for {b}",
            ),
            ("{x} has a budget of {v}", "the client approved {v} for {x}"),
            (
                "scrap that figure for {b}, finance revised it to {new}",
                "{b}'s budget went up to {new} after the extra screens were added",
                "we settled on {new} for {b} in the end",
            ),
            "did finance touch the {b} budget",
        ),
        Pair(
            "contact",
            "name",
            ("the museum", "the housing charity", "the council", "the bike shop", "the brewery"),
            (
                "contacts for the two new clients: at {a} it's {va}, at {b} it's {vb}",
                "{va} is our person at {a} and {vb} looks after us at {b}",
            ),
            ("our contact at {x} is {v}", "{v} will be the main contact at {x}"),
            (
                "{first} has left {b}, we'll be dealing with {new} from now",
                "{b} have given us a new contact, {new}, since {first} moved teams",
                "{first} at {b} got married, she's {new} now",
            ),
            "any change at {b}, i heard someone left",
        ),
        Pair(
            "offsite",
            "name",
            ("design team's offsite", "dev team's offsite", "leadership away day", "summer social"),
            (
                "plans so far: the {a} is in {va} and the {b} in {vb}",
                "we've pencilled in {va} for the {a} and {vb} for the {b}",
            ),
            ("the {x} is going to be in {v}", "looks like {v} for the {x}"),
            (
                "the {b} is going to {new} instead, cheaper to get to",
                "we went with {new} for the {b} in the end",
                "scrap that for the {b}, it's {new} now",
            ),
            "did the {b} stay where it was",
        ),
        Pair(
            "app",
            "name",
            ("museum app", "charity app", "council app", "bike shop app", "brewery app"),
            (
                "the client names are in: the {a} is called {va} and the {b} is {vb}",
                "naming done, {va} for the {a}, {vb} for the {b}",
            ),
            ("the {x} is going to be called {v}", "they picked {v} as the name for the {x}"),
            (
                "the {b} got renamed, marketing want {new}",
                "scrap the old name for the {b}, it's {new} now",
                "the {b} is {new} from today, legal had a problem with the old one",
            ),
            "has the {b} still got the same name",
        ),
    )
}
"""The kinds of pair, by name."""

_SURNAMES = ("Brennan", "Okafor", "Lindgren", "Moreau", "Haddad", "Castellano", "Ferreira")
_APPS = (
    "Wayfinder", "Pocketguide", "Hearthstone", "Tidemark", "Northstar", "Sproutling",
    "Kindling", "Meridian", "Lodestar", "Bellhop", "Wildflower", "Cartwheel",
)  # fmt: skip
_TOOL_LEAD = ("Checking the records.", None)
_TRAVELLERS = ("Priya", "Tomasz", "Aoife", "Kwame", "Ines", "Rafael", "Signe", "Yusuf", "Mirela")


def _value(w: Writer, pair: Pair) -> tuple[str, tuple[str, ...]]:
    """A fresh value for ``pair`` and its aliases."""
    r = w.rng
    if pair.name in ("flight", "meeting"):
        return w.time(), ()
    if pair.name == "deadline":
        return w.day()
    if pair.name == "budget":
        return w.fresh(lambda: f"£{r.randint(6, 95) * 500:,}"), ()
    if pair.name == "contact":
        return w.person(), ()
    if pair.name == "offsite":
        return w.town(), ()
    return w.pick(_APPS), ()


def _labels(w: Writer, pair: Pair) -> tuple[str, str]:
    r = w.rng
    if pair.name == "flight":
        return w.pick(_TRAVELLERS), w.pick(_TRAVELLERS)
    a = w.fresh(lambda: r.choice(pair.labels))
    return a, w.fresh(lambda: r.choice(pair.labels))


def _fill(text: str, **slots: str) -> str:
    for k, v in slots.items():
        text = text.replace("{" + k + "}", v)
    return text


def _episode(w: Writer, pair: Pair, changes: int) -> list[Callable[[], None]]:
    """The steps of one pair: statements first, then ``changes`` changes to the second subject."""
    r = w.rng
    a, b = _labels(w, pair)
    (va, aa), (vb, ab) = _value(w, pair), _value(w, pair)
    state: dict[str, int] = {}  # the fact index of b's current value
    steps: list[Callable[[], None]] = []
    how = r.choice(("together", "together", "tool", "apart"))
    quick = how == "apart" and r.random() < 0.5  # "scrap that" straight after b's statement

    def together() -> None:
        if how == "tool":
            w.user(
                r.choice(("pull up what we've got for", "what's in the tracker for"))
                + f" {a} and {b}"
            )
            records = [{"subject": a, pair.name: va}, {"subject": b, pair.name: vb}]
            at = w.tool("tracker_lookup", {"subjects": "both"}, dumps({"records": records}))
            w.say("assistant", "There are both records.")
        else:
            at = w.user(_fill(r.choice(pair.both), a=a, va=va, b=b, vb=vb))
            w.say("assistant", w.short())
        w.plant(pair.kind, va, at, aliases=aa)
        state["b"] = len(w.facts)
        w.plant(pair.kind, vb, at, aliases=ab)

    def one_a() -> None:
        at = w.user(_fill(r.choice(pair.one), x=a, v=va))
        w.say("assistant", w.short())
        w.plant(pair.kind, va, at, aliases=aa)

    def one_b() -> None:
        at = w.user(_fill(r.choice(pair.one), x=b, v=vb))
        w.say("assistant", w.short())
        state["b"] = len(w.facts)
        w.plant(pair.kind, vb, at, aliases=ab)
        if quick and changes:
            change(True)

    def change(first: bool) -> None:
        prior = w.facts[state["b"]]
        fix = r.choice(pair.fixes)
        given = prior.value.split()[0]
        aliases: tuple[str, ...] = ()
        if "married" in fix:
            new = w.fresh(lambda: f"{given} {r.choice(_SURNAMES)}")
        else:
            new, aliases = _value(w, pair)
        who = (
            "quick" if first and quick else r.choice(("user", "user", "user", "tool", "assistant"))
        )
        if who == "quick":
            at = w.user(
                f"scrap that, {new} for {b}. wrong one" if r.random() < 0.5 else f"sorry no, {new}"
            )
            w.say("assistant", w.short())
        elif who == "user":
            at = w.user(_fill(fix, b=b, new=new, first=given))
            w.say("assistant", w.short())
        elif who == "tool":
            w.user(f"check the tracker for {b}, i think it's been updated")
            record = {"subject": b, pair.name: new, "status": "updated"}
            at = w.tool(
                "tracker_lookup", {"subjects": "one"}, dumps(record), lead=r.choice(_TOOL_LEAD)
            )
            w.say("assistant", "That's the newest record.")
        else:
            w.user(_fill(pair.asked, b=b) + "?")
            at = w.say("assistant", f"Yes, there's been a change: it's {new} for {b} now.")
        w.supersede(prior, at)
        state["b"] = len(w.facts)
        w.plant(
            "correction",
            new,
            at,
            aliases=aliases,
            stale=prior.value,
            stale_index=prior.message_index,
            older=(*prior.older, prior.stale) if prior.stale is not None else (),
        )

    if how == "apart":
        steps += [one_a, one_b]
    else:
        steps.append(together)
    later = range(1 if quick else 0, changes)
    steps += [partial(change, k == 0) for k in later]
    return steps


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    plan: list[int] = []  # changes per episode (facts: two plus the changes)
    left = facts
    while left > 0:
        fits = [c for c in (1, 1, 2) if left - 2 - c >= 0 and left - 2 - c != 1]
        c = r.choice(fits) if fits else max(0, left - 2)
        plan.append(c)
        left -= 2 + c
    kinds = r.sample(list(PAIRS), len(PAIRS))  # each kind of pair once before any twice
    pairs = [PAIRS[kinds[e % len(kinds)]] for e in range(len(plan))]
    events: list[tuple[int, int, Callable[[], None]]] = []  # (turn, order, step)
    for e, (pair, changes) in enumerate(zip(pairs, plan, strict=True)):
        steps = _episode(w, pair, changes)
        start = r.randint(0, turns // 3)
        at = start
        for k, step in enumerate(steps):
            events.append((at, e * 10 + k, step))
            at += 1 if k == 0 and len(steps) > 1 and r.random() < 0.3 else r.randint(15, 90)
    events.sort(key=lambda e: (e[0], e[1]))
    # a step never runs before the earlier steps of its own episode
    order: dict[int, int] = {}
    fixed: list[tuple[int, Callable[[], None]]] = []
    for turn, key, step in sorted(events, key=lambda e: e[1]):
        ep = key // 10
        turn = max(turn, order.get(ep, -1) + 1)
        order[ep] = turn
        fixed.append((min(turn, turns - 10), step))
    fixed.sort(key=lambda e: e[0])
    k = 0
    while k < len(fixed) or w.turn + 1 < turns:
        if k < len(fixed) and fixed[k][0] <= w.turn + 1:
            fixed[k][1]()
            k += 1
        else:
            w.chatter()


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """One ``blind8-renames`` conversation."""
    return build(
        seed,
        "b8-renames",
        turns,
        facts,
        _write,
        "You are an assistant for a team lead at a small software agency.",
        "team",
    )
