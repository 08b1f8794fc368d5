"""blind4-habits: diets, allergies, schedules, access needs and dislikes said in plain prose.

People rarely announce what they want a memory to keep. They mention that the house went
pescatarian in the spring, that Dad's knees mean step-free access, that they're up at 5:35
because of the dog, while asking about something else or chatting. None of the planted
sentences uses a cue word a rule could key on (:data:`BANNED`, checked by the tests); the
assistant answers without repeating the detail.
"""

from __future__ import annotations

from functools import partial

from evals.families.blind4.base import Convo, Slots, build, spread
from evals.families.blind4.chatter import Fresh, filler_turn
from evals.families.trajectories import Trajectory

__all__ = ["BANNED", "ITEMS", "generate"]

BANNED = (
    "i prefer",
    "prefer",
    "i always",
    "always",
    "my name is",
    "remember",
    "favourite",
    "favorite",
    "important",
    "keep in mind",
    "note that",
    "don't forget",
    "for future",
)
"""Cue words none of the planted sentences uses."""

WHO = ("my partner", "Dad", "my sister", "our eldest", "my mother-in-law", "my flatmate")

# (kind, values, sentences with {v} and optionally {who}, assistant replies)
ITEMS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "preference",
        ("pescatarian", "vegan", "vegetarian", "halal", "gluten-free", "low-FODMAP"),
        (
            "Before you suggest anything for Sunday lunch: the whole house went {v} back in the "
            "spring and, amazingly, it's stuck.",
            "{who} is coming to stay for a week and eats {v}, has done for about twenty years, "
            "so can we plan the food around that?",
            "Meal plan time again. We're {v} these days, so skip the stuff that doesn't fit.",
        ),
        (
            "Got it, I'll build the suggestions around that.",
            "Easy enough, there's loads that works. I'll plan around it.",
        ),
    ),
    (
        "preference",
        ("sesame", "tree nuts", "kiwi fruit", "shellfish", "mustard seed", "lupin flour"),
        (
            "Side note for the party food: {who} comes out in hives from anything with {v} in "
            "it, even a trace, so the caterer needs telling.",
            "We had to use the EpiPen last year because of {v}, so labels get read twice in "
            "this house.",
            "Can you check the bakery menu? Anything with {v} is out for me, I end up in A&E.",
        ),
        (
            "That's serious, I'll flag it with anything food-related.",
            "Understood. I'll check ingredients carefully on anything I suggest.",
        ),
    ),
    (
        "preference",
        (
            "Tuesday and Thursday evenings",
            "weekday mornings before school pickup",
            "Sunday afternoons",
            "alternate Fridays",
            "lunchtimes on Mondays",
        ),
        (
            "With the school run and the shifts, realistically the only time I've got for any "
            "of this is {v}.",
            "The gym thing has to fit {v}, anything else and it just won't happen, I know myself.",
            "Honestly {v} is the only window where the kids are sorted and I'm not working.",
        ),
        (
            "Then we'll fit everything into that window.",
            "Fair enough, I'll only look at slots that fit.",
        ),
    ),
    (
        "preference",
        (
            "step-free access",
            "a ground-floor room",
            "a lift to every floor",
            "a walk-in shower",
            "a hearing loop",
            "large-print menus",
        ),
        (
            "{who}'s knees are shot, so wherever we end up staying has to have {v}, no exceptions.",
            "One thing for the venue: {who} won't cope without {v}, so check that before we "
            "get attached to anywhere.",
            "Last time we booked somewhere without {v} and it was a disaster for {who}. Not again.",
        ),
        (
            "Right, I'll check that first with any place before suggesting it.",
            "Understood, I'll rule out anywhere that can't confirm it.",
        ),
    ),
    (
        "preference",
        ("coriander", "olives", "blue cheese", "mushrooms", "aniseed", "tinned tuna"),
        (
            "Just so you know, {v} is a hard no for me. Tastes like soap and regret.",
            "Whatever you find, leave out {v}. I pick it out of everything and it's a faff.",
            "The kids will eat most things, but put {v} anywhere near a plate and it's a strike.",
        ),
        (
            "Ha, fair. I'll leave it out of anything I suggest.",
            "No problem, there are plenty of recipes without it.",
        ),
    ),
    (
        "value",
        ("5:35", "5:20", "4:55", "6:05", "5:40"),
        (
            "I'm up at {v} most days because the dog has opinions, so early starts don't "
            "bother me at all.",
            "The alarm goes at {v} on weekdays, which means I'm useless after about nine at night.",
        ),
        (
            "Early bird by necessity, then. I'll plan with that in mind.",
            "Makes sense, I'll keep evening things short.",
        ),
    ),
    (
        "preference",
        ("decaf", "rooibos", "peppermint tea", "hot water with lemon"),
        (
            "Caffeine after lunch and I'm staring at the ceiling until 3am, so from midday it's "
            "{v} or nothing.",
            "If we meet at the café, get me a {v}. Doctor's orders after the palpitations thing.",
        ),
        (
            "Noted on the afternoon drinks, I'll bear it in mind for meetups.",
            "Will do.",
        ),
    ),
    (
        "preference",
        ("an aisle seat", "a window seat", "the front carriage", "a seat facing forward"),
        (
            "On anything longer than an hour I get twitchy unless I've got {v}, so pick that "
            "when you book.",
            "Travel sickness is a nightmare for me, {v} is the only thing that helps.",
        ),
        (
            "I'll select that whenever there's a choice.",
            "Understood, I'll pick seats accordingly.",
        ),
    ),
    (
        "value",
        ("£1,250", "£2,400", "£1,800", "£3,150"),
        (
            "Whatever we book for the summer, I'm not going over {v} all in. Last year got silly.",
            "Ceiling for the whole kitchen refit is {v}, and I mean it this time.",
        ),
        (
            "Sensible. I'll keep everything under that.",
            "Got it, I'll filter anything that goes past it.",
        ),
    ),
    (
        "value",
        ("17 degrees", "16.5 degrees", "19.5 degrees"),
        (
            "We keep the heating at {v} and wear jumpers, it's a whole thing in this house.",
            "The thermostat stays at {v}. Fight me. Energy bills are wild.",
        ),
        ("Fair, that's on the thrifty side but plenty with layers.", "Ha, understood."),
    ),
    (
        "preference",
        ("a quiet corner table", "a table away from the speakers", "a booth at the back"),
        (
            "My hearing aid goes haywire anywhere loud, so when you ring them ask for {v}.",
            "{who} can't follow a conversation over music, so it needs to be {v}.",
        ),
        ("I'll ask for that when I book.", "I'll request it."),
    ),
    (
        "preference",
        ("on a bus route", "walkable from the station", "near a tram stop"),
        (
            "I never learned to drive, so anything we plan has to be {v}.",
            "No car since the divorce, so the venue needs to be {v} or I'm stuck.",
        ),
        ("Good to know, I'll check the transport links.", "I'll check how you'd get there."),
    ),
    (
        "preference",
        ("renal biscuits", "a hypoallergenic diet", "wet food only"),
        (
            "The cat's on {v} now, vet's orders, so no more treats from the kids.",
            "Bramble had a bad turn, she's on {v} from now on. Cost a fortune.",
        ),
        ("Poor thing. Hope she perks up.", "Vet bills, ouch. Hope it helps."),
    ),
    (
        "value",
        ("6:20", "7:05", "6:55"),
        (
            "My thyroid tablet is at {v} on an empty stomach, so breakfast meetings are a pain.",
            "Insulin's at {v} every morning, so nothing before then can involve food.",
        ),
        ("Understood, I'll keep early bookings food-free.", "Makes sense."),
    ),
    (
        "preference",
        ("texts rather than calls", "emails, not phone calls", "voice notes"),
        (
            "Phone anxiety is real, so when the garage needs to reach me it's {v}, please.",
            "I'm deaf in my left ear and hopeless on the phone, so {v} for anything official.",
        ),
        ("I'll put that as the contact preference where I can.", "Got it."),
    ),
    (
        "preference",
        ("anything with lumps in", "mashed potato", "anything green"),
        (
            "Our youngest won't touch {v}, it's a texture thing, so plan the kids' menu round it.",
            "Fair warning, {who} gags at {v}. Not fussy, just can't.",
        ),
        ("Kids, eh. I'll work round it.", "Understood."),
    ),
)


