"""``blind3-passing``: facts said in passing inside longer messages about something else.

The user asks for help with one thing (scaling a recipe, a complaint letter, a packing list)
and mentions a fact on the way: a diet inside a recipe question, a deadline inside a complaint,
a name inside a rant about a repair. No cue words (:data:`BANNED`): nothing says "I prefer",
"my X is" or "remember". The assistant answers the request without repeating the fact.
"""

from __future__ import annotations

import json
import random

from evals.families.blind3.base import Conversation, date_value, smalltalk, spread

__all__ = ["BANNED", "write"]

BANNED = (
    "i prefer",
    "i always",
    "i never",
    "i hate",
    "i love",
    "i like",
    "favourite",
    "favorite",
    "remember",
    "note that",
    "my name is",
    "allergic",
    "important:",
    "fyi",
)
"""Cue phrases no planted message contains (lower-cased)."""

# (value, the sentence holding it, the request around it, the assistant's answer)
PREFERENCES = (
    (
        "peanuts",
        "Ravi can't be anywhere near peanuts since the hospital trip last spring, so the satay "
        "bit needs rethinking",
        "Could you turn this stir-fry into something for six? The recipe says four portions.",
        "For six, scale everything by one and a half and swap the sauce for a sesame-ginger one; "
        "it keeps the same cooking time.",
    ),
    (
        "decaf",
        "after lunch it's decaf or I'm staring at the ceiling until three",
        "I'm putting together an order from the roastery and can't decide between beans and "
        "ground.",
        "Whole beans keep longer once opened; ground is fine if it's used within two or three "
        "weeks.",
    ),
    (
        "aisle seat",
        "the last long-haul squashed against a window nearly finished off my knees, so an aisle "
        "seat this time or I'm not going",
        "Can you help me work out the connections for the Lisbon trip? There are three routings "
        "and they all look painful.",
        "The routing with the longer layover is the safer one: a missed 50-minute connection "
        "there means waiting until the next morning.",
    ),
    (
        "night shifts",
        "what with the night shifts running until April, my mornings are basically everybody "
        "else's evenings",
        "Can you sketch a weekly training plan for a 10k? Something that doesn't need a gym.",
        "Three runs a week is plenty to start: one easy, one with intervals and one longer, with "
        "a rest day between each.",
    ),
    (
        "oat milk",
        "there's only oat milk in our fridge these days since my partner's stomach gave up on "
        "the other stuff",
        "My pancakes keep coming out flat and rubbery. What am I doing wrong?",
        "Flat, rubbery pancakes usually mean an over-mixed batter or a pan that isn't hot "
        "enough; stir until just combined and let it rest ten minutes.",
    ),
    (
        "gluten",
        "half the table is off gluten since the coeliac diagnosis at Christmas",
        "I'm hosting a birthday lunch for twelve in a fortnight and need a menu that doesn't "
        "keep me in the kitchen.",
        "A big tray bake, two salads and a cold dessert made the day before would keep you out "
        "of the kitchen for most of it.",
    ),
    (
        "left-handed",
        "being left-handed, the bent shears in that kit are about as much use as a chocolate "
        "teapot",
        "Can you compare these two sewing starter kits for me? One is cheaper but has more bits "
        "in it.",
        "The cheaper kit pads its count with pins and bobbins; the other has a better seam "
        "ripper and a proper tape measure.",
    ),
    (
        "vertigo",
        "the glass walkway is off the table because of the vertigo, even looking at the photos "
        "is bad enough",
        "We've got one free day in Chicago and I'm trying to plan it without walking fifteen "
        "miles.",
        "Grouping the museum campus in the morning and the river cruise after lunch keeps the "
        "walking to a few short hops.",
    ),
    (
        "halal",
        "the butcher has to be halal because the in-laws are coming and it matters a lot to them",
        "I need a shopping list for a barbecue on Saturday, maybe twenty people if the weather "
        "holds.",
        "For twenty, plan on roughly 200 grams of meat a head, plenty of bread and two big "
        "salads, and double the ice.",
    ),
    (
        "ground floor",
        "Dad can't manage stairs at all anymore, so it's a ground floor room or nothing",
        "I'm looking for somewhere in the Lakes for a long weekend in the autumn, nothing fancy.",
        "Small guesthouses in the quieter villages are usually cheaper than the lakeside hotels "
        "and easier to park at.",
    ),
    (
        "cycle to work",
        "I cycle to work most days so the car hardly leaves the drive anyway",
        "Is it worth switching the car insurance to pay-per-mile? The renewal quote went up again.",
        "Pay-per-mile policies tend to come out cheaper below about 7,000 miles a year; above "
        "that a standard policy usually wins.",
    ),
    (
        "Mandarin",
        "the kids do Mandarin on Saturday mornings now, so anything before noon is out",
        "Can you help me find a swimming class for two kids, ages seven and nine, somewhere near "
        "Headingley?",
        "Most leisure centres run graded lessons after school and on weekend afternoons, and "
        "sessions fill up at the start of each term.",
    ),
)

