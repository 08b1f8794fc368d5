"""``blind3-picks``: decisions by agreement.

The assistant proposes 2-4 options in a numbered or bulleted list (after a search tool call,
half the time); the user picks one by position ("the second one", "option 3", "the last one")
or by paraphrase ("let's go with the cheaper one", "whichever starts later", "the one nearest
the station"). The fact is the chosen option's name, said only in the list; the other options
are ``rejected`` and the user's pick is ``confirm_index``, so the runner's ``choice unclear``
and ``rejected only`` columns show a view that keeps the list but not the choice. The
assistant confirms without naming the option ("Booked.").
"""

from __future__ import annotations

import json
import random

from evals.families.blind3.base import Conversation, smalltalk

__all__ = ["TOPICS", "write"]

# topic: (request, option names, the attribute compared, unit formatting, kind)
TOPICS = (
    (
        "Can you find me a hotel in Porto for two nights next month? Nothing flashy.",
        (
            ("Casa", "Hotel", "Residencial", "Pensão", "Quinta"),
            (
                "do Postigo",
                "Miradouro Azul",
                "Vinha Velha",
                "Sete Pontes",
                "das Flores",
                "Ribeira Alta",
            ),
        ),
        "per night",
        "£{x}",
        "name",
    ),
    (
        "I need a plumber for a leaking stopcock, ideally this week.",
        (
            ("Dunmore", "Hartwell", "FlowRight", "Pipewise", "Kaczmarek", "Aldgate"),
            ("Plumbing", "& Sons Heating", "Services", "Drainage Ltd", "Gas & Water"),
        ),
        "callout fee",
        "£{x}",
        "name",
    ),
    (
        "Find me a Pilates class I can do after work, somewhere on the way home.",
        (
            ("Core", "Alignment", "Reformer", "Studio Nine", "Balance", "Lumen"),
            ("Kirkstall", "Loft", "Room Headingley", "Chapel Allerton", "Works Meanwood"),
        ),
        "per class",
        "£{x}",
        "name",
    ),
    (
        "We need a venue for a 40th, about 50 people, in Sheffield.",
        (
            ("The Foundry", "Kelham", "Crookes", "Botanical", "Ecclesall", "Sharrow"),
            ("Rooms", "Wharf Hall", "Social Club", "Pavilion", "Tap House"),
        ),
        "hire fee",
        "£{x}",
        "name",
    ),
    (
        "Which broadband deals are there for our postcode? The current one ends soon.",
        (
            ("Zentel", "Hyperoptic", "Brightwire", "Community", "Vodafone", "Trooli"),
            ("Fibre 500", "Home 150", "Full Fibre 900", "Gigabit 1G", "Pro II 300"),
        ),
        "per month",
        "£{x}",
        "name",
    ),
    (
        "I'm after a used estate car, under ten years old, for the dogs.",
        (
            ("2019", "2018", "2020", "2017", "2021"),
            (
                "Skoda Superb Estate",
                "Volvo V60 D4",
                "Kia Ceed Sportswagon",
                "Mazda6 Tourer",
                "Ford Focus Estate",
                "Peugeot 508 SW",
            ),
        ),
        "asking price",
        "£{x}",
        "name",
    ),
    (
        "Can you look for a dog sitter for the bank holiday weekend?",
        (
            ("Paws at Home", "Meadow Lane", "Woofers", "Barking Lot", "Muddy Boots", "Tailwaggers"),
            ("Kennels", "Day & Stay", "Pet Care", "Dog Hotel", "Home Boarding"),
        ),
        "for the weekend",
        "£{x}",
        "name",
    ),
)
"""(request, (first parts, second parts) of option names, what the price is, its format, kind)."""

