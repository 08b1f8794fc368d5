"""``blind9-confirms``: a charity's volunteer coordinator takes one of the assistant's options.

The assistant offers two or three suppliers with a price and a detail each (minibus hire,
leaflet printing, catering, halls, insurance, t-shirts, banners, first aid cover, storage, van
hire), as a numbered list, bullets or a sentence, now and then with its own pick. The user
takes one in a few words without naming it: by position ("yes the second", "top one", "number
3 pls"), by price ("cheapest"), by agreeing with the pick ("go with that", "fine, book it"), or
after asking which one does something and hearing its place ("ok that one then"). The fact is
the option taken, in the offer (``rejected`` the others, ``confirm_index`` the answer).
"""

from __future__ import annotations

from functools import partial

from evals.families.blind9.base import ORDINALS, Writer, build, fill
from evals.families.trajectories import Trajectory

__all__ = ["NEEDS", "QUESTIONS", "generate"]

NEEDS = (
    ("minibus hire for the day trip", "Coaches"),
    ("printing the appeal leaflets", "Print"),
    ("catering for the volunteer thank-you evening", "Catering"),
    ("a hall for the quiz night", "Community Hall"),
    ("event insurance for the sponsored walk", "Insurance"),
    ("branded t-shirts for the volunteers", "Tees"),
    ("a banner for the stall", "Signs"),
    ("first aid cover at the fun run", "First Aid"),
    ("storage for the donated furniture", "Storage"),
    ("a van to collect the sofas", "Van Hire"),
)
"""(what the coordinator needs, the word that ends a supplier's name)."""

FIRST_WORDS = (
    "Millbrook", "Greenway", "Oakley", "Riverside", "Beacon", "Castlegate", "Meadowbank",
    "Hillcrest", "Brookside", "Kingsway", "Ashdown", "Redhill", "Stonebridge", "Willowfield",
    "Foxley", "Harewood", "Lakeside", "Northfield", "Elmstead", "Birchwood", "Copperfield",
    "Danebury",
)  # fmt: skip
QUESTIONS = {
    "can do weekends": "which of those does weekends?",
    "includes delivery": "do any of them deliver?",
    "has a wheelchair lift": "which one has a wheelchair lift?",
    "comes recommended by another charity": "has anyone we know used them?",
    "offers a charity discount": "any of those do a discount for charities?",
    "is the closest to the office": "which is closest to us?",
    "can turn it round quickly": "which is quickest?",
    "has good reviews": "which one has the better reviews?",
    "lets you cancel free of charge": "can we cancel with any of them?",
    "has parking on site": "which has parking?",
}
"""A detail an option may have, and the question that asks for it."""
DETAILS = tuple(QUESTIONS)
WAYS = ("position", "price", "pick", "question")


def _offer(
    w: Writer, need: str, end: str, n: int, pick: int | None
) -> tuple[str, list[str], list[int], list[str]]:
    r = w.rng
    names = [w.fresh(lambda: f"{r.choice(FIRST_WORDS)} {end}") for _ in range(n)]
    prices = [0] * n
    while len(set(prices)) < n:
        prices = [r.randint(6, 90) * 10 for _ in range(n)]
    details = r.sample(DETAILS, n)
    style = r.choice(("numbered", "bullets", "sentence"))
    if style == "numbered":
        body = (
            "Here are some options for "
            + need
            + ":\n\n"
            + "\n".join(f"{k + 1}. {names[k]} - £{prices[k]}, {details[k]}" for k in range(n))
        )
    elif style == "bullets":
        body = (
            "I found these for "
            + need
            + ":\n"
            + "\n".join(f"- {names[k]}: £{prices[k]} ({details[k]})" for k in range(n))
        )
    else:
        parts = [f"{names[k]} at £{prices[k]}, which {details[k]}" for k in range(n)]
        body = (
            f"For {need} there's {parts[0]}; " + "; ".join([*parts[1:-1], f"or {parts[-1]}"]) + "."
        )
    if pick is not None:
        body += f"\n\nIf it were me I'd go with {names[pick]}."
    return body, names, prices, details


def _episode(w: Writer, way: str) -> None:
    r = w.rng
    need, end = r.choice(NEEDS)
    n = r.choice((2, 3, 3))
    pick = r.randrange(n) if way == "pick" or r.random() < 0.25 else None
    w.user(
        r.choice(
            (
                f"can you find me a few options for {need}",
                f"need quotes for {need}, what's out there",
                f"{need} - who should we use?",
                f"ok next job, {need}. options pls",
            )
        )
    )
    body, names, prices, details = _offer(w, need, end, n, pick)
    at = w.say("assistant", body)
    if way == "position":
        k = r.randrange(n)
        answer = r.choice(
            (
                f"yes the {ORDINALS[k]}",
                f"the {ORDINALS[k]} one",
                f"number {k + 1} pls",
                "top one" if k == 0 else ("last one" if k == n - 1 else f"{ORDINALS[k]} one"),
                f"{ORDINALS[k]}, book it",
            )
        )
    elif way == "price":
        k = prices.index(min(prices))
        answer = r.choice(("cheapest", "go with the cheapest", "cheapest one, we're skint"))
        if n == 2:
            answer = r.choice(("the cheaper one", "cheaper one pls"))
    elif way == "pick":
        assert pick is not None
        k = pick
        answer = r.choice(
            ("go with that", "fine, book it", "yep your pick", "sounds good, go with that")
        )
    else:
        k = r.randrange(n)
        w.user(QUESTIONS[details[k]])
        w.say("assistant", f"The {ORDINALS[k]} one, from what they say.")
        answer = r.choice(("ok that one then", "fine, book it", "go with that", "great, that one"))
    confirm = w.user(answer)
    w.plant(
        "name",
        names[k],
        at,
        rejected=tuple(x for j, x in enumerate(names) if j != k),
        confirm_index=confirm,
    )
    w.say(
        "assistant",
        r.choice(
            (
                "Great, I'll get that booked.",
                "Done, I'll confirm with them.",
                "Lovely, sorting it now.",
                "Okay, going ahead with that one.",
            )
        ),
    )


def _write(w: Writer, turns: int, facts: int) -> None:
    ways = [WAYS[k % len(WAYS)] for k in range(facts)]
    w.rng.shuffle(ways)
    fill(w, turns, [partial(_episode, w, way) for way in ways])


def generate(seed: int, turns: int = 460, facts: int = 20) -> Trajectory:
    """A volunteer coordinator's conversation: ``facts`` options offered and taken tersely."""
    return build(
        seed,
        "b9-confirms",
        turns,
        facts,
        _write,
        "You are an assistant for the volunteer coordinator of a small local charity.",
        "charity",
    )
