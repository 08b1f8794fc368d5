"""What the second set of blind families shares: fresh values, chatter, tool calls, the plan.

A conversation here is long (360 to 460 turns, about 15k tokens, 55k with the tables), so
that a 4,000-token memory goes through well over 10 reductions. Every value a writer draws
for a planted fact or for the chatter that could be mistaken for one (a full name, a date, an
amount, a code) is new to its conversation; the chatter carries numbers, times, first names,
prices and places on both sides, and ordinary tool calls (calendar, weather, a to-do list,
a bank balance) come back with new numbers all conversation long.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

from evals.families.facts import FactKind, PlantedFact
from evals.families.placement import Exhausted
from evals.families.pools import MONTHS as MONTHS
from evals.families.pools import WEEKDAYS as WEEKDAYS

__all__ = ["FIRST", "LAST", "MONTHS", "Writer", "pick_turns"]

FIRST = (
    "Marguerite", "Tobias", "Priya", "Dmitri", "Harriet", "Callum", "Ines", "Rafferty",
    "Odette", "Lachlan", "Saoirse", "Bartholomew", "Florence", "Ezekiel", "Wilhelmina",
    "Casimir", "Annika", "Thaddeus", "Ottilie", "Barnaby", "Clementine", "Evander", "Rosamund",
    "Ignatius", "Philippa", "Crispin", "Henrietta", "Lysander", "Beatrix", "Montgomery",
)  # fmt: skip
LAST = (
    "Achterberg", "Brannigan", "Coldwell", "Darrow", "Edgecombe", "Fennimore", "Goodall",
    "Hatherley", "Ingleby", "Jessop", "Kettering", "Lockhart", "Mayhew", "Nettleton", "Ormerod",
    "Prothero", "Quennell", "Rushworth", "Stallybrass", "Treadwell", "Upshall", "Wedgwood",
    "Yardley", "Blakemore", "Carrington", "Dunstable", "Fairweather", "Greenhalgh",
)  # fmt: skip
TOWNS = (
    "Stroud", "Malton", "Alnwick", "Totnes", "Kendal", "Frome", "Ripon", "Sedbergh", "Wells",
    "Lewes", "Bakewell", "Thirsk", "Penrith", "Bridport",
)  # fmt: skip
_UPPER = "ABCDEFGHJKMNPQRSTVWXYZ"

# Slots: {kid} {pal} {full} {num} {count} {clock} {cost} {deg} {town} {day} {when} {ref} {km}
USER_CHAT = (
    "Morning. Slept badly, the cat was sick at {clock} and then again at half past.",
    "{pal} and I did the big shop, {cost} for one trolley, I nearly fainted.",
    "The school sent another letter, {kid}'s class is going to {town} on {day}.",
    "Got caught in the rain, {deg} degrees and I'd left my coat at the office.",
    "Watched the match with {pal}. {num}-{num}, we deserved worse.",
    "Did {km} km on the bike before work. I'm a new woman.",
    "My manager booked a {clock} meeting on a {day}. Who does that.",
    "The car's making a clicking noise again, garage says {cost} just to look at it.",
    "{full} from the allotment dropped off {count} courgettes. {count}!",
    "ok thanks",
    "right",
    "Sorry, got distracted, {kid} needed help with fractions.",
    "Quiz night was a disaster, we came {num}th out of {count} teams.",
    "Train was cancelled so I drove, {num} minutes just to get out of the car park.",
    "Heating bill this quarter: {cost}. We're wearing jumpers indoors from now on.",
    "{pal} is over from {town} until {day}, so I'm a bit all over the place.",
    "Bought a plant for the hallway, it was {cost} and it's already drooping.",
    "Just parcel {ref} turning up, finally, only {num} days late.",
    "Long call with the bank, {count} minutes on hold.",
    "Can't believe it's {deg} degrees in the kitchen and the boiler's been on since {clock}.",
)
USER_ERRANDS = (
    "Put {kid}'s swimming on the calendar for {day} at {clock}, would you?",
    "What's it looking like in {town} tomorrow?",
    "Remind me to call {pal} back after {clock}.",
    "How much is left in the joint account?",
    "Add bin bags and {count} lemons to the list.",
    "Anything on for {when}?",
    "Move {cost} over to savings please.",
    "Can you find a locksmith in {town} who'd come out on a {day}?",
    "What's on my to-do list?",
)
ASSISTANT_CHAT = (
    "Oh no. The forecast has {deg} degrees tomorrow at least, so you can dry the coat.",
    "That's a lot of courgettes. I can look up a chutney recipe if you like.",
    "Noted, it's in for {day} at {clock}.",
    "I'll remind you at {clock}.",
    "Done, that's {count} things on the list now.",
    "Sounds like a long day. Your next thing is at {clock} on {day}.",
    "Fair enough. {pal} also messaged at {clock}, nothing urgent.",
    "Ouch. Last quarter it was {cost}.",
    "Moved. Reference {ref}.",
    "Okay.",
    "Got it.",
    "Sure thing.",
    "No problem, I've left it as it was.",
    "Updated.",
    "Done.",
    "Saved.",
    "Okay, saved.",
    "Added to your notes.",
    "Okay, changed.",
    "Haha. For what it's worth the traffic into {town} is bad until about {clock} anyway.",
    "I found {count} that cover {town}; the closest can do {day} afternoon.",
)


def pick_turns(rng: random.Random, turns: int, count: int, lo: int = 3, gap: int = 4) -> list[int]:
    """``count`` distinct turns in ``[lo, turns)``, sorted, at least ``gap`` apart when possible."""
    space = range(lo, turns)
    for _ in range(500):
        chosen = sorted(rng.sample(space, count))
        if all(b - a >= gap for a, b in itertools.pairwise(chosen)):
            return chosen
    return sorted(rng.sample(space, count))  # pragma: no cover - very crowded plans


class Writer:
    """A conversation written turn by turn; all randomness comes from ``rng``."""

    system = (
        "You are Wren, a household and work assistant. You can read and write the user's "
        "calendar, lists, accounts and messages, and run the tools you are given."
    )

    def __init__(self, rng: random.Random, system: str | None = None) -> None:
        self.rng = rng
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system or self.system}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()
        self.seen: set[str] = set()

    # -- values ----------------------------------------------------------------------------

    def fresh(self, make: Callable[[], tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]]:
        """A value (and other forms) none of whose forms this conversation has drawn yet."""
        for _ in range(10_000):
            value, aliases = make()
            forms = {value.lower(), *(a.lower() for a in aliases)}
            if not forms & (self.used | self.seen):
                self.used.update(forms)
                return value, aliases
        raise Exhausted("no fresh value left")  # the seed is drawn again

    def loose(self, make: Callable[[], str]) -> str:
        """A filler value that may repeat other filler but is never a drawn fresh value.

        It is remembered, so no later fresh value takes its form either.
        """
        for _ in range(10_000):
            value = make()
            if value.lower() not in self.used:
                self.seen.add(value.lower())
                return value
        raise ValueError("no loose value left")  # pragma: no cover - tiny pools only

    def choose(self, pool: tuple[str, ...] | list[str]) -> str:
        """An item of ``pool`` this conversation has not drawn yet."""
        return self.fresh(lambda: (self.rng.choice(pool), ()))[0]

    def person(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        return self.fresh(lambda: (f"{r.choice(FIRST)} {r.choice(LAST)}", ()))

    def date(self, style: int | None = None) -> tuple[str, tuple[str, ...]]:
        """A date with its year; ``style`` 0 ``14 March 2027``, 1 ``March 14, 2027``, 2 ISO."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            y, m, d = r.randint(2026, 2028), r.randint(1, 12), r.randint(1, 28)
            forms = [
                f"{d} {MONTHS[m - 1]} {y}",
                f"{MONTHS[m - 1]} {d}, {y}",
                f"{y}-{m:02d}-{d:02d}",
            ]
            k = r.randrange(3) if style is None else style
            return forms[k], tuple(f for i, f in enumerate(forms) if i != k)

        return self.fresh(make)

    def money(self, lo: int = 300, hi: int = 9800) -> tuple[str, tuple[str, ...]]:
        """An amount with pence; the thousands-separated form is an alias."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            whole, pence = r.randint(lo, hi), r.randint(11, 99)
            if pence % 10 == 0:
                pence += 1
            plain = f"{whole}.{pence:02d}"
            return plain, ((f"{whole:,}.{pence:02d}",) if whole >= 1000 else ())

        return self.fresh(make)

    def code(self) -> tuple[str, tuple[str, ...]]:
        """A reference of one of a few shapes people get from companies."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            a, b, c = (r.choice(_UPPER) for _ in range(3))
            shape = r.randrange(4)
            if shape == 0:
                return f"{a}{b}{c}{r.randint(10000, 99999)}", ()
            if shape == 1:
                return f"{a}{r.randint(100, 999)}-{b}{c}{r.randint(10, 99)}", ()
            if shape == 2:
                return f"{r.randint(1000, 9999)}{a}{b}{r.randint(100, 999)}", ()
            return f"{a}{b}/{r.randint(10, 99)}/{r.randint(1000, 9999)}", ()

        return self.fresh(make)

    def slot(self, name: str) -> str:
        """A chatter value for ``{name}``: fresh wherever it could look like a planted one."""
        r = self.rng
        if name == "kid":
            return r.choice(("Milo", "Esme", "Arlo", "Nell", "Rufus", "Tilly"))
        if name == "pal":
            return r.choice(FIRST)
        if name == "full":
            return self.person()[0]
        if name == "num":
            return str(r.randint(1, 12))
        if name == "count":
            return str(r.randint(3, 60))
        if name == "clock":
            return f"{r.randint(7, 21)}:{r.choice(('00', '10', '15', '30', '45', '50'))}"
        if name == "cost":
            return self.fresh(lambda: (f"{r.randint(12, 290)}.{r.randint(11, 99)}", ()))[0]
        if name == "deg":
            return str(r.randint(-4, 33))
        if name == "town":
            return r.choice(TOWNS)
        if name == "day":
            return r.choice(WEEKDAYS)
        if name == "when":
            return self.date()[0]
        if name == "ref":
            return self.code()[0]
        if name == "km":
            return str(r.randint(5, 90))
        raise KeyError(name)

    def fill(self, template: str, **given: str) -> str:
        """``template`` with its slots filled left to right (``given`` ones as given)."""
        out, rest = [], template
        while "{" in rest:
            head, _, tail = rest.partition("{")
            name, _, rest = tail.partition("}")
            out += [head, given[name] if name in given else self.slot(name)]
        return "".join(out) + rest

    # -- messages --------------------------------------------------------------------------

    def begin(self) -> None:
        """Mark the start of a turn (the next message is the user's)."""
        self.turn_starts.append(len(self.messages))

    def say(self, role: str, content: str) -> int:
        self.messages.append({"role": role, "content": content})
        return len(self.messages) - 1

    def call(self, tool: str, args: dict[str, Any], result: str) -> int:
        """An assistant's tool call and its result; returns the result's index."""
        call_id = f"call_{self.rng.getrandbits(40):010x}"
        fn = {"name": tool, "arguments": json.dumps(args)}
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": fn}],
            }
        )
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        return len(self.messages) - 1

    def record(
        self,
        kind: FactKind,
        value: str,
        aliases: tuple[str, ...],
        turn: int,
        where: int,
        **extra: Any,
    ) -> PlantedFact:
        """Plant ``value`` (stated in message ``where``) as the next fact."""
        fact = PlantedFact(
            id=f"f{len(self.facts):02d}",
            kind=kind,
            value=value,
            turn_index=turn,
            message_index=where,
            role=str(self.messages[where]["role"]),
            aliases=aliases,
            **extra,
        )
        self.facts.append(fact)
        return fact

    # -- chatter ---------------------------------------------------------------------------

    def errand_tool(self) -> None:
        """An everyday tool call with new numbers: calendar, weather, balance or to-do list."""
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            self.say("user", r.choice(("What's tomorrow look like?", "Am I free later?")))
            events = [
                {"start": self.slot("clock"), "title": r.choice(("standup", "dentist", "call"))}
                for _ in range(r.randint(1, 4))
            ]
            self.call("calendar_list", {"range": "tomorrow"}, json.dumps({"events": events}))
            self.say("assistant", self.fill("{count} minutes free around lunch, otherwise busy."))
        elif kind == 1:
            town = r.choice(TOWNS)
            self.say("user", r.choice((f"Weather in {town}?", "Do I need a brolly?")))
            data = {"town": town, "temp_c": int(self.slot("deg")), "rain_pct": r.randint(0, 100)}
            self.call("weather", {"town": town}, json.dumps(data))
            self.say("assistant", r.choice(("Take one to be safe.", "Looks dry enough.")))
        elif kind == 2:
            self.say("user", r.choice(("Balance?", "How are we doing for money this month?")))
            data = {"current": float(self.slot("cost")) * 10, "pending": r.randint(0, 9)}
            self.call("bank_balance", {"account": "current"}, json.dumps(data))
            self.say("assistant", r.choice(("Fine for now.", "A bit tight until payday.")))
        else:
            self.say("user", "What's on the list?")
            items = r.sample(["milk", "stamps", "bleach", "batteries", "rice", "bin bags"], 3)
            self.call("todo_list", {}, json.dumps({"items": items, "done": r.randint(0, 12)}))
            self.say("assistant", "Three things, nothing urgent.")

    def chatter(self) -> None:
        """A filler turn: small talk or an errand, with values on both sides."""
        r = self.rng
        roll = r.random()
        if roll < 0.15:
            self.errand_tool()
            return
        text = self.fill(r.choice(USER_CHAT if roll < 0.7 else USER_ERRANDS))
        if r.random() < 0.3:
            text += " " + self.fill(r.choice(USER_CHAT))
        self.say("user", text)
        self.say(
            "assistant",
            " ".join(self.fill(r.choice(ASSISTANT_CHAT)) for _ in range(r.randint(1, 2))),
        )
