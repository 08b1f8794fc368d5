"""``b16-prose``: a chip-shop owner who crews the lifeboat, his own details in plain words.

Each detail (a few key words, the fact's value) is said once by the user with no cue word
("I prefer", "I always", "my ... is"): before an ask, as a clause in the middle of one, as the
answer to the assistant's question, or as a remark of its own. Four are said again 60-160 turns
later in other words (the new words are a ``correction``, the first ones stale). The reply
never repeats the detail.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from evals.families.blind6.base import spread, timeline
from evals.families.blind16.base import Writer16, make
from evals.families.trajectories import Trajectory

__all__ = ["DETAILS", "REFINED", "generate"]

SYSTEM = (
    "You are a helpful assistant for the owner of a fish and chip shop in a harbour town who is "
    "also on the volunteer lifeboat crew. Be practical and brief."
)

DETAILS: tuple[tuple[str, str, str, str], ...] = (
    # value, said on its own / before an ask, a clause inside an ask ("..., {c}, ..."),
    # the assistant's question it answers
    ("coeliac", "anything made with ordinary flour is out for me, being coeliac",
     "which is a laugh given I'm coeliac and fry battered fish all day",
     "Before I suggest recipes, is there anything you can't eat?"),
    ("deaf in my left ear", "I'm deaf in my left ear, so people have to stand on my right",
     "and being deaf in my left ear doesn't help on a noisy deck",
     "Is there anything that makes radio traffic harder for you?"),
    ("red-green colour blind", "the wiring colours are lost on me, I'm red-green colour blind",
     "bearing in mind I'm red-green colour blind so the coloured charts are useless",
     "Would a colour-coded chart work for you?"),
    ("up at half four", "I'm up at half four most days for the fish market",
     "given I'm up at half four for the market and flagging by teatime",
     "What does your morning usually look like?"),
    ("two rescue greyhounds", "we've got two rescue greyhounds who think the sofa is theirs",
     "though with two rescue greyhounds at home the house is never tidy",
     "Is there anyone at home who'd need looking after while you're away?"),
    ("teetotal", "haven't had a drink in years, teetotal since the kids were small",
     "and seeing as I'm teetotal the pub quiz is a lemonade job",
     "Would you want a drinks option in there?"),
    ("type one diabetic", "being type one diabetic I have to plan food round shouts",
     "bearing in mind I'm type one diabetic and need to eat at regular times",
     "Is there anything about your health I should factor in?"),
    ("coriander tastes of soap", "coriander tastes of soap to me, can't be doing with it",
     "only coriander tastes of soap to me so leave that out",
     "Any herbs or flavours you'd rather avoid?"),
    ("learning Norwegian", "been learning Norwegian on an app for the cousins over there",
     "what with learning Norwegian on the app for the cousins eating my evenings",
     "What do you do to unwind these days?"),
    ("size twelve wellies", "I take size twelve wellies, and they're never in stock",
     "mind you I'm in size twelve wellies so the shop ones never fit",
     "What size boots should I be looking for?"),
    ("no good with heights", "ladders are a no from me, no good with heights",
     "and I'm no good with heights so no climbing bits",
     "Are you alright with anything involving ladders or climbing?"),
    ("epipen for wasp stings", "I carry an epipen for wasp stings all summer",
     "though I carry an epipen for wasp stings so eating outside is a gamble",
     "Anything I should know before suggesting somewhere outdoors?"),
    ("only the one kidney", "I've only the one kidney since I donated to my brother",
     "what with only the one kidney I have to go easy on the painkillers",
     "Are there any medicines you have to be careful with?"),
    ("sesame makes my throat swell", "sesame makes my throat swell, so no tahini or buns",
     "and sesame makes my throat swell so check the bread",
     "Any allergies at all?"),
    ("widowed last spring", "been on my own since I was widowed last spring",
     "and since I was widowed last spring the evenings are long",
     "Is it just you at home these days?"),
    ("blood thinners", "I'm on blood thinners since the clot last winter",
     "and being on blood thinners I bruise if anyone looks at me",
     "Are you on any medication I should know about?"),
    ("grandkids every other weekend", "we have the grandkids every other weekend",
     "with the grandkids every other weekend the spare room's spoken for",
     "Do you have family around much?"),
    ("nervous flyer", "I'd drive the long way round, I'm a nervous flyer",
     "given I'm a nervous flyer so it'd have to be the ferry",
     "Would flying be an option for you?"),
)  # fmt: skip

REFINED: tuple[tuple[str, str, str, str, str], ...] = (
    # first value, its sentence, the later value, the sentence it comes in
    ("hay fever", "this time of year the hay fever has me sneezing into the fryer",
     "allergic to dust mites", "had the tests back, it was never pollen, I'm allergic to dust "
     "mites, so the sneezing is a bedroom problem not a garden one", "sneezing"),
    ("no meat since school", "there's been no meat since school for me, fish aside it's veg",
     "eating chicken again", "the doctor had a word about iron so I'm eating chicken again, "
     "small portions", "food"),
    ("don't drive", "I don't drive, the crew lend me a lift to the station",
     "passed my driving test", "passed my driving test at long last, so I can get myself to "
     "the station now", "getting about"),
    ("swim in the harbour", "a swim in the harbour first thing keeps me sane",
     "leisure centre pool", "the harbour's shut for dredging so it's the leisure centre pool "
     "first thing now", "exercise"),
    ("reading glasses", "need reading glasses for the small print these days",
     "cataract op", "had the cataract op and don't need any glasses for reading anymore",
     "eyes"),
    ("sleep in the box room", "the dogs took over so I sleep in the box room",
     "moved back into the big bedroom", "moved back into the big bedroom after we got the dogs "
     "their own beds", "sleeping"),
)  # fmt: skip

_NOD = (
    "Ha, fair enough.",
    "Noted, thanks for saying.",
    "Good to know.",
    "Makes sense.",
    "Right you are.",
)


def _detail(w: Writer16, value: str, said: str, clause: str, question: str, way: int) -> None:
    """Say one detail in one of four ways; the fact is the user's message holding it."""
    r = w.rng
    if way == 0:  # before an ask
        i = w.user(f"{said}. anyway, {r.choice(w.talk.asks).replace('{t}', w.topic())}")
        w.say("assistant", w.reply())
    elif way == 1:  # a clause in the middle of an ask
        i = w.user(
            r.choice(("trying to get on top of", "finally having a go at", "been chewing over"))
            + f" {w.topic()} this week, {clause}. where would you start?"
        )
        w.say("assistant", w.reply())
    elif way == 2:  # the answer to the assistant's question
        w.user(r.choice(w.talk.asks).replace("{t}", w.topic()))
        w.say("assistant", f"Happy to. {question}")
        i = w.user(r.choice((f"{said}.", f"well, {said}", f"hmm, {said}, if that matters")))
        w.say("assistant", w.reply((3, 6)))
    else:  # a remark of its own
        i = w.user(
            r.choice((f"{said}, by the way", f"random, but {said}", f"{said}, just so you know"))
        )
        w.say("assistant", r.choice(_NOD))
    w.plant("preference", value, i)


