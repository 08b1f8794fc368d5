"""``blind6-confirms``: the assistant proposes something concrete and the user says yes to it.

Paint colours, a delivery slot, campsites, wording for the shop window, a journal, quotes for a
fence, a party date, a greenhouse, or one plan on its own. The user accepts in plain words: by
position ("second one"), by a detail ("the Ghent one", "the later one"), by agreeing with the
assistant's tip ("yeah go with that"), after a question or two, or with a change ("yes but make
it the later one"). The fact is the option taken, in the offer; ``rejected`` the others;
``confirm_index`` the accepting message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from evals.families.blind6.base import TOWNS, Writer, build, run, spread
from evals.families.trajectories import Trajectory

__all__ = ["OFFERS", "confirm_episode", "generate"]

SYSTEM = (
    "You are an organised assistant for a busy person with a bakery, a house being renovated, "
    "an allotment, two kids and a research project. Offer concrete options when asked and act "
    "on what they choose."
)

ORD = ("first", "second", "third", "fourth")


@dataclass(frozen=True)
class Offer:
    ask: tuple[str, ...]
    intro: str  # how the assistant introduces the options
    draw: Callable[[Writer], str]
    timed: bool = False  # options are clock times ("the later one")
    placed: bool = False  # options end in ", near <town>" ("the Ghent one")
    key: Callable[[str], str] = lambda shown: shown  # the value in an option as shown


_SHADES = (
    "Harbour",
    "Oat",
    "Fennel",
    "Smoked",
    "Chalk",
    "Heron",
    "Rye",
    "Slate",
    "Moss",
    "Lichen",
    "Pebble",
    "Ember",
)
_TONES = ("Mist", "Husk", "Grey", "Pearl", "Blue", "Linen", "Stone", "Clay", "Sage", "Dune")
_SLOGANS = (
    "Baked this morning, gone by lunch",
    "Real bread, made slowly",
    "Come in, it smells amazing",
    "Sourdough worth queuing for",
    "Warm loaves, kind prices",
    "Your neighbourhood bakehouse",
    "Flour, water, salt and patience",
    "Bread the way it used to be",
)
_JOURNALS = (
    "Soil Biology Letters",
    "Journal of Field Ecology",
    "Applied Soil Research",
    "Environmental Sampling Review",
    "Land and Ecosystems",
    "Agroecology Quarterly",
)
_GREENHOUSES = (
    "Rhino Classic",
    "Elite Craftsman",
    "Vitavia Venus",
    "Palram Balance",
    "Halls Popular",
    "Juliana Compact",
)
_SITE_A = ("Willow", "Hollybush", "Cliff Top", "Brook", "Sandpiper", "Orchard", "Foxglove", "Gorse")
_SITE_B = ("Farm", "Meadow", "Camping", "End", "Park", "Field")


def _town(w: Writer) -> str:
    """A town not yet named in this offer (so "the Ghent one" is one option)."""
    town = w.rng.choice([t for t in TOWNS if t not in w.labels])
    w.labels.add(town)
    return town


def _from(pool: tuple[str, ...]) -> Callable[[Writer], str]:
    return lambda w: w.fresh(lambda: w.rng.choice(pool))


OFFERS: dict[str, Offer] = {
    "paint": Offer(
        (
            "help me choose a colour for the hallway, warm but not yellow, it's quite dark",
            "hallway paint. i can't decide. give me a few to pick from",
        ),
        "A few that work well in a darker hallway:",
        lambda w: w.fresh(lambda: f"{w.rng.choice(_SHADES)} {w.rng.choice(_TONES)}"),
    ),
    "delivery": Offer(
        (
            "when can the flour be delivered this week, the mill gave me slots",
            "can you sort a delivery slot for the flour, any that doesn't clash with opening",
        ),
        "The mill has these slots free:",
        lambda w: w.time(),
        timed=True,
    ),
    "campsite": Offer(
        (
            "find us a campsite for the summer, somewhere with a shower block and a bit of space "
            "for the kids",
            "campsite ideas please, we want somewhere by the sea if possible",
        ),
        "These have space and decent facilities:",
        lambda w: (
            w.fresh(lambda: f"{w.rng.choice(_SITE_A)} {w.rng.choice(_SITE_B)}")
            + f", near {_town(w)}"
        ),
        placed=True,
        key=lambda shown: shown.split(",")[0],
    ),
    "sign": Offer(
        (
            "i need a new line for the a-board outside the shop, something short and warm",
            "write me a couple of options for the shop window sign",
        ),
        "Some short lines for the board:",
        _from(_SLOGANS),
    ),
    "journal": Offer(
        (
            "where should i send the soil paper, my supervisor said aim realistic",
            "can you suggest journals for the field survey paper",
        ),
        "Journals that fit the scope and publish this kind of survey:",
        _from(_JOURNALS),
    ),
    "fence": Offer(
        (
            "we had a few people quote for the back fence, can you help me pick",
            "fence quotes are in, who would you go with",
        ),
        "Going by the quotes and the reviews, the candidates are:",
        lambda w: f"{w.person()} for {w.money(600, 2900)}",
        key=lambda shown: shown.split(" for ")[0],
    ),
    "party": Offer(
        (
            "when should we do the kids' party, the hall has a few dates",
            "the village hall sent me dates for the birthday party, which is best",
        ),
        "The hall is free on these:",
        lambda w: w.day()[0],
    ),
    "greenhouse": Offer(
        (
            "which greenhouse should i get for the allotment, nothing too flimsy",
            "greenhouse shopping. help me narrow it down",
        ),
        "Sturdy options that suit an exposed plot:",
        _from(_GREENHOUSES),
    ),
}

_THINK = (
    (
        "hmm can i change it later if plans shift?",
        "Usually yes, as long as you let them know in good time.",
    ),
    (
        "what would you do?",
        "Honestly it mostly comes down to what suits your week, they're all reasonable.",
    ),
    (
        "are any of those a pain to deal with?",
        "None of them should be a problem from what I can see.",
    ),
    ("is there much between them honestly", "Not a huge amount, no. Any of them would do."),
    ("would the kids notice the difference lol", "Probably not, to be fair."),
    ("ugh decisions. give me a sec", "Take your time."),
)


def _accept(w: Writer, offer: Offer, options: list[str], tip: int | None) -> tuple[int, str]:
    """Which option the user takes and how they say it (never naming it)."""
    r = w.rng
    n = len(options)
    ways = ["position", "position"]
    if tip is not None:
        ways += ["tip", "tip"]
    if offer.timed:
        ways += ["time"] * 3
    if offer.placed:
        ways += ["place", "place"]
    way = r.choice(ways)
    if way == "tip" and tip is not None:
        return tip, r.choice(
            (
                "yeah that",
                "go with what you said",
                "sure, your pick",
                "yes that one sounds right",
                "agreed, that one",
            )
        )
    if way == "time":
        order = sorted(range(n), key=lambda i: [int(x) for x in options[i].split(":")])
        if tip is not None and r.random() < 0.6:
            later = [i for i in order if order.index(i) > order.index(tip)]
            if later:
                return later[0], r.choice(
                    (
                        "yes but make it the later one",
                        "ok but the later one if poss",
                        "yep, one slot later though",
                    )
                )
        if r.random() < 0.5:
            return order[0], r.choice(("the earliest one", "earliest please", "first slot"))
        return order[-1], r.choice(("the last slot", "latest one pls", "the latest"))
    if way == "place":
        i = r.randrange(n)
        town = options[i].rsplit(" ", 1)[1]
        return i, r.choice((f"the {town} one", f"{town} sounds good", f"lets do {town}"))
    i = r.randrange(n)
    if i == n - 1 and r.random() < 0.5:
        return i, r.choice(("the last one", "last one please", "go with the last"))
    return i, r.choice(
        (
            f"the {ORD[i]} sounds good",
            f"{ORD[i]} one pls",
            f"number {['one', 'two', 'three', 'four'][i]}",
            f"ok the {ORD[i]} one",
        )
    )


def confirm_episode(w: Writer, name: str) -> None:
    """An offer (or one proposal), maybe a question, and the user's yes."""
    r = w.rng
    offer = OFFERS[name]
    w.user(r.choice(offer.ask))
    if r.random() < 0.2 and not offer.timed:  # one proposal on its own
        shown = offer.draw(w)
        value = offer.key(shown)
        at = w.say(
            "assistant",
            r.choice(
                (
                    f"How about {shown}? I think it suits what you described.",
                    f"I'd go for {shown}. Want me to go ahead?",
                )
            ),
        )
        if r.random() < 0.4:
            question, answer = r.choice(_THINK)
            w.user(question)
            w.say("assistant", answer)
        yes = w.user(r.choice(("yes do that", "go on then", "sounds good, go ahead", "ok yes")))
        w.plant("value", value, at, confirm_index=yes)
        w.say("assistant", r.choice(("Done.", "Great, I'll sort it.", "Okay, going ahead.")))
        return
    w.labels = set()
    options = [offer.draw(w) for _ in range(r.randint(2, 4))]
    tip = r.randrange(len(options)) if r.random() < 0.5 else None
    if name == "sign":  # lines with commas of their own: quoted, one a line
        body = "\n".join(f'{k + 1}. "{o}"' for k, o in enumerate(options))
    elif r.random() < 0.5:
        body = "\n".join(f"{k + 1}. {o}" for k, o in enumerate(options))
    else:
        body = "There's " + ", ".join(options[:-1]) + f" or {options[-1]}."
    text = f"{offer.intro}\n\n{body}"
    if tip is not None:
        text += r.choice(
            (f"\n\nI'd lean towards {options[tip]}.", f"\n\nIf it were me, {options[tip]}.")
        )
    at = w.say("assistant", text)
    for question, answer in r.sample(_THINK, r.choice((0, 0, 1, 2))):
        w.user(question)
        w.say("assistant", answer)
    i, words = _accept(w, offer, options, tip)
    yes = w.user(words)
    rejected = tuple(offer.key(o) for k, o in enumerate(options) if k != i)
    w.plant("value", offer.key(options[i]), at, rejected=rejected, confirm_index=yes)
    w.say(
        "assistant",
        r.choice(
            ("Lovely, done.", "Okay, I've gone with that.", "Perfect, that's booked in.", "Sorted.")
        ),
    )


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    once = ["sign", "journal", "greenhouse"]  # small pools: offered once a conversation
    many = [n for n in OFFERS if n not in once]
    names = (once + [many[k % len(many)] for k in range(facts)])[:facts]
    r.shuffle(names)
    width = max(4, min(20, (turns - 4) // max(1, facts)))
    starts = spread(r, turns - 4, facts, width)
    run(w, turns, starts, [partial(confirm_episode, w, n) for n in names])


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """One ``blind6-confirms`` conversation for ``seed``."""
    return build(seed, "b6-confirms", turns, facts, _write, SYSTEM)
