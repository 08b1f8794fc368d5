"""``blind7-chains``: one subject changed three to six times, each time in other words.

A coordinator at a small warehouse keeps track of collections, slots, quotes, contacts,
weights and booking references with an assistant. Each subject is stated once (by the user,
by the assistant after a question, or in a look-up result) and then changed again and again
over the conversation: by the user ("pushed again, the 21st now"), by the assistant when asked
for news, or in a fresh look-up. A change names the subject in other words ("the box off the
ship"), or, straight after the last value, not at all ("no, make that 09:45"). Each change is
a ``correction`` fact: ``stale`` the value it replaced, ``older`` the ones before, ``until``
the message of the next change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import dumps, timeline
from evals.families.blind7.base import Writer, build, ordinal
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["SUBJECTS", "generate"]

SYSTEM = "You help a warehouse coordinator keep track of deliveries, people and paperwork."

NAMES = (
    "Priya Shah", "Kenji Mori", "Dolores Finch", "Tomasz Rutkowski", "Aoife Brennan",
    "Gareth Pugh", "Sunita Rao", "Callum Reid", "Marguerite Vance", "Obi Nwosu",
    "Fenella Stroud", "Rashid Karimi", "Bronwen Ellis", "Lachlan Moody", "Hester Quayle",
    "Desmond Achebe", "Ingrid Solberg", "Ruairi Doyle", "Yusuf Demir", "Tamsin Carver",
)  # fmt: skip


@dataclass(frozen=True)
class Subject:
    """A thing whose value keeps changing: what it is called and what sort of value it has."""

    name: str
    others: tuple[str, ...]  # the same subject in other words
    kind: str  # day, time, money, weight, person or code
    field: str  # its key in a look-up result


SUBJECTS = (
    Subject("the Felixstowe container collection",
            ("the box off the ship", "the port pickup", "that container"), "day", "collect_on"),
    Subject("the Leeds trunking departure",
            ("the overnight trunk", "the Leeds wagon", "the trunk run"), "time",
            "departs"),
    Subject("the racking quote",
            ("what the racking firm wants", "the shelving job", "the racking"), "money",
            "quote_gbp"),
    Subject("our account manager at the haulier",
            ("whoever looks after us at the haulier", "our haulier contact", "the haulier's "
             "person for us"), "person", "account_manager"),
    Subject("the stocktake",
            ("the big count", "the annual count", "counting day"), "day", "count_on"),
    Subject("the returns pallet for the garden centre",
            ("the garden centre returns", "that returns pallet", "the pallet going back"),
            "weight", "gross_weight"),
    Subject("the forklift service",
            ("the truck service", "the engineer's forklift visit", "the service visit"),
            "day", "service_on"),
    Subject("the agency invoice for the peak temps",
            ("what the agency's billing us", "the temp invoice", "the agency bill"), "money",
            "amount_gbp"),
    Subject("the booking for the Dublin load",
            ("the Irish load's booking", "that ferry booking", "the Dublin job"), "code",
            "booking_ref"),
    Subject("the new starter's induction",
            ("the new lad's induction", "the induction", "the new starter's first session"),
            "time", "starts_at"),
    Subject("the site contact at the Bristol DC",
            ("who we speak to in Bristol", "the Bristol contact", "our person at Bristol"),
            "person", "site_contact"),
    Subject("the tile adhesive consignment",
            ("the adhesive delivery", "the tile glue", "that heavy consignment"), "weight",
            "weight"),
    Subject("the courier collection",
            ("the courier", "the courier's pickup", "the parcel pickup"), "time",
            "collect_at"),
    Subject("the customs entry for the Rotterdam trailer",
            ("the Rotterdam paperwork", "the customs entry", "that trailer's entry"), "code",
            "entry_no"),
)  # fmt: skip
"""The subjects a conversation picks from."""

STATE_USER = {
    "day": ("{S} is booked for the {v}, can you put it on the yard plan",
            "ok so {s} is happening on the {v}. stick it in the plan please"),
    "time": ("{S} is {v}, can you add that to today's sheet",
             "heads down today. {s} is set for {v}, put it on the sheet"),
    "money": ("{S} came in at {v}, can you log it with the other costs",
              "got {s} through finally, {v}. log it please"),
    "weight": ("{S} is {v} on the docket, note it for the loading plan",
               "weighed {s} this morning, {v}. add it to the loading plan"),
    "person": ("{S} is {v}, put them in the contacts list",
               "for {s} we're dealing with {v} now, add them to contacts"),
    "code": ("{S} is {v}, keep that handy",
             "reference for {s} came through: {v}. keep hold of it"),
}  # fmt: skip
ASK = (
    "what's the latest on {s}?",
    "any news on {s}?",
    "did we hear back about {s}?",
    "where are we with {s}",
)
TELL = {
    "day": "They've confirmed it for the {v}.",
    "time": "Confirmed for {v}.",
    "money": "The figure they've given is {v}.",
    "weight": "It's down as {v} on their side.",
    "person": "You'll be dealing with {v}.",
    "code": "The reference is {v}.",
}
FIX_USER = {
    "day": ("{a} has been pushed again, the {v} now", "they've moved {a} to the {v}",
            "scrap what I said about {a}, it's the {v}", "{a}: now the {v}, don't ask"),
    "time": ("{a} is changing to {v}", "they want {a} at {v} instead",
             "{a} has shifted again, {v}", "update on {a}: {v}"),
    "money": ("{a} has gone up to {v}", "they've knocked {a} down to {v}",
              "revised figure for {a}: {v}", "{a} is {v} now after they rechecked"),
    "weight": ("{a} came back at {v} on the reweigh", "{a} is {v} now they've taken some off",
               "correction on {a}: {v}"),
    "person": ("{a} has changed, it's {v} now, the other one has left",
               "new name for {a}: {v}", "we deal with {v} for {a} from here on"),
    "code": ("{a} got reissued, {v}", "new reference for {a}: {v}, the old one's void"),
}  # fmt: skip
FIX_NOW = {
    "day": ("no, make that the {v}", "sorry, the {v} not that", "wait, I misread. the {v}"),
    "time": ("no, make that {v}", "sorry, {v}. typo", "actually {v}, just got a text"),
    "money": ("no sorry, {v}, that was the old figure", "scratch that, {v}"),
    "weight": ("no sorry, {v}, I read the wrong line", "make that {v}"),
    "person": ("no wait, {v}, I mixed them up", "sorry, it's {v}, wrong name"),
    "code": ("sorry, wrong one. {v}", "no, that's an old one. it's {v}"),
}  # fmt: skip
FIX_ASSISTANT = {
    "day": "Yes, they've been on: it's moved to the {v}.",
    "time": "They've come back with {v} instead.",
    "money": "They've sent a revised figure: {v}.",
    "weight": "The reweigh came back at {v}.",
    "person": "It's {v} handling it now, the previous contact has moved on.",
    "code": "They reissued it; the current one is {v}.",
}
CHECK = (
    "can you check {a} again?",
    "pull up {a} for me",
    "check the system for {a}, something's off",
)
AFTER_CHECK = (
    "That has changed since we last looked; I've updated the plan.",
    "The system shows an amendment there, so I've updated our sheet.",
    "It's been amended on their side. Updated.",
)


def _value(w: Writer, kind: str) -> str:
    r = w.rng
    if kind == "day":
        return w.fresh(lambda: ordinal(r.randint(10, 28)))
    if kind == "time":
        return w.time()
    if kind == "money":
        return w.money(900, 9800)
    if kind == "weight":
        return w.fresh(lambda: f"{r.randint(1100, 9800):,} kg")
    if kind == "person":
        return w.pick(NAMES)
    return w.code("AA-99999")


def _fill(template: str, s: Subject, other: str, value: str) -> str:
    text = template.replace("{S}", s.name[0].upper() + s.name[1:]).replace("{s}", s.name)
    return text.replace("{a}", other).replace("{v}", value)


class _Chain:
    """One subject's values: the statement, then each change, planted as it is written."""

    def __init__(self, w: Writer, subject: Subject, changes: int) -> None:
        self.w, self.s, self.changes = w, subject, changes
        self.values: list[str] = []
        self.at: list[int] = []
        self.last: PlantedFact | None = None

    def _lookup(self, value: str) -> int:
        w, s = self.w, self.s
        record = {"job": s.name.removeprefix("the "), s.field: value, "status": "amended"}
        return w.tool("check_job", {"job": s.field}, dumps({"result": record, "source": "tms"}))

    def state(self) -> None:
        w, s, r = self.w, self.s, self.w.rng
        value = _value(w, s.kind)
        how = r.random()
        if how < 0.5:
            at = w.user(_fill(r.choice(STATE_USER[s.kind]), s, s.name, value))
            w.say("assistant", w.short())
        elif how < 0.75 or s.kind == "day":
            w.user(_fill(r.choice(ASK), s, s.name, value))
            at = w.say("assistant", _fill(TELL[s.kind], s, s.name, value))
        else:
            w.user(_fill(r.choice(CHECK), s, s.name, value))
            at = self._lookup(value)
            w.say("assistant", "That's on the system now.")
        self.values.append(value)
        self.at.append(at)
        if r.random() < 0.25 and self.changes:
            self.change(now=True)

    def change(self, now: bool = False) -> None:
        w, s, r = self.w, self.s, self.w.rng
        value = _value(w, s.kind)
        other = r.choice(s.others)
        how = r.random()
        if now:
            at = w.user(_fill(r.choice(FIX_NOW[s.kind]), s, other, value))
            w.say("assistant", w.short())
        elif how < 0.6:
            at = w.user(_fill(r.choice(FIX_USER[s.kind]), s, other, value))
            w.say("assistant", w.short())
        elif how < 0.8 or s.kind == "day":
            w.user(_fill(r.choice(ASK), s, other, value))
            at = w.say("assistant", _fill(FIX_ASSISTANT[s.kind], s, other, value))
        else:
            w.user(_fill(r.choice(CHECK), s, other, value))
            at = self._lookup(value)
            w.say("assistant", r.choice(AFTER_CHECK))
        if self.last is not None:
            w.supersede(self.last, at)
        self.last = w.plant(
            "correction",
            value,
            at,
            stale=self.values[-1],
            stale_index=self.at[-1],
            older=tuple(self.values[:-1]),
        )
        self.values.append(value)
        self.at.append(at)
        self.changes -= 1

    def later(self) -> None:
        """The next change, unless a change straight after the statement used it up."""
        if self.changes:
            self.change()
        else:
            self.w.chatter()


def _lengths(w: Writer, facts: int) -> list[int]:
    """Changes per subject: three to six each, ``facts`` in all."""
    n = max(1, facts // 4)
    lengths = [min(3, facts)] * n
    extra = facts - sum(lengths)
    while extra > 0:
        k = w.rng.randrange(n)
        if lengths[k] < 6 or all(x >= 6 for x in lengths):
            lengths[k] += 1
            extra -= 1
    return lengths


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    lengths = _lengths(w, facts)
    subjects = r.sample(SUBJECTS, len(lengths))
    events: list[tuple[int, Callable[[], None]]] = []
    for subject, changes in zip(subjects, lengths, strict=True):
        chain = _Chain(w, subject, changes)
        start = r.randint(0, turns // 4)
        events.append((start, chain.state))
        span = r.randint(turns // 2, turns - 10 - start)
        steps = sorted(r.sample(range(start + 3, start + span), changes))
        events += [(t, chain.later) for t in steps]
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """A ``blind7-chains`` conversation: subjects changed three to six times, ``facts`` changes."""
    return build(seed, "b7-chains", turns, facts, _write, SYSTEM, "depot")
