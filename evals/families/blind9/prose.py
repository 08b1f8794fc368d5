"""``blind9-prose``: a vet receptionist's own life, said in plain words inside other messages.

Each detail (a diet, the body, family, getting about) is said once by the user, without a cue
word, in a message about something else, one of four ways: in parentheses, between dashes,
inside a question, or as one sentence of a longer email-like message. The assistant's answer
never repeats it. The fact is the detail's key words (``no car``, ``allergic to cats``).
"""

from __future__ import annotations

from functools import partial

from evals.families.blind9.base import Writer, build, fill
from evals.families.trajectories import Trajectory

__all__ = ["BANNED", "DETAILS", "generate"]

BANNED = (
    "prefer",
    "always",
    "never",
    "hate",
    "love",
    "favourite",
    "remember",
    "usually",
    "by the way",
    "rather",
    "note that",
    "bear in mind",
    "fyi",
)
"""Cue words no planting message holds."""

DETAILS: tuple[tuple[str, str], ...] = (
    ("vegetarian", "i've been vegetarian since uni"),
    ("allergic to cats", "i'm allergic to cats, which is a joke given where i work"),
    ("no car", "we've got no car so it's buses for everything"),
    ("night shifts", "my husband's on night shifts so the house has to be quiet in the day"),
    ("hard of hearing", "i'm a bit hard of hearing on my left side"),
    ("don't drink", "i don't drink, just so nobody gets me a bottle of wine again"),
    ("nut allergy", "my little one has a nut allergy"),
    ("no dairy", "no dairy for me at the moment, doctor's orders"),
    ("aisle seat", "i get twitchy anywhere but an aisle seat"),
    ("left-handed", "i'm left-handed so half the desk kit is the wrong way round"),
    ("two rescue greyhounds", "we have two rescue greyhounds at home"),
    ("wheelchair user", "my mum's a wheelchair user and she'll be with me"),
    ("gluten free", "i'm gluten free, the proper medical kind"),
    ("no spicy food", "no spicy food though, my stomach can't cope"),
    ("cycle in", "i cycle in most days unless it's tipping down"),
    ("short-sighted", "i'm really short-sighted without my glasses"),
    ("job share", "i'm on a job share with another receptionist"),
    ("migraines", "i get migraines under the strip lights"),
    ("fear of flying", "i've got a proper fear of flying"),
    ("step-free", "it needs to be step-free for my mum"),
    ("dyslexic", "i'm dyslexic so long emails are a nightmare"),
    ("asthma", "my asthma flares up with dust and straw"),
    ("no shellfish", "no shellfish for me, last time was a hospital trip"),
    ("diabetic", "i'm diabetic so i can't skip lunch"),
    ("school run", "i do the school run so i can't be in before the doors open"),
    ("living with my parents", "i'm living with my parents while the house sale goes through"),
    ("bad back", "my bad back means no lifting the big dogs onto the scales"),
    ("learning welsh", "i'm learning welsh in the evenings"),
    ("no pork", "no pork please, for my partner as much as me"),
    ("flat shoes only", "it's flat shoes only for me after the ankle thing"),
    ("carer for my dad", "i'm a carer for my dad at weekends"),
    ("sleep badly", "i sleep badly if the room's too warm"),
)
"""(the fact, a clause that says it) for the receptionist's life."""

_PARENS = (
    "can you help me write a note to the practice manager about {t} ({c})",
    "what's the best way to handle {t}? ({c}, if that matters)",
    "need a hand with {t} (also {c}, in case it matters for the staff do)",
    "draft me something about {t} please ({c} - it's relevant later)",
)
_DASHES = (
    "so the team away day is being planned - {c} - and i need to reply about {t} too",
    "been asked to sort {t}, and honestly - {c} - i'm not sure where to start",
    "right, the christmas meal thing - {c} - can you help me word a reply, and also {t}",
    "they want names for the training trip - {c} - anyway the real question is {t}",
)
_QUESTIONS = (
    "seeing as {c}, is there any point me going on the weekend course, or should i skip it?",
    "could you suggest somewhere for the team lunch, given {c}?",
    "is it daft to volunteer for the conference trip when {c}?",
    "what would you pack for a long day at the county show if {c}?",
)
_LONG = (
    "Hi,\n\nOkay so a few things. Work is mad this week, {t} is the main headache. {C}. "
    "The manager wants me to plan the staff summer social as well, so i'll need ideas.\n\n"
    "Thanks x",
    "Morning!\n\nJust catching up. I wanted to ask about {t}, but first the other thing: "
    "we're sorting the staff outing and i've been asked to fill in a form. {C}. Anyway, "
    "{t} is the thing that's driving me round the bend.\n\nCheers",
    "Hello again\n\nLong one sorry. {C}. I mention it because the vets want to do a team "
    "meal and i'll be the one booking. Also {t}, any thoughts welcome.\n\nThanks",
)
WAYS = {"parens": _PARENS, "dashes": _DASHES, "question": _QUESTIONS, "long": _LONG}


def _episode(w: Writer, value: str, clause: str, way: str) -> None:
    template = w.rng.choice(WAYS[way])
    capital = clause if clause.startswith(value) else clause[0].upper() + clause[1:]
    text = template.replace("{t}", w.topic()).replace("{c}", clause).replace("{C}", capital)
    at = w.user(text)
    w.plant("preference", value, at)
    w.say("assistant", w.reply((3, 7)))


def _write(w: Writer, turns: int, facts: int) -> None:
    chosen = w.rng.sample(DETAILS, facts)
    ways = [list(WAYS)[k % len(WAYS)] for k in range(facts)]
    w.rng.shuffle(ways)
    fill(
        w,
        turns,
        [partial(_episode, w, v, c, way) for (v, c), way in zip(chosen, ways, strict=True)],
    )


def generate(seed: int, turns: int = 440, facts: int = 20) -> Trajectory:
    """One vet receptionist's conversation with ``facts`` details of her life said in passing."""
    return build(
        seed,
        "b9-prose",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a receptionist at a busy veterinary clinic.",
        "vet",
    )
