"""``b12-prose``: a lorry driver's own details, said in plain words among everyday talk.

Four ways, no cue word (:data:`CUES`) in any of them: a detail said in passing before an
ordinary ask (:data:`PLAIN`); one implied by a short story of something that happened
(:data:`EPISODES`); one given as the answer to the assistant's question, which never names the
user ("How old are the kids?", :data:`ANSWERS`); and one said once, then narrowed or restated
40 or more turns later without the old words (:data:`NARROWED`), the second a ``correction``
whose ``stale`` is the first. The assistant's reply is generic and never repeats a value.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind12.base import Writer12, writer
from evals.families.trajectories import Trajectory

__all__ = ["ANSWERS", "CUES", "EPISODES", "NARROWED", "PLAIN", "generate"]

CUES = (
    "remember",
    "note that",
    "for the record",
    "fyi",
    "i prefer",
    "i'm allergic",
    "keep in mind",
    "important",
    "don't forget",
    "please save",
)
"""Words that flag a fact; no fact message holds one."""

PLAIN = (
    ("two border terriers", "came in last night to two border terriers going daft at the door."),
    ("night trunking", "been on night trunking most of this year and my body clock is shot."),
    ("hospital pharmacy", "the wife's at the hospital pharmacy till late so tea's on me again."),
    ("grew up in Grimsby", "i grew up in Grimsby so a fish dock smell doesn't bother me at all."),
    ("rented semi", "we're in a rented semi so i can't go digging up the garden much."),
    ("bad left shoulder", "the bad left shoulder doesn't love the tailgate so the yard lads help."),
    ("every other weekend", "the kids are at their mum's every other weekend so it's quiet here."),
    ("halal", "the new cafe by the depot does halal breakfasts now, which suits me down to "
     "the ground."),
    ("grandson's christening", "still recovering from the grandson's christening, what a do "
     "that was."),
)  # fmt: skip
"""``(value, sentence)``: a detail said before an ordinary ask."""

EPISODES = (
    ("satay", "the lad at the depot offered me his satay wrap and i had to back right off, last "
     "time a bit of that got into my dinner i ended up in the back of an ambulance."),
    ("hearing aid", "missed half of the briefing this morning, the battery in my hearing aid "
     "died and the transport manager just kept going."),
    ("insulin pump", "set the scanner off at the port office again, it was the insulin pump on my "
     "belt, had to lift my shirt in front of a queue of drivers."),
    ("gout", "my big toe flared up after the curry night, could barely work the clutch, the gout "
     "is back with a vengeance."),
    ("reading glasses", "couldn't make out the delivery note at goods-in, had to borrow the lady's "
     "reading glasses and she thought it was hilarious."),
    ("stepdaughter", "picked the stepdaughter up from netball and she chatted the whole way home, "
     "first time in months she's done that."),
    ("asthma inhaler", "got halfway up the hill with the dogs and had to stop for a go on the "
     "asthma inhaler, the cold air gets me every time."),
    ("titanium plate", "the doctor put the x-ray up and the titanium plate in my wrist is still "
     "sitting nicely after all these years."),
    ("sleep apnoea machine", "forgot to pack the sleep apnoea machine for the overnight and woke "
     "up feeling like i'd been hit by a bus."),
)  # fmt: skip
"""``(value, story)``: a detail the story implies, its key words in it."""

ANSWERS = (
    ("How old are the kids?", "eleven and fourteen", "{v}. the older one thinks he's an adult"),
    ("Is it a gas hob or electric?", "induction hob", "{v}, no gas in the house at all"),
    ("Anything that's off the menu?", "shellfish", "{v}, anything else goes"),
    ("What's the rota like at the moment?", "four on four off", "{v}, days this month"),
    ("How many animals are we talking about?", "a rescue greyhound", "just the one, {v}"),
    ("How would you get there?", "on the motorbike", "{v}, it's easier to park"),
    ("Who's at home with you?", "my mother-in-law", "the wife, the kids and {v} since her fall"),
    ("Any injuries to work around?", "torn hamstring", "a {v} from five-a-side last spring"),
    ("Do you drink at all?", "not a drop in six years", "{v}, and i don't miss it"),
    ("Which hand do you write with?", "left handed", "{v}, always smudged everything at school"),
)
"""``(question, value, answer)``: the assistant asks, the user answers (``{v}`` the value)."""

NARROWED = (
    ("no dairy", "doing no dairy at the moment on the doctor's say so.",
     "only fresh milk", "butter and cheese turn out to be fine, it's only fresh milk that upsets "
     "my stomach."),
    ("can't drive in the dark", "i can't drive in the dark these days, the eyes aren't what they "
     "were.", "wet roads at night", "it's wet roads at night that are the problem really, the "
     "glare off the tarmac. dry nights i'm alright."),
    ("three kids", "with three kids in the house it's never quiet.",
     "four kids", "it's four kids under our roof now, my partner's youngest has moved in with us "
     "full time."),
    ("don't eat meat", "i don't eat meat, haven't for years.",
     "eating fish again", "i'm eating fish again, the doctor wanted more oily stuff in me. still "
     "nothing with legs though."),
    ("retire at sixty", "the plan is to retire at sixty and get a camper van.",
     "sixty-two", "looking at the pension numbers it'll be sixty-two before i hand the keys back, "
     "not earlier."),
)  # fmt: skip
"""``(first value, first statement, new value, restatement)``: said, then narrowed later."""

SYSTEM = "You are a friendly, practical assistant helping a lorry driver with everyday things."


def _ask(w: Writer12) -> str:
    return w.rng.choice(w.talk.asks).replace("{t}", w.topic())


def _then(ask: str, more: str) -> str:
    """``ask`` and then ``more``, a full stop between them unless the ask has its own."""
    return f"{ask} {more}" if ask.endswith(("?", ".")) else f"{ask}. {more}"


def _write(w: Writer12, turns: int, facts: int) -> None:
    r = w.rng
    pairs = min(facts // 10, len(NARROWED))
    singles = facts - 2 * pairs
    ways = ["plain", "episode", "answer"]
    order = [ways[k % 3] for k in range(singles)]
    r.shuffle(order)
    plain = iter(r.sample(PLAIN, order.count("plain")))
    story = iter(r.sample(EPISODES, order.count("episode")))
    answer = iter(r.sample(ANSWERS, order.count("answer")))

    def said(value: str, sentence: str) -> Callable[[], None]:
        def go() -> None:
            ask = _ask(w)
            text = f"{sentence} anyway, {ask}" if r.random() < 0.6 else _then(ask, sentence)
            w.plant("preference", value, w.user(text))
            w.say("assistant", w.reply())

        return go

    def story_of(value: str, text: str) -> Callable[[], None]:
        def go() -> None:
            tail = r.choice(("", " anyway.", " typical.", " what a day."))
            w.plant("preference", value, w.user(text + tail))
            w.say("assistant", w.reply((3, 6)))

        return go

    def answered(question: str, value: str, text: str) -> Callable[[], None]:
        def go() -> None:
            w.user(_ask(w))
            w.say("assistant", f"{r.choice(w.talk.openers)} Before I suggest anything: {question}")
            w.plant("preference", value, w.user(text.replace("{v}", value)))
            w.say("assistant", w.reply())

        return go

    events: list[tuple[int, Callable[[], None]]] = []
    slots = sorted(r.sample(range(2, turns - 8), singles + pairs))
    firsts = r.sample(slots[: max(pairs, len(slots) // 2)], pairs)
    rest = [s for s in slots if s not in firsts]
    for slot, way in zip(rest, order, strict=True):
        if way == "plain":
            events.append((slot, said(*next(plain))))
        elif way == "episode":
            events.append((slot, story_of(*next(story))))
        else:
            events.append((slot, answered(*next(answer))))
    for slot, (old, first, new, fix) in zip(firsts, r.sample(NARROWED, pairs), strict=True):
        held: dict[str, int] = {}

        def state(old: str = old, first: str = first, held: dict[str, int] = held) -> None:
            ask = _ask(w)
            held["at"] = w.user(_then(ask, first))
            w.plant("preference", old, held["at"])
            w.say("assistant", w.reply())

        def narrow(
            old: str = old, new: str = new, fix: str = fix, held: dict[str, int] = held
        ) -> None:
            opener = r.choice(("", "oh and ", "while i think of it, ", "small thing, "))
            at = w.user(f"{opener}{fix}")
            first_fact = next(f for f in w.facts if f.value == old)
            w.plant("correction", new, at, stale=old, stale_index=held["at"])
            w.supersede(first_fact, at)
            w.say("assistant", w.reply((3, 6)))

        later = min(turns - 3, slot + r.randint(60, 160))
        events += [(slot, state), (later, narrow)]
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """One ``b12-prose`` conversation: ``facts`` details said four ways over ``turns`` turns."""
    return build(
        seed, "b12-prose", turns, facts, _write, SYSTEM, writer=writer("driver"), prefix="blind12"
    )
