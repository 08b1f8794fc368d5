"""``b5-accepts``: the assistant offers 2-4 options and the user takes one in a few words.

Offers are numbered lists or prose (slots, hotels, flights, broadband deals, restaurants,
venue dates, paint colours, hire cars). The user takes one by position ("the second sounds
good"), by a detail ("let's go with the Porto one", "ok the cheaper"), by agreeing with the
assistant's suggestion ("yeah that"), or after a question ("is the first one refundable?" ...
"ok book it"). The fact is the option taken (``value``), the others are ``rejected``, and
``confirm_index`` is the message that took it.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind5.base import Writer, build, spread
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["generate"]

SYSTEM = "You are a booking and errands assistant. Offer options, then act on the user's choice."
ORDINALS = ("first", "second", "third", "fourth")
Option = tuple[str, str, int]  # (value, detail word, a number to compare: time or price)

HOTELS = (
    "Casa Amarela",
    "Hotel Bragança",
    "The Quayside Inn",
    "Residencial Flor",
    "Hotel Aurora",
    "The Old Cooperage",
    "Pensão Lusa",
    "Hotel Miravento",
    "Casa dos Arcos",
    "The Tram Stop Rooms",
    "Hotel Estrela",
    "Quinta das Pedras",
    "The Cork House",
    "Hotel Viana",
)
PLACES = ("Porto", "Lisbon", "Braga", "Coimbra")
RESTAURANTS = (
    ("Little Saigon Kitchen", "Vietnamese"),
    ("Osteria Bruno", "Italian"),
    ("Baan Thai", "Thai"),
    ("The Smokehouse", "barbecue"),
    ("Kin Ramen", "ramen"),
    ("Dishoom Corner", "Indian"),
    ("Taberna Lola", "Spanish"),
    ("Golden Lotus", "Chinese"),
    ("Meze Mezze", "Lebanese"),
    ("Pho Real", "Vietnamese"),
    ("Trattoria Nonna", "Italian"),
    ("Casa Oaxaca", "Mexican"),
    ("Seoul Bowl", "Korean"),
    ("Chez Margaux", "French"),
)
PAINTS = (
    ("Sage Whisper", "green"),
    ("Harbour Mist", "blue"),
    ("Oat Husk", "beige"),
    ("Terracotta Dusk", "orange"),
    ("Plaster Pink", "pink"),
    ("Charcoal Ember", "grey"),
    ("Mustard Field", "yellow"),
    ("Fern Hollow", "green"),
    ("Stormy Slate", "blue"),
    ("Biscuit Tin", "beige"),
    ("Clay Pot", "orange"),
    ("Rose Quartz Glow", "pink"),
    ("Pebble Grey", "grey"),
)
CARS = (
    ("Fiat Panda", "small"),
    ("VW Golf", "mid-size"),
    ("Skoda Octavia Estate", "estate"),
    ("Toyota RAV4", "SUV"),
    ("Renault Zoe", "electric"),
    ("Kia Picanto", "small"),
    ("Ford Focus", "mid-size"),
    ("Volvo V60", "estate"),
    ("Nissan Qashqai", "SUV"),
    ("Tesla Model 3", "electric"),
    ("Hyundai i10", "small"),
    ("Peugeot 308", "mid-size"),
)


def _pool(w: Writer, pool: tuple[tuple[str, str], ...], n: int) -> list[tuple[str, str]]:
    """``n`` entries not offered before, no two with the same detail (``"Thai"``)."""
    left = [p for p in pool if p[0] not in w.used]
    w.rng.shuffle(left)
    picked: list[tuple[str, str]] = []
    for p in left:
        if len(picked) < n and p[1] not in {q[1] for q in picked}:
            picked.append(p)
            w.used.add(p[0])
    return picked


def _slots(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    times = sorted((w.time() for _ in range(n)), key=lambda t: int(t.replace(":", "")))
    return "value", "slot", [(t, "", int(t.replace(":", ""))) for t in times]


def _hotels(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    r = w.rng
    names = [h for h, _ in _pool(w, tuple((h, h) for h in HOTELS), n)]
    places = r.sample(PLACES, len(names))
    prices = r.sample(range(64, 260), len(names))
    return "name", "hotel", [(h, p, c) for h, p, c in zip(names, places, prices, strict=True)]


def _flights(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    r = w.rng
    out = []
    for _ in range(n):
        code = w.fresh(lambda: f"{r.choice(('BA', 'EZY', 'TP', 'KL', 'LH'))}{r.randint(100, 9899)}")
        out.append((code, "", r.randint(6, 21) * 100 + r.choice((0, 15, 30, 45))))
    out.sort(key=lambda o: o[2])
    return "code", "flight", out


def _deals(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    out = []
    for _ in range(n):
        price = w.money(18, 65, cents=True, sign="£")
        out.append((price, "", int(float(price[1:]) * 100)))
    return "value", "deal", out


def _restaurants(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    return "name", "restaurant", [(name, kind, 0) for name, kind in _pool(w, RESTAURANTS, n)]


def _dates(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    days = [w.day()[0] for _ in range(n)]
    return "date", "date", [(d, "", 0) for d in days]


def _paints(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    return "preference", "paint", [(name, hue, 0) for name, hue in _pool(w, PAINTS, n)]


def _cars(w: Writer, n: int) -> tuple[FactKind, str, list[Option]]:
    r = w.rng
    picked = _pool(w, CARS, n)
    prices = r.sample(range(22, 95), len(picked))
    return "name", "car", [(m, k, p) for (m, k), p in zip(picked, prices, strict=True)]


OFFERS: dict[
    str, tuple[Callable[[Writer, int], tuple[FactKind, str, list[Option]]], tuple[str, ...]]
] = {
    "slots": (
        _slots,
        (
            "can you find me a time with the dentist this week?",
            "book the boiler engineer, whatever they have",
            "get me a slot for the eye test",
        ),
    ),
    "hotels": (
        _hotels,
        ("hotels for the wedding weekend?", "where could we stay on the Portugal trip"),
    ),
    "flights": (
        _flights,
        ("flights home on the Sunday?", "what flights are there for the work trip"),
    ),
    "deals": (
        _deals,
        ("our broadband contract is up, what are the options", "cheaper phone plans?"),
    ),
    "restaurants": (
        _restaurants,
        ("somewhere for dinner tonight, near the office", "restaurant for mum's birthday?"),
    ),
    "dates": (
        _dates,
        ("when can the venue do the christening?", "which dates has the photographer got"),
    ),
    "paints": (
        _paints,
        ("help me choose a colour for the hallway", "paint for the bedroom, something calm"),
    ),
    "cars": (_cars, ("hire car for the Highlands trip?", "what cars can we rent at the airport")),
}


def _describe(kind: str, o: Option) -> str:
    value, detail, num = o
    if kind == "hotel":
        return f"{value} in {detail}, €{num} a night"
    if kind == "restaurant":
        return f"{value} ({detail})"
    if kind == "paint":
        return f"{value}, a soft {detail}"
    if kind == "car":
        return f"a {value} ({detail}), £{num} a day"
    if kind == "flight":
        return f"{value} leaving at {num // 100:02d}:{num % 100:02d}"
    if kind == "deal":
        return f"{value} a month"
    return value


def _offer(w: Writer, kind: str, options: list[Option], tip: int | None) -> str:
    r = w.rng
    lines = [_describe(kind, o) for o in options]
    if r.random() < 0.5:
        head = r.choice(
            ("Here's what I found:", "A few options:", "These are available:", "Options:")
        )
        body = "\n".join(f"{i + 1}. {line}" for i, line in enumerate(lines))
        text = f"{head}\n{body}"
    else:
        joined = ", ".join(lines[:-1]) + (" or " if len(lines) > 1 else "") + lines[-1]
        text = r.choice(
            ("I can get {x}.", "There's {x}.", "You could go for {x}.", "Options are {x}.")
        )
        text = text.replace("{x}", joined)
    if tip is not None:
        text += ("\n\n" if "\n" in text else " ") + r.choice(
            (
                f"If it were me I'd take the {ORDINALS[tip]} one.",
                f"I'd lean towards the {ORDINALS[tip]}.",
                f"The {ORDINALS[tip]} looks like the best fit to me.",
            )
        )
    return text


def _answer(w: Writer, kind: str, options: list[Option], tip: int | None) -> tuple[int, str]:
    """Which option the user takes and how they say it."""
    r = w.rng
    n = len(options)
    ways: list[Callable[[], tuple[int, str]]] = []

    def ordinal() -> tuple[int, str]:
        i = r.randrange(n)
        word = "last" if i == n - 1 and n > 2 and r.random() < 0.5 else ORDINALS[i]
        return i, r.choice(
            (
                f"the {word} sounds good",
                f"{word} one please",
                f"let's do the {word}",
                f"go for the {word} option",
                f"hmm ok, the {word}",
                f"number {i + 1}",
            )
        )

    ways.append(ordinal)
    if tip is not None:
        ways += [
            lambda: (
                tip,
                r.choice(
                    (
                        "yeah that",
                        "sure, your pick",
                        "ok go with what you said",
                        "sounds right, do it",
                    )
                ),
            )
        ] * 2
    if kind in ("hotel", "restaurant", "paint", "car"):

        def detail() -> tuple[int, str]:
            i = r.randrange(n)
            d = options[i][1]
            return i, r.choice(
                (
                    f"let's go with the {d} one",
                    f"the {d} one",
                    f"ok {d} it is",
                    f"I'll take the {d}",
                )
            )

        ways += [detail, detail]
    if kind in ("hotel", "car", "deal"):

        def cheap() -> tuple[int, str]:
            prices = [o[2] for o in options]
            i = prices.index(min(prices))
            return i, r.choice(
                ("ok the cheaper", "cheapest is fine", "the cheaper one", "whichever costs less")
            )

        ways += [cheap]
    if kind in ("slot", "flight"):

        def timing() -> tuple[int, str]:
            if r.random() < 0.5:
                return 0, r.choice(("the earlier one", "earliest please", "first thing works"))
            return n - 1, r.choice(
                ("the later one", "latest is better for me", "the last one works")
            )

        ways += [timing, timing]
    return r.choice(ways)()


def generate(seed: int, *, turns: int = 340, facts: int = 20) -> Trajectory:
    """A ``b5-accepts`` conversation: ``facts`` offers, each taken in a few words."""
    return build(seed, "b5-accepts", turns, facts, _write, SYSTEM)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    starts = set(spread(r, turns, facts, 5))
    deck: list[str] = []
    skip = 0  # a question before the go-ahead takes a turn of its own: one chatter turn less
    for t in range(turns):
        if t not in starts:
            if skip:
                skip -= 1
            else:
                w.chatter()
            continue
        if not deck:
            deck = r.sample(list(OFFERS), len(OFFERS))
        name = deck.pop()
        make, asks = OFFERS[name]
        n = r.choice((2, 2, 3, 3, 4))
        kind_fact, kind, options = make(w, n)
        n = len(options)
        tip = r.randrange(n) if r.random() < 0.3 else None
        w.user(r.choice(asks))
        offered = w.turn
        at = w.say("assistant", _offer(w, kind, options, tip))
        i, answer = _answer(w, kind, options, tip)
        if r.random() < 0.25:  # a question first, then the go-ahead
            skip += 1
            question, reply = r.choice(
                (
                    ("is the {o} one still available?", "Yes, still free as of a minute ago."),
                    ("any catch with the {o}?", "Nothing I can see, the terms are standard."),
                    (
                        "can I cancel the {o} if plans change?",
                        "Yes, free to cancel up to a day before.",
                    ),
                    ("does the {o} need paying now?", "No, nothing up front."),
                )
            )
            w.user(question.replace("{o}", ORDINALS[i]))
            w.say("assistant", reply)
            answer = r.choice(
                ("ok book it", "great, that one then", "perfect, go ahead", "lovely, do it")
            )
        skip += 1  # the answer's turn
        where = w.user(answer)
        w.say(
            "assistant",
            r.choice(
                (
                    "Done.",
                    "Great, sorted.",
                    "Confirmed.",
                    "Okay, I've gone ahead.",
                    "Noted, going with that.",
                )
            ),
        )
        value = options[i][0]
        rejected = tuple(o[0] for j, o in enumerate(options) if j != i)
        w.plant(kind_fact, value, at, rejected=rejected, confirm_index=where, turn=offered)
