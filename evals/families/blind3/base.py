"""What every blind3 family shares: a conversation builder, dates, small talk and busywork.

Written blind (see ``README.md``): nothing here was taken from the other families or from the
summarizer. A family's ``write(rng, turns, facts)`` fills a :class:`Conversation` and
:func:`build` turns it into a :class:`~evals.families.trajectories.Trajectory`, trying again
with the next attempt's seed until every planted value is stated exactly as often as the family
says (once, unless the family revises values).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evals.families.facts import PlantedFact, message_text
from evals.families.pools import MONTHS as MONTHS
from evals.families.trajectories import Trajectory

__all__ = [
    "MONTHS",
    "Conversation",
    "DateValue",
    "Writer",
    "build",
    "count_in",
    "date_value",
    "smalltalk",
]


Writer = Callable[[random.Random, int, int], "Conversation"]
"""A family: ``write(rng, turns, facts)`` -> the filled conversation."""


@dataclass
class Conversation:
    """Messages in the OpenAI chat shape, the facts planted in them, and where turns start."""

    system: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    turn_starts: list[int] = field(default_factory=list)
    facts: list[PlantedFact] = field(default_factory=list)
    once: bool = True
    """Whether every planted value (and every stale one) must occur in exactly one message."""
    calls: int = 0

    def __post_init__(self) -> None:
        if not self.messages:
            self.messages.append({"role": "system", "content": self.system})

    @property
    def turns(self) -> int:
        return len(self.turn_starts)

    def user(self, text: str) -> int:
        """A user message opening a new turn; its index."""
        self.turn_starts.append(len(self.messages))
        return self._add({"role": "user", "content": text})

    def user_more(self, text: str) -> int:
        """A second user message in the same turn (sent before any reply)."""
        return self._add({"role": "user", "content": text})

    def assistant(self, text: str) -> int:
        return self._add({"role": "assistant", "content": text})

    def tools(
        self, calls: Sequence[tuple[str, dict[str, Any], str]], lead: str | None = None
    ) -> list[int]:
        """An assistant message calling ``calls`` (name, arguments, result), then the results."""
        ids = []
        for _ in calls:
            self.calls += 1
            ids.append(f"call_{self.calls:04d}")
        self._add(
            {
                "role": "assistant",
                "content": lead,
                "tool_calls": [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for cid, (name, args, _) in zip(ids, calls, strict=True)
                ],
            }
        )
        return [
            self._add({"role": "tool", "tool_call_id": cid, "content": result})
            for cid, (_, _, result) in zip(ids, calls, strict=True)
        ]

    def tool(self, name: str, args: dict[str, Any], result: str, lead: str | None = None) -> int:
        return self.tools([(name, args, result)], lead)[0]

    def plant(
        self,
        kind: str,
        value: str,
        index: int,
        *,
        aliases: Sequence[str] = (),
        **extra: Any,
    ) -> PlantedFact:
        """Record ``value`` as a fact stated in message ``index`` (it must be there)."""
        text = message_text(self.messages[index])
        if value not in text:
            raise AssertionError(f"planted value {value!r} is not in message {index}: {text!r}")
        turn = sum(1 for start in self.turn_starts if start <= index) - 1
        fact = PlantedFact(
            id=f"f{len(self.facts):02d}",
            kind=kind,  # type: ignore[arg-type]
            value=value,
            turn_index=max(turn, 0),
            message_index=index,
            role=self.messages[index]["role"],
            aliases=tuple(aliases),
            **extra,
        )
        self.facts.append(fact)
        return fact

    def supersede(self, fact: PlantedFact, index: int) -> None:
        """Mark ``fact`` as replaced by the value stated in message ``index``."""
        at = self.facts.index(fact)
        self.facts[at] = replace(fact, until=index)

    def _add(self, message: dict[str, Any]) -> int:
        self.messages.append(message)
        return len(self.messages) - 1


@dataclass(frozen=True)
class DateValue:
    """A date as written in the conversation, and the other forms a summary may use."""

    text: str
    aliases: tuple[str, ...]


def date_value(rng: random.Random, year: int = 2027, style: int | None = None) -> DateValue:
    """A date in one of three written forms, its other two forms as aliases."""
    month = rng.randrange(12)
    day = rng.randint(2, 28)
    forms = (
        f"{day} {MONTHS[month]} {year}",
        f"{MONTHS[month]} {day}, {year}",
        f"{year}-{month + 1:02d}-{day:02d}",
    )
    pick = rng.randrange(2) if style is None else style
    return DateValue(forms[pick], tuple(f for i, f in enumerate(forms) if i != pick))


def count_in(messages: Sequence[dict[str, Any]], value: str) -> int:
    """How many messages hold ``value`` (as a substring of their text or tool arguments)."""
    return sum(1 for m in messages if value in _all_text(m))


def _all_text(message: dict[str, Any]) -> str:
    text = message_text(message)
    for call in message.get("tool_calls") or ():
        text += " " + call["function"]["arguments"]
    return text


def build(
    family: str,
    writer: Writer,
    seed: int,
    *,
    turns: int,
    facts: int,
    attempts: int = 50,
) -> Trajectory:
    """The family's conversation for ``seed``: same seed, same conversation.

    A draft in which a planted value turns up in another message too (small talk drew it by
    chance) is thrown away and the next attempt's seed tried.
    """
    if turns < 1 or facts < 1:
        raise ValueError(f"{family}: turns and facts must be positive (got {turns}, {facts})")
    for attempt in range(attempts):
        conv = writer(random.Random(f"blind3/{family}/{seed}/{attempt}"), turns, facts)
        if _clean(conv):
            return Trajectory(
                seed,
                tuple(conv.messages),
                tuple(conv.facts),
                tuple(conv.turn_starts),
                {"family": family, "turns": turns, "facts": facts, "attempt": attempt},
            )
    raise ValueError(f"{family}: no draft with unique planted values in {attempts} attempts")


def _clean(conv: Conversation) -> bool:
    for fact in conv.facts:
        values = (fact.value,) if not conv.once else (fact.value, *fact.older)
        if fact.stale is not None:
            values = (*values, fact.stale)
        for value in values:
            n = count_in(conv.messages, value)
            if n == 0 or (conv.once and n != 1):
                return False
        if not conv.once and count_in(conv.messages, fact.value) != 1:
            return False
    return True


# --- small talk shared by the families that need it -------------------------------------------

_FIRST = (
    "Marta",
    "Joel",
    "Imogen",
    "Tariq",
    "Beatriz",
    "Callum",
    "Noor",
    "Henrik",
    "Ayesha",
    "Dmitri",
    "Lucia",
    "Oskar",
    "Fern",
    "Rafael",
    "Yuki",
    "Grace",
    "Mateo",
    "Ines",
    "Kwame",
    "Lotte",
)
_PLACES = (
    "the garden centre",
    "Aldi",
    "the dentist",
    "the gym",
    "the school run",
    "the post office",
    "my mum's",
    "the allotment",
    "the vet",
    "work",
    "the garage",
    "the library",
)
_SMALL_USER = (
    "Quick one before I forget: {name} says the {thing} at {place} was {amount} now, which seems "
    "steep.",
    "Ugh, {place} took {minutes} minutes today. Anyway. Is it normal for a {thing} to cost "
    "{amount}?",
    "Random question, how long does a {thing} usually last? Ours is about {years} years old.",
    "I was at {place} at {time} and it was packed. Do people not work anymore lol",
    "{name} sent me a link to a {thing} for {amount}, any idea if that's a good price?",
    "Can you remind me what the difference is between a {thing} and the cheaper ones? {name} "
    "keeps asking.",
    "We had {count} people round on Saturday and ran out of chairs again. Anyway, nothing to do, "
    "just venting.",
    "Is {temp} degrees too cold to paint a fence? Asking because {name} wants it done by the "
    "weekend.",
    "Just got back from {place}. Spent {amount} on basically nothing. How does that happen every "
    "time",
    "Thinking about a {thing}. {name} got one for {amount} and swears by it, but they swear by "
    "everything.",
)
_THINGS = (
    "kettle",
    "bike service",
    "boiler check",
    "phone contract",
    "pair of trainers",
    "car wash",
    "haircut",
    "printer cartridge",
    "gym pass",
    "lawnmower",
    "rice cooker",
    "desk lamp",
    "window cleaner",
    "coffee grinder",
    "paddling pool",
    "smoke alarm",
)
_SMALL_ASSISTANT = (
    "Prices for a {thing} vary a lot by area and brand, so {amount} is on the high side but not "
    "unheard of. If it is mostly about the brand name, a mid-range option usually does the same "
    "job. It can be worth checking whether there is a warranty or a trade-in offer before buying.",
    "That sounds like a long day. For a {thing}, most people get somewhere between {years} and "
    "{years2} years out of it with normal use, less if it is used every day. Keeping the receipt "
    "and registering the warranty makes any repair much easier later.",
    "Fair enough! If it helps, mornings before {time} and weekday afternoons tend to be quieter "
    "at most places like that. Nothing to do on my side unless you want me to look something up.",
    "Good question. The cheaper models usually cut corners on build quality and support rather "
    "than on the basic function, so for occasional use they are often fine. If {name} uses it a "
    "lot, the extra cost can pay for itself in fewer replacements.",
    "Around {temp} degrees is borderline: most exterior paints want at least 10 degrees and no "
    "rain for a day or so. Early afternoon is usually the warmest window if the weekend is tight.",
    "It happens to everyone: small things add up quickly. Some people set a rough amount before "
    "going in and leave the card at home, which works surprisingly well for trips like that.",
    "Honestly, for something like a {thing} reviews are often more useful than a friend's "
    "opinion. I can pull up a comparison of two or three models if you want to look later.",
)


def smalltalk(rng: random.Random) -> tuple[str, str]:
    """One turn of ordinary chat, dense with values on both sides (never a planted one's shape)."""
    slots = {
        "name": rng.choice(_FIRST),
        "thing": rng.choice(_THINGS),
        "place": rng.choice(_PLACES),
        "amount": f"£{rng.randint(6, 240)}",
        "minutes": str(rng.randint(10, 95)),
        "years": str(rng.randint(2, 6)),
        "years2": str(rng.randint(7, 12)),
        "time": f"{rng.randint(7, 11)}am",
        "count": str(rng.randint(5, 19)),
        "temp": str(rng.randint(3, 14)),
    }
    return rng.choice(_SMALL_USER).format(**slots), rng.choice(_SMALL_ASSISTANT).format(**slots)


def spread(rng: random.Random, turns: int, count: int, first: int = 2, tail: int = 2) -> list[int]:
    """``count`` distinct turn numbers spread over ``[first, turns - tail)``, sorted."""
    span = list(range(first, max(first + count, turns - tail)))
    step = len(span) / count
    return sorted(span[int(i * step) + rng.randrange(max(1, int(step)))] for i in range(count))
