"""``blind6-prose``: personal facts said in passing, in plain words, inside longer messages.

Diets, bodies, routines, the house, the garden, the family: a clause in a chatty message about
something else ("we don't do pork in this house", "my knees won't take running anymore"),
without cue words (:data:`BANNED`). The value is the detail's key words ("pork", "knees"); the
assistant answers the main question and does not repeat it.
"""

from __future__ import annotations

from functools import partial

from evals.families.blind6.base import Writer, build, run, spread
from evals.families.trajectories import Trajectory

__all__ = ["BANNED", "DETAILS", "generate", "prose_episode"]

SYSTEM = (
    "You are a friendly everyday assistant. The user bakes for a living, grows vegetables, is "
    "doing up an old house with their family and studies part time."
)

BANNED = (
    "prefer",
    "always",
    "never",
    "hate",
    "love",
    "favourite",
    "favorite",
    "remember",
    "allergic",
    "allergy",
    "note that",
    "keep in mind",
    "fyi",
)

DETAILS: dict[str, tuple[str, ...]] = {
    "pork": (
        "we don't do pork in this house, my other half grew up without it and it stuck",
        "no pork for us btw, it's just not something we eat",
    ),
    "knees": (
        "my knees won't take running anymore so the fitness side is mostly cycling now",
        "since the physio said my knees are shot i've stopped doing anything with "
        "kneeling on hard floors",
    ),
    "choir": (
        "midweek evenings are choir so i'm out of the house then",
        "i'm at choir one night a week and it's the one thing i don't move",
    ),
    "seasick": (
        "i get seasick on anything smaller than a proper car ferry",
        "i went green on a rowing boat once, i'm that seasick sort of person",
    ),
    "coeliac": (
        "my partner is coeliac so anything with ordinary flour is out for her",
        "bearing in mind the youngest is coeliac, the birthday cake has to be safe",
    ),
    "teetotal": (
        "i've been teetotal for years so no wine pairing suggestions",
        "nobody drinks in our house, we're a teetotal lot",
    ),
    "wheelchair": (
        "my eldest uses a wheelchair so steps are a big deal wherever we go",
        "my dad's in a wheelchair since the stroke so the ground floor matters",
    ),
    "chickens": (
        "we keep chickens at the bottom of the garden so the fence has to stay fox proof",
        "the chickens get all our veg scraps",
    ),
    "vegan": (
        "i went vegan a while back and the family are slowly coming round",
        "the shop's vegan range is my bit, the rest is my business partner's",
    ),
    "heavy clay": (
        "the soil here is heavy clay, it's like digging plasticine after rain",
        "our plot is heavy clay and cracks when it dries",
    ),
    "left-handed": (
        "i'm left-handed which makes half the tools in the shed awkward",
        "being left-handed, the piping bags and scissors at work are a pain",
    ),
    "motorways": (
        "i don't drive on motorways, they make me panic, so it's back roads for us",
        "getting anywhere takes longer because i won't do motorways since the accident",
    ),
    "renting": (
        "we're renting so i can't drill into the walls or paint without asking",
        "it's a renting situation, the landlord has to ok anything permanent",
    ),
    "dyslexic": (
        "my daughter's dyslexic so long instructions just lose her",
        "i'm dyslexic myself so short bullet points work better than walls of text",
    ),
    "mother-in-law": (
        "my mother-in-law moved in with us last year so the spare room's gone",
        "my mother-in-law lives with us and she's quite deaf",
    ),
    "deck oven": (
        "the bakery has a big old deck oven, no steam injection",
        "everything at work goes through the one deck oven so timing's tight",
    ),
    "hosepipe ban": (
        "there's a hosepipe ban round here so everything is watering cans",
        "with the hosepipe ban on we're collecting bath water for the beds",
    ),
    "part-time": (
        "i'm doing the degree part-time alongside the shop",
        "as a part-time student i only get to the library on my days off",
    ),
    "no electrics": (
        "the shed has no electrics so any power tools have to be cordless",
        "the garage has no electrics which rules out a freezer in there",
    ),
    "twins": (
        "the twins share a room and fight about everything in it",
        "with twins everything comes in pairs, bikes, bags, arguments",
    ),
    "north-facing": (
        "the back garden is north-facing so it's in shade most of the day",
        "our kitchen window is north-facing and nothing on the sill thrives",
    ),
    "night shifts": (
        "my husband works night shifts at the hospital so the house has to be quiet in the day",
        "with my partner on night shifts i'm solo most evenings",
    ),
    "terrified of dogs": (
        "the little one is terrified of dogs, even small ones",
        "our youngest is terrified of dogs so parks can be tricky",
    ),
    "migraines": (
        "i get migraines if i look at a screen too long, so i try to print stuff",
        "bright light sets off my migraines",
    ),
    "thatched": (
        "the cottage is thatched so anything with open flames outside is a no",
        "because the roof is thatched the insurance is fussy about stoves",
    ),
    "one car": (
        "we're down to one car and my partner takes it to work",
        "with only one car between us the school run is a juggle",
    ),
    "colour-blind": (
        "i'm colour-blind, red-green, so paint charts are a bit of a lottery",
        "being colour-blind i get someone else to check the icing shades",
    ),
    "halal": (
        "we only eat halal meat at home so the butcher matters",
        "the family eats halal, so i have to check where meat comes from",
    ),
    "spelt": (
        "i bake mostly with spelt at the shop, regulars ask for it",
        "we've gone mostly spelt for the house loaf",
    ),
    "no oven": (
        "the flat my son's moving into has no oven, just a hob and a microwave",
        "my sister's place has no oven so she's asked for slow cooker stuff",
    ),
    "asthma": (
        "my asthma flares up with dust so sanding is a mask job",
        "with my asthma i can't be around paint fumes for long",
    ),
    "beekeeping": (
        "i've taken up beekeeping on the allotment, two hives so far",
        "the beekeeping club meets on the plot next to mine",
    ),
}

