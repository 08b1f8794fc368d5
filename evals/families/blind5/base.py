"""What the fifth blind set's families share: a turn writer, fresh values, chatter, checks.

Each family module plants its facts through :class:`Writer` and fills the turns between them
with :meth:`Writer.chatter`, a personal assistant's everyday traffic (recipes, emails, small
code questions, errands) that never holds a clock time, a money amount, a weekday, a month, a
code or a person's name, so a planted value cannot turn up there by chance. :func:`build`
draws a seed again from a derived generator when one still does (:func:`check`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from evals.families.facts import FactKind, PlantedFact
from evals.families.placement import Collision, Exhausted, count_in, first_clean, texts_of, where
from evals.families.pools import MONTHS as MONTHS
from evals.families.pools import WEEKDAYS as WEEKDAYS
from evals.families.trajectories import Trajectory

__all__ = [
    "FIRST",
    "LAST",
    "MONTHS",
    "WEEKDAYS",
    "Collision",
    "Writer",
    "build",
    "check",
    "count_in",
]

FIRST = [
    "Marta",
    "Jonas",
    "Aoife",
    "Bilal",
    "Greta",
    "Tomasz",
    "Noor",
    "Emeka",
    "Ines",
    "Ruairi",
    "Sunniva",
    "Dario",
    "Femi",
    "Hana",
    "Lucjan",
    "Mireille",
    "Oskar",
    "Paulina",
    "Rafferty",
    "Saoirse",
    "Teodora",
    "Vikram",
    "Wilhelmina",
    "Yusuf",
    "Zdenka",
]
LAST = [
    "Ferreira",
    "Okafor",
    "Lindgren",
    "Brannigan",
    "Castellano",
    "Dubois",
    "Eriksen",
    "Fitzgerald",
    "Grzybowski",
    "Haddad",
    "Iyer",
    "Jovanovic",
    "Kowalski",
    "Lachance",
    "Mbeki",
    "Novak",
    "Ortega",
    "Pemberton",
    "Quispe",
    "Rautio",
    "Sandoval",
    "Takahashi",
    "Urquhart",
    "Vidal",
    "Wozniak",
]

# -- chatter: no clock times, money, weekdays, months, codes or people's names ----------------

_TOPICS = (
    "risotto",
    "sourdough starter",
    "the bathroom grout",
    "a cover letter",
    "my python script",
    "the garden hedge",
    "a birthday card message",
    "the spreadsheet formulas",
    "our router",
    "a complaint email",
    "the bike chain",
    "houseplants",
    "my running plan",
    "a regex",
    "the dishwasher",
    "a toast for the wedding",
    "the kids' homework",
    "composting",
    "a slide deck",
    "the boiler pressure",
)
_ASKS = (
    "quick one: how do I fix {t}?",
    "can you help me with {t}? it's been bugging me all week",
    "any tips on {t}",
    "so {t} again, sorry. what was the thing you said about keeping it simple?",
    "I've been going round in circles on {t}, where would you start?",
    "what's the least painful way to deal with {t}",
    "could you draft something short about {t}? friendly tone, nothing fancy",
    "different topic — {t}. what am I doing wrong",
    "is it normal that {t} takes this long to sort out?",
    "ok next thing on my list is {t}",
    "my neighbour swears by a trick for {t}, does that sound right to you?",
    "help me think through {t} please, I'm a bit fried today",
    "give me a short checklist for {t}",
    "what would you do about {t} if you were me",
    "right, {t}. go",
    "honestly {t} is the bane of my life. ideas?",
    "can you explain {t} like I'm not an expert",
    "I tried what you said about {t} and it half worked",
)
_CONTEXT = (
    "",
    "",
    "Bit of background: I've tried a couple of things already and none of them stuck.",
    "I had a look online but every site says something different.",
    "My partner thinks I'm overthinking it, which is probably fair.",
    "It's not urgent, just one of those things that's been sitting on the list for ages.",
    "I've got about half an hour before the kids get back, so short answers are fine.",
    "Last time I asked a friend and ended up more confused than before.",
    "Bear with me, I'm typing this on my phone on the bus.",
    "I know it's a small thing but it's been driving me a bit mad.",
    "Work's quiet this afternoon so I'm finally getting round to the boring stuff.",
    "No rush on this, I'm just trying to clear my head of it.",
)
_REPLY_OPENERS = (
    "Sure.",
    "Good question.",
    "Happy to help with that.",
    "Let's sort it out.",
    "Right, here's how I'd approach it.",
    "That's a common one.",
    "No need to apologise.",
    "Of course.",
    "Okay, a few thoughts.",
    "Makes sense to ask.",
)
_REPLY_SENTENCES = (
    "Start with the simplest explanation and only dig deeper if that doesn't hold up.",
    "The usual culprit is something small that got skipped early on, so retrace the first steps.",
    "Give it a day before judging the result, things often settle overnight.",
    "If it still misbehaves after that, take a photo or copy the exact message and we'll look.",
    "Keep a short note of what you changed so it's easy to undo.",
    "You don't need special tools for this, what's in the kitchen drawer will do.",
    "Most people overdo it here, a lighter touch works better.",
    "Break it into two or three small pieces and do the annoying one first.",
    "It helps to read it out loud once, you'll hear what sounds off.",
    "Don't worry about getting it perfect the first time round.",
    "A little warmth and patience go a long way with this sort of thing.",
    "If there's a manual, the troubleshooting page near the back is worth a skim.",
    "Check the obvious connections before assuming anything is broken.",
    "Rinse, let it dry properly, and try again.",
    "A short version is usually more convincing than a long one.",
    "Write the first draft quickly and fix it afterwards.",
    "Swap the order of the last two steps and see if that changes anything.",
    "You can always ask someone nearby for a second pair of eyes.",
    "There's no shame in starting over if the first attempt went sideways.",
    "Small, regular effort beats one big push for this.",
    "Try the gentle option first, you can escalate later if needed.",
    "Make sure everything is switched off at the wall before you poke around.",
    "Label things as you go, future you will be grateful.",
    "If in doubt, leave it alone for now and come back with fresh eyes.",
    "That should be enough to get you moving again.",
    "Let me know how it goes and we can adjust from there.",
    "The trick is mostly in the timing rather than the ingredients.",
    "A quick search of your own notes might turn up what worked before.",
    "Watch for the point where it stops improving and stop there.",
    "Keep the tone warm but get to the point in the first line.",
    "If you can, set aside a short block of time for it rather than squeezing it in between "
    "other jobs.",
    "People often skip the preparation step, and that's usually where the trouble starts.",
    "It's worth checking whether the simple fix was already tried before doing anything drastic.",
    "A bit of trial and error is normal here, so don't read too much into a first failure.",
    "Write down what you expect to happen before you try it, then compare with what actually "
    "happens.",
    "When something like this keeps coming back, the cause is usually upstream of where it shows.",
    "If other people are involved, a quick message up front saves a lot of back and forth later.",
    "You can make the whole thing easier by deciding in advance what good enough looks like.",
    "Try not to change several things at once, or you won't know which one made the difference.",
    "Most of the effort is in the first attempt; after that it gets much quicker.",
    "If it feels overwhelming, pick the part that takes five minutes and do only that today.",
    "There are fancier ways to do it, but the plain approach is easier to keep up.",
    "It may also help to look at how you did it last time and what you'd change.",
    "Once it's working, jot down the steps somewhere you'll find them again.",
    "Cheap materials are fine for a first go; upgrade only if you end up doing it regularly.",
    "Ask yourself what problem you're actually solving, it often turns out to be a smaller one.",
    "The instructions that come with these things are often better than people expect.",
    "It's normal for the result to look a bit rough at first and improve with practice.",
    "Keep the old version around until you're sure the new one is better.",
    "If anything smells, sparks or leaks, stop and call someone qualified instead.",
)
_BULLETS = (
    "keep it short",
    "do the awkward part first",
    "check the basics before anything else",
    "give it time to settle",
    "write down what you changed",
    "ask for a second opinion if unsure",
    "tidy up as you go",
    "test it once before relying on it",
    "leave a little slack in the plan",
    "stop when it's good enough",
)
_THANKS = (
    "thanks, that helps",
    "ok cool",
    "great, ta",
    "perfect, cheers",
    "nice one",
    "got it, thanks!",
    "makes sense",
    "brilliant",
    "ok will try that",
    "lovely, thank you",
)
_ACKS = (
    "Done.",
    "Got it, updated.",
    "No problem, I've changed that.",
    "Sure, sorted.",
    "Okay, changed.",
    "Noted, I've amended it.",
    "All right, that's updated on my side.",
    "Of course, fixed.",
    "Understood, I've switched it over.",
    "Right, I've made the change.",
)


def check(messages: Sequence[dict[str, Any]], facts: Sequence[PlantedFact]) -> None:
    """Every value where the scorer expects it, and nowhere else.

    A fact's value and aliases are in its own message only; a value it replaced is in the
    message that stated it and at most in the correcting message too ("not Tuesday, Thursday");
    an option not taken is in the offer only.
    """
    texts = texts_of(messages)
    for f in facts:
        if f.value not in texts[f.message_index][0]:
            raise AssertionError(f"{f.id} {f.value!r} is not in message {f.message_index}")
        if where(texts, f.value) != [f.message_index]:
            raise Collision(f"{f.id} {f.value!r} in {where(texts, f.value)}")
        for form in f.aliases:  # another surface form: nowhere else
            if not set(where(texts, form)) <= {f.message_index}:
                raise Collision(f"{f.id} {form!r} in {where(texts, form)}")
        for old in f.stale_values:
            hits = where(texts, old)
            if not hits or not set(hits) <= {f.message_index, *_stated(f, facts)}:
                raise Collision(f"{f.id} stale {old!r} in {hits}")
        for option in f.rejected:
            if where(texts, option) != [f.message_index]:
                raise Collision(f"{f.id} option {option!r} in {where(texts, option)}")


def _stated(fact: PlantedFact, facts: Sequence[PlantedFact]) -> set[int]:
    """The messages that stated the values ``fact`` replaced (and those that corrected them)."""
    out = {fact.stale_index} if fact.stale_index is not None else set()
    for f in facts:
        if f.value in fact.stale_values:
            out.add(f.message_index)
    return {i for i in out if i is not None}


class Writer:
    """Appends one conversation's messages and records the facts planted in them."""

    def __init__(self, rng: random.Random, system: str) -> None:
        self.rng = rng
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()
        self.labels: set[str] = set()  # labels taken in the table being written (described)
        self.turn = -1

    # -- messages ---------------------------------------------------------------------------

    def user(self, text: str) -> int:
        """Open a new turn with the user's ``text``; its index."""
        self.turn += 1
        self.turn_starts.append(len(self.messages))
        return self.say("user", text)

    def say(self, role: str, text: str) -> int:
        self.messages.append({"role": role, "content": text})
        return len(self.messages) - 1

    def tool(self, name: str, args: dict[str, Any], content: str) -> int:
        """An assistant tool call and its result; the result's index."""
        cid = f"call_{self.rng.getrandbits(48):012x}"
        function = {"name": name, "arguments": json.dumps(args)}
        call = {"id": cid, "type": "function", "function": function}
        self.messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        self.messages.append({"role": "tool", "tool_call_id": cid, "content": content})
        return len(self.messages) - 1

    def plant(
        self,
        kind: FactKind,
        value: str,
        where: int,
        *,
        aliases: tuple[str, ...] = (),
        stale: str | None = None,
        stale_index: int | None = None,
        older: tuple[str, ...] = (),
        rejected: tuple[str, ...] = (),
        confirm_index: int | None = None,
        turn: int | None = None,
    ) -> PlantedFact:
        """Record a fact in message ``where`` (of turn ``turn``, by default the current one)."""
        fact = PlantedFact(
            id=f"f{len(self.facts):02d}",
            kind=kind,
            value=value,
            turn_index=self.turn if turn is None else turn,
            message_index=where,
            role=str(self.messages[where]["role"]),
            aliases=aliases,
            stale=stale,
            stale_index=stale_index,
            older=older,
            rejected=rejected,
            confirm_index=confirm_index,
        )
        self.facts.append(fact)
        return fact

    def supersede(self, fact: PlantedFact, by: int) -> None:
        """Mark ``fact`` replaced from message ``by`` on (a later value in its chain)."""
        i = self.facts.index(fact)
        self.facts[i] = PlantedFact(**{**fact.__dict__, "until": by})

    # -- chatter ----------------------------------------------------------------------------

    def chatter(self, sentences: tuple[int, int] = (5, 11)) -> None:
        """One ordinary turn: a request about something else and a longer reply."""
        r = self.rng
        ask = r.choice(_ASKS).replace("{t}", r.choice(_TOPICS))
        context = r.choice(_CONTEXT)
        if context and r.random() < 0.5:
            ask = f"{context} {ask[0].upper()}{ask[1:]}"
        self.user(ask)
        self.say("assistant", self.reply(sentences))

    def reply(self, sentences: tuple[int, int] = (2, 5)) -> str:
        r = self.rng
        body = r.sample(_REPLY_SENTENCES, r.randint(*sentences))
        text = " ".join([r.choice(_REPLY_OPENERS), *body])
        if sentences[1] > 6 and r.random() < 0.4:
            points = r.sample(_BULLETS, r.randint(3, 5))
            text += "\n\nIn short:\n" + "\n".join(f"- {p}" for p in points)
        return text

    def thanks(self) -> str:
        return self.rng.choice(_THANKS)

    def ack(self) -> str:
        return self.rng.choice(_ACKS)

    # -- values -----------------------------------------------------------------------------

    def fresh(self, make: Callable[[], str]) -> str:
        """A value ``make`` draws that this conversation has not used yet."""
        for _ in range(1000):
            value = make()
            if value not in self.used:
                self.used.add(value)
                return value
        raise Exhausted("ran out of fresh values")

    def time(self) -> str:
        r = self.rng
        return self.fresh(
            lambda: f"{r.randint(10, 19)}:{r.choice((0, 10, 15, 20, 40, 45, 50)):02d}"
        )

    def person(self) -> str:
        r = self.rng
        return self.fresh(lambda: f"{r.choice(FIRST)} {r.choice(LAST)}")

    def surname(self) -> str:
        return self.fresh(lambda: self.rng.choice(LAST))

    def money(self, lo: int = 120, hi: int = 4800, cents: bool = False, sign: str = "£") -> str:
        r = self.rng

        def make() -> str:
            whole = r.randint(lo, hi)
            tail = f".{r.randint(1, 99):02d}" if cents else ""
            return f"{sign}{whole:,}{tail}"

        return self.fresh(make)

    def code(self, shape: str = "AA-9999") -> str:
        """A code shaped like ``shape``: ``A`` a capital, ``9`` a digit, others kept."""
        r = self.rng
        letters, digits = "ABCDEFGHJKLMNPRSTUVWXYZ", "23456789"

        def make() -> str:
            return "".join(
                r.choice(letters) if c == "A" else r.choice(digits) if c == "9" else c
                for c in shape
            )

        return self.fresh(make)

    def seat(self) -> str:
        r = self.rng
        return self.fresh(lambda: f"{r.randint(3, 38)}{r.choice('ABCDEF')}")

    def day(self) -> tuple[str, tuple[str, ...]]:
        """A day of the month like ``"19 May"`` and its other order (``"May 19"``)."""
        r = self.rng
        value = self.fresh(lambda: f"{r.randint(2, 28)} {r.choice(MONTHS)}")
        d, m = value.split()
        return value, (f"{m} {d}",)

    def weekday(self, avoid: Sequence[str] = ()) -> str | None:
        left = [d for d in WEEKDAYS if d not in self.used and d not in avoid]
        if not left:
            return None
        value = self.rng.choice(left)
        self.used.add(value)
        return value


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer, int, int], None],
    system: str,
) -> Trajectory:
    """Write one conversation with ``write``; a collision draws the seed again, derived."""

    def draw(attempt: int) -> Writer:
        writer = Writer(random.Random(f"blind5/{style}/{seed}/{attempt}"), system)
        write(writer, turns, facts)
        return writer

    writer = first_clean(draw, lambda w: check(w.messages, w.facts), 50, seed)
    if writer.messages[-1]["role"] != "assistant":  # pragma: no cover - writers end on a reply
        raise AssertionError("a conversation must end on the assistant's reply")
    return Trajectory(
        seed=seed,
        messages=tuple(writer.messages),
        facts=tuple(writer.facts),
        turn_starts=tuple(writer.turn_starts),
        params={"turns": turns, "facts": facts, "style": style},
    )


def spread(rng: random.Random, turns: int, episodes: int, width: int) -> list[int]:
    """``episodes`` start turns in ``[0, turns)``, each leaving ``width`` turns before the next."""
    slack = turns - episodes * width
    if slack < 0:
        raise ValueError(f"{episodes} episodes of {width} turns do not fit in {turns} turns")
    cuts = sorted(rng.randint(0, slack) for _ in range(episodes))
    return [c + i * width for i, c in enumerate(cuts)]