NAMES = (
    "Ottoline Varga",
    "Desmond Achebe-Lund",
    "Perpetua Nakashima",
    "Lionel Okafor-Strand",
    "Wilhelmina Castellanos",
    "Bartholomew Inglis",
    "Zainab Ferreira-Holt",
    "Cosmo Abernathy",
    "Henrietta Oyelaran",
    "Florian Szabados",
)
NAME_FRAMES = (
    (
        "The boiler's packed in for the second time this month and the engineer the agency sent, "
        "{v}, just shrugged and said it's 'an old system'",
        "Can you help me write a firm email to the letting agency? I want it fixed properly, not "
        "patched.",
        "Here is a firm but polite draft: it lists both failures, asks for a permanent repair "
        "within a stated time and requests written confirmation.",
    ),
    (
        "The woman at the counter, {v} according to her badge, told me the form I'd filled in "
        "was the old version and sent me to the back of the queue",
        "I need to renew my passport and I've already wasted a morning. What actually needs to "
        "go in with the application?",
        "You need the completed current form, your old passport, two photos signed by a "
        "countersignatory if applying on paper, and the fee.",
    ),
    (
        "The quote came through from {v} at the kitchen place and it's nearly double the first one",
        "What's a reasonable amount to pay for fitting a kitchen? Not the units, just the labour.",
        "Fitting labour usually runs to a few thousand pounds for a standard kitchen, more if "
        "walls are moved or new circuits are needed.",
    ),
    (
        "The lad who came to read the meter, {v}, reckoned the reading they'd been estimating "
        "was way off, which explains the bill",
        "Can you explain how I dispute an estimated energy bill? They've been guessing for months.",
        "Send the supplier a dated photo of the meter with the reading, ask for the bill to be "
        "reissued on actuals, and keep a copy of everything.",
    ),
    (
        "The teacher, {v}, caught me at pick-up and said the project is meant to be a model, not "
        "a poster, which is news to everyone",
        "Help! My daughter needs to make a volcano for school and we have no idea where to start.",
        "A plastic bottle in the middle, papier-mache around it and baking soda with vinegar for "
        "the eruption will do the job in an afternoon.",
    ),
)

VALUE_FRAMES = (
    (
        "the alcove it has to fit is {v} wide, which rules out most of the big ones",
        "Which type of tumble dryer uses the least electricity?",
        ("1.37 metres", "0.94 metres", "2.08 metres", "1.62 metres"),
    ),
    (
        "we've got {v} left in the pot for it once the roof is paid for",
        "Can you suggest some ways to make a small bathroom feel bigger?",
        ("£2,340", "£1,875", "£3,160", "£4,410"),
    ),
    (
        "the dog is {v} now after the winter, so the vet's word was 'chunky'",
        "What are some decent walks near Hebden Bridge that take a couple of hours?",
        ("38 kg", "41 kg", "27 kg", "33 kg"),
    ),
    (
        "the loft measured {v} at the highest point when the surveyor came round",
        "Is it worth boarding the loft ourselves or getting someone in?",
        ("2.35 metres", "1.92 metres", "2.61 metres", "2.14 metres"),
    ),
    (
        "the car was on {v} miles at the last service and it's started making a grinding noise",
        "What does a grinding noise when braking usually mean?",
        ("87,412", "64,903", "112,356", "93,078"),
    ),
)

DATE_FRAMES = (
    (
        "the deposit has to be back in my account by {v} or the new place falls through",
        "The old landlord is ignoring my emails about the deposit. What are my options?",
    ),
    (
        "the funding application closes on {v} and nobody on the committee has read the draft",
        "Can you tighten this paragraph for me? It reads like a shopping list.",
    ),
    (
        "the warranty apparently ran out on {v}, which is just typical",
        "My washing machine is leaking from the bottom. Is that usually something I can fix "
        "myself?",
    ),
    (
        "the removal van turns up on {v} and half the flat isn't even in boxes yet",
        "What's the most sensible order to pack a flat in? I keep starting and stopping.",
    ),
    (
        "the visa appointment they gave us is {v}, at the far side of the city",
        "Can you make a checklist of documents for a family visa application?",
    ),
)

CODE_FRAMES = (
    (
        "the courier (tracking {v}, for what it's worth) claims they knocked, but I was sat "
        "right by the door",
        "I want to complain to the shop about a parcel that never turned up. How should I word it?",
    ),
    (
        "the council gave it a case number, {v}, and then nothing for five weeks",
        "There's a pothole on our road that has now wrecked two tyres. How do I claim for the "
        "damage?",
    ),
    (
        "the repair form had {v} printed at the top and the man said to keep hold of it",
        "My laptop's been at the repair shop for three weeks. What's a reasonable time before I "
        "push back?",
    ),
    (
        "the insurer's letter has {v} on it as the policy reference, which I only spotted "
        "yesterday",
        "How do I work out whether my contents insurance covers a bike stolen from the garden?",
    ),
)
_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def _code(rng: random.Random) -> str:
    letters = rng.choice(_LETTERS) + rng.choice(_LETTERS)
    return f"{letters}{rng.randint(2, 9)}-{rng.randint(10000, 99999)}"


