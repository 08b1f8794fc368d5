"""Word pools and templates for the trajectory generator, kept apart from its logic.

Filler text never holds a person's name, a month, an upper-case code or a number of four or more
digits, so no planted value (an order code, a name, a date, a four-to-five digit amount) can occur
by chance outside the message it was planted in; the generator checks this on every trajectory.
``{v}`` in a template is where a planted value goes; other ``{slot}`` names are filled at random.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "ACKNOWLEDGEMENTS",
    "AFTER_TOOL_REPLIES",
    "ASSISTANT_DATE_TURNS",
    "ASSISTANT_OPENERS",
    "ASSISTANT_SENTENCES",
    "CARRIERS",
    "CITIES",
    "CODE_LETTERS",
    "CODE_TOOLS",
    "CONDITIONS",
    "CORRECTIONS",
    "CORRECTION_ITEMS",
    "FILLER_TOOLS",
    "FIRST_NAMES",
    "LAST_NAMES",
    "MONTHS",
    "PREFERENCES",
    "PRODUCTS",
    "REALISTIC_ASSISTANT",
    "REALISTIC_USER",
    "STORES",
    "SYSTEM_PROMPT",
    "TOOL_REQUESTS",
    "USER_FACT_TEMPLATES",
    "USER_REQUESTS",
    "VALUE_TOOLS",
    "WEEKDAYS",
    "Call",
    "fill",
]

Call = tuple[str, dict[str, Any], dict[str, Any]]
"""A tool call: function name, its arguments, and the result the tool returns."""


def _lines(block: str) -> tuple[str, ...]:
    """The non-blank lines of ``block``, stripped: one template per line."""
    return tuple(line.strip() for line in block.splitlines() if line.strip())


def _words(block: str) -> tuple[str, ...]:
    """The words of ``block``."""
    return tuple(block.split())


def _preferences(block: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Lines of ``value | sentence with {v} | alias; alias`` as ``(value, sentence, aliases)``."""
    rows = []
    for line in _lines(block):
        value, sentence, aliases = (part.strip() for part in line.split("|"))
        rows.append((value, sentence, tuple(a.strip() for a in aliases.split(";") if a.strip())))
    return tuple(rows)


SYSTEM_PROMPT = (
    "You are Nova, the support assistant of Larkspur Outfitters, an outdoor gear shop. Be concise "
    "and friendly, use the tools to look things up instead of guessing, and remember what the "
    "customer tells you about themselves."
)

FIRST_NAMES = _words(
    """
Ingrid Tobias Amara Desmond Yuki Ravi Solveig Mateo Oluwaseun Priya Henrik Leocadia
Bastian Imogen Kwame Thandiwe Casimir Elodie Fintan Grazyna Hamza Isolde Jovan Katarzyna
Lorcan Mirela Niamh Octavia Piotr Quentin Rosalind Svetlana Teodor Ulrike Valentin
"""
)
LAST_NAMES = _words(
    """
Okonkwo Halvorsen Castellanos Brightwater Nakamura Venkataraman Lindqvist Abernathy
Kowalczyk Delacroix Fairweather Gallagher Hadjipetrou Iwasaki Janssen Kirkpatrick Lombardi
Marchetti Nightingale Oyelaran Pellegrini Quartermaine Rasmussen Szymanski Thorvaldsen
Underhill Vasquez Whitlock
"""
)
MONTHS = _words(
    """
January February March April May June July August September October November December
"""
)
WEEKDAYS = _words(
    """
Monday Tuesday Wednesday Thursday Friday Saturday Sunday
"""
)
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"

