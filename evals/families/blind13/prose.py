"""``blind13-prose``: a falconer's own details in plain prose among her everyday asks.

She keeps the birds at a bird-of-prey centre and asks the assistant about displays, school
talks and the mews. Her details come out with no cue word (:data:`~.base.CUES`): plainly,
before or after an ask or as a remark of their own (:data:`PLAIN`); as her answer to a question
the assistant puts before helping (:data:`ANSWERS`); or said once and narrowed or restated
60-160 turns later without the old words (:data:`NARROWED`). The assistant's reply never
repeats a detail.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from evals.families.blind6.base import build, spread, timeline
from evals.families.blind13.base import Writer, writer
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["ANSWERS", "NARROWED", "PLAIN", "generate"]

PLAIN: tuple[tuple[str, str], ...] = (
    ("hay fever", "eyes streaming all morning, {v} season and the hay barn is right next "
     "to the mews"),
    ("no shellfish", "staff meal was at the seafood place so i had chips, it's {v} for me "
     "since that bad mussel"),
    ("flat in the stable yard", "home is a {v}, so the owls are the first thing i hear "
     "when i wake up"),
    ("daughter at art college", "my {v} rang wanting money again, so that was my lunch break gone"),
    ("works nights at the bakery", "my other half {v}, so the house has to be silent all day"),
    ("contact lenses", "lost one of my {v} in the aviary gravel this morning, which was "
     "as fun as it sounds"),
    ("three ferrets", "the {v} at home got into the sofa lining again"),
    ("type one diabetic", "had a hypo halfway through the display, being {v} and skipping "
     "lunch was daft of me"),
    ("no driving licence", "i'm stuck cadging lifts to the county shows with {v}"),
    ("training for a half marathon", "legs are shot, i'm {v} and did the hill loop before work"),
    ("raised in a pub", "loud crowds at the shows don't bother me, i was {v}"),
    ("dodgy left knee", "the slope up to the flying field is murder on my {v}"),
    ("lactose intolerant", "the kiosk coffee is all cream and i'm {v}, so it's black tea for me"),
    ("grew up in Shetland", "the wind today is nothing, i {v}"),
)  # fmt: skip
"""``(value, sentence)``: a detail said plainly; ``{v}`` is the value."""

ANSWERS: tuple[tuple[str, str, str], ...] = (
    ("How many of the birds are yours to look after?", "nine birds of my own",
     "{v}, and i help out with the rest when someone's off"),
    ("Is there anything you can't eat that I should keep in mind for the menu?",
     "allergic to sesame", "{v}, properly, seeds and oil both"),
    ("Who's at home with you?", "my partner and her mum",
     "{v}, and a lot of birds in the garden"),
    ("How do you get to the centre?", "cycle along the river", "i {v}, it takes no time"),
    ("Do you have children?", "a boy of seven", "one, {v}, obsessed with owls obviously"),
    ("What hours are you working at the moment?", "four long days a week", "{v}, off the rest"),
    ("How are you with heights?", "scared of heights", "not great, i'm {v}, someone else "
     "can go up"),
)  # fmt: skip
"""``(the assistant's question, value, answer)``; ``{v}`` is the value."""

NARROWED: tuple[tuple[str, str, str, str], ...] = (
    ("vegetarian", "burger van at the show is no use to me, i'm {v} these days",
     "eat fish again", "i {v} now, mostly smoked mackerel, the rest of meat is still out"),
    ("two owls at home", "we've got {v} in the garden aviary, rescues that couldn't go back",
     "three owls at home", "it's {v} now, a little tawny came in with a bad wing and never left"),
    ("left wrist", "my {v} is strapped up after a hawk grabbed it instead of the glove",
     "right wrist", "the x-ray says it's the {v} that's cracked, the other one was only bruised"),
    ("weekend shifts at the rescue hospital", "i'm doing {v} on top of the centre",
     "only sundays at the rescue hospital", "cut it down to {v}, i was falling asleep on "
      "the glove"),
    ("share a house with my brother", "i {v}, he's messier than the mews",
     "moved in with my girlfriend", "i've {v}, so no more clearing up after my brother"),
    ("off coffee", "the caffeine was giving me the shakes so i'm {v}",
     "one coffee before noon", "i'm allowed {v} now, the shakes were something else"),
)  # fmt: skip
"""``(first value, first sentence, new value, the later sentence)``; ``{v}`` the value."""

_HINTS = (
    "Before I suggest anything: {q}",
    "Quick question first, so I pitch this right. {q}",
    "Happy to help. {q}",
    "One thing that changes the answer: {q}",
)


def _ask(w: Writer) -> str:
    return w.rng.choice(w.talk.asks).replace("{t}", w.topic())


def _plain(w: Writer, value: str, sentence: str) -> None:
    r = w.rng
    said = sentence.replace("{v}", value)
    roll = r.random()
    if roll < 0.4:
        at = w.user(f"{said}. anyway, {_ask(w)}")
        w.say("assistant", w.reply())
    elif roll < 0.7:
        at = w.user(f"{_ask(w)}. {said}")
        w.say("assistant", w.reply())
    else:  # a remark of its own among the chit-chat
        at = w.user(said)
        w.say("assistant", r.choice(("Oof, that sounds like a day.", "Ha, fair enough.")))
        w.user(_ask(w))
        w.say("assistant", w.reply())
    w.plant("preference", value, at)


def _answer(w: Writer, question: str, value: str, answer: str) -> None:
    r = w.rng
    w.user(_ask(w))
    w.say("assistant", r.choice(_HINTS).replace("{q}", question))
    at = w.user(answer.replace("{v}", value))
    w.say("assistant", w.reply())
    w.plant("preference", value, at)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    narrowed = min(4, facts // 5)
    answers = min(4, (facts - 2 * narrowed) // 3)
    plain = facts - 2 * narrowed - answers
    kinds = ["plain"] * plain + ["answer"] * answers + ["first"] * narrowed
    r.shuffle(kinds)
    # the first statements of narrowed details go early enough to be restated much later
    firsts = sorted(k for k, kind in enumerate(kinds) if kind == "first")
    early = list(range(len(kinds) // 2))
    for k in firsts:
        if k not in early:
            j = next(j for j in early if kinds[j] != "first")
            kinds[j], kinds[k] = kinds[k], kinds[j]
    starts = spread(r, int(turns * 0.85), len(kinds), 3)
    plains = iter(r.sample(PLAIN, plain))
    asks = iter(r.sample(ANSWERS, answers))
    fixes = iter(r.sample(NARROWED, narrowed))
    events: list[tuple[int, Callable[[], None]]] = []
    for start, kind in zip(starts, kinds, strict=True):
        if kind == "plain":
            events.append((start, functools.partial(_plain, w, *next(plains))))
        elif kind == "answer":
            events.append((start, functools.partial(_answer, w, *next(asks))))
        else:
            item = next(fixes)
            held: dict[str, PlantedFact] = {}
            events.append((start, functools.partial(_first, w, item, held)))
            later = min(start + r.randint(60, 160), turns - 4)
            events.append((later, functools.partial(_narrow, w, item, held)))
    timeline(w, turns, events)


def _first(w: Writer, item: tuple[str, str, str, str], held: dict[str, PlantedFact]) -> None:
    old, first, _, _ = item
    at = w.user(f"{first.replace('{v}', old)}. {_ask(w)}")
    w.say("assistant", w.reply())
    held["first"] = w.plant("preference", old, at)


def _narrow(w: Writer, item: tuple[str, str, str, str], held: dict[str, PlantedFact]) -> None:
    _, _, new, later = item
    said = later.replace("{v}", new)
    at = w.user(f"{_ask(w)}. oh and {said}" if w.rng.random() < 0.5 else f"{said}. {_ask(w)}")
    w.say("assistant", w.reply())
    first = held["first"]
    w.supersede(first, at)
    w.plant("correction", new, at, stale=first.value, stale_index=first.message_index)


SYSTEM = "You are a helpful assistant for the keeper at a bird-of-prey centre."


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """Seed ``seed``'s conversation of ``turns`` turns with ``facts`` details."""
    return build(
        seed, "b13-prose", turns, facts, _write, SYSTEM, writer=writer("falconer"), prefix="blind13"
    )