def _message(rng: random.Random, request: str, sentence: str) -> str:
    openers = ("Morning!", "Ok so.", "Right.", "Hiya.", "Sorry, another one.", "")
    closers = (
        "Anyway, what do you reckon?",
        "Any ideas welcome, I'm running out of patience.",
        "Don't need an essay, just the main points.",
        "Cheers in advance.",
        "No rush on this.",
    )
    sentence = sentence[0].upper() + sentence[1:]
    parts = [rng.choice(openers), request, f"{sentence}.", rng.choice(closers)]
    if rng.random() < 0.5:
        parts[1], parts[2] = parts[2], parts[1]
    return " ".join(p for p in parts if p)


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """``turns`` turns of chat and errands, ``facts`` of them holding a fact said in passing."""
    conv = Conversation(
        "You are a friendly general-purpose assistant helping one person with everyday things."
    )
    kinds = ["preference", "name", "date", "value", "code"]
    plan = [kinds[i % len(kinds)] for i in range(facts)]
    rng.shuffle(plan)
    at = dict(zip(spread(rng, turns, facts), plan, strict=True))
    prefs = list(PREFERENCES)
    names = list(
        zip(
            rng.sample(NAMES, len(NAMES)),
            rng.sample(NAME_FRAMES * 2, 2 * len(NAME_FRAMES)),
            strict=False,
        )
    )
    values = rng.sample(VALUE_FRAMES, len(VALUE_FRAMES))
    dates = rng.sample(DATE_FRAMES, len(DATE_FRAMES))
    codes = rng.sample(CODE_FRAMES, len(CODE_FRAMES))
    rng.shuffle(prefs)
    count = {k: 0 for k in kinds}
    for turn in range(turns):
        kind = at.get(turn)
        if kind is None:
            _filler(conv, rng)
            continue
        i = count[kind]
        count[kind] += 1
        if kind == "preference":
            value, sentence, request, answer = prefs[i % len(prefs)]
            idx = conv.user(_message(rng, request, sentence))
            conv.assistant(answer)
            conv.plant("preference", value, idx)
        elif kind == "name":
            value, (sentence, request, answer) = names[i % len(names)]
            idx = conv.user(_message(rng, request, sentence.format(v=value)))
            conv.assistant(answer)
            conv.plant("name", value, idx)
        elif kind == "value":
            sentence, request, pool = values[i % len(values)]
            value = rng.choice(pool)
            idx = conv.user(_message(rng, request, sentence.format(v=value)))
            conv.assistant(
                "Happy to help with that. The short version: compare the running costs over a few "
                "years rather than the price on the tag, and check the reviews for reliability."
                if "?" in request
                else "Sure, here are a few ideas to start from."
            )
            conv.plant("value", value, idx)
        elif kind == "date":
            sentence, request = dates[i % len(dates)]
            date = date_value(rng)
            idx = conv.user(_message(rng, request, sentence.format(v=date.text)))
            conv.assistant(
                "That sounds stressful. The first step is to put everything in writing, with "
                "dates, "
                "and keep copies; then escalate one level at a time so there is a paper trail."
            )
            conv.plant("date", date.text, idx, aliases=date.aliases)
        else:
            sentence, request = codes[i % len(codes)]
            value = _code(rng)
            idx = conv.user(_message(rng, request, sentence.format(v=value)))
            conv.assistant(
                "Start with a short, dated message setting out what happened and what you want "
                "done, and give them a reasonable deadline to reply before you take it further."
            )
            conv.plant("code", value, idx)
    return conv


def _filler(conv: Conversation, rng: random.Random) -> None:
    user, answer = smalltalk(rng)
    conv.user(user)
    roll = rng.random()
    if roll < 0.25:
        city = rng.choice(("Leeds", "York", "Bristol", "Harrogate", "Sheffield"))
        days = [
            {
                "day": d,
                "high_c": rng.randint(4, 19),
                "low_c": rng.randint(-2, 8),
                "rain_mm": round(rng.random() * 9, 1),
            }
            for d in ("Mon", "Tue", "Wed", "Thu", "Fri")
        ]
        conv.tool(
            "get_forecast",
            {"city": city, "days": 5},
            json.dumps({"city": city, "daily": days}),
            lead="Let me check the forecast first.",
        )
        conv.assistant(
            f"{answer} The forecast for {city} looks changeable this week, so keep a coat handy."
        )
    elif roll < 0.4:
        q = rng.choice(("price comparison", "opening hours", "reviews"))
        hits = [
            {
                "title": f"{rng.choice(('Which?', 'MSE', 'Reddit', 'Trustpilot'))} - {q}",
                "snippet": f"Rated {rng.randint(2, 5)}/5 by {rng.randint(40, 900)} people; "
                f"typical spend £{rng.randint(5, 300)}.",
            }
            for _ in range(rng.randint(3, 5))
        ]
        conv.tool("web_search", {"query": q}, json.dumps({"results": hits}))
        conv.assistant(answer)
    else:
        conv.assistant(answer)