PREFERENCES = _preferences(
    """
allergic to peanuts | Just so you know, I'm {v}, so no trail mix. | peanut allergy
lactose intolerant | I'm {v}, in case the freeze-dried meals have milk. | lactose intolerance
prefer aisle seats | For the shuttle booking, I always {v}. | aisle seat
vegan | I should mention I'm {v}, so leather boots are out for me. |
left-handed | I'm {v}, if that matters for the knife sheath. | left handed
afraid of heights | Honestly I'm {v}, so no via ferrata routes please. | fear of heights
colour-blind | I'm {v}, so describe colours by name. | colour blind; color-blind; color blind
allergic to latex | Oh, and I'm {v}, so check the glove material. | latex allergy
prefer email over phone calls | Please note that I {v} for any follow-ups. |
size 46 in boots | I'm a {v}, European sizing. | size 46
gluten-free | My partner and I eat {v}, so keep that in mind for the snack packs. | gluten free
training for a marathon in the autumn | I'm {v}, so comfort matters more than looks. | marathon
vision in one eye only | I have {v}, so night headlamps need to be really bright. |
no plastic packaging | I'd like {v} please, it's a personal thing. |
a wheelchair user | I'm {v}, so accessible trails only. | wheelchair
hate bright orange | I really {v}, so any other colour is fine. | bright orange
sensitive to wool | My skin is {v}, so synthetic base layers only. |
prefer metric units | I {v}, kilometres and kilograms please. | metric units
travelling with a large dog | I'm {v}, so pet-friendly campsites matter. | large dog
deaf in my left ear | I'm {v}, so please keep things in writing. | deaf
allergic to bee stings | I'm {v}, so I'll need an epinephrine pouch too. | bee sting allergy
diabetic | I'm {v}, so the glucose gel packs are a must. | diabetes
kosher diet | I keep a {v}, so check the meal kits. | kosher
prefer morning deliveries | I {v}, I'm out most afternoons. | morning delivery
pregnant | I'm {v}, so nothing too strenuous for the next few months. | pregnancy
asthmatic | I'm {v}, so dusty trails are a problem. | asthma
night shift worker | I'm a {v}, so any calls have to be after lunch. | night shift
never fly budget airlines | I {v}, so skip those in the travel options. | budget airlines
allergic to shellfish | I'm {v}, so no seafood in the group dinner order. | shellfish allergy
prefer recycled fabrics | I {v} whenever there's an option. | recycled fabric
"""
)
PRODUCTS = _lines(
    """
trail runner
rain shell
down jacket
day pack
camp stove
merino base layer
trekking pole set
sleeping pad
two-person tent
water filter
headlamp
gaiter set
"""
)
CITIES = ("Lisbon", "Bergen", "Valencia", "Ljubljana", "Porto", "Innsbruck", "Galway", "Krakow")
STORES = ("downtown", "riverside", "airport", "harbour", "old town")
CARRIERS = ("DHL", "UPS", "the postal service", "GLS", "a local courier")
CONDITIONS = ("light rain", "sunny", "overcast", "windy", "scattered showers", "fog")

_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "product": lambda r: r.choice(PRODUCTS),
    "product2": lambda r: r.choice(PRODUCTS),
    "city": lambda r: r.choice(CITIES),
    "store": lambda r: r.choice(STORES),
    "carrier": lambda r: r.choice(CARRIERS),
    "n": lambda r: str(r.randint(2, 9)),
    "price": lambda r: f"{r.randint(15, 480)}.{r.choice((0, 49, 95, 99)):02d}",
}
_SLOT = re.compile(r"\{(" + "|".join(_SLOTS) + r")\}")


def fill(template: str, rng: random.Random) -> str:
    """``template`` with every known ``{slot}`` filled at random; ``{v}`` is left alone."""
    return _SLOT.sub(lambda m: _SLOTS[m.group(1)](rng), template)


USER_REQUESTS = _lines(
    """
Does the {product} come in a wider fit?
How waterproof is the {product} really? I'll be out in the rain a lot.
Can you compare the {product} with the {product2} for me?
thanks, that's helpful
ok cool
haha fair enough
Can you make that shorter? I'm on my phone.
one sec, my cat just knocked over my coffee
What's your return policy on used gear?
Is there a student discount?
Would the {product} be overkill for a weekend trip?
Sorry, I got distracted. Where were we?
Do you price match other shops?
Is the {product} worth it at {price}?
How do I clean the {product} without ruining it?
Can I pick things up at the {store} store instead of shipping?
"""
)
ASSISTANT_OPENERS = _lines(
    """
Sure thing.
Happy to help with that.
Good question.
Thanks for your patience.
Of course.
No problem at all.
Great, let's sort that out.
Absolutely.
"""
)
ASSISTANT_SENTENCES = _lines(
    """
Most customers find the {product} fits true to size, though the {product2} runs narrow.
If you'd like, I can compare a few options side by side before you decide.
Shipping usually takes {n} business days depending on the carrier.
You can change this later from your account settings.
The {product} is one of our best sellers this season, mostly for its weight.
Returns are free within {n} weeks as long as the tags are still on.
I'd avoid machine drying it, since the heat can damage the coating.
The {store} store keeps a small stock of the {product}, so a pickup is often faster.
Our staff can also check the fit in person if you prefer.
That model was updated recently, so older reviews may not apply.
For wet conditions, a membrane jacket plus gaiters is usually enough.
Let me know if you want me to set a reminder for any of this.
Prices can shift during sales, so it's worth checking again before you order.
The {product2} pairs well with it if you're building a full kit.
"""
)
ACKNOWLEDGEMENTS = _lines(
    """
Noted, I'll keep that in mind for everything we look at.
Thanks for telling me, I'll take it into account.
Got it, that's useful to know.
Understood, I'll factor that in from now on.
"""
)
AFTER_TOOL_REPLIES = _lines(
    """
I've checked that for you and everything looks in order. Anything else?
Done, the details are in the system now. Want me to look into anything else?
All set on my side. Shall we move on to the next thing?
That went through fine. Let me know if you need more detail.
"""
)