_POSITION = (
    ("the first one", 0),
    ("first one's fine", 0),
    ("option 1 please", 0),
    ("the second one", 1),
    ("number 2 looks good", 1),
    ("let's do the second", 1),
    ("the third one", 2),
    ("option 3", 2),
    ("go with number three", 2),
    ("the last one", -1),
    ("the bottom one", -1),
)
_CHEAPER = (
    "let's go with the cheaper one",
    "whichever's cheapest, honestly",
    "the least expensive one, money's tight this month",
)
_DEARER = ("the pricier one, you get what you pay for", "the most expensive one, it's a one-off")
_CONFIRM = (
    "Booked. I'll send the confirmation to your email.",
    "Done, that's reserved.",
    "Great choice, sorted.",
    "Perfect, I've gone ahead with it.",
    "Lovely, that's confirmed.",
)


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """``facts`` offers of 2-4 options, each accepted by position or paraphrase, among chat."""
    conv = Conversation(
        "You are a helpful assistant who can search local businesses and book things."
    )
    step = max(4, (turns - 4) // max(1, facts))
    offers = {2 + i * step + rng.randrange(step - 2) for i in range(facts)}
    topics = [TOPICS[i % len(TOPICS)] for i in rng.sample(range(facts), facts)]
    used: dict[int, int] = {}
    taken: set[str] = set()
    k = 0
    for turn in range(turns):
        if turn in offers and k < len(topics):
            request, pool, attr, unit, kind = topics[k]
            k += 1
            t = TOPICS.index((request, pool, attr, unit, kind))
            n = rng.randint(2, 4)
            free = [f"{a} {b}" for a in pool[0] for b in pool[1] if f"{a} {b}" not in taken]
            names = rng.sample(free, n)
            taken.update(names)
            start = used.get(t, 0)
            used[t] = start + 1
            prices = rng.sample(range(24, 960), n)
            if attr == "asking price":  # cars cost thousands
                prices = [p * 25 for p in prices]
            conv.user(
                request if start == 0 else f"Another one for you: {request[0].lower()}{request[1:]}"
            )
            numbered = rng.random() < 0.6
            lines = []
            for j, (nm, p) in enumerate(zip(names, prices, strict=True)):
                lead = f"{j + 1}." if numbered else "-"
                extra = rng.choice(
                    (
                        "good reviews",
                        "a bit further out",
                        "free cancellation",
                        "available from Thursday",
                        "small but tidy",
                    )
                )
                lines.append(f"{lead} {nm}: {unit.format(x=f'{p:,}')} {attr}, {extra}")
            idx = conv.assistant(
                "Here are a few that fit:\n\n" + "\n".join(lines) + "\n\nWhich would you like?"
            )
            roll = rng.random()
            if roll < 0.6:
                phrase, pos = rng.choice([p for p in _POSITION if p[1] < n])
                pick = pos % n
                reply = (
                    phrase[0].upper()
                    + phrase[1:]
                    + rng.choice((".", ", thanks.", " I think.", "!"))
                )
            elif roll < 0.85:
                pick = prices.index(min(prices))
                reply = rng.choice(_CHEAPER).capitalize() + "."
            else:
                pick = prices.index(max(prices))
                reply = rng.choice(_DEARER).capitalize() + "."
            confirm = conv.user(reply)
            if rng.random() < 0.6:
                offer = f"ofr_{rng.randrange(16**10):010x}"
                ref = f"BK{rng.randint(100000, 999999)}"
                conv.tool(
                    "book",
                    {"offer_id": offer},
                    json.dumps(
                        {
                            "status": "confirmed",
                            "offer_id": offer,
                            "booking_ref": ref,
                            "email_sent": True,
                        }
                    ),
                )
            conv.assistant(rng.choice(_CONFIRM))
            conv.plant(
                kind,
                names[pick],
                idx,
                rejected=tuple(nm for j, nm in enumerate(names) if j != pick),
                confirm_index=confirm,
            )
            continue
        user, answer = smalltalk(rng)
        conv.user(user)
        conv.assistant(answer)
    return conv
