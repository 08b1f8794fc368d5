"""``b10-prose``: a maths teacher's health, food, home and travel said in plain words.

Each detail is said once, by the user, in one of three ways: as the reason for a request
("since my dodgy knee flared up again, can you ..."), as the answer to a question the assistant
asked ("Anything health-wise I should plan around?" / "just the dodgy knee really"), or as one
item of a list of two or three in one sentence, each item a fact of its own. No cue word
(:data:`CUES`); the assistant's next message never repeats it.
"""

from __future__ import annotations

from functools import partial

from evals.families.blind10.base import Writer, build, spaced
from evals.families.trajectories import Trajectory

__all__ = ["CUES", "DETAILS", "QUESTIONS", "generate"]

CUES = (
    "prefer", "always", "never", "hate", "love", "favourite", "usually", "rather", "by the way",
    "remember", "note", "fyi", "i like", "keep in mind",
)  # fmt: skip
"""Words a user might flag a preference with; none occurs in a planted message."""

# value, kind of detail, as a reason, as an answer, as a list item
DETAILS: tuple[tuple[str, str, str, str, str], ...] = (
    ("dodgy knee", "health", "since my dodgy knee flared up again",
     "just the dodgy knee really", "a dodgy knee"),
    ("lactose intolerant", "food", "seeing as i'm lactose intolerant",
     "i'm lactose intolerant, so nothing creamy", "being lactose intolerant"),
    ("no licence", "travel", "because i've got no licence",
     "no licence, so it's trains and lifts", "no licence"),
    ("asthma", "health", "since my asthma gets worse in the cold air",
     "asthma, mostly when it's cold", "asthma"),
    ("vegan", "food", "seeing as i went vegan last year",
     "i'm vegan these days", "going vegan"),
    ("left-handed", "body", "as i'm left-handed and the usual ones don't suit",
     "i'm left-handed, if that matters", "being left-handed"),
    ("flat feet", "body", "since i've got flat feet and my arches ache",
     "flat feet, the physio says", "flat feet"),
    ("two young kids", "home", "with two young kids in the house",
     "two young kids, so evenings are chaos", "two young kids"),
    ("top floor flat", "home", "since we're in a top floor flat with no lift",
     "we're in a top floor flat, no lift", "a top floor flat"),
    ("shellfish allergy", "food", "because of my shellfish allergy",
     "a shellfish allergy, quite a bad one", "a shellfish allergy"),
    ("type 1 diabetic", "health", "since i'm type 1 diabetic and need to eat on time",
     "i'm type 1 diabetic", "being type 1 diabetic"),
    ("coeliac", "food", "because i'm coeliac",
     "coeliac, so no gluten at all", "being coeliac"),
    ("migraines", "health", "since bright screens set off my migraines",
     "migraines if i'm in bright light too long", "migraines"),
    ("afraid of heights", "travel", "because i'm afraid of heights",
     "i'm afraid of heights, properly", "being afraid of heights"),
    ("bad back", "body", "since my bad back is playing up",
     "a bad back from years of carrying marking", "a bad back"),
    ("hay fever", "health", "because my hay fever is awful at this point in the year",
     "hay fever, it wipes me out", "hay fever"),
    ("colour blind", "body", "as i'm colour blind and the red and green look the same",
     "i'm colour blind, red and green mainly", "being colour blind"),
    ("seasick", "travel", "since i get seasick on anything bigger than a pedalo",
     "i get seasick, even on short crossings", "getting seasick"),
    ("tinnitus", "health", "since my tinnitus makes loud rooms hard work",
     "tinnitus, so noisy places are tough", "tinnitus"),
    ("twelve weeks pregnant", "health", "seeing as i'm twelve weeks pregnant",
     "i'm twelve weeks pregnant, early days", "being twelve weeks pregnant"),
    ("window seat", "travel", "as i get queasy unless i'm in a window seat",
     "a window seat or i feel ill", "needing a window seat"),
    ("decaf only", "food", "since it's decaf only for me after the palpitations",
     "decaf only, doctor's advice", "decaf only"),
    ("no spicy food", "food", "because it's no spicy food for me at the moment",
     "no spicy food, my stomach can't take it", "no spicy food"),
    ("halal", "food", "since i only eat halal",
     "halal, that's the main thing", "eating halal"),
    ("rescue greyhound", "home", "because the rescue greyhound can't be left long",
     "the rescue greyhound needs letting out at lunch", "a rescue greyhound"),
    ("cycle to school", "routine", "since i cycle to school and arrive sweaty",
     "i cycle to school, so i need a shower first", "that i cycle to school"),
    ("run before work", "routine", "as i run before work and need to be in bed early",
     "i run before work, so early nights", "a run before work"),
    ("live alone", "home", "since i live alone and nobody else can take parcels",
     "i live alone, so it's just me", "that i live alone"),
    ("partner works abroad", "home", "because my partner works abroad half the time",
     "my partner works abroad a lot", "a partner works abroad a lot"),
    ("glasses for driving", "body", "since i need glasses for driving at night",
     "glasses for driving, that's all", "glasses for driving"),
    ("insomnia", "health", "as my insomnia is back and i'm up half the night",
     "insomnia, on and off", "insomnia"),
    ("teach part-time", "routine", "since i teach part-time now and have the afternoons",
     "i teach part-time, mornings only", "that i teach part-time now"),
)  # fmt: skip