def _weather(r: random.Random) -> Call:
    city = r.choice(CITIES)
    return (
        "get_weather",
        {"city": city},
        {"city": city, "temp_c": r.randint(-5, 31), "conditions": r.choice(CONDITIONS)},
    )


def _store_hours(r: random.Random) -> Call:
    store = r.choice(STORES)
    return (
        "get_store_hours",
        {"store": store},
        {"store": store, "open": f"0{r.randint(7, 9)}:00", "close": f"{r.randint(17, 21)}:00"},
    )


def _track(r: random.Random) -> Call:
    return (
        "track_shipment",
        {"which": "latest"},
        {
            "carrier": r.choice(CARRIERS),
            "status": r.choice(("in transit", "out for delivery", "at depot")),
            "eta_days": r.randint(1, 6),
        },
    )


def _search(r: random.Random) -> Call:
    product = r.choice(PRODUCTS)
    hits = [
        {
            "name": f"{product} {v}",
            "price": float(f"{r.randint(20, 399)}.95"),
            "in_stock": r.random() < 0.7,
        }
        for v in r.sample(("lite", "pro", "classic", "x"), 2)
    ]
    return ("search_products", {"query": product}, {"results": hits})


def _stock(r: random.Random) -> Call:
    product, store = r.choice(PRODUCTS), r.choice(STORES)
    return (
        "check_stock",
        {"product": product, "store": store},
        {"product": product, "store": store, "units": r.randint(0, 40)},
    )


FILLER_TOOLS: tuple[Callable[[random.Random], Call], ...] = (
    _weather,
    _store_hours,
    _track,
    _search,
    _stock,
)
TOOL_REQUESTS: tuple[tuple[str, Callable[[random.Random], Call]], ...] = (
    ("What's the weather looking like for my trip this weekend?", _weather),
    ("When does the {store} store close today?", _store_hours),
    ("Where's my latest package?", _track),
    ("Can you find me a {product} under {price}?", _search),
    ("Is the {product} in stock anywhere near me?", _stock),
)


def _ticket(r: random.Random, code: str) -> Call:
    return (
        "create_ticket",
        {"subject": f"faulty {r.choice(PRODUCTS)}", "priority": "normal"},
        {"ticket_id": code, "status": "open", "queue": "returns"},
    )


def _reservation(r: random.Random, code: str) -> Call:
    return (
        "reserve_item",
        {"product": r.choice(PRODUCTS), "store": r.choice(STORES)},
        {"reservation": code, "hold_days": r.randint(2, 5)},
    )


def _return_label(r: random.Random, code: str) -> Call:
    return (
        "create_return",
        {"reason": "wrong size"},
        {"rma_number": code, "carrier": r.choice(CARRIERS), "label": "sent by email"},
    )


CODE_TOOLS: tuple[tuple[str, Callable[[random.Random, str], Call]], ...] = (
    ("The zip on my {product} broke after two weeks. Can you open a ticket?", _ticket),
    ("Could you put a {product} on hold for me at the {store} store?", _reservation),
    ("The {product} is too small, I'd like to send it back.", _return_label),
)


def _balance(r: random.Random, value: float) -> Call:
    return (
        "get_gift_card_balance",
        {"card": "primary"},
        {"card": "primary", "balance": value, "currency": "EUR"},
    )


def _points(r: random.Random, value: float) -> Call:
    return ("get_loyalty_account", {}, {"tier": r.choice(("silver", "gold")), "points": value})


