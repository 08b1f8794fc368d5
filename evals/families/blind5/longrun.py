"""``b5-longrun``: a long conversation whose running values change many times near the end.

Seven things are tracked over about 400 turns: a project's deadline, the joint account's
balance (a tool), the build deployed to staging (the assistant), the guest count, who has the
support ticket (a tool), where the parcel was last scanned and the fundraiser's total. Each is
stated once early, then changed 3-5 times, mostly in the last half; in between the user asks
after them ("any news on the parcel?") and hears nothing new. Every value is a fact until the
next one replaces it (``until``); only the latest of each is asked for at the end.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from evals.families.blind5.base import Writer, build
from evals.families.facts import FactKind, PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["generate"]

SYSTEM = (
    "You are the user's day-to-day assistant for home and work admin. You can read their "
    "bank balance, the support desk and the deploy pipeline through tools."
)
PROJECTS = ("the Halden report", "the spring brochure", "the app relaunch", "the grant bid")
TOWNS = (
    "Swindon",
    "Crewe",
    "Doncaster",
    "Peterborough",
    "Warrington",
    "Daventry",
    "Motherwell",
    "Chesterfield",
    "Ipswich",
    "Carlisle",
    "Wolverhampton",
    "Tamworth",
)


class Item:
    """One tracked thing: how its first value and each change are written, and its kind."""

    def __init__(
        self,
        name: str,
        kind: FactKind,
        first: tuple[str, ...],
        change: tuple[str, ...],
        asks: tuple[str, ...],
        role: str,
    ) -> None:
        self.name, self.kind, self.first, self.change, self.asks, self.role = (
            name,
            kind,
            first,
            change,
            asks,
            role,
        )


ITEMS = (
    Item(
        "deadline",
        "date",
        (
            "Work thing to keep track of: {p} is due {v}.",
            "So the client finally signed off, {p} has to be in by {v}.",
            "Put {p} down for {v}, that's the hand-in.",
        ),
        (
            "{p} moved again. now {v}",
            "client call just now — they want {p} by {v} instead",
            "new date for {p}: {v}. don't ask",
            "guess what, {p} got pushed. {v}",
            "ok the deadline for {p} is {v} now, they changed their minds",
            "they pulled {p} forward, it's {v}",
            "{p}: {v}. hopefully the last change",
        ),
        (
            "any word from the client on {p}?",
            "remind me where we are with {p}",
            "is {p} still on track do you think",
        ),
        "user",
    ),
    Item(
        "balance",
        "value",
        ("what's in the joint account?", "check the joint account for me", "balance please"),
        (
            "and the joint account now?",
            "can you check the balance again",
            "how's the joint account looking after that",
            "balance check please",
            "what's left in the joint account",
        ),
        ("did the rent go out yet?", "anything weird on the joint account this week?"),
        "tool",
    ),
    Item(
        "build",
        "code",
        (
            "is the new build out on staging?",
            "what's on staging at the moment",
            "did the deploy go through",
        ),
        (
            "and staging now?",
            "did the hotfix land on staging",
            "what's deployed after that merge",
            "has the pipeline finished",
            "staging status?",
        ),
        ("are the staging smoke tests flaky again?", "anyone complaining about staging?"),
        "assistant",
    ),
    Item(
        "guests",
        "value",
        (
            "RSVPs for the party so far: {v}.",
            "We're at {v} for the party, counting the little ones.",
            "The party's looking like {v} at the moment.",
        ),
        (
            "party update, {v} now",
            "latest count: {v}",
            "headcount is {v}, ugh",
            "revised numbers: {v}",
        ),
        ("should I order more chairs for the party?", "is the cake going to be big enough?"),
        "user",
    ),
    Item(
        "ticket",
        "name",
        ("who's got my support ticket?", "check the support ticket please"),
        (
            "has the ticket moved?",
            "who's handling the ticket now",
            "any change on the support ticket",
            "did they escalate my ticket",
        ),
        ("is the support desk slow this week or is it me?",),
        "tool",
    ),
    Item(
        "parcel",
        "value",
        ("where's the parcel with the new lens?", "track the lens parcel please"),
        (
            "and the parcel?",
            "where's it got to now",
            "tracking update?",
            "is the lens any closer",
        ),
        ("did the courier say anything about a delivery window?",),
        "tool",
    ),
    Item(
        "fund",
        "value",
        (
            "The sponsored walk total is {v} so far!",
            "Fundraiser's on {v}, better than I expected.",
        ),
        (
            "walk money update: {v}",
            "someone just gave a big one, we're at {v}",
            "the total's {v} now",
            "{v} raised as of tonight",
            "more donations, {v}",
        ),
        ("should I post another reminder about the sponsored walk?",),
        "user",
    ),
)
GUESTS_UP = ("the neighbours are coming after all, {v}", "more yeses, {v} now")
GUESTS_DOWN = ("a few cancelled so we're at {v}", "some dropped out, {v} now")
NOTHING_NEW = (
    "Nothing new since we last looked.",
    "No change there yet.",
    "Still as it was, I'm afraid.",
    "I haven't seen an update on that.",
    "Not yet, I'll flag it as soon as something changes.",
)
BUILD_LINES = (
    "Staging is running {v}; smoke tests passed.",
    "The pipeline finished and {v} is live on staging.",
    "Deployed {v} to staging about ten minutes ago.",
    "{v} is on staging now, the error rate looks normal.",
    "Staging has {v}. One flaky test retried and passed.",
)
AFTER_TOOL = (
    "There you go.",
    "That's the latest it shows.",
    "Here's what it says right now.",
    "That's the current figure from the tool.",
    "Fresh from the system.",
)


def generate(seed: int, *, turns: int = 420, facts: int = 7) -> Trajectory:
    """A ``b5-longrun`` conversation: ``facts`` tracked things, each changed 3-5 times."""
    return build(seed, "b5-longrun", turns, facts, _write, SYSTEM)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    items = r.sample(ITEMS, facts)
    project = r.choice(PROJECTS)
    towns = list(TOWNS)
    r.shuffle(towns)
    version = [r.randint(2, 6), r.randint(0, 9), r.randint(0, 5)]
    guests = [r.randint(18, 60)]
    fund = [r.randint(300, 900)]
    ticket = w.code("INC-99999")
    sign = r.choice("£€$")
    early = int(turns * 0.35)
    late = int(turns * 0.5)
    plan: dict[int, tuple[str, int]] = {}
    free_early = list(range(1, early))
    free_late = list(range(late, turns - 1))
    r.shuffle(free_early)
    r.shuffle(free_late)
    for k in range(len(items)):
        plan[free_early.pop()] = ("state", k)
        for _ in range(r.randint(3, 5)):
            plan[free_late.pop()] = ("state", k)
    for k in range(len(items)):  # a few questions that get no new value
        for _ in range(2):
            pool = free_early if r.random() < 0.4 else free_late
            plan[pool.pop()] = ("ask", k)
    last: dict[int, PlantedFact] = {}

    def next_value(item: Item) -> tuple[str, tuple[str, ...]]:
        if item.name == "deadline":
            return w.day()
        if item.name == "balance":
            return w.money(400, 9800, cents=True, sign=sign), ()
        if item.name == "build":
            if r.random() < 0.3:
                version[1] += 1
                version[2] = 0
            else:
                version[2] += r.randint(1, 2)
            return w.fresh(lambda: "v" + ".".join(map(str, version))), ()
        if item.name == "guests":
            n = guests[-1]
            while n == guests[-1] or f"{n} guests" in w.used:
                n = max(8, guests[-1] + r.choice((-5, -3, -2, 2, 3, 4, 6)))
            guests.append(n)
            return w.fresh(lambda: f"{n} guests"), ()
        if item.name == "ticket":
            return w.person(), ()
        if item.name == "parcel":
            return w.fresh(lambda: f"{towns.pop()} depot"), ()
        fund.append(fund[-1] + r.randint(40, 400))
        return w.money(fund[-1], fund[-1], sign=sign), ()

    def state(k: int) -> None:
        item = items[k]
        value, aliases = next_value(item)
        prev = last.get(k)
        pool = item.first if prev is None else item.change
        if item.name == "guests" and prev is not None:
            up = guests[-1] > guests[-2]
            pool += GUESTS_UP if up else GUESTS_DOWN
        if item.role == "user":
            where = w.user(r.choice(pool).replace("{p}", project).replace("{v}", value))
            w.say("assistant", r.choice(("Noted.", "Okay, updated.", "Got it.", "Thanks, saved.")))
        else:
            w.user(r.choice(pool))
            where = _report(w, item, value, ticket)
            w.say("assistant", r.choice(AFTER_TOOL) if item.role == "tool" else w.reply((1, 2)))
        older: tuple[str, ...] = ()
        if prev is not None:
            older = (*prev.older, prev.stale) if prev.stale is not None else ()
            w.supersede(prev, where)
        fact = w.plant(
            item.kind,
            value,
            where,
            aliases=aliases,
            stale=None if prev is None else prev.value,
            stale_index=None if prev is None else prev.message_index,
            older=older,
        )
        last[k] = fact

    def ask(k: int) -> None:
        w.user(r.choice(items[k].asks).replace("{p}", project))
        w.say("assistant", f"{r.choice(NOTHING_NEW)} {w.reply((1, 2))}")

    actions: dict[str, Callable[[int], None]] = {"state": state, "ask": ask}
    for t in range(turns):
        if t in plan:
            step, k = plan[t]
            actions[step](k)
        else:
            w.chatter()


def _report(w: Writer, item: Item, value: str, ticket: str) -> int:
    """The message carrying a tool's or the assistant's value; its index."""
    r = w.rng
    if item.name == "build":
        w.tool("pipeline_status", {"env": "staging"}, json.dumps({"env": "staging", "ok": True}))
        return w.say("assistant", r.choice(BUILD_LINES).replace("{v}", value))
    if item.name == "balance":
        data = {"account": "joint", "available": value, "pending_items": r.randint(0, 6)}
        return w.tool("get_balance", {"account": "joint"}, json.dumps(data, ensure_ascii=False))
    if item.name == "ticket":
        data = {"ticket": ticket, "assignee": value, "state": r.choice(("open", "in progress"))}
        return w.tool("support_ticket", {"id": ticket}, json.dumps(data))
    data = {"carrier": "parcel network", "last_scan": value, "events": r.randint(3, 14)}
    return w.tool("track_parcel", {"parcel": "lens"}, json.dumps(data))
