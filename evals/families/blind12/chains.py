"""``b12-chains``: a family moving house; dates, times, amounts, people and refs that move.

Four subjects a seed of eight (:data:`SUBJECTS`: the completion date, the removal van's
arrival, the removals quote, the conveyancer, the mortgage offer reference, key collection, the
deposit, the storage unit) are stated, then changed two to four times, 35 turns or more apart,
with change words rather than correction words ("moved to", "bumped", "pushed back to", "now
it's", "they reissued it as"). About a third of the changes come from an email found by a
``search_email`` look-up. 1-3 turns after a statement or change comes a look-alike now and
then: a value of the same shape about something else ("the buyers' own completion is 19 May,
that's their chain"), a fact that is never replaced. No old value is said again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import build, timeline
from evals.families.blind12.base import Writer12, writer
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["SUBJECTS", "Subject", "generate"]


@dataclass(frozen=True)
class Subject:
    """One arrangement of the move, and the ways it is said, changed and looked like."""

    kind: FactKind
    draw: str  # "day", "time", "money", "person", or a code shape
    first: tuple[str, ...]
    change: tuple[str, ...]
    email: tuple[str, ...]
    alike: tuple[str, ...]


SUBJECTS = {
    "completion": Subject(
        "date",
        "day",
        (
            "completion is set for {v}, finally a date to work to",
            "we've got a completion date: {v}",
        ),
        (
            "completion has moved to {v}",
            "they've pushed completion back to {v}",
            "completion got brought forward, now it's {v}",
        ),
        (
            "Dear both, further to today's call, completion is now scheduled for {v}. Kind "
            "regards, the conveyancing team",
        ),
        (
            "our buyers have their own completion upstream on {v}, but that's their chain, ours "
            "stays as it is",
            "my sister completes on her flat on {v}, nothing to do with ours",
        ),
    ),
    "van": Subject(
        "value",
        "time",
        ("the removal van is booked to turn up at {v}", "removals say the crew arrive at {v}"),
        (
            "the van's been bumped to {v}",
            "removals rang, the van now gets here at {v}",
            "van slot moved to {v}",
        ),
        ("Removals update: your crew will now arrive at {v} on the day. Thanks, the office",),
        (
            "the neighbours' van is coming at {v}, hope they don't block the drive",
            "the broadband engineer's slot at the new place is {v}, separate thing",
        ),
    ),
    "quote": Subject(
        "value",
        "money",
        ("the removals quote came in at {v}", "removals want {v} for the whole job"),
        (
            "they bumped the removals quote to {v} because of the stairs",
            "removals quote's gone up to {v} now",
            "now it's {v} for the removals, they added packing",
        ),
        ("Revised quotation attached. Total for the move is now {v} including VAT.",),
        (
            "the piano movers want {v} on top, but that's a different firm",
            "storage is {v} a month, that's not the removals bill",
        ),
    ),
    "solicitor": Subject(
        "name",
        "person",
        ("our conveyancer is {v}", "the solicitor dealing with our sale is {v}"),
        (
            "the file's moved to {v}, ours went on leave",
            "now it's {v} handling our conveyancing",
            "they've passed us over to {v} at the solicitors",
        ),
        (
            "Please note that {v} will be handling your file from today. Any questions to them "
            "directly.",
        ),
        ("the buyers' solicitor is {v}, not ours", "the estate agent looking after it is {v}"),
    ),
    "offer": Subject(
        "code",
        "MO-9999-AA",
        ("the mortgage offer reference is {v}", "got the mortgage offer, reference {v}"),
        (
            "the lender reissued the offer as {v}",
            "they reissued it as {v} after the valuation",
            "mortgage offer's got a new reference now, {v}",
        ),
        ("Your mortgage offer has been reissued. New offer reference: {v}.",),
        (
            "the survey reference is {v}, don't mix it up with the offer",
            "the buildings insurance policy number is {v}",
        ),
    ),
    "keys": Subject(
        "value",
        "time",
        ("we can pick the keys up from the agent at {v}", "keys are ready at the agent's from {v}"),
        (
            "key collection moved to {v}",
            "agent says the keys now won't be there till {v}",
            "keys pushed back to {v}",
        ),
        ("Keys will now be available for collection from {v} on completion day.",),
        (
            "the buyers want our old keys dropped off by {v}, that's the other end",
            "the cleaners finish at the old place at {v}",
        ),
    ),
    "deposit": Subject(
        "value",
        "money",
        ("the deposit we're putting down is {v}", "we're going in with {v} as the deposit"),
        (
            "deposit's now {v} after the valuation came in low",
            "we bumped the deposit up to {v}",
            "deposit moved to {v}, the in-laws chipped in",
        ),
        ("Deposit required on exchange (revised figure): {v}.",),
        (
            "the storage place wants {v} as a deposit, separate from the house",
            "the new school wants {v} for the uniform deposit, ugh",
        ),
    ),
    "storage": Subject(
        "code",
        "SU-999B",
        ("our storage unit is {v}", "we've got storage unit {v} for the overflow"),
        (
            "storage moved us to {v}, a bigger one",
            "they've switched the unit to {v}",
            "storage unit's now {v}",
        ),
        ("Your storage allocation has changed. New unit: {v}. Your access code is unchanged.",),
        (
            "my brother's unit is {v}, right next to ours",
            "the unit with the damp is {v}, glad it's not ours",
        ),
    ),
}
"""The move's arrangements: what changes, and look-alikes of each."""