def _invoice(r: random.Random, value: float) -> Call:
    return (
        "get_company_invoice",
        {"which": "latest"},
        {"status": "unpaid", "total": value, "currency": "EUR", "due_in_days": r.randint(7, 30)},
    )


def _distance(r: random.Random, value: float) -> Call:
    return (
        "get_activity_stats",
        {"period": "this year"},
        {"activities": r.randint(20, 90), "distance_km": value},
    )


VALUE_TOOLS: tuple[tuple[str, Callable[[random.Random, float], Call]], ...] = (
    ("How much is left on my gift card?", _balance),
    ("How many loyalty points do I have?", _points),
    ("What does our company account owe on the latest invoice?", _invoice),
    ("How far have I gone this year according to the app you sync with?", _distance),
)

USER_FACT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "code": (
        "My order number is {v}, and it still hasn't shipped.",
        "The reference on the email you sent me is {v}, does that help?",
        "I think the booking code was {v}, can you check the {product} is included?",
    ),
    "name": (
        "Please address the parcel to my colleague {v}, she handles our team orders.",
        "My manager {v} has to approve anything over the budget.",
        "Put the fitting appointment under the name {v}, that's my brother.",
        "If I'm not reachable, you can talk to {v} about the order.",
    ),
    "date": (
        "I'm leaving for the hike on {v}, so I need everything before then.",
        "The group trip is on {v}, can the {product} arrive in time?",
        "My membership renews on {v}, remind me if there's a deal before that.",
    ),
}
ASSISTANT_DATE_TURNS: tuple[tuple[str, str], ...] = (
    (
        "Can you book a repair for my {product}?",
        "I've booked the repair drop-off at the {store} store for {v}, any time before noon.",
    ),
    (
        "When can someone fit my boots properly?",
        "The next free fitting slot is on {v}; I've reserved it for you.",
    ),
    (
        "Is there a workshop on waxing jackets?",
        "Yes, the next waxing workshop is on {v} at the {store} store, and I've signed you up.",
    ),
)


# -- realistic filler: ordinary chatter dense with numbers, codes, dates and names -------------
# Each slot is filled with a fresh value (never a planted fact's), so a summarizer cannot tell
# planted facts from filler by the mere presence of a number, a code, a date or a name.

REALISTIC_USER = _lines(
    """
My neighbour {name} bought the {product} in {month} and paid about {num} for it.
I still have the old receipt, number {code}, somewhere in a drawer.
We did a {num2} km hike with {name} on {date} and my feet were fine.
My last order {code} took {num2} days, which was ok I guess.
The forecast says {num2} degrees on {date}, so maybe I'll wait.
{name} from work said the {store} store closes at {time} on weekdays.
I saw a video where {name} tested it at minus {num2} degrees.
My brother is {num2} and wants the same one, but he's not sure about the brand.
"""
)
REALISTIC_ASSISTANT = _lines(
    """
Batch {code} of the {product} was restocked on {date}.
The {product} weighs about {num} grams in its {num2}-litre version.
Our {store} store had {num2} units on {date}, according to the last count.
Reviewer {name} gave the {product} {num2} out of 10 after a {num2}-day test.
The warranty line, {code}, is open until {time} on weekdays.
A similar order, {code}, shipped in {num2} days last month.
"""
)

# -- corrections: a value stated, then replaced --------------------------------------------------
# (first statement, correction): the same subject, a new value. ``{item}`` is filled once per
# pair; ``{v}`` is the value.

CORRECTIONS: tuple[tuple[str, str], ...] = (
    (
        "My budget for the {item} is {v} pounds.",
        "Actually, my budget for the {item} is now {v} pounds.",
    ),
    (
        "Please deliver the {item} to unit {v} of my building.",
        "Sorry, wrong unit earlier: the {item} should go to unit {v}.",
    ),
    (
        "We need {v} of the {item} for the group trip.",
        "Update: we now need {v} of the {item} for the group.",
    ),
    (
        "My loyalty number for the {item} warranty is {v}.",
        "I made a mistake, my loyalty number for the {item} warranty is {v}.",
    ),
    (
        "The {item} should arrive before room {v} is free.",
        "Change of plan: the {item} should arrive before room {v} is free.",
    ),
)
CORRECTION_ITEMS = (
    "tent",
    "sleeping bags",
    "stove",
    "kayak",
    "boots",
    "backpacks",
    "headlamps",
    "trekking poles",
)
