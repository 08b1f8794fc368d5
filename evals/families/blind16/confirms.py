"""``b16-confirms``: a small-press publisher takes what the assistant offers, in a few words.

The assistant offers printer quotes (``£2,140``), courier collection slots (``10:40``), proof
dates (``14 May``), freelancers (a person's name) or launch venues, two to four in a numbered
list or in a sentence, or one it recommends. The publisher accepts tersely: by position ("the
second", "number 3 please"), as the cheaper, or with "yes go with that", "book it", "that
one" after a single offer or a recommendation. Now and then she turns the first offer down
("too dear, anything else?") and takes the counter-offer. The fact is the accepted value in the
assistant's message (``rejected`` the other options in that message, ``confirm_index`` the
acceptance), which her acceptance never repeats.
"""

from __future__ import annotations

from functools import partial

from evals.families.blind6.base import spread, timeline
from evals.families.blind16.base import Writer16, make
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["KINDS", "generate"]

SYSTEM = (
    "You are the assistant of a one-person small press. You look up printers, couriers, "
    "freelancers and venues, propose options and book what the publisher chooses."
)
PRINTERS = (
    "Inkwell Litho", "Marlpit Press", "Fernside Print", "Copperplate Digital", "Tideway Printers",
    "Larkrise Books Print", "Quarry Hill Litho", "Beacon Print Works", "Millrace Printing",
)  # fmt: skip
COURIERS = ("Swiftline", "Parcelroute", "Northbound Couriers", "Greenvan Logistics", "Dray & Co")
VENUES = (
    "the Corn Exchange", "Hollow Tree Books", "the Salt Loft", "St Aldhelm's church hall",
    "the Gasworks Gallery", "Wren Street Library", "the Boathouse Café", "the Mechanics' Institute",
    "Bramble & Quire bookshop", "the Old Tannery",
)  # fmt: skip
KINDS = ("quote", "slot", "proof", "freelancer", "venue")
ASK = {
    "quote": "can you get me print quotes for {b} run",
    "slot": "need a courier to collect {b} stock, what slots are there",
    "proof": "when could the typesetter get proofs of {b} back to me",
    "freelancer": "who could do the copy-edit on {b}",
    "venue": "where could we hold the launch for {b}",
}
BOOKS = (
    "the poetry collection", "the autumn novel", "the memoir", "the anthology", "the essays",
    "the debut", "the translated stories", "the walking guide",
)  # fmt: skip
POSITION = (
    ("the first", "first one's fine", "let's do the first"),
    ("the second", "number 2 please", "second one"),
    ("the third", "number 3 please", "go with the third"),
    ("the fourth", "the last one", "number 4"),
)
AGREE = ("yes go with that", "book it", "that one", "sounds good, do it", "yep, that")
REFUSE = {
    "quote": "too dear, anything else?",
    "slot": "that's too early for me, anything later?",
    "proof": "cutting it fine, anything sooner?",
    "freelancer": "worked with them before, didn't go well. anyone else?",
    "venue": "too big for a poetry crowd, anywhere else?",
}


def _option(w: Writer16, kind: str) -> tuple[str, str, tuple[str, ...], FactKind]:
    """(the value, how the assistant says it, the value's aliases, the fact kind)."""
    r = w.rng
    if kind == "quote":
        v = w.money(900, 4800)
        return (
            v,
            f"{r.choice(PRINTERS)}: {v} for {r.choice(('300', '500', '750'))} copies",
            (),
            "value",
        )
    if kind == "slot":
        v = w.time()
        return v, f"{w.weekday_any()} at {v} with {r.choice(COURIERS)}", (), "value"
    if kind == "proof":
        v, aliases = w.day()
        note = r.choice(("", ", one round of corrections", ", if the index is in by then"))
        return v, f"proofs back by {v}{note}", aliases, "date"
    if kind == "freelancer":
        v = w.person()
        return (
            v,
            f"{v}, {r.choice(('fast and careful', 'good with poetry', 'cheap but slow'))}",
            (),
            "name",
        )
    v = w.fresh(lambda: r.choice(VENUES))
    return (
        v,
        f"{v}, {r.choice(('seats about fifty', 'free on a weeknight', 'has its own bar'))}",
        (),
        "name",
    )


def episode(w: Writer16, kind: str) -> None:
    r = w.rng
    w.user(ASK[kind].replace("{b}", r.choice(BOOKS)))
    how = r.random()
    if how < 0.2:  # one option turned down, a counter-offer taken
        _, first, _, _ = _option(w, kind)
        w.say("assistant", f"The best fit I found is {first}. Want me to book that?")
        w.user(REFUSE[kind])
        value, said, aliases, fkind = _option(w, kind)
        i = w.say("assistant", f"There's also {said}.")
        _gap(w)
        c = w.user(r.choice(("that one, book it", "yes go with that", "fine, that one")))
        w.plant(fkind, value, i, aliases=aliases, confirm_index=c)
    elif how < 0.4:  # one recommended option
        value, said, aliases, fkind = _option(w, kind)
        i = w.say("assistant", f"I'd go with {said}. Shall I go ahead?")
        _gap(w)
        c = w.user(r.choice(AGREE))
        w.plant(fkind, value, i, aliases=aliases, confirm_index=c)
    else:  # a list, taken by position (or as the cheaper quote)
        n = r.randint(2, 4)
        options = [_option(w, kind) for _ in range(n)]
        if r.random() < 0.5:
            text = "A few options:\n" + "\n".join(f"{k + 1}. {o[1]}" for k, o in enumerate(options))
        else:
            text = "I found " + "; or ".join(o[1] for o in options) + "."
        i = w.say("assistant", text)
        pick = r.randrange(n)
        words = r.choice(POSITION[pick]) if pick < n - 1 or n != 4 else r.choice(POSITION[3])
        if kind == "quote" and r.random() < 0.4:
            pick = min(range(n), key=lambda k: int(options[k][0][1:].replace(",", "")))
            words = r.choice(("the cheaper one", "cheapest, please", "whichever's cheapest"))
        _gap(w)
        c = w.user(words)
        value, _, aliases, fkind = options[pick]
        rejected = tuple(o[0] for k, o in enumerate(options) if k != pick)
        w.plant(fkind, value, i, aliases=aliases, confirm_index=c, rejected=rejected)
    w.say(
        "assistant",
        r.choice(
            (
                "Done, booked.",
                "Booked, I'll send the confirmation on.",
                "Great, I've confirmed it.",
                "Lovely, that's arranged.",
            )
        ),
    )


def _gap(w: Writer16) -> None:
    if w.rng.random() < 0.25:
        w.pad(w.rng.randint(1, 2))


def write(w: Writer16, turns: int, facts: int) -> None:
    r = w.rng
    kinds = [KINDS[k % len(KINDS)] for k in range(facts)]
    r.shuffle(kinds)
    starts = spread(r, turns - 6, facts, max(4, min(12, (turns - 6) // facts)))
    timeline(w, turns, [(s, partial(episode, w, k)) for s, k in zip(starts, kinds, strict=True)])


def generate(seed: int, *, turns: int = 460, facts: int = 20) -> Trajectory:
    return make(seed, "b16-confirms", turns, facts, write, SYSTEM, "confirms")
