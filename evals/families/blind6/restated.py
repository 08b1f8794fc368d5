"""``blind6-restated``: a value stated once, then corrected under another name for its subject.

A quote, a headcount, a tradesperson, an order reference, a day, a sailing, a deadline or a
rent is stated by the user, by the assistant or in a tool result; later the user corrects it,
naming the subject in other words ("the plumber's quote" -> "what Cavanagh wants for the
pipes"), sometimes giving the number in words ("make it twelve"), sometimes again and again (a
chain). Each correction is a ``correction`` fact (``stale``: the value it replaced; in a chain,
``older`` and the previous value's ``until``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import NUMBER_WORDS, Writer, build, dumps, run, spread
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["SUBJECTS", "chain_episode", "generate"]

SYSTEM = (
    "You are a helpful personal assistant. The user runs a small bakery, is renovating an old "
    "house, keeps an allotment and is finishing a part-time research degree. Keep track of what "
    "they tell you and use the tools when a look-up helps."
)


@dataclass(frozen=True)
class Subject:
    """One thing that gets corrected: how its first value is said, and how fixes name it."""

    kind: FactKind
    draw: Callable[[Writer], tuple[str, tuple[str, ...]]]
    state: Callable[[Writer, str], int]  # writes the statement turn; the index holding the value
    fixes: tuple[str, ...]  # the user's corrections, {v} the new value, {who} the person named
    later: tuple[str, ...]  # a further correction in the same chain


def _money(w: Writer) -> tuple[str, tuple[str, ...]]:
    return w.money(90, 2400), ()


def _person(w: Writer) -> tuple[str, tuple[str, ...]]:
    return w.person(), ()


def _code(shape: str) -> Callable[[Writer], tuple[str, tuple[str, ...]]]:
    return lambda w: (w.code(shape), ())


def _weekday(w: Writer) -> tuple[str, tuple[str, ...]]:
    return w.weekday(), ()


def _time(w: Writer) -> tuple[str, tuple[str, ...]]:
    return w.time(), ()


def _day(w: Writer) -> tuple[str, tuple[str, ...]]:
    return w.day()


# -- how first values are stated ------------------------------------------------------------


def _plumber(w: Writer, v: str) -> int:
    who = w.person()
    w.meta = who.split()[1]
    i = w.user(
        w.rng.choice(
            (
                f"had the plumber round earlier, {who}, nice enough bloke. he reckons {v} to redo "
                "the pipes under the kitchen sink and move the stopcock somewhere i can actually "
                "reach it. does that sound about right or am i being had",
                f"so the plumber ({who}) finally came and looked at the sink. quote is {v} for "
                "replacing the old pipework underneath, which feels like a lot for a cupboard's "
                "worth of copper?",
            )
        )
    )
    w.say("assistant", w.reply((3, 6)))
    return i


def _tables(w: Writer, v: str) -> int:
    i = w.user(
        w.rng.choice(
            (
                f"for the craft fair stall i've told the organisers we need {v}, they're "
                "lending them out so at least that's one thing we don't have to cart over",
                f"note for the fair: we asked for {v} from the organisers. plus the gazebo. "
                "what else do people usually forget for a market stall?",
            )
        )
    )
    w.say("assistant", w.reply((4, 7)))
    return i


def _tiler(w: Writer, v: str) -> int:
    w.user("who's booked to do the bathroom tiling again? i've lost the email")
    i = w.tool(
        "search_email",
        {"query": "bathroom tiling booking"},
        dumps(
            {
                "job": "bathroom floor and wall tiling",
                "tradesperson": v,
                "firm": "Mosaic & Grout Ltd",
                "status": "confirmed",
            }
        ),
    )
    w.say("assistant", "Found it: the booking confirmation from the tiling firm, it's confirmed.")
    return i


def _flour(w: Writer, v: str) -> int:
    w.user("did the big flour order go through in the end? the mill's site was being weird")
    i = w.tool(
        "check_order",
        {"supplier": "Stoneground Mill"},
        dumps(
            {
                "supplier": "Stoneground Mill",
                "order_ref": v,
                "status": "confirmed",
                "items": ["strong white", "dark rye", "spelt"],
            }
        ),
    )
    w.say("assistant", "Yes, it went through and the mill has confirmed it.")
    return i


def _potatoes(w: Writer, v: str) -> int:
    w.user(
        "the allotment society is doing the bulk seed potato drop this year, can you keep a "
        "note of when so i'm there with the barrow"
    )
    return w.say(
        "assistant",
        f"Noted: the allotment society drops the seed potatoes off on {v}. Take a couple of "
        "sacks or crates, they usually come loose.",
    )


def _ferry(w: Writer, v: str) -> int:
    w.user("whats the sailing we're booked on for the island trip, the kids keep asking")
    i = w.tool(
        "get_booking",
        {"type": "ferry"},
        dumps(
            {
                "route": "mainland to the island",
                "passengers": "two adults, two children",
                "car": True,
                "departs": v,
            }
        ),
    )
    w.say("assistant", "Here's the ferry booking for the island, car and all four of you.")
    return i


def _panel(w: Writer, v: str) -> int:
    i = w.user(
        w.rng.choice(
            (
                f"the ethics panel is sitting on {v} so the application has to be properly "
                "finished before then, which is terrifying given the state of it",
                f"got the email, my ethics review is on {v}. need to tidy the consent forms "
                "and the data management bit before that",
            )
        )
    )
    w.say("assistant", w.reply((3, 6)))
    return i


def _rent(w: Writer, v: str) -> int:
    w.user("can you pull the rent figure out of the shop lease i pasted last week")
    return w.say(
        "assistant",
        f"From the lease, the rent on the shop unit is {v} a month, payable in advance, with a "
        "review clause at the anniversary.",
    )


def _sparky(w: Writer, v: str) -> int:
    i = w.user(
        f"sorted an electrician for the kitchen, {v}, next door used them and were happy. "
        "they want the units off the wall before they start which seems fair"
    )
    w.say("assistant", w.reply((3, 5)))
    return i


def _tint(w: Writer, v: str) -> int:
    w.user("what was the mix on the hallway paint, in case we run out")
    i = w.tool(
        "search_notes",
        {"query": "hallway paint"},
        dumps({"note": "hallway paint", "finish": "eggshell", "mix_code": v}),
    )
    w.say("assistant", "It's in your notes from the paint shop, with the finish.")
    return i


def _lunch(w: Writer, v: str) -> int:
    w.user(
        "can you sort catering numbers for the seminar lunch with the department, just "
        "sandwiches and fruit"
    )
    return w.say(
        "assistant",
        f"Done, I've put the seminar lunch down for {v}. Sandwiches, a fruit platter and a "
        "couple of vegetarian options.",
    )


def _checkin(w: Writer, v: str) -> int:
    w.user("what did the guesthouse say about arriving, we might be early")
    return w.say(
        "assistant",
        f"The guesthouse said rooms are ready from {v}. If you're early they can keep your bags.",
    )


def _deposit(w: Writer, v: str) -> int:
    w.user("how much is the deposit on the cottage for the summer?")
    i = w.tool(
        "get_booking",
        {"type": "holiday let"},
        dumps(
            {"property": "the cottage by the harbour", "deposit_due": v, "balance": "on arrival"}
        ),
    )
    w.say("assistant", "The holiday let wants the deposit before they'll hold the dates.")
    return i


def _count(noun: str) -> Callable[[Writer], tuple[str, tuple[str, ...]]]:
    def draw(w: Writer) -> tuple[str, tuple[str, ...]]:
        r = w.rng
        return w.fresh(lambda: f"{r.choice((5, 6, 7, 8, 9, 10, 22, 25))} {noun}"), ()

    return draw


SUBJECTS: dict[str, Subject] = {
    "plumber": Subject(
        "value",
        _money,
        _plumber,
        (
            "update on the sink pipes money - {who} rang back and it's {v} now, he'd missed "
            "the isolation valve apparently",
            "ok so what {who} wants for the pipes has gone up to {v}. sigh. old copper is worse "
            "than he thought",
            "the kitchen pipework job is going to be {v} in the end, just had the proper written "
            "quote",
        ),
        (
            "and now the pipes under the sink are {v}?? he found a leak behind the unit",
            "final figure for {who}'s sink job is {v}, he knocked a bit off for cash",
        ),
    ),
    "tables": Subject(
        "value",
        _count("trestle tables"),
        _tables,
        (
            "re the fair - the tables, make it {n}. they said we can spread out a bit more",
            "for the stall we'll want {n} of those folding tables after all, the cake display "
            "needs more room",
            "organisers emailed, we can have {n} tables at the fair instead",
        ),
        (
            "scratch that, the pitch is smaller than they said so {n} tables and no more",
            "tables at the fair: {n} now. last change i promise",
        ),
    ),
    "tiler": Subject(
        "name",
        _person,
        _tiler,
        (
            "the person coming to do the bathroom floor has changed, {v} from the same firm is "
            "doing it instead, the other one's done his back in",
            "fyi the tiles in the bathroom are being done by {v} now. firm swapped people around",
            "Mosaic and Grout rang, {v} will be the one on site for the bathroom",
        ),
        (
            "and now it's {v} doing the tiles, honestly this firm",
            "bathroom tiling person changed AGAIN - {v}",
        ),
    ),
    "flour": Subject(
        "code",
        _code("SM-99999"),
        _flour,
        (
            "the mill emailed, they cancelled and re-raised the flour order on their side, new "
            "reference is {v}",
            "heads up the rye and spelt delivery has a different ref now: {v}. their system "
            "glitched",
            "for the Stoneground delivery use {v} if anyone asks, the old number's dead",
        ),
        ("the mill's re-issued the flour order yet again, it's {v} now",),
    ),
    "potatoes": Subject(
        "date",
        _weekday,
        _potatoes,
        (
            "the spuds are coming {v} now, the chap with the van changed his round",
            "seed potato thing at the allotment has moved to {v}",
            "allotment drop is {v} not the other day, just saw the noticeboard",
        ),
        ("potato drop moved again to {v} - the society can't organise anything",),
    ),
    "ferry": Subject(
        "date",
        _time,
        _ferry,
        (
            "the boat over to the island has been moved to {v}, got a text from the company",
            "our crossing is at {v} now, they changed the timetable",
            "the ferry people rescheduled us, we sail at {v}",
        ),
        ("the island crossing shifted again, {v}. hope the kids sleep in the car",),
    ),
    "panel": Subject(
        "date",
        _day,
        _panel,
        (
            "the review board pushed my slot to {v}, more time for the consent forms at least",
            "my ethics meeting is on {v} now, the committee chair is off",
            "ethics got moved: {v}",
        ),
        ("the committee moved me again, to {v}. I give up predicting these people",),
    ),
    "rent": Subject(
        "value",
        _money,
        _rent,
        (
            "what we pay for the shop premises is going to {v} from next quarter, the letting "
            "agent just told me",
            "the landlord's put the unit up to {v} a month, lovely",
            "so the bakery's rent is {v} now after the review. can't argue with it",
        ),
        ("agent came back, they've agreed {v} for the unit after a bit of haggling",),
    ),
    "sparky": Subject(
        "name",
        _person,
        _sparky,
        (
            "the person rewiring the kitchen isn't who i said, {v} is taking over the job",
            "kitchen electrics will be done by {v} now, the first lot are booked up",
            "change of electrician for the kitchen: {v}",
        ),
        ("kitchen wiring is with {v} now, third time lucky",),
    ),
    "tint": Subject(
        "code",
        _code("99-AA-999"),
        _tint,
        (
            "the paint shop re-matched the hallway colour, the new number on the tin is {v}",
            "for the hall we need the remixed one, {v}, the first batch came out too yellow",
            "correction on the hallway eggshell, use mix {v}",
        ),
        ("hall paint re-matched again, {v}. it's closer this time",),
    ),
    "lunch": Subject(
        "value",
        _count("people"),
        _lunch,
        (
            "for the department sandwiches, we're now looking at {n} heads",
            "seminar lunch numbers changed again, make it {n}",
            "can you change the catering for the seminar to {n}, people keep signing up and "
            "dropping out",
        ),
        ("lunch for the seminar: {n} now, final answer hopefully",),
    ),
    "checkin": Subject(
        "date",
        _time,
        _checkin,
        (
            "the b&b emailed, we can't get the room until {v} now",
            "our room at the guesthouse won't be ready before {v}, they've got a late checkout",
            "arrival at the guesthouse is from {v} they say",
        ),
        ("guesthouse changed it again, {v}",),
    ),
    "deposit": Subject(
        "value",
        _money,
        _deposit,
        (
            "the holiday let people want {v} up front now, not what they said before",
            "the harbour cottage deposit is {v} - they'd quoted last year's rate",
            "cottage booking: they corrected the deposit to {v}",
        ),
        ("the cottage owner changed the deposit once more, it's {v}",),
    ),
}


def _new_value(w: Writer, subject: Subject, old: str) -> tuple[str, tuple[str, ...]]:
    """A fresh value for ``subject`` and its aliases; a headcount is given in words."""
    if subject.state in (_tables, _lunch):
        noun = old.split(" ", 1)[1]
        n = w.rng.choice([k for k in NUMBER_WORDS if NUMBER_WORDS[k] not in w.used])
        w.used.add(NUMBER_WORDS[n])
        return NUMBER_WORDS[n], (f"{n} {noun}",)
    return subject.draw(w)


def chain_episode(w: Writer, name: str, fixes: int, gaps: list[int]) -> None:
    """State ``name``'s first value, then correct it ``fixes`` times, ``gaps`` turns apart."""
    subject = SUBJECTS[name]
    value, _ = subject.draw(w)
    w.meta = ""
    values, indexes = [value], [subject.state(w, value)]
    previous = None
    for k in range(fixes):
        w.pad(gaps[k])
        new, aliases = _new_value(w, subject, values[0])
        pool = subject.fixes if k == 0 else subject.later
        text = w.rng.choice(pool).replace("{who}", w.meta or "he")
        at = w.user(text.replace("{n}", new).replace("{v}", new))
        fact = w.plant(
            "correction",
            new,
            at,
            aliases=aliases,
            stale=values[-1],
            stale_index=indexes[-1],
            older=tuple(values[:-1]),
        )
        if previous is not None:
            w.supersede(previous, at)
        previous = fact
        w.say("assistant", w.short())
        values.append(new)
        indexes.append(at)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    names = list(SUBJECTS)
    r.shuffle(names)
    plan: list[tuple[str, int]] = []
    total = 0
    while total < facts:
        if len(plan) == len(names):  # every subject used: lengthen a chain instead
            k = r.randrange(len(plan))
            plan[k] = (plan[k][0], plan[k][1] + 1)
            total += 1
            continue
        fixes = min(facts - total, r.choices((1, 2, 3), weights=(6, 3, 1))[0])
        plan.append((names[len(plan)], fixes))
        total += fixes
    width = max(3, min(24, turns // (len(plan) + 1)))
    starts = spread(r, turns - width, len(plan), width)
    episodes = []
    for name, fixes in plan:
        budget = width - 1 - fixes
        gaps = [r.randint(0, max(0, budget // fixes)) for _ in range(fixes)]
        if r.random() < 0.3:
            gaps[0] = 0  # fixed on the very next turn
        episodes.append(lambda n=name, f=fixes, g=gaps: chain_episode(w, n, f, g))
    run(w, turns, starts, episodes)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``blind6-restated`` conversation for ``seed``."""
    return build(seed, "b6-restated", turns, facts, _write, SYSTEM)
