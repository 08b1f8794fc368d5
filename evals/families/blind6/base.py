"""What the sixth blind set's families share: a turn writer, fresh values, chatter, checks.

The people in these conversations run a small bakery, grow vegetables, renovate a house, plan
a family trip or write up a research project, and use an assistant for all of it. Each family
plants its facts through :class:`Writer` and fills the turns between them with
:meth:`Writer.chatter`, which never holds a clock time, an amount of money, a weekday, a month,
a code, a digit or a person's name, so a planted value cannot turn up there by chance.
:func:`build` draws a seed again from a derived generator when one still does (:func:`check`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from evals.families.facts import FactKind, PlantedFact
from evals.families.placement import (
    Collision,
    Exhausted,
    count_in,
    first_clean,
    texts_of,
    where,
)
from evals.families.pools import MONTHS, WEEKDAYS
from evals.families.trajectories import Trajectory

__all__ = ["Collision", "Talk", "Writer", "build", "check", "count_in", "dumps", "spread"]


def dumps(data: Any) -> str:
    """JSON as a tool prints it, non-ASCII kept (a pound sign, not its escape)."""
    return json.dumps(data, ensure_ascii=False)


FIRST = (
    "Agnieszka", "Bertrand", "Cormac", "Dagny", "Eleftheria", "Fergal", "Gwendolyn", "Hamish",
    "Ilse", "Jarek", "Kalinda", "Leopold", "Maeve", "Nikolai", "Orla", "Piotr", "Quentin",
    "Rosalind", "Sefton", "Thandiwe", "Ulrike", "Valentin", "Winifred", "Xavier", "Yolanda",
)  # fmt: skip
LAST = (
    "Abernethy", "Bergstrom", "Cavanagh", "Delacroix", "Esposito", "Fairweather", "Gallagher",
    "Holmberg", "Ibarra", "Jankowski", "Kilbride", "Lindqvist", "Marchetti", "Nakamura",
    "Oyelaran", "Prendergast", "Quinlan", "Rasmussen", "Szymanski", "Thorburn", "Underhill",
    "Vasquez", "Whitcombe", "Yardley", "Zielinski",
)  # fmt: skip
TOWNS = (
    "Ghent", "Bruges", "Harrogate", "Keswick", "Tenby", "Whitby", "Oban", "Ludlow", "Kinsale",
    "Dinan", "Colmar", "Annecy", "Lucca", "Ronda", "Bamberg", "Delft", "Hallstatt", "Sintra",
    "Aveiro", "Kotor", "Rovinj", "Bled", "Tavira", "Nerja",
)  # fmt: skip

# -- chatter: no clock times, money, weekdays, months, codes, digits or people's names -------

_TOPICS = (
    "the croissant lamination",
    "my tomato seedlings going leggy",
    "getting the kids to pack their own bags",
    "the literature review chapter",
    "sanding the old floorboards",
    "the shop's instagram captions",
    "slugs on the lettuces",
    "how to word the grant progress update",
    "damp patches on the back bedroom wall",
    "what to do with leftover brioche dough",
    "whether to prune the apple tree now",
    "the car sickness thing on long drives",
    "citing a dataset properly",
    "filling the cracks round the skirting",
    "keeping the sourdough going over the holidays",
    "the compost heap smelling",
    "motivating myself to write in the mornings",
    "the bathroom extractor fan rattling",
    "a polite reply to a grumpy customer review",
    "keeping the raised beds from drying out",
    "entertaining the little one on a rainy afternoon",
    "my supervisor's comments on the methods section",
    "choosing a primer for bare plaster",
    "the display fridge icing up",
)
_ASKS = (
    "quick q about {t}",
    "ok so {t}, what would you actually do",
    "can u help with {t}? i'm going round in circles",
    "random one but {t}... any ideas",
    "{t} again sorry!! i tried your last suggestion and it sort of worked but not really",
    "so my mum says something about {t} and i'm not sure she's right, thoughts",
    "any thoughts on {t}",
    "i need a sanity check on {t} before i waste another weekend on it",
    "what's the least faff way to handle {t}",
    "help, {t}. i'm too tired to think straight about it",
    "explain {t} to me like i've never done it before because honestly i haven't",
    "is there a trick to {t} that everyone knows except me",
    "right next thing. {t}",
    "ugh {t}. where do i even start",
    "could you write me a few lines about {t}, nothing formal",
    "been reading forums about {t} and now im more confused than before",
    "whats the usual mistake people make with {t}",
    "genuinely curious, {t} - is it worth the bother",
)
_CONTEXT = (
    "",
    "",
    "",
    "sorry if ive asked this before.",
    "the house is chaos today so keep it short if you can.",
    "typing this one handed with a toddler on my lap.",
    "my other half thinks i'm overdoing it.",
    "it's not urgent, just nagging at me.",
    "i had a go already and made it worse i think.",
    "a friend swore by one method but it didnt work for me.",
    "trying to clear a few small things off the list while it's quiet.",
    "ive got flour all over my phone so excuse typos.",
)
_OPENERS = (
    "Sure thing.",
    "Good one to ask about.",
    "Happy to help.",
    "Okay, let's have a look.",
    "That's a really common headache.",
    "No worries at all.",
    "Here's how I'd think about it.",
    "Right.",
    "Fair question.",
    "Let's keep it simple.",
    "Ah, yes, that one.",
)
_SENTENCES = (
    "The first thing I'd check is whether the basics are in place before changing anything big.",
    "Usually the problem is a bit earlier in the process than where it becomes visible.",
    "Go gently at first; it's much easier to add more than to undo too much.",
    "Try one change at a time so you can tell which one made the difference.",
    "If the surface is still damp, give it longer than you think before the next step.",
    "A short note of what you tried will save you repeating it later.",
    "Warmth and patience do a lot of the work here, so don't rush the resting stage.",
    "Most of the guides online overcomplicate it; the plain method works fine.",
    "Keep the tone friendly but get to the point in the opening line.",
    "If it still isn't right after that, tell me exactly what you're seeing and we'll narrow it "
    "down.",
    "You don't need anything fancy for this, ordinary kitchen or shed tools will do.",
    "It's worth doing a small test patch before committing to the whole thing.",
    "Watering deeply and less often tends to work better than a little every evening.",
    "Break it into small chunks and do the annoying bit first while you still have energy.",
    "Reading it out loud once usually shows you which sentence is doing too much.",
    "Good ventilation solves more of these problems than people expect.",
    "There's no harm in starting over if the first attempt went sideways.",
    "A thin coat that dries properly beats a thick one that stays tacky.",
    "Children usually cope better when they know what's coming next, even roughly.",
    "Pick the version you can actually keep up, not the perfect one.",
    "Leave it overnight and look again with fresh eyes in the morning.",
    "If anything smells of burning or you see sparks, stop and get someone qualified in.",
    "The instructions on the tin are often more useful than forum advice.",
    "Mulch helps a lot with keeping moisture in and weeds down.",
    "Make sure the dough is properly chilled between folds, that's where most people slip.",
    "A clear heading and a short summary at the top make the rest easier to follow.",
    "Keep the old version somewhere until you're sure the new one is better.",
    "Small regular effort beats one enormous push for this kind of job.",
    "Ask someone nearby to have a quick look, a second pair of eyes helps.",
    "Label things as you go, you'll be glad later.",
    "It's normal for the first try to look rough; it improves quickly with practice.",
    "Don't be too hard on yourself, this is fiddly for everyone.",
    "If you're unsure, the cautious option is usually the cheaper one in the long run.",
    "Give the plants a bit of shade in the hottest part of the day if they're flagging.",
    "Honest and brief tends to land better with unhappy customers than long apologies.",
    "Your reviewer mostly wants to see that you've thought about the limitations.",
    "Sand with the grain and vacuum between passes, the dust gets everywhere otherwise.",
    "A snack and a clear plan prevent most meltdowns, for adults as well as kids.",
    "Write the messy draft fast and fix it afterwards; editing is easier than starting.",
    "Check the seals and the connections before assuming something is broken.",
    "You can always come back to it once the rest is done.",
    "That should get you moving again, shout if it doesn't.",
)
_BULLETS = (
    "do the basics first",
    "one change at a time",
    "test a small patch",
    "let it rest properly",
    "keep notes",
    "ask for a second look",
    "stop when it's good enough",
    "tidy as you go",
)
_THANKS = (
    "thanks!",
    "ok ta",
    "perfect thank u",
    "great, cheers",
    "makes sense, thanks",
    "brill",
    "ok ill try that",
    "lovely",
    "ah ok that helps",
    "good shout",
    "thanks, thats useful",
)
_SEARCHES = (
    ("search_web", "why is my bread dense", "Common causes: underproofing, cold kitchen, weak "
     "starter, too little water. Most bakers suggest a longer, warmer final proof."),
    ("search_web", "best mulch for vegetable beds", "Straw, leaf mould and well rotted compost "
     "are the usual recommendations; avoid fresh wood chip around young plants."),
    ("search_notes", "primer", "Notes mention: mist coat first on new plaster, let it dry "
     "fully, then the proper coats."),
    ("search_web", "travel games for kids car", "Ideas: spot the colour, story chains, audio "
     "books, a bag of small surprises handed out along the way."),
    ("search_notes", "reviewer comments", "Notes mention: tighten the introduction, clarify "
     "the sampling approach, add a limitations paragraph."),
    ("search_web", "extractor fan rattling fix", "Usually a loose cover or a worn bearing; "
     "cleaning the blades and tightening the housing often fixes it."),
)  # fmt: skip


def check(messages: Sequence[dict[str, Any]], facts: Sequence[PlantedFact]) -> None:
    """Every value where the scorer looks for it, and nowhere else.

    A value and its aliases are in the fact's own message only. A value it replaced is in the
    messages that stated the chain's earlier values (and nowhere else). An option not taken is
    in the offer only.
    """
    texts = texts_of(messages)
    for f in facts:
        if f.value not in texts[f.message_index][0]:
            raise AssertionError(f"{f.id} {f.value!r} is not in message {f.message_index}")
        if where(texts, f.value) != [f.message_index]:
            raise Collision(f"{f.id} {f.value!r} in {where(texts, f.value)}")
        for form in f.aliases:
            if not set(where(texts, form)) <= {f.message_index}:
                raise Collision(f"{f.id} alias {form!r} in {where(texts, form)}")
        chain = [f, *(g for g in facts if g.value in f.stale_values)]
        stated = {g.message_index for g in chain} | {g.stale_index for g in chain}
        for old in f.stale_values:
            hits = where(texts, old)
            if not hits or not set(hits) <= stated:
                raise Collision(f"{f.id} stale {old!r} in {hits}")
        for option in f.rejected:
            if where(texts, option) != [f.message_index]:
                raise Collision(f"{f.id} option {option!r} in {where(texts, option)}")


@dataclass(frozen=True)
class Talk:
    """What a set's chatter is made of, and how often each part comes.

    :meth:`Writer.chatter` writes one ordinary turn from it: an ask about a topic (a context
    said before or after it now and then), a look-up now and then, a generic answer
    (:meth:`Writer.reply`: an opener and a few sentences, now and then a list or a snippet),
    now and then a thank-you and its answer; with ``small_talk``, now and then a pleasantry
    and its answer instead. Every set from the sixth on writes its chatter this way with its
    own words and odds, so each gives its :class:`Writer` a ``Talk``; the generator is drawn
    from in one order for all (a set's conversations are what its own writer made before).

    Attributes:
        asks: what the user asks, ``{t}`` standing for a topic (the writer's ``topics``).
        context: said before or after an ask (``""``: nothing).
        openers, sentences: an answer's first sentence, and the sentences it samples.
        bullets: a list's points; ``bullets_head`` opens the list, ``bullet`` marks a point.
        thanks, welcomes: a thank-you and the assistant's answer to it.
        lookups: ``(tool, query, result)`` look-ups, led by ``lookup_lead`` half the time.
        web_results: instead of ``lookups``, results of a web search for the ask itself.
        small_talk: ``(said, answer)`` pleasantries, a turn of their own.
        code, code_head: snippets an answer may end with, and the words before one.
        small_talk_p, context_first, lookup_p, thanks_p: how often each comes.
        bullets_p, code_p: an answer ends with a list when a roll is under ``bullets_p``,
            with a snippet when it is under ``code_p`` (not a list).
    """

    asks: Sequence[str]
    context: Sequence[str]
    openers: Sequence[str]
    sentences: Sequence[str]
    bullets: Sequence[str]
    thanks: Sequence[str]
    welcomes: Sequence[str]
    lookups: Sequence[tuple[str, str, str]] = ()
    lookup_lead: str | None = None
    web_results: Sequence[str] = ()
    small_talk: Sequence[tuple[str, str]] = ()
    code: Sequence[str] = ()
    code_head: str = ""
    bullets_head: str = "So:"
    bullet: str = "-"
    small_talk_p: float = 0.0
    context_first: float = 0.5
    lookup_p: float = 0.12
    thanks_p: float = 0.15
    bullets_p: float = 0.3
    code_p: float = 0.0


TALK = Talk(
    asks=_ASKS,
    context=_CONTEXT,
    openers=_OPENERS,
    sentences=_SENTENCES,
    bullets=_BULLETS,
    thanks=_THANKS,
    welcomes=("Any time.", "Good luck with it!", "Glad it helps."),
    lookups=_SEARCHES,
    lookup_lead="Let me look.",
)
"""This set's own chatter."""


class Writer:
    """Appends one conversation's messages and records the facts planted in them.

    ``talk`` is what its chatter is made of (:class:`Talk`), ``topics`` what its asks are
    about (this set's, or a later set's ``personas[persona]``): a later set gives its own.
    """

    talk: Talk = TALK
    personas: Mapping[str, Sequence[str]] = {}
    """A later set's people: each one's topics (``persona`` picks one)."""

    def __init__(self, rng: random.Random, system: str, persona: str | None = None) -> None:
        self.rng = rng
        self.topics: Sequence[str] = _TOPICS if persona is None else self.personas[persona]
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()
        self.turn = -1
        self.meta = ""  # a detail an episode carries from a statement to its fixes
        self.labels: set[str] = set()  # cells taken in the table being written

    def user(self, text: str) -> int:
        """Open a new turn with the user's ``text``; its index."""
        self.turn += 1
        self.turn_starts.append(len(self.messages))
        return self.say("user", text)

    def say(self, role: str, text: str) -> int:
        self.messages.append({"role": role, "content": text})
        return len(self.messages) - 1

    def tool(self, name: str, args: dict[str, Any], content: str, lead: str | None = None) -> int:
        """An assistant tool call (``lead`` its text, if any) and its result; the result's index."""
        cid = f"call_{self.rng.getrandbits(40):010x}"
        call = {
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        self.messages.append({"role": "assistant", "content": lead, "tool_calls": [call]})
        self.messages.append({"role": "tool", "tool_call_id": cid, "content": content})
        return len(self.messages) - 1

    def plant(self, kind: FactKind, value: str, where: int, **fields: Any) -> PlantedFact:
        """Record a fact in message ``where``, of the turn that message belongs to."""
        turn = max(k for k, start in enumerate(self.turn_starts) if start <= where)
        fact = PlantedFact(
            id=f"f{len(self.facts):02d}",
            kind=kind,
            value=value,
            turn_index=turn,
            message_index=where,
            role=str(self.messages[where]["role"]),
            **fields,
        )
        self.facts.append(fact)
        return fact

    def supersede(self, fact: PlantedFact, by: int) -> None:
        """Mark ``fact`` replaced from message ``by`` on (the next value in its chain)."""
        i = self.facts.index(fact)
        self.facts[i] = PlantedFact(**{**fact.__dict__, "until": by})

    # -- chatter ------------------------------------------------------------------------------

    def topic(self) -> str:
        """Something this person might talk about, with no value in it."""
        return self.rng.choice(self.topics)

    def chatter(self) -> None:
        """One ordinary turn about something else (:class:`Talk`: this writer's ``talk``)."""
        r, talk = self.rng, self.talk
        if talk.small_talk and r.random() < talk.small_talk_p:
            said, answer = r.choice(talk.small_talk)
            self.user(said)
            self.say("assistant", answer)
            return
        ask = r.choice(talk.asks).replace("{t}", self.topic())
        context = r.choice(talk.context)
        if context:
            ask = f"{context} {ask}" if r.random() < talk.context_first else f"{ask}. {context}"
        self.user(ask)
        if r.random() < talk.lookup_p:
            if talk.web_results:
                self.tool("search_web", {"query": ask[:60]}, r.choice(talk.web_results))
            else:
                name, query, result = r.choice(talk.lookups)
                self.tool(name, {"query": query}, result, lead=r.choice((None, talk.lookup_lead)))
        self.say("assistant", self.reply())
        if r.random() < talk.thanks_p:
            self.user(r.choice(talk.thanks))
            self.say("assistant", r.choice(talk.welcomes))

    def reply(self, sentences: tuple[int, int] = (4, 10)) -> str:
        """A generic answer; now and then with a list or a snippet (:class:`Talk`)."""
        r, talk = self.rng, self.talk
        text = " ".join([r.choice(talk.openers), *r.sample(talk.sentences, r.randint(*sentences))])
        roll = r.random()
        if roll < talk.bullets_p:
            points = r.sample(talk.bullets, r.randint(2, 4))
            text += f"\n\n{talk.bullets_head}\n" + "\n".join(f"{talk.bullet} {b}" for b in points)
        elif talk.code and roll < talk.code_p:
            text += f"\n\n{talk.code_head}\n\n" + r.choice(talk.code)
        return text

    def short(self) -> str:
        """A short reply that repeats nothing."""
        return self.rng.choice(
            (
                "Got it, updated.",
                "Okay, noted.",
                "Right, changed that on my side.",
                "Sure, I've amended it.",
                "No problem, sorted.",
                "Thanks for the heads up, fixed.",
                "Okay, I'll go with that from now on.",
            )
        )

    def pad(self, turns: int) -> None:
        for _ in range(turns):
            self.chatter()

    # -- fresh values -------------------------------------------------------------------------

    def fresh(self, make: Callable[[], str]) -> str:
        for _ in range(1000):
            value = make()
            if value not in self.used:
                self.used.add(value)
                return value
        raise Exhausted("ran out of fresh values")  # the seed is drawn again

    def time(self) -> str:
        r = self.rng
        return self.fresh(lambda: f"{r.randint(7, 20):02d}:{r.choice((0, 15, 20, 30, 40, 45)):02d}")

    def money(self, lo: int = 40, hi: int = 3900, sign: str = "£") -> str:
        r = self.rng
        return self.fresh(lambda: f"{sign}{r.randint(lo, hi):,}")

    def code(self, shape: str = "AA-9999") -> str:
        r = self.rng
        letters, digits = "BCDEFGHJKLMNPRSTUVWXYZ", "23456789"  # no "A": an article
        return self.fresh(
            lambda: "".join(
                r.choice(letters) if c == "A" else r.choice(digits) if c == "9" else c
                for c in shape
            )
        )

    def person(self) -> str:
        r = self.rng
        return self.fresh(lambda: f"{r.choice(FIRST)} {r.choice(LAST)}")

    def surname(self) -> str:
        return self.fresh(lambda: self.rng.choice(LAST))

    def town(self) -> str:
        return self.fresh(lambda: self.rng.choice(TOWNS))

    def day(self) -> tuple[str, tuple[str, ...]]:
        """``"19 May"`` and its other order."""
        r = self.rng
        value = self.fresh(lambda: f"{r.randint(10, 28)} {r.choice(MONTHS)}")
        d, m = value.split()
        return value, (f"{m} {d}",)

    def weekday(self) -> str:
        left = [d for d in WEEKDAYS if d not in self.used]
        value = self.rng.choice(left or list(WEEKDAYS))
        self.used.add(value)
        return value


NUMBER_WORDS = {
    11: "eleven",
    12: "twelve",
    13: "thirteen",
    14: "fourteen",
    15: "fifteen",
    16: "sixteen",
    17: "seventeen",
    18: "eighteen",
    19: "nineteen",
    20: "twenty",
    30: "thirty",
    40: "forty",
}


W = TypeVar("W", bound=Writer)


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[W, int, int], None],
    system: str,
    *,
    writer: Callable[[random.Random, str], W] = Writer,  # type: ignore[assignment]
    prefix: str = "blind6",
) -> Trajectory:
    """Write one conversation with ``write``; a collision draws the seed again, derived.

    ``writer`` makes the :class:`Writer` (a later set passes its own, with its own chatter);
    its generator is ``random.Random("<prefix>/<style>/<seed>/<attempt>")``.
    """
    make = writer

    def draw(attempt: int) -> W:
        made = make(random.Random(f"{prefix}/{style}/{seed}/{attempt}"), system)
        write(made, turns, facts)
        return made

    done = first_clean(draw, lambda w: check(w.messages, w.facts), 60, seed)
    while len(done.turn_starts) < turns:  # pragma: no cover - writers fill their turns
        done.chatter()
    return Trajectory(
        seed=seed,
        messages=tuple(done.messages),
        facts=tuple(done.facts),
        turn_starts=tuple(done.turn_starts),
        params={"turns": turns, "facts": facts, "style": style},
    )


def spread(rng: random.Random, turns: int, episodes: int, width: int) -> list[int]:
    """``episodes`` start turns in ``[0, turns)``, each leaving ``width`` turns before the next."""
    slack = turns - episodes * width
    if slack < 0:
        raise ValueError(f"{episodes} episodes of {width} turns do not fit in {turns} turns")
    cuts = sorted(rng.randint(0, slack) for _ in range(episodes))
    return [c + i * width for i, c in enumerate(cuts)]


def run(
    w: Writer, turns: int, starts: Sequence[int], episodes: Sequence[Callable[[], None]]
) -> None:
    """Chatter up to each start turn, write the episode there, then chatter to ``turns``."""
    for start, episode in zip(starts, episodes, strict=True):
        while w.turn + 1 < start:
            w.chatter()
        episode()
    while w.turn + 1 < turns:
        w.chatter()


def timeline(w: Writer, turns: int, events: Sequence[tuple[int, Callable[[], None]]]) -> None:
    """Chatter, running each event (a turn or a few) at its turn or as soon after as free.

    Events keep their order: one scheduled for a later turn never runs before an earlier one.
    """
    queue = sorted(enumerate(events), key=lambda e: (e[1][0], e[0]))
    k = 0
    while k < len(queue) or w.turn + 1 < turns:
        if k < len(queue) and queue[k][1][0] <= w.turn + 1:
            queue[k][1][1]()
            k += 1
        else:
            w.chatter()