SYSTEM = "You are a calm, organised assistant helping a family plan their house move."

ASK_EMAIL = (
    "anything new from the {s} people in my inbox?",
    "check my email for {s} stuff would you",
    "did the {s} email come through?",
)
NOUN = {
    "completion": "solicitors",
    "van": "removals",
    "quote": "removals",
    "solicitor": "solicitors",
    "offer": "mortgage",
    "keys": "estate agent",
    "deposit": "mortgage",
    "storage": "storage",
}


def _write(w: Writer12, turns: int, facts: int) -> None:
    r = w.rng
    chains = max(1, round(facts / 5))
    while True:
        changes = [r.randint(2, 4) for _ in range(chains)]
        if sum(changes) + chains <= facts - max(1, chains // 2):
            break
    alikes = facts - sum(changes) - chains
    subjects = r.sample(sorted(SUBJECTS), chains)

    def value(s: Subject) -> tuple[str, tuple[str, ...]]:
        if s.draw == "day":
            return w.day()
        if s.draw == "time":
            return w.time(), ()
        if s.draw == "money":
            return w.money(300, 6000), ()
        if s.draw == "person":
            return w.person(), ()
        return w.code(s.draw), ()

    events: list[tuple[int, Callable[[], None]]] = []
    anchors: list[tuple[int, str]] = []
    for name, n in zip(subjects, changes, strict=True):
        s = SUBJECTS[name]
        start = r.randint(1, max(1, turns // 5))
        gap_max = max(2, (turns - 12 - start) // n)
        at = start
        state: dict[str, object] = {}
        for step in range(n + 1):

            def go(step: int = step, s: Subject = s, name: str = name, state: dict = state) -> None:  # type: ignore[type-arg]
                v, aliases = value(s)
                by_mail = step > 0 and r.random() < 0.33
                if step == 0:
                    i = w.user(r.choice(s.first).replace("{v}", v) + r.choice(("", ".")))
                elif by_mail:
                    w.user(r.choice(ASK_EMAIL).replace("{s}", NOUN[name]))
                    i = w.tool(
                        "search_email", {"query": NOUN[name]}, r.choice(s.email).replace("{v}", v)
                    )
                else:
                    i = w.user(r.choice(s.change).replace("{v}", v))
                prev = state.get("fact")
                if prev is None:
                    fact = w.plant(s.kind, v, i, aliases=aliases)
                else:
                    assert isinstance(prev, type(w.facts[0]))
                    older = (*prev.older, prev.stale) if prev.stale is not None else ()
                    fact = w.plant(
                        s.kind, v, i, aliases=aliases, stale=prev.value,
                        stale_index=prev.message_index, older=older,
                    )  # fmt: skip
                    w.supersede(prev, i)
                state["fact"] = fact
                w.say(
                    "assistant",
                    r.choice(
                        (
                            "Noted.",
                            "Okay, I've got that.",
                            "Right, updated my notes.",
                            "Thanks, got it.",
                        )
                    )
                    if not by_mail
                    else "There's an update from them in your inbox.",
                )

            events.append((at, go))
            anchors.append((at, name))
            at += r.randint(min(35, gap_max), gap_max)
    for at, name in r.sample(anchors, min(alikes, len(anchors))) + [
        (r.randint(2, turns - 6), r.choice(subjects)) for _ in range(max(0, alikes - len(anchors)))
    ]:

        def alike(name: str = name) -> None:
            s = SUBJECTS[name]
            v, aliases = value(s)
            w.plant(s.kind, v, w.user(r.choice(s.alike).replace("{v}", v)), aliases=aliases)
            w.say(
                "assistant",
                r.choice(("Okay, noted separately.", "Got it, I'll keep that apart.", "Right.")),
            )

        events.append((at + r.randint(1, 3), alike))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``b12-chains`` conversation: ``facts`` values over ``turns`` turns, some changed."""
    return build(
        seed, "b12-chains", turns, facts, _write, SYSTEM, writer=writer("mover"), prefix="blind12"
    )
