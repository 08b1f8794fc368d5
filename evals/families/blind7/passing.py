"""``blind7-passing``: personal details said in passing, inside a message about something else.

A nurse who works shifts and raises two children asks for help with letters, rotas, parties
and forms; on the way she mentions a detail of her life (a diet, a body, a pet, the family,
the flat) without a cue word, as a clause in the middle of the request, as two short sentences
("Back on night shifts from tomorrow. So nothing before noon."), or as a fragment hung on the
front or back of it ("What with the vertigo, ..."). The fact is the detail's key words.
"""

from __future__ import annotations

import functools

from evals.families.blind6.base import run, spread
from evals.families.blind7.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["BANNED", "DETAILS", "generate"]

SYSTEM = "You are a helpful assistant for a busy nurse and parent. Be practical and kind."

BANNED = (
    "prefer", "always", "never", "hate", "love", "favourite", "favorite", "remember",
    "usually", "by the way", "btw", "fyi", "heads up", "just so you know", "keep in mind",
    "bear in mind", "note", "don't forget", "for the record", "allerg", "i like", "can't stand",
    "rather", "tend to", "important", "every time", "make sure", "for future", "from now on",
)  # fmt: skip
"""Cue words no planting message holds (lower-cased substrings)."""

DETAILS: tuple[tuple[str, str, str, str], ...] = (
    # (value, clause, two short sentences, fragment)
    ("night shifts", "seeing as I'm on night shifts till the end of the month",
     "Back on night shifts from tomorrow. So nothing before noon.",
     "With me being on night shifts again"),
    ("coeliac", "given my youngest is coeliac and can't touch ordinary bread",
     "Youngest is coeliac. So no ordinary bread or cake for her.",
     "What with the little one being coeliac"),
    ("sold the car", "since we sold the car and do everything by bus and bike now",
     "We sold the car in the spring. So it all has to be reachable by bus.",
     "Now that we've sold the car"),
    ("penicillin", "and with penicillin putting me in hospital last time",
     "Last course of penicillin put me in hospital. So that one's off the table for me.",
     "After what penicillin did to me"),
    ("left-handed", "and as a left-handed person half the scissors at work are useless to me",
     "I'm left-handed. Most kit on the ward is built the other way round.",
     "Being left-handed and all"),
    ("tinnitus", "though my tinnitus makes noisy cafés a misery",
     "My tinnitus has been bad lately. Loud places are out.",
     "With the tinnitus flaring up"),
    ("shellfish", "and my husband swells up at the sight of shellfish",
     "Husband reacts to shellfish. Badly.",
     "Because of my husband and shellfish"),
    ("wheelchair", "now that my dad's in a wheelchair full time",
     "Dad's in a wheelchair now. Steps are a real problem.",
     "With Dad in a wheelchair these days"),
    ("no lift", "as we're right at the top of the building with no lift",
     "Top floor, no lift. Anything heavy is a nightmare.",
     "Living up top with no lift"),
    ("Welsh-medium", "since both kids are at a Welsh-medium school",
     "Both kids go to a Welsh-medium school. My help with homework is limited.",
     "With the kids in Welsh-medium education"),
    ("greyhound", "and the greyhound can't be left on her own more than a few hours",
     "We've got a rescue greyhound. She can't be left long.",
     "Because of the greyhound"),
    ("migraines", "and with my migraines bright screens late on are a bad idea",
     "I get migraines from bright screens. So paper is easier for me.",
     "Thanks to the migraines"),
    ("decaf", "and it's decaf only for me after midday or I'm up for hours",
     "Switched to decaf after midday. Otherwise no sleep.",
     "Being on decaf after midday"),
    ("dyslexic", "seeing as my eldest is dyslexic and long letters go straight over his head",
     "My eldest is dyslexic. Short and clear works, long letters don't.",
     "With my eldest being dyslexic"),
    ("wasp stings", "and given my daughter ended up in A&E from wasp stings",
     "Daughter had a bad reaction to wasp stings. Picnics make me nervous.",
     "Since the business with my daughter and wasp stings"),
    ("lactose", "and as lactose wrecks my stomach",
     "Me and lactose don't get on. Oat milk in everything.",
     "With lactose off the menu for me"),
    ("vertigo", "though my vertigo rules out anything high up",
     "I get vertigo. Ladders and balconies are a no.",
     "What with the vertigo"),
    ("halal", "since my partner eats halal only",
     "Partner eats halal. So the meat has to come from the right butcher.",
     "With my partner eating halal"),
    ("asthma", "and my son's asthma flares up in cold air",
     "Son has asthma. Cold mornings set it off.",
     "Because of my son's asthma"),
    ("alternate weekends", "since the kids are at their dad's alternate weekends",
     "Kids go to their dad's alternate weekends. So those ones are free for me.",
     "With the kids away alternate weekends"),
    ("hearing aid", "and since getting a hearing aid calls are hard work",
     "Got a hearing aid last year. Calls are tricky, messages are easier.",
     "Now that I've got a hearing aid"),
    ("peanuts", "because my nephew can't be anywhere near peanuts",
     "Nephew reacts to peanuts. Even traces.",
     "With my nephew and peanuts"),
    ("contact lenses", "and with contact lenses the air conditioning dries my eyes out",
     "I wear contact lenses. Dry air kills them.",
     "Since switching to contact lenses"),
    ("vegan", "seeing as my sister's gone vegan",
     "My sister's vegan now. Strictly.",
     "With my sister being vegan now"),
    ("bad knee", "though my bad knee won't do stairs in a hurry anymore",
     "I've got a bad knee. Stairs are slow.",
     "Thanks to the bad knee"),
    ("sign language", "and since my brother's deaf we mostly use sign language at home",
     "My brother's deaf. We use sign language at home.",
     "With sign language being how we talk at home"),
    ("teetotal", "given I'm teetotal",
     "Haven't had a drink in years, fully teetotal now. So no wine gifts.",
     "Me being teetotal"),
    ("twins", "and with the twins starting nursery soon",
     "The twins start nursery soon. Mornings will be chaos.",
     "With the twins about to start nursery"),
    ("camper van", "since our holidays are all in the camper van",
     "We holiday in the camper van. Sites need a hookup.",
     "As we only go away in the camper van"),
    ("insulin", "since my son is on insulin and needs snacks to hand",
     "My son's on insulin. Snacks have to be to hand.",
     "With my son on insulin"),
)  # fmt: skip
"""Details of a life, each with its key words (the value) and three ways of saying it."""

