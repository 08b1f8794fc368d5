"""What the blind families share: fresh values, small talk, tool calls, the plan of turns.

Every value a writer draws (a person, a date, an amount, a code, an incidental number) is new
to its conversation, so a planted value occurs in its own message only; the small talk is
dense with values of the same shapes on both sides (a name, a time, a price, a temperature),
so a planted fact cannot be told from filler by having a value. Status reports (weather,
backups, disk, inbox) come back with the same fields and new numbers all conversation long.
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

__all__ = ["FIRST", "FRESH_TRIES", "LAST", "MONTHS", "Writer", "spread"]

FRESH_TRIES = 100_000
"""Draws :meth:`Writer.fresh` makes before it calls the pool used up."""

FIRST = tuple(
    [
        "Ansel",
        "Birgit",
        "Caspian",
        "Delphine",
        "Emrys",
        "Fenella",
        "Gaspard",
        "Hollis",
        "Imogen",
        "Jago",
        "Kalinda",
        "Leopold",
        "Mireille",
        "Niamh",
        "Oswin",
        "Petronella",
        "Quillon",
        "Rosalind",
        "Sylvester",
        "Tamsin",
        "Ulric",
        "Verity",
        "Wystan",
        "Xanthe",
        "Yannick",
        "Zillah",
        "Aurelio",
        "Bronwen",
        "Cosima",
        "Dashiell",
    ]
)
LAST = tuple(
    [
        "Abernethy",
        "Bellweather",
        "Cheswick",
        "Dalrymple",
        "Eversley",
        "Fairbairn",
        "Gosforth",
        "Hawtrey",
        "Inchbald",
        "Jellicoe",
        "Kilbride",
        "Lanyon",
        "Merriweather",
        "Northcote",
        "Oakeshott",
        "Pendlebury",
        "Quayle",
        "Ravenscroft",
        "Sallows",
        "Thistlewood",
        "Underhill",
        "Vickery",
        "Whitbread",
        "Yelland",
        "Zouche",
        "Ashdown",
        "Brereton",
    ]
)
_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"
PLACES = (
    "Whitby",
    "Keswick",
    "Tenby",
    "Oban",
    "Hexham",
    "Ludlow",
    "Rye",
    "Buxton",
    "Dingle",
    "Kinsale",
    "Tobermory",
    "Padstow",
)

# Slots: {first} {person} {n} {big} {time} {price} {temp} {place} {weekday} {date} {code}.
USER_TALK = (
    "Long day. The {time} train was {n} minutes late and it was {temp} degrees on the platform.",
    "We had {n} people round on {weekday}, {first} brought enough food for {big}.",
    "{first} rang, she's in {place} until {weekday} and says hi.",
    "Paid {price} for a haircut today, which is daylight robbery.",
    "The boiler made that noise again at {time}. Third time this week.",
    "Just got back from {place}. {n} hours in the car, never again.",
    "{person} from the old job emailed out of nowhere, wants a coffee on {weekday}.",
    "Football was a disaster, lost {n} nil. {first} scored an own goal.",
    "haha ok",
    "Fine, fine. Carry on.",
    "It's {temp} degrees in the kitchen, the heating is on strike.",
    "Parcel {code} turned up, it was the wrong size of course.",
    "Electric bill came in at {price}, up from last quarter.",
    "The neighbours are having a party, started at {time}.",
    "Ran {n} km this morning, legs are dead.",
    "Booked {first} a dentist slot for {weekday} at {time}, one less thing.",
    "Spent {price} at the garden centre. Don't tell anyone.",
    "My phone says {big} steps today. Feels like more.",
)
USER_ASKS = (
    "Can you move my {time} meeting to {weekday}?",
    "What's the forecast for {place} on {weekday}?",
    "Add {n} eggs and a loaf to the shopping list.",
    "Send {first} a reminder about the {time} call.",
    "How much have I spent on takeaways this month?",
    "Is there anything in the diary for {date}?",
    "Transfer {price} into the holiday pot, please.",
    "Find me a plumber near {place} who can come on {weekday}.",
)
ASSISTANT_TALK = (
    "That sounds exhausting. The forecast says {temp} degrees tomorrow, so a bit better.",
    "Ha. For what it's worth, {first}'s message came in at {time} too.",
    "Noted. You've got {n} things in the diary on {weekday}, nothing urgent.",
    "Ouch. Last time it was {price}, so that's quite a jump.",
    "I've put it in the calendar for {weekday} at {time}.",
    "Done. The shopping list now has {n} items.",
    "Sure. The earliest slot I can see is {weekday} at {time}.",
    "Okay. {person} also replied about the invoice, nothing you need to do.",
    "The transfer of {price} went through; reference {code}.",
    "Right. Traffic into {place} looks heavy until {time}.",
    "Got it.",
    "Understood, I'll keep an eye on it.",
    "Nothing else new since {time}.",
    "You've spent {price} on takeaways so far this month, across {n} orders.",
)


def spread(rng: random.Random, turns: int, count: int, gap: int = 2) -> list[int]:
    """``count`` distinct turns in ``[0, turns)``, sorted, at least ``gap`` apart when possible."""
    for _ in range(200):
        picked = sorted(rng.sample(range(turns), count))
        if all(b - a >= gap for a, b in itertools.pairwise(picked)):
            return picked
    return sorted(rng.sample(range(turns), count))  # pragma: no cover - crowded plans


class Writer:
    """A conversation written turn by turn; all randomness comes from ``rng``."""

    system = (
        "You are Juniper, a personal assistant with the user's calendar, money, shopping and "
        "smart-home tools. Be brief and keep track of what matters to the user."
    )

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()

    # -- values ----------------------------------------------------------------------------

    def fresh(self, make: Callable[[], tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]]:
        """A value (and its other forms) none of whose forms this conversation has used.

        Raises :class:`~evals.families.placement.Exhausted` after :data:`FRESH_TRIES` draws
        (the pool is used up, or nearly: the seed is drawn again), never loops forever.
        """
        for _ in range(FRESH_TRIES):
            value, aliases = make()
            forms = {value, *aliases}
            if not forms & self.used:
                self.used.update(forms)
                return value, aliases
        raise Exhausted(f"no fresh value in {FRESH_TRIES} draws (last: {value!r})")

    def take(self, pool: tuple[str, ...]) -> str:
        """An item of ``pool`` not used yet in this conversation."""
        left = [p for p in pool if p not in self.used]
        if not left:
            raise ValueError(f"pool exhausted: {pool[:3]}...")
        value = self.rng.choice(left)
        self.used.add(value)
        return value

    def person(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        return self.fresh(lambda: (f"{r.choice(FIRST)} {r.choice(LAST)}", ()))

    def date(self, iso: bool = False) -> tuple[str, tuple[str, ...]]:
        """A full date as people write it (ISO when ``iso``); the other forms are aliases."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            year, month, day = r.randint(2026, 2028), r.randint(1, 12), r.randint(1, 28)
            forms = [
                f"{day} {MONTHS[month - 1]} {year}",
                f"{MONTHS[month - 1]} {day}, {year}",
                f"{year}-{month:02d}-{day:02d}",
            ]
            pick = 2 if iso else r.choice((0, 1))
            return forms[pick], tuple(f for i, f in enumerate(forms) if i != pick)

        return self.fresh(make)

    def money(self) -> tuple[str, tuple[str, ...]]:
        """An amount of 1,000 or more with pence, printed the same by ``json.dumps``."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            whole, cents = r.randint(1000, 48999), r.choice([c for c in range(1, 100) if c % 10])
            plain = f"{whole}.{cents:02d}"
            assert json.dumps(float(plain)) == plain
            return plain, (f"{whole:,}.{cents:02d}",)

        return self.fresh(make)

    def code(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            a, b = r.choice(_LETTERS), r.choice(_LETTERS)
            shape = r.randrange(3)
            if shape == 0:
                return f"{a}{b}{r.randint(100000, 999999)}", ()
            if shape == 1:
                return f"{a}{b}-{r.randint(1000, 9999)}-{r.choice(_LETTERS)}", ()
            return f"{a}{r.randint(10, 99)}{b}{r.randint(100, 999)}", ()

        return self.fresh(make)

    def slot(self, name: str) -> str:
        """An incidental value for a small-talk slot (fresh where it could look planted)."""
        r = self.rng
        if name == "first":
            return r.choice(FIRST)
        if name == "person":
            return self.person()[0]
        if name == "date":
            return self.date()[0]
        if name == "code":
            return self.code()[0]
        if name == "price":
            return self.fresh(lambda: (f"{r.randint(4, 380)}.{r.randint(0, 99):02d}", ()))[0]
        if name == "big":
            return self.fresh(lambda: (str(r.randint(120, 9800)), ()))[0]
        if name == "n":
            return str(r.randint(2, 45))
        if name == "temp":
            return str(r.randint(-3, 31))
        if name == "time":
            return f"{r.randint(6, 22)}:{r.choice(('00', '15', '20', '30', '40', '45'))}"
        if name == "weekday":
            return r.choice(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"))
        if name == "place":
            return r.choice(PLACES)
        raise KeyError(name)

    def fill(self, template: str) -> str:
        """``template`` with every slot but ``{v}`` filled left to right."""
        out, rest = [], template
        while "{" in rest:
            head, _, tail = rest.partition("{")
            name, _, rest = tail.partition("}")
            out += [head, "{v}" if name == "v" else self.slot(name)]
        return "".join(out) + rest

    # -- messages --------------------------------------------------------------------------

    def begin(self) -> None:
        """Mark the start of a turn."""
        self.turn_starts.append(len(self.messages))

    def say(self, role: str, content: str) -> int:
        self.messages.append({"role": role, "content": content})
        return len(self.messages) - 1

    def call(self, tool: str, args: dict[str, Any], result: str) -> int:
        """An assistant tool call and its result; the result's index."""
        call_id = f"call_{self.rng.getrandbits(48):012x}"
        fn = {"name": tool, "arguments": json.dumps(args)}
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": call_id, "type": "function", "function": fn}],
            }
        )
        return self.say_tool(call_id, result)

    def say_tool(self, call_id: str, result: str) -> int:
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

    # -- filler ----------------------------------------------------------------------------

    def status_report(self) -> None:
        """One of the reports that come back all conversation long with new numbers."""
        r = self.rng
        kind = r.randrange(4)
        if kind == 0:
            place = r.choice(PLACES)
            self.say("user", r.choice(("Weather?", f"What's it doing in {place}?", "Rain later?")))
            result: dict[str, Any] = {
                "place": place,
                "temp_c": int(self.slot("temp")),
                "wind_kmh": r.randint(3, 60),
                "summary": r.choice(("light rain", "overcast", "sunny spells", "drizzle")),
            }
            tool = "weather_now"
        elif kind == 1:
            self.say("user", r.choice(("Did the backup run?", "Backup ok?", "Check the backup.")))
            result = {
                "job": "nightly",
                "finished": self.slot("time"),
                "files": int(self.slot("big")),
                "result": "ok",
            }
            tool = "backup_status"
        elif kind == 2:
            self.say("user", r.choice(("How full is the NAS?", "Disk space?")))
            result = {"volume": "nas", "used_pct": r.randint(40, 97), "free_gb": r.randint(20, 900)}
            tool = "disk_usage"
        else:
            self.say("user", r.choice(("Anything in the inbox?", "New mail?")))
            result = {"unread": r.randint(0, 60), "flagged": r.randint(0, 9)}
            tool = "inbox_count"
        self.call(tool, {}, json.dumps(result))
        self.say("assistant", self.fill(r.choice(("Same as usual.", "All fine.", "Nothing odd."))))

    def small_talk(self) -> None:
        """A filler turn: small talk, an errand or a status report, values on both sides."""
        r = self.rng
        roll = r.random()
        if roll < 0.2:
            self.status_report()
            return
        pool = USER_TALK if roll < 0.65 else USER_ASKS
        text = self.fill(r.choice(pool))
        if r.random() < 0.35:
            text = f"{text} {self.fill(r.choice(USER_TALK))}"
        self.say("user", text)
        reply = [self.fill(r.choice(ASSISTANT_TALK)) for _ in range(r.randint(1, 2))]
        self.say("assistant", " ".join(reply))
