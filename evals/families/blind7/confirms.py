"""``blind7-confirms``: the assistant offers options, the user takes one without naming it.

The same person works a ward, helps out at a warehouse office and runs the club's socials,
and asks the assistant for ideas: holiday clubs, a restaurant for the end-of-season dinner, a
carrier, a closing song, a leaving present, a team name, a fundraiser, a paint colour, a
childminder. The assistant offers them as a numbered or bulleted list or in prose, sometimes
with its own pick, sometimes a single idea. The user answers in a few words that never name
the option: by position ("number two"), by price ("the cheaper one"), by agreeing with the
pick ("yeah your pick"), with a change ("not that one, the one after"), after asking which
fits ("which is cheapest?" ... "that one then"), or after turning a whole list down and taking
one of a second. The fact is the option taken (in the offer that names it), ``rejected`` the
others of that offer, ``confirm_index`` the accepting message.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.families.blind6.base import run, spread
from evals.families.blind7.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["TOPICS", "generate"]

SYSTEM = "You are a friendly assistant that suggests options and helps people decide."


@dataclass(frozen=True)
class Topic:
    """What the user asks ideas for, the ideas and what their price is per."""

    ask: str
    options: tuple[str, ...]
    per: str
    lo: int
    hi: int


TOPICS = (
    Topic("can you find a holiday club for the kids over the summer",
          ("Little Acorns", "Camp Kestrel", "Funtastic Kids Club", "the Scout hut scheme",
           "Splashdown Sports Camp", "Wildwood Forest School", "Busy Bees Playscheme",
           "Multisport Mania", "Artbox Holiday Club"),
          "a week", 90, 240),
    Topic("ideas for where to do the end-of-season dinner",
          ("the Olive Tree", "Bengal Spice", "the Fox and Hounds", "Casa Lupo", "the Boathouse",
           "Golden Lotus", "the Wheatsheaf", "Taverna Nikos", "the Crown and Anchor"),
          "a head", 18, 45),
    Topic("which carrier should we use for the pallets to Scotland",
          ("Northway Freight", "Palletline Express", "Cromer Haulage", "Bluebird Logistics",
           "TransPennine Carriers", "Ironbridge Transport", "Saltire Road Services",
           "Kinloch Carriers", "Fenwick Freight"),
          "a pallet", 55, 140),
    Topic("what should the choir close the concert with",
          ("Bring Him Home", "Seasons of Love", "Hallelujah", "Africa", "Abide With Me",
           "The Parting Glass", "Fix You", "Homeward Bound", "Lean on Me"),
          "a set of copies", 30, 120),
    Topic("leaving present ideas for a colleague, budget is whatever we collect",
          ("a spa voucher", "a wine-tasting class", "a signed cookbook", "a hamper",
           "theatre tickets", "a pottery workshop", "a personalised star map",
           "a hot air balloon ride", "a cheese-making course"), "", 30, 90),
    Topic("help us name the new girls' team",
          ("the Kestrels", "Riverside Rovers", "the Otters", "Valley Vipers", "the Comets",
           "Lightning Lionesses", "the Harriers", "the Swifts", "Meadow Wanderers"),
          "in kit printing", 20, 80),
    Topic("what could we do to raise money for the new minibus",
          ("a quiz night", "a sponsored walk", "a car boot sale", "a race night",
           "a ceilidh", "a duck race", "a curry night", "a fun run", "a pamper evening"),
          "to set up", 40, 300),
    Topic("colour ideas for repainting the clubhouse",
          ("Sage Whisper", "Harbour Blue", "Mustard Seed", "Dove Grey", "Pebble Shore",
           "Heather Mist", "Smoked Oak", "Morning Oat", "Fern Hollow"), "a tin", 24, 58),
    Topic("can you find a childminder near the school for after-school pick-ups",
          ("Jo at Sunflower Childcare", "Tiny Steps", "Kiddiwinks", "Honeypot Home Childcare",
           "Little Owls", "Acorn Cottage Childminding", "Rainbow Corner",
           "Puddleducks", "Maple House Minders"), "a week", 70, 160),
    Topic("which van hire place for the club's kit run",
          ("Redline Van Centre", "Dave's Vans", "Northgate Hire", "Swift Van Rental",
           "Millers Self Drive", "Anchor Vans", "Budget Wheels", "Ridgeline Hire",
           "Toplink Vans"), "a day", 45, 120),
)  # fmt: skip
"""The things ideas are asked for."""

ORDINALS = ("first", "second", "third", "fourth")
LEADS = (
    "Here are a few options:",
    "A few that could work:",
    "Some ideas:",
    "Options I'd consider:",
)
TIPS = (
    "I'd go for {o} myself.",
    "If it were me, {o}.",
    "My pick would be {o}.",
)
SINGLE = (
    "How about {o}? It's about {p}{per} and people rate it.",
    "One idea: {o}, roughly {p}{per}. Want me to go with that?",
)
ACCEPT_ONE = ("yeah go on then", "sounds good, do it", "fine by me", "ok yes")
BY_TIP = ("go with what you said", "yeah your pick", "agreed, do that", "ok, yours")
BY_CHANGE = ("not that one, the one after", "hmm, the next one down instead")
REFUSE = (
    "none of those grab me. anything else?",
    "not keen on any of them tbh, other ideas?",
    "nah. try again?",
)
QUESTIONS = (
    ("which of those is cheapest?", "That's the {ord} one, at {p}{per}."),
    ("which one's least money?", "The {ord} one, {p}{per}."),
)
AFTER_QUESTION = ("that one then", "ok, that one", "go with that")


def _offer(w: Writer, topic: Topic, options: list[str], prices: list[str], tip: int | None) -> str:
    """The options in a numbered list, a bulleted list or prose, and the pick if any."""
    r = w.rng
    per = f" {topic.per}" if topic.per else ""
    if len(options) == 1:
        return (
            r.choice(SINGLE)
            .replace("{o}", options[0])
            .replace("{p}", prices[0])
            .replace("{per}", per)
        )
    how = r.random()
    if how < 0.35:
        lines = [
            f"{i}. {o} ({p}{per})" for i, (o, p) in enumerate(zip(options, prices, strict=True), 1)
        ]
        text = "\n".join([r.choice(LEADS), *lines])
    elif how < 0.6:
        lines = [f"- {o}: {p}{per}" for o, p in zip(options, prices, strict=True)]
        text = "\n".join([r.choice(LEADS), *lines])
    else:
        parts = [f"{o} at {p}{per}" for o, p in zip(options, prices, strict=True)]
        text = f"You could try {', '.join(parts[:-1])}, or {parts[-1]}."
    if tip is not None:
        text += "\n\n" + r.choice(TIPS).replace("{o}", options[tip])
    return text


def _topic(w: Writer, need: int) -> Topic | None:
    """A topic with ``need`` options not offered yet (``None`` if none is left)."""
    free = [t for t in TOPICS if len(set(t.options) - w.used) >= need]
    return w.rng.choice(free) if free else None


def _draw(w: Writer, topic: Topic, n: int) -> tuple[list[str], list[str], list[int]]:
    """``n`` options of ``topic`` not offered before, with their prices."""
    r = w.rng
    options = r.sample([o for o in topic.options if o not in w.used], n)
    w.used.update(options)
    numbers = r.sample(range(topic.lo, topic.hi + 1), n)
    return options, [f"£{x}" for x in numbers], numbers


def _episode(w: Writer) -> None:
    r = w.rng
    n = 1 if r.random() < 0.15 else r.randint(2, 4)
    refused = n > 1 and r.random() < 0.15
    topic = _topic(w, 2 * n if refused else n)
    if topic is None:  # late in a long conversation: fewer options left
        n, refused = 1, False
        topic = _topic(w, 1)
        assert topic is not None, "every option of every topic offered already"
    options, prices, numbers = _draw(w, topic, n)
    w.user(topic.ask)
    if refused:
        w.say("assistant", _offer(w, topic, options, prices, None))
        w.user(r.choice(REFUSE))
        options, prices, numbers = _draw(w, topic, n)
    tip = r.randrange(n) if n > 1 and r.random() < 0.5 else None
    at = w.say("assistant", _offer(w, topic, options, prices, tip))
    pick, answer = _answer(w, topic, n, prices, numbers, tip)
    confirm = w.user(answer)
    w.say("assistant", w.rng.choice(("Great, I'll sort that.", "Done.", "Lovely, going ahead.")))
    rejected = tuple(o for i, o in enumerate(options) if i != pick)
    w.plant("preference", options[pick], at, rejected=rejected, confirm_index=confirm)


def _answer(
    w: Writer, topic: Topic, n: int, prices: list[str], numbers: list[int], tip: int | None
) -> tuple[int, str]:
    """Which option the user takes, and the words (a question first, sometimes)."""
    r = w.rng
    if n == 1:
        return 0, r.choice(ACCEPT_ONE)
    how = r.random()
    if tip is not None and how < 0.3:
        return tip, r.choice(BY_TIP)
    if tip is not None and tip < n - 1 and how < 0.45:
        return tip + 1, r.choice(BY_CHANGE)
    cheapest = numbers.index(min(numbers))
    if how < 0.65:
        question, reply = r.choice(QUESTIONS)
        w.user(question)
        per = f" {topic.per}" if topic.per else ""
        w.say(
            "assistant",
            reply.replace("{ord}", ORDINALS[cheapest])
            .replace("{p}", prices[cheapest])
            .replace("{per}", per),
        )
        return cheapest, r.choice(AFTER_QUESTION)
    if how < 0.75:
        return cheapest, "the cheaper one" if n == 2 else "the cheapest"
    k = r.randrange(n)
    words = [f"number {k + 1}", f"the {ORDINALS[k]} one", f"{ORDINALS[k]} one please"]
    if k == n - 1:
        words.append("the last one")
    return k, r.choice(words)


def _write(w: Writer, turns: int, facts: int) -> None:
    starts = spread(w.rng, turns, facts, 4)
    run(w, turns, starts, [lambda: _episode(w)] * facts)


def generate(seed: int, *, turns: int = 450, facts: int = 20) -> Trajectory:
    """A ``blind7-confirms`` conversation: ``facts`` options taken in a few words."""
    return build(seed, "b7-confirms", turns, facts, _write, SYSTEM, "mixed")
