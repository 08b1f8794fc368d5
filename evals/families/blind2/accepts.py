"""The user takes one of the options the assistant offered, in a few words that do not repeat it.

Plants ``facts`` choices. Each is an offer by the assistant of 2 to 4 options (restaurants,
meeting slots, tradespeople's quotes, flights, paint colours, hotels, broadband deals), each
option a distinct value with the details one can refer to it by (its place in the list, a
cuisine, the cheapest, the earliest, a weekday); sometimes the assistant recommends one. The
user accepts one: by position ("the second one", "middle one", "number 3"), by a detail ("the
Thai place", "cheapest", "the Thursday"), by agreeing with the recommendation ("yeah go with
that"), by agreeing with a change ("ok but make it Friday"), or after a question about it ("is
the second one dog friendly?" ... "great, book it"). The assistant then acts without naming
it. Offers the user turns down altogether come between them. The fact is the accepted value,
stated only in the offer; the options not taken are its ``rejected`` values, the accepting
message its ``confirm_index``. Scored by the trajectories runner: the value in view after 1, 3
and 10 reductions and at the end (kinds ``name``, ``date``, ``code``, ``preference``), and
``choice unclear`` / ``rejected only``.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind2.base import MONTHS, WEEKDAYS, Writer, pick_turns
from evals.families.facts import FactKind

__all__ = ["OFFERS", "write"]


@dataclass(frozen=True)
class Option:
    """One option: its value, how the offer lists it, and words that point at it alone."""

    value: str
    aliases: tuple[str, ...]
    line: str
    handle: str  # "" when nothing but its position singles it out


@dataclass(frozen=True)
class Offer:
    """A kind of offer: the request, the options, the words around them."""

    kind: FactKind
    asks: tuple[str, ...]
    lead: tuple[str, ...]
    options: Callable[[Writer, int], list[Option]]
    done: tuple[str, ...]
    change: tuple[str, ...] = ()


def _compose(r: random.Random, named: tuple[str, ...], parts: tuple[tuple[str, ...], ...]) -> str:
    """A name from ``named``, or (half the time) one made of one word from each of ``parts``."""
    if r.random() < 0.5:
        return r.choice(named)
    return " ".join(r.choice(p) for p in parts)


_EATERY = (
    ("The",),
    ("Copper", "Salted", "Wild", "Crooked", "Painted", "Golden", "Hidden", "Drunken", "Lazy"),
    ("Hen", "Fig", "Anchor", "Lantern", "Kettle", "Olive", "Heron", "Pig", "Radish", "Walrus"),
)
_TRADE = (
    ("Ashby", "Crowther", "Pilling", "Dobson", "Whitlock", "Marsh", "Horrocks", "Tindall"),
    ("Plumbing", "Roofing", "Builders", "Heating", "Electrical", "Joinery", "Fencing"),
)
_PAINT = (
    ("Hague", "Sage", "Pigeon", "Lichen", "Stiffkey", "Calamine", "Oxblood", "Mustard", "Slaked"),
    ("Blue", "Grey", "Mist", "Whisper", "Teal", "Pink", "Velvet", "Field", "Lime", "Stone"),
)
_HOTEL = (
    ("The",),
    ("Harbourside", "Quayside", "Abbey", "Weavers", "Castlegate", "Ropewalk", "Lighthouse"),
    ("Inn", "Lodge", "House", "Rooms", "Hotel", "Guesthouse", "Suites"),
)
_DEAL = (
    ("Fibre", "FullFibre", "Superfast", "Gigabit", "Ultra"),
    ("74", "150", "300", "500", "900", "36", "67", "1000"),
    ("Essentials", "Plus", "Saver", "Max", "Unlimited", "Starter", "Gamer", "Lite"),
)

RESTAURANTS = (
    "Ember & Oak", "Casa Lucía", "The Salt Loft", "Saffron Yard", "Little Hanoi", "Ostra",
    "Brindle", "Pomegranate House", "Kin Kin", "The Copper Hen", "Mezze Row", "Vesper",
    "Juniper & Rye", "Trattoria Nardini", "Bao Lane", "Fennel", "The Gannet", "Sumac",
)  # fmt: skip
CUISINES = ("Italian", "Thai", "Lebanese", "Vietnamese", "Spanish", "steak", "Georgian", "Korean")


def _restaurants(w: Writer, n: int) -> list[Option]:
    r = w.rng
    cuisines = r.sample(CUISINES, n)
    out = []
    for c in cuisines:
        name = w.fresh(lambda: (_compose(r, RESTAURANTS, _EATERY), ()))[0]
        time = f"{r.randint(18, 20)}:{r.choice(('00', '15', '30', '45'))}"
        out.append(Option(name, (), f"{name} ({c}, table at {time})", f"the {c} place"))
    return out


def _slots(w: Writer, n: int) -> list[Option]:
    r = w.rng
    out: list[Option] = []
    days: set[int] = set()
    while len(out) < n:
        day = datetime.date(r.randint(2026, 2028), r.randint(1, 12), r.randint(1, 28))
        if day.weekday() > 4 or day.weekday() in days:
            continue
        forms = [f"{day.day} {MONTHS[day.month - 1]} {day.year}",
                 f"{MONTHS[day.month - 1]} {day.day}, {day.year}", day.isoformat()]  # fmt: skip
        if {f.lower() for f in forms} & (w.used | w.seen):
            continue
        k = r.randrange(2)
        drawn = (forms[k], (forms[1 - k], forms[2]))
        value, aliases = w.fresh(lambda: drawn)  # noqa: B023 - called here, at once
        days.add(day.weekday())
        name = WEEKDAYS[day.weekday()]
        hour = f"{r.randint(9, 16)}:{r.choice(('00', '30'))}"
        out.append(Option(value, aliases, f"{name} {value} at {hour}", f"the {name}"))
    return out


TRADES = (
    "Brightwater Plumbing", "Kettle & Sons", "AquaFix Heating", "Northgate Electrical",
    "Ridgeway Roofing", "Blue Fern Gardens", "Hartley Decorators", "Sparks & Co",
    "Moorland Joinery", "Cleanline Gutters", "Thornbury Builders", "Pennine Damp Proofing",
)  # fmt: skip


def _quotes(w: Writer, n: int) -> list[Option]:
    r = w.rng
    prices = sorted(r.sample(range(240, 3900, 10), n))
    r.shuffle(prices)
    low = min(prices)
    out = []
    for p in prices:
        name = w.fresh(lambda: (_compose(r, TRADES, _TRADE), ()))[0]
        days = r.randint(2, 21)
        line = f"{name}: £{p}, can start in {days} days"
        out.append(Option(name, (), line, "the cheapest" if p == low else ""))
    return out


def _flights(w: Writer, n: int) -> list[Option]:
    r = w.rng
    air = r.choice(("BA", "U2", "FR", "VY", "KL", "LH"))
    hours = sorted(r.sample(range(6, 21), n))
    out = []
    for i, h in enumerate(hours):
        code = w.fresh(lambda: (f"{air} {r.randint(100, 8999)}", ()))[0]
        price = r.randint(48, 390)
        handle = "the early one" if i == 0 else ("the last flight" if i == n - 1 else "")
        out.append(
            Option(
                code, (), f"{code} leaving {h:02d}:{r.choice(('05', '25', '40'))}, £{price}", handle
            )
        )
    return out


PAINTS = (
    "Hague Blue", "Sage Whisper", "Oxblood Velvet", "Pigeon Grey", "Sulking Rose",
    "Lichen Mist", "Inchyra Slate", "Mustard Field", "Calamine Pink", "Stiffkey Teal",
    "Pale Hound", "Arsenic Green", "Setting Plaster", "Dove Tale",
)  # fmt: skip


def _paints(w: Writer, n: int) -> list[Option]:
    r = w.rng
    out = []
    for _ in range(n):
        name = w.fresh(lambda: (_compose(r, PAINTS, _PAINT), ()))[0]
        finish = r.choice(("matt", "eggshell", "estate emulsion"))
        out.append(Option(name, (), f"{name} in {finish}, £{r.randint(38, 92)} a tin", ""))
    return out


HOTELS = (
    "The Harbourside Inn", "Quayside Lodge", "Hotel Miramar", "The Linen Works",
    "Abbey Mews", "Station House Hotel", "The Old Bank Rooms", "Seacroft Guesthouse",
    "The Weavers Rest", "Castlegate Apartments",
)  # fmt: skip
HOTEL_DETAILS = (
    ("two minutes from the station", "the one by the station"),
    ("sea view, breakfast included", "the sea view one"),
    ("has parking", "the one with parking"),
    ("dogs welcome", "the dog friendly one"),
    ("in the old town", "the old town one"),
)


def _hotels(w: Writer, n: int) -> list[Option]:
    r = w.rng
    details = r.sample(HOTEL_DETAILS, n)
    out = []
    for detail, handle in details:
        name = w.fresh(lambda: (_compose(r, HOTELS, _HOTEL), ()))[0]
        out.append(Option(name, (), f"{name}, £{r.randint(85, 240)} a night, {detail}", handle))
    return out


DEALS = (
    "Fibre 150 Essentials", "FullFibre 500 Plus", "Superfast 74 Saver", "Gigabit Max",
    "Fibre 300 Unlimited", "Home Starter 36", "Fibre 900 Gamer", "Lite Fibre 67",
)  # fmt: skip


def _deals(w: Writer, n: int) -> list[Option]:
    r = w.rng
    prices = r.sample(range(19, 69), n)
    low = min(prices)
    out = []
    for p in prices:
        name = w.fresh(lambda: (_compose(r, DEALS, _DEAL), ()))[0]
        line = f"{name} at £{p}.99 a month, {r.choice((12, 18, 24))} month contract"
        out.append(Option(name, (), line, "the cheapest" if p == low else ""))
    return out


OFFERS = (
    Offer(
        "name",
        (
            "Find somewhere for dinner on Saturday for {num}?",
            "Can you book us a table Saturday night?",
            "{pal}'s birthday meal, need a restaurant for Saturday.",
        ),
        (
            "I found these with space on Saturday:",
            "Options for Saturday night:",
            "Here's what's free:",
        ),
        _restaurants,
        ("Booked, confirmation's in your email.", "Done, table booked."),
        (
            "ok but make it Friday",
            "fine, but can we do Friday instead, same place",
            "yes but for Friday",
        ),
    ),
    Offer(
        "date",
        (
            "When can I see the physio next?",
            "Find me a slot for the boiler service.",
            "Set up a call with {pal}'s accountant, whenever suits them.",
        ),
        ("They've offered:", "Available slots:", "These are the free ones:"),
        _slots,
        ("Confirmed, it's in the calendar.", "Booked in."),
    ),
    Offer(
        "name",
        (
            "Who quoted for the fence?",
            "Compare the quotes for fixing the shower.",
            "What did the gutter people quote?",
        ),
        ("Three quotes came back:", "The quotes so far:", "Here's what they quoted:"),
        _quotes,
        ("I've accepted that quote and told the others no.", "Accepted, I'll let them know."),
    ),
    Offer(
        "code",
        (
            "Flights to Bilbao on the 4th?",
            "What flights are there to Nantes that Thursday?",
            "Get me to Lyon on the 12th, cheapest sensible option.",
        ),
        ("These are the direct ones:", "Flights that day:", "I can see:"),
        _flights,
        ("Booked, boarding passes will come by email.", "Done, you're on it."),
    ),
    Offer(
        "preference",
        ("Colours for the hallway, can you narrow it down?", "Paint for the back bedroom?"),
        ("Going by the photos you sent, I'd shortlist:", "A few that would work with the floor:"),
        _paints,
        ("Ordered two tins and a tester.", "Order placed."),
    ),
    Offer(
        "name",
        ("Hotels in Whitby for the May bank holiday?", "Somewhere to stay in York for two nights?"),
        ("Still available:", "A few with rooms left:"),
        _hotels,
        ("Booked, free cancellation until the week before.", "Reserved."),
        ("ok but just the one night", "yes but arrive Saturday not Friday"),
    ),
    Offer(
        "preference",
        ("The broadband contract's up, what are the options?", "Find a cheaper broadband deal?"),
        ("Available at your address:", "Deals that cover your postcode:"),
        _deals,
        ("Switched, the new router arrives next week.", "Ordered, they'll handle the switch."),
    ),
)

ORDINALS = ("first", "second", "third", "fourth")
BY_POSITION = (
    "the {ord} one", "{ord} one please", "let's do the {ord}", "{ord}, definitely",
    "go with number {n}", "option {n}", "{n} please", "hmm. the {ord} I think",
    "The {ord} looks good, book it",
)  # fmt: skip
BY_HANDLE = ("{h}", "{h} please", "let's go for {h}", "{h}, I think. yes.", "ok {h}")
AGREE = (
    "yeah go with that", "sounds good, do it", "your pick's fine", "sure, that one", "fine by me",
    "ok go on then", "perfect, yes",
)  # fmt: skip
THEN = ("great, book it", "ok do that one then", "lovely, yes please", "right, that one")
ASK_ABOUT = (
    "is the {ord} one any good?",
    "does the {ord} one do refunds?",
    "how far is the {ord} one?",
)
ANSWERS = ("Reviews are good, {count} of them, mostly 5 stars.", "Yes, up to {num} days before.",
           "About {num} minutes away.")  # fmt: skip
DECLINE = ("none of those, leave it for now", "nah, I'll think about it", "not those. forget it.",
           "hmm no. maybe next week")  # fmt: skip


def _offer(w: Writer, offer: Offer, options: list[Option], recommend: int | None) -> str:
    r = w.rng
    numbered = r.random() < 0.6
    lines = [f"{i + 1}. {o.line}" if numbered else f"- {o.line}" for i, o in enumerate(options)]
    text = r.choice(offer.lead) + "\n" + "\n".join(lines)
    if recommend is not None:
        words = r.choice(("I would go for", "My pick would be", "If it were me:"))
        text += f"\n{words} {options[recommend].value}."
    return text


def _turn(w: Writer, t: int, offer: Offer, decline: bool) -> None:
    r = w.rng
    count = r.choice((2, 3, 3, 3, 4))
    options = offer.options(w, count)
    pick = r.randrange(count)
    ways = ("position", "handle", "agree", "change", "ask")
    how = r.choices(ways, weights=(35, 25, 15, 10, 15))[0] if not decline else "decline"
    if how == "handle" and not options[pick].handle:
        how = "position"
    if how == "change" and not offer.change:
        how = "agree"
    recommend = pick if how in ("agree", "change") else None
    w.say("user", w.fill(r.choice(offer.asks)))
    where = w.say("assistant", _offer(w, offer, options, recommend))
    if how == "decline":
        w.say("user", r.choice(DECLINE))
        w.say("assistant", r.choice(("No problem.", "Okay, I'll leave it.")))
        return
    ord_, n = ORDINALS[pick], str(pick + 1)
    if pick == count - 1 and count > 2 and r.random() < 0.4:
        ord_ = "last"
    if pick == 1 and count == 3 and r.random() < 0.3:
        ord_ = "middle"
    if how == "ask":
        w.say("user", r.choice(ASK_ABOUT).format(ord=ord_))
        w.say("assistant", w.fill(r.choice(ANSWERS)))
        accept = r.choice(THEN)
    elif how == "position":
        accept = r.choice(BY_POSITION).format(ord=ord_, n=n)
    elif how == "handle":
        accept = r.choice(BY_HANDLE).format(h=options[pick].handle)
    elif how == "agree":
        accept = r.choice(AGREE)
    else:
        accept = r.choice(offer.change)
    confirm = w.say("user", accept)
    w.say("assistant", r.choice(offer.done))
    chosen = options[pick]
    rejected = tuple(o.value for i, o in enumerate(options) if i != pick)
    w.record(
        offer.kind, chosen.value, chosen.aliases, t, where, rejected=rejected, confirm_index=confirm
    )


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` accepted offers and about a third as many declined, among the chatter."""
    w = Writer(rng)
    declined = max(1, facts // 3)
    slots = pick_turns(rng, turns * 9 // 10, facts + declined, lo=2, gap=4)
    kinds = [True] * declined + [False] * facts
    rng.shuffle(kinds)
    plan = dict(zip(slots, kinds, strict=True))
    deck: list[Offer] = []
    for t in range(turns):
        w.begin()
        if t in plan:
            if not deck:
                deck = rng.sample(OFFERS, len(OFFERS))
            _turn(w, t, deck.pop(), plan[t])
        else:
            w.chatter()
    return w