HOSTS: tuple[tuple[str, str], ...] = (
    ("can you help me draft a message to the other parents about sharing the school run",
     "and it has to sound friendly and not desperate because last time nobody answered for "
     "days and I ended up doing it all"),
    ("I need a shopping list for a week of dinners that'll survive being reheated",
     "nothing that needs more than twenty minutes of hands-on work because I get in "
     "shattered and the kids are starving"),
    ("could you look over this email to the ward manager asking to swap a block of shifts",
     "I want it polite but clear that I can't just keep covering, and I don't want it to "
     "read like a complaint"),
    ("what's a realistic plan for my son's birthday party with about a dozen kids",
     "I was thinking a park and a picnic but I've no idea what to do if it rains and the "
     "budget is tight this year"),
    ("help me think through a half-term week for the kids",
     "I need a mix of cheap days out and quiet days in, and a couple of places where I can "
     "sit down for an hour"),
    ("I'm filling in the form for the after-school club and it asks about anything they "
     "should know",
     "can you suggest how to word it so it's short and they actually read it instead of "
     "filing it away"),
    ("we're thinking about a short break somewhere by the sea in the summer holidays",
     "what sort of place would work for a family like ours without costing a fortune or "
     "needing a lot of planning"),
    ("can you write me a few lines for the ward's leaving card for a colleague who's "
     "retiring",
     "she's been there longer than anyone and everybody's a bit emotional about it so "
     "something warm but not soppy"),
    ("I want to sort out the kitchen so mornings are less chaotic",
     "where the lunchboxes live, where the bags go, that kind of thing, any ideas on a "
     "layout that kids would stick to"),
    ("my mum's coming to stay for a fortnight and I need to plan how that works",
     "who sleeps where, how we share the cooking, and how to keep everyone from getting on "
     "each other's nerves by the end of it"),
    ("can you help me plan a Sunday lunch for the in-laws",
     "I want something that looks like effort but mostly cooks itself while I sort the "
     "house out and referee the kids"),
    ("I've been asked to organise the team's night out after the audit",
     "can you suggest a few types of place and how to split the bill fairly without "
     "someone feeling hard done by"),
    ("help me work out a bedtime routine for the younger two",
     "they share a room and one of them winds the other up every single night and I'm "
     "running out of ideas"),
    ("I need to write a short bit for my revalidation about a difficult conversation with "
     "a family",
     "can you give me a structure for the reflection so it doesn't turn into a rambling "
     "story with no point"),
    ("could you suggest a few things to put in a care package for my sister who's just "
     "had a baby",
     "I want it useful and a bit of a treat, nothing that'll just sit in a cupboard, and "
     "it has to go in the post"),
    ("what's a good way to split chores between the kids now they're older",
     "they argue about fairness constantly and I want something on the fridge that ends "
     "the debate once and for all"),
)  # fmt: skip
"""Requests the details are said inside: (before the clause, after it)."""


def _message(w: Writer, detail: tuple[str, str, str, str]) -> str:
    """A long request on another subject with ``detail`` said in it one of three ways."""
    r = w.rng
    _, clause, pair, fragment = detail
    before, after = r.choice(HOSTS)
    how = r.random()
    if how < 0.4:
        return f"{before}, {clause}, {after}"
    if how < 0.7:
        request = f"{before[0].upper()}{before[1:]}, {after}?"
        return f"{pair} {request}" if r.random() < 0.5 else f"{request} {pair}"
    if r.random() < 0.5:
        return f"{fragment}, {before}, {after}?"
    return f"{before[0].upper()}{before[1:]}, {after}. {fragment} and everything."


def _write(w: Writer, turns: int, facts: int) -> None:
    details = w.rng.sample(DETAILS, facts)

    def episode(detail: tuple[str, str, str, str]) -> None:
        at = w.user(_message(w, detail))
        w.say("assistant", w.reply((5, 9)))
        w.plant("preference", detail[0], at)

    starts = spread(w.rng, turns, facts, 3)
    run(w, turns, starts, [functools.partial(episode, d) for d in details])


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """A ``blind7-passing`` conversation: ``facts`` details said in passing."""
    if facts > len(DETAILS):
        raise ValueError(f"at most {len(DETAILS)} details, got {facts=}")
    return build(seed, "b7-passing", turns, facts, _write, SYSTEM, "ward")