ASIDES = (
    (
        "Anyway, what time does the big Tesco shut on a Sunday?",
        "Large stores in England can only open six hours on a Sunday, usually 10 till 4.",
    ),
    (
        "Also, is it worth getting the car jet-washed or just waiting for rain?",
        "Rain won't shift road salt or bird mess, so a wash is worth it now and then.",
    ),
    (
        "Separately, how long does a passport renewal take at the moment?",
        "Online renewals usually take about three weeks; allow longer before summer.",
    ),
    (
        "Unrelated, but how do you descale a kettle?",
        "Half fill it with equal parts water and white vinegar, boil, leave an hour, rinse well.",
    ),
)


def _episode(
    convo: Convo,
    f: Fresh,
    item: tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    value: str,
) -> None:
    kind, _, sentences, replies = item
    who = convo.rng.choice(WHO)
    sentence = convo.rng.choice(sentences).format(v=value, who=who)
    if sentence[0].islower():
        sentence = sentence[0].upper() + sentence[1:]
    reply = convo.rng.choice(replies)
    if convo.rng.random() < 0.4:  # said in passing, before a question about something else
        question, answer = convo.rng.choice(ASIDES)
        sentence += " " + question
        reply += " " + answer
    index = convo.user(sentence)
    convo.plant(kind, value, index)
    convo.say(reply)


def write(convo: Convo, turns: int, facts: int) -> None:
    f = Fresh(convo.rng)
    convo.system(
        "You are Pip, a friendly household assistant. Help with plans, cooking, errands and "
        "bookings; look things up with the tools when you can."
    )
    slots = Slots(turns)
    order = list(range(len(ITEMS)))
    convo.rng.shuffle(order)
    used: set[str] = set()
    for i, at in enumerate(spread(convo.rng, facts, turns)):
        item = ITEMS[order[i % len(order)]]
        value = convo.rng.choice([v for v in item[1] if v not in used])
        used.add(value)
        slots.put(at, partial(_episode, convo, f, item, value))
    slots.run(lambda: filler_turn(convo, f))


def generate(seed: int, *, turns: int = 660, facts: int = 20) -> Trajectory:
    """The ``blind4-habits`` conversation for ``seed``."""
    return build(
        "b4-habits",
        seed,
        lambda c: write(c, turns, facts),
        {"turns": turns, "facts": facts},
    )