_AROUND = (
    "bit of a ramble sorry. {clause}. anyway, the actual question - {ask}",
    "ok so context first, {clause}, which matters for this. {ask}",
    "{ask}? for what it's worth {clause}, not sure if that changes anything",
    "morning! busy one here as usual. {clause}. so, {ask}",
    "right. before i forget what i was going to ask: {ask}. also {clause} so factor that in "
    "if it's relevant, i've been caught out before by advice that didn't fit us",
    "long day. {clause}, and i've just realised it affects half the plans i had for the "
    "week. but the thing i actually wanted help with: {ask}",
    "{clause}. that's not the question though lol. {ask}",
    "so my friend was asking how we manage and i said well, {clause}. which reminds me, {ask}",
)
_ASKS = (
    "what's a good easy tea for a weeknight when nobody's got any energy",
    "can you suggest a weekend plan that doesn't cost the earth",
    "how would you lay out a small raised bed for salad",
    "any ideas for a thank you present for the neighbours who fed the cat",
    "what should i pack for a few days away with the family",
    "how do i make my to-do list less overwhelming",
    "what's a sensible order to do up a hallway in",
    "can you help me plan a birthday tea for the kids",
    "how do i stop the study notes piling up",
    "any tips for a day trip that keeps everyone happy",
    "what can i batch cook on a free afternoon",
    "how do i tidy the shed without it taking a whole weekend",
)


def prose_episode(w: Writer, value: str) -> None:
    """One turn: a chatty message with ``value``'s clause inside it, and an ordinary answer."""
    r = w.rng
    clause = r.choice(DETAILS[value])
    text = r.choice(_AROUND).replace("{clause}", clause).replace("{ask}", r.choice(_ASKS))
    while len(text.split()) < 28:
        text = f"{text} {r.choice(_FILL)}"
    at = w.user(text)
    w.plant("preference", value, at)
    w.say("assistant", w.reply((4, 8)))


_FILL = (
    "sorry for the essay.",
    "no rush.",
    "i've got a few minutes before the next thing.",
    "the house is a tip today.",
    "thanks in advance as usual.",
)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    values = r.sample(list(DETAILS), min(facts, len(DETAILS)))
    width = max(2, min(20, (turns - 1) // max(1, len(values))))
    starts = spread(r, turns - 1, len(values), width)
    run(w, turns, starts, [partial(prose_episode, w, v) for v in values])


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``blind6-prose`` conversation for ``seed``."""
    return build(seed, "b6-prose", turns, facts, _write, SYSTEM)