def write(w: Writer16, turns: int, facts: int) -> None:
    r = w.rng
    refined = min(4, facts // 4)
    once = facts - 2 * refined
    details = r.sample(DETAILS, once)
    pairs = r.sample(REFINED, refined)
    slots = spread(r, turns - 4, once + refined, max(1, (turns - 4) // (once + refined + 1)))
    kinds = ["once"] * once
    for k in sorted(r.sample(range(min(len(slots), once + refined) // 2 + 1), refined)):
        kinds.insert(k, "first")  # the refined ones in the first half, room for the gap
    events: list[tuple[int, Callable[[], None]]] = []
    di, pi = iter(details), iter(pairs)
    firsts: dict[str, int] = {}
    for slot, kind in zip(slots, kinds, strict=True):
        if kind == "once":
            d = next(di)
            way = r.randrange(4)
            events.append((slot, partial(_detail, w, *d, way=way)))
        else:
            p = next(pi)
            firsts[p[0]] = slot
            gap = min(r.randint(60, 160), max(2, turns - 3 - slot))
            events.append((slot, partial(_first, w, p)))
            events.append((slot + gap, partial(_refine, w, p)))
    timeline(w, turns, sorted(events, key=lambda e: e[0]))


def _first(w: Writer16, p: tuple[str, str, str, str, str]) -> None:
    r = w.rng
    value, said = p[0], p[1]
    if r.random() < 0.5:
        i = w.user(f"{said}. anyway, {r.choice(w.talk.asks).replace('{t}', w.topic())}")
        w.say("assistant", w.reply())
    else:
        i = w.user(f"{said}, for what it's worth")
        w.say("assistant", r.choice(_NOD))
    w.plant("preference", value, i)


def _refine(w: Writer16, p: tuple[str, str, str, str, str]) -> None:
    r = w.rng
    old = next(f for f in w.facts if f.value == p[0])
    lead = r.choice(("update on the {a} front: ", "oh, {a} news, ", "", "funny thing, "))
    i = w.user(lead.replace("{a}", p[4]) + p[3])
    w.say("assistant", r.choice(("That's a change, good to know.", "Noted, thanks.", *_NOD)))
    w.supersede(old, i)
    w.plant(
        "correction",
        p[2],
        i,
        stale=old.value,
        stale_index=old.message_index,
    )


def generate(seed: int, *, turns: int = 460, facts: int = 20) -> Trajectory:
    return make(seed, "b16-prose", turns, facts, write, SYSTEM, "prose")