QUESTIONS = {
    "health": "Before I suggest anything, is there something health-wise I should plan around?",
    "food": "Quick check before I put options together: anything you don't eat?",
    "body": "Is there anything physical that would make some of these awkward for you?",
    "home": "What's your home situation like, so I pitch this realistically?",
    "travel": "How do you get around, and is there anything that rules some trips out?",
    "routine": "What does a normal day look like for you, roughly?",
}
"""What the assistant asks before a detail given as an answer, by kind of detail."""

_REQUESTS = (
    "can you suggest a different way to handle {t}?",
    "any ideas for {t} that would actually work for me?",
    "could you rethink the plan for {t}",
    "what's my best option with {t}",
    "help me sort {t} out, please",
)
_LISTS = (
    "for context, the things that make life awkward: {l}. anyway, {t} - thoughts?",
    "bit of background before you plan anything: {l}. so, {t}",
    "the short version of me is {l}, which is why {t} is such a pain",
    "you might as well know the whole picture: {l}. now, {t}",
)


def _joined(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1]


def _as_reason(w: Writer, detail: tuple[str, str, str, str, str]) -> None:
    value, _, reason, _, _ = detail
    ask = w.rng.choice(_REQUESTS).replace("{t}", w.topic())
    text = f"{reason}, {ask}" if w.rng.random() < 0.5 else f"{ask.rstrip('?')} {reason}"
    w.plant("preference", value, w.user(text))
    w.say("assistant", w.reply((3, 7)))


def _as_answer(w: Writer, detail: tuple[str, str, str, str, str]) -> None:
    value, kind, _, answer, _ = detail
    w.user(w.rng.choice(_REQUESTS).replace("{t}", w.topic()))
    w.say("assistant", f"{w.reply((2, 4))}\n\n{QUESTIONS[kind]}")
    w.plant("preference", value, w.user(answer))
    w.say("assistant", w.reply((3, 7)))


def _as_list(w: Writer, details: list[tuple[str, str, str, str, str]]) -> None:
    items = _joined([d[4] for d in details])
    text = w.rng.choice(_LISTS).replace("{l}", items).replace("{t}", w.topic())
    at = w.user(text)
    for detail in details:
        w.plant("preference", detail[0], at)
    w.say("assistant", w.reply((3, 7)))


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    chosen = r.sample(DETAILS, facts)
    episodes = []
    while chosen:
        roll = r.random()
        if roll < 0.25 and len(chosen) >= 2:
            size = min(len(chosen), r.choice((2, 3)))
            episodes.append(partial(_as_list, w, chosen[:size]))
            chosen = chosen[size:]
            continue
        way = _as_reason if roll < 0.62 else _as_answer
        episodes.append(partial(way, w, chosen.pop(0)))
    spaced(w, turns, episodes, 14)


def generate(seed: int, turns: int = 440, facts: int = 20) -> Trajectory:
    """One teacher's conversation with ``facts`` details of her life said in plain words."""
    return build(
        seed,
        "b10-prose",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a secondary school maths teacher who runs for fun.",
        "teacher",
    )
