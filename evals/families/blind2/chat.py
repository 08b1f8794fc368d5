"""Tastes, habits and personal facts said in passing, in plain prose, some of them changed later.

Plants ``facts`` facts: ``facts - revised`` first statements (one per topic: a coffee order, a
seat, a diet, an allergy, a dog's name, a partner's name, when the user gets focused work
done, a shoe size, the supermarket, what the user goes by...), each folded into a message of
small talk before or after it, with no word that announces a preference (``CUES`` lists the
ones a rule could key on, and none occurs in a planted message); then ``revised`` of them
(a fifth, at least 1) said again later with a new value, in words that do not repeat the old
one ("My stomach gave up on that. It's a cortado these days."). Each revision is a fact
whose ``stale`` is the first value; the first value is no longer asked about from there on.
The assistant answers the small talk and never repeats the value. Scored by the trajectories
runner: kind ``preference`` (or ``name``/``value`` for names and sizes) in view after 1, 3 and
10 reductions and at the end; the revisions also in ``stale``, ``stale unmarked`` and ``stale
only``.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass

from evals.families.blind2.base import FIRST, LAST, Writer, pick_turns
from evals.families.facts import FactKind

__all__ = ["CUES", "TOPICS", "write"]

CUES = re.compile(
    r"\b(prefer|prefers|preferred|preference|preferences|favou?rite|always|never|love|loves|"
    r"hate|hates|like|likes|dislike\w*|"
    r"remember|note|noted|for the record|fyi|important|can't stand|my go-to|rather)\b",
    re.IGNORECASE,
)
"""Words a rule could take for a stated preference; no planted message uses one."""


@dataclass(frozen=True)
class Topic:
    """Something about the user: values to draw, ways of saying it, ways of changing it."""

    name: str
    kind: FactKind
    values: tuple[str, ...]
    say: tuple[str, ...]
    change: tuple[str, ...]


TOPICS = (
    Topic(
        "coffee", "preference",
        ("cortado", "flat white with oat milk", "decaf americano", "macchiato", "iced long black",
         "chai latte with soya"),
        ("Grabbed a {v} on the way in, it's the only thing that gets me through a Monday.",
         "The new café does a proper {v}, so that's my morning sorted for the foreseeable.",
         "I'm a {v} person, the barista doesn't even ask any more."),
        ("The coffee thing's changed, my stomach gave up on the old one. It's a {v} these days.",
         "New coffee order since the trip: {v}. Don't ask."),
    ),
    Topic(
        "seat", "preference",
        ("aisle seat", "window seat", "bulkhead row", "seat facing forwards"),
        ("Last flight I was wedged in the middle for four hours. {v} or I'm not getting on.",
         "I get so fidgety on trains, if it's not the {v} I'm up and down the whole journey."),
        ("Since the knee thing, the {v} is the one to book for me, whatever I said before.",
         "Bit of a rethink on seats after that last trip, it'll be the {v} from now on."),
    ),
    Topic(
        "diet", "preference",
        ("pescatarian", "vegetarian on weekdays", "dairy-free", "gluten-free", "no red meat"),
        ("Mum's doing a roast on Sunday and I'll have to explain again that I'm {v} now.",
         "Work's Christmas menu came round, and being {v} my choice is basically a sad risotto."),
        ("Doctor's changed what I'm eating, I'm {v} as of this month.",
         "Update on the food front, I've gone {v}. {pal} thinks it won't last."),
    ),
    Topic(
        "allergy", "preference",
        ("penicillin", "sesame", "latex", "shellfish", "ibuprofen", "tree nuts"),
        ("The new dentist's form asked about allergies, {v}, same answer as the last ten forms.",
         "Ended up in A&E at uni because of {v}, so I check every label twice."),
        ("The allergy clinic redid the tests, it's actually {v}, the old result was wrong.",),
    ),
    Topic(
        "dog", "name",
        ("Pickle", "Admiral Biscuit", "Bramble", "Captain Wellington", "Noodle", "Sir Reginald"),
        ("Our rescue dog is called {v} and he has already eaten a slipper.",
         "{v} rolled in fox poo again, so that's my evening gone. Dogs."),
        ("We renamed the dog in the end, he's {v} now, he answers to it better.",),
    ),
    Topic(
        "partner", "name", (),
        ("{v} and I have been together eleven years and still can't agree on a dishwasher.",
         "My other half, {v}, is away at a conference all week, so it's just me and the kids."),
        (),
    ),
    Topic(
        "focus", "preference",
        ("Tuesday mornings", "late evenings", "first thing before eight", "Friday afternoons"),
        ("Anything hard I leave for {v}, the rest of the week is meetings and noise.",
         "Honestly {v} is when my brain works, I'm useless the rest of the time."),
        ("Since the new rota, {v} is when I get the real work done, so protect that time.",),
    ),
    Topic(
        "shoes", "value",
        ("EU 43", "size 7 and a half", "UK 9 wide fit", "EU 38"),
        ("Trainers in the sale and not a single pair in {v}, typical.",
         "I'm {v}, which apparently nobody stocks in anything but beige."),
        ("Got measured properly at last, I'm {v}, I've been squashing my feet for years.",),
    ),
    Topic(
        "shop", "preference",
        ("Waitrose", "Lidl", "Ocado", "the Co-op on Mill Lane", "Sainsbury's"),
        ("{v} was the only delivery that came on time all month, so the food shop goes there.",
         "We do the big shop at {v}, it's near {pal}'s and the car park isn't a war zone."),
        ("We've moved the food shop over to {v}, the old one kept substituting everything.",),
    ),
    Topic(
        "nickname", "name",
        ("Bex", "Jojo", "Kit", "Mags", "Teddy"),
        ("Everyone at work calls me {v}, the full name is for the tax office and my mother.",
         "Sign anything you write for me as {v}, nobody's used my full name since school."),
        (),
    ),
    Topic(
        "travel", "preference",
        ("the sleeper train", "driving up overnight", "the coach", "the ferry from Liverpool"),
        ("Flying to Scotland is out since the panic attack, so {v} it is, however long it takes.",
         "We did {v} last time and the kids thought it was an adventure, so same again."),
        ("Scrap the old plan for getting north. {v} this time, the kids are older now.",),
    ),
    Topic(
        "music", "preference",
        ("brown noise", "Radio 3", "film soundtracks", "lo-fi beats", "whale song"),
        ("I can't write a word without {v} on in the headphones, silence is worse.",
         "The office was loud again, had {v} going for six hours straight just to cope."),
        ("Gone off the old work soundtrack completely. It's {v} in the headphones now.",),
    ),
    Topic(
        "car", "preference",
        ("the blue Skoda", "the electric Fiat", "the old Land Rover", "the van"),
        ("Leave the Volvo for {pal}, I'm taking {v} to the tip on Saturday, the boot's bigger.",
         "For the school run it's {v}, the Volvo can't fit three car seats."),
        ("We sold the Volvo, so anything that needs a car, it's {v}.",),
    ),
    Topic(
        "exercise", "preference",
        ("cold-water swimming", "bouldering", "parkrun", "spin classes", "tai chi"),
        ("Back aches a lot less since I took up {v}. Who knew.",
         "Did {v} with {pal} at seven and I feel brand new."),
        ("Gave up on the old exercise, the knee again. It's {v} now, three times a week.",),
    ),
    Topic(
        "tea", "preference",
        ("builder's tea, two sugars", "Earl Grey, no milk", "peppermint tea", "rooibos"),
        ("Whoever does the tea round at work finally knows: {v}. Took them two years.",),
        ("Cut the sugar out, so tea's {v} now, tell anyone who asks.",),
    ),
    Topic(
        "gp", "name", (),
        ("Saw {v} at the surgery, the only GP there who actually listens.",
         "Booked in with {v} again, she's the one who sorted my thyroid."),
        ("{v} has taken over my care now, the other one retired.",),
    ),
    Topic(
        "bedtime", "preference",
        ("lights out by ten", "up at half five", "no screens after nine"),
        ("{v} is the rule in this house since the baby, otherwise everyone's a wreck.",),
        ("New house rule since the clocks changed: {v}.",),
    ),
    Topic(
        "cinema", "preference",
        ("the back row", "subtitled screenings", "the Tuesday matinee", "IMAX"),
        ("If we go to the pictures it has to be {v}, {pal} talks through everything otherwise.",),
        ("Tried it the other way last week and it was awful, so {v} from here on.",),
    ),
)  # fmt: skip

SMALL = (
    "{pal} rang at {clock} to moan about her landlord for the third time this week.",
    "The recycling didn't get collected again.",
    "Kids are off school on {day} for some training day nobody told us about.",
    "Bit of a grey one here, {deg} degrees and drizzly.",
    "Had {count} emails waiting when I got back from lunch.",
    "I've been up since {clock}, so forgive the typos.",
    "The plumber's coming {day}, fingers crossed.",
)
REPLIES = (
    "Ha, that sounds like a week. Anything you need from me for {day}?",
    "Oh dear. I hope the rest of the day is calmer.",
    "Understood.",
    "Makes sense.",
    "Poor you. The forecast says {deg} degrees tomorrow, a little better.",
    "Ok. Shout if you want me to sort anything.",
    "Fair enough!",
)


def _value(w: Writer, topic: Topic) -> str:
    if topic.values:
        return w.choose(topic.values)
    if topic.name == "gp":
        return w.fresh(lambda: (f"Dr {w.rng.choice(LAST)}", ()))[0]
    return w.fresh(lambda: (f"{w.rng.choice(FIRST)} {w.rng.choice(LAST)}", ()))[0]


def _message(w: Writer, sentence: str) -> str:
    """``sentence`` among 0-2 sentences of small talk, before or after it."""
    r = w.rng
    around = [w.fill(s) for s in r.sample(SMALL, r.randint(0, 2))]
    at = r.randint(0, len(around))
    parts = [*around[:at], sentence, *around[at:]]
    return " ".join(parts)


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` facts: first statements on as many topics, a fifth of them (>= 1) revised."""
    revised = max(1, facts // 5)
    first = facts - revised
    if first > len(TOPICS):
        raise ValueError(f"chat-preferences has {len(TOPICS)} topics, got {first} first statements")
    w = Writer(rng)
    topics = rng.sample(TOPICS, first)
    changeable = [i for i, t in enumerate(topics) if t.change]
    if len(changeable) < revised:
        raise ValueError(f"only {len(changeable)} drawn topics can change, need {revised}")
    firsts = pick_turns(rng, turns * 3 // 5, first, lo=2, gap=5)
    rng.shuffle(firsts)
    plan: dict[int, tuple[str, int]] = {t: ("say", i) for i, t in enumerate(firsts)}
    for i in rng.sample(changeable, revised):  # 25 to 150 turns after the first statement
        at = min(firsts[i] + rng.randint(25, 150), turns - 12)
        while at in plan:
            at = at + 1 if at + 1 < turns - 11 else firsts[i] + 25
        plan[at] = ("change", i)
    fact_of: dict[int, int] = {}
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None and rng.random() < 0.25:  # the same small talk, with nothing planted
            w.say("user", " ".join(w.fill(x) for x in rng.sample(SMALL, rng.randint(1, 3))))
            w.say("assistant", w.fill(rng.choice(REPLIES)))
            continue
        if step is None:
            w.chatter()
            continue
        what, i = step
        topic = topics[i]
        value = _value(w, topic)
        said = w.fill(rng.choice(topic.say if what == "say" else topic.change), v=value)
        if said.startswith(value) or f". {value}" in said:  # a sentence starts with a capital
            upper = value[0].upper() + value[1:]
            said, value = said.replace(value, upper), upper
        where = w.say("user", _message(w, said[0].upper() + said[1:]))
        w.say("assistant", w.fill(rng.choice(REPLIES)))
        if what == "say":
            w.record(topic.kind, value, (), t, where)
        else:
            old = w.facts[fact_of[i]]
            w.facts[fact_of[i]] = dataclasses.replace(old, until=where)
            w.record(
                topic.kind, value, (), t, where, stale=old.value, stale_index=old.message_index
            )
        fact_of[i] = len(w.facts) - 1
    return w
