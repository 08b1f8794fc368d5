"""The ``heldout`` style of the trajectory generator: a family written apart from the others.

Tuning the extractive summarizer against the other families risks fitting their sentence
frames. This family shares none of them: a personal assistant for home, IT, travel and banking,
with its own names, code shapes, date surface forms and filler pool, written fresh. Its filler
is dense with values on both sides and repeats a few kinds of notice (backup and sync logs,
quotes, reminders, card payments, travel status) many times with new values, each kind in
several phrasings. Facts are planted by the user in varied sentences, by the assistant, inside
short tool results, as short lists (three or four facts of one kind in one frame, consecutive
turns), as one personal frame said twice far apart with another value ("My daughter's ...",
much later "My son's ..."), and as corrections. Every value is drawn fresh for the trajectory,
so a planted value occurs in its own message only (the generator checks it).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.facts import FactKind, PlantedFact

__all__ = [
    "ACKS",
    "AFTER_TOOL",
    "ASSISTANT_FACTS",
    "ASSISTANT_OPENERS",
    "ASSISTANT_PLAIN",
    "CITIES",
    "CORRECTIONS",
    "FIRST",
    "LAST",
    "LIST_FRAMES",
    "MEDICATIONS",
    "MERCHANTS",
    "MONTHS",
    "NOTICES",
    "PAIR_FRAMES",
    "PREFERENCES",
    "SERVICES",
    "SYSTEM_PROMPT",
    "TASKS",
    "TOOL_FACTS",
    "USER_FACTS",
    "USER_FILLER",
    "USER_NOTICES",
    "Frame",
    "Plan",
    "Writer",
    "plan_turns",
]

SYSTEM_PROMPT = (
    "You are Wren, a personal assistant with access to the user's calendar, bank accounts, "
    "travel bookings and smart-home hub. Keep answers short, check with the tools before acting, "
    "and remember what the user tells you."
)


def _words(block: str) -> tuple[str, ...]:
    return tuple(block.split())


FIRST = _words(
    "Marguerite Anselm Beatrix Cormac Dagny Evander Florentyna Gideon Hester Ignatius Lucinda "
    "Magnus Nerys Orrin Philippa Radomir Seraphina Tancredi Wilhelmina Zebulon Agnieszka Barnaby "
    "Cressida Dmitri"
)
LAST = _words(
    "Achterberg Blackwood Carrington Dunmore Esterhazy Featherstone Grimaldi Holloway Ingleby "
    "Jorgensen Kettering Lockhart Montgomery Nettleton Ormsby Penhaligon Redfern Stanhope "
    "Tremayne Wolstenholme Azikiwe Calloway Drummond Fitzwilliam"
)
MONTHS = _words(
    "January February March April May June July August September October November December"
)
_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ"
_DIGITS = "23456789"
CITIES = ("Tallinn", "Seville", "Utrecht", "Trieste", "Aarhus", "Bordeaux", "Salzburg", "Cork")
MERCHANTS = (
    "Greengrocer Co",
    "the pharmacy",
    "FastFibre",
    "the garage",
    "CityPower",
    "the bakery",
    "StreamBox",
    "the hardware store",
)
SERVICES = (
    "gutter cleaning",
    "a new boiler valve",
    "window repairs",
    "airport transfer",
    "laptop screen replacement",
    "carpet cleaning",
)
TASKS = (
    "put the bins out",
    "water the plants",
    "renew the parking permit",
    "call the garage",
    "take the recycling",
    "back up the photos",
    "pay the window cleaner",
)

# -- filler ------------------------------------------------------------------------------
# Slots: {name} {code} {date} {day} {amt} {small} {n} {time} {time2} {city} {merchant}
# {service} {task} {month} {gate} {pct}. Every value slot is drawn fresh for the trajectory.

USER_FILLER = (
    "Can you check whether the {merchant} payment of {small} went through?",
    "Move my {time} call with {name} to {time2}, please.",
    "What's the weather doing in {city} on {day}?",
    "Add {n} lemons and a bag of rice to the shopping list.",
    "Is parcel {code} still out for delivery?",
    "Pay the {merchant} bill, {amt}, from the current account.",
    "Remind me to ring {name} at {time} tomorrow.",
    "How much went on groceries in {month}?",
    "The printer is showing error {n} again, any idea?",
    "Book a table for {gate} at {time} on {day}.",
    "I just forwarded you the receipt from {merchant}, {small}.",
    "Thermostat says {n} degrees in the hall, can you turn it down?",
    "ok thanks",
    "Perfect, that works.",
    "hmm, let me think about it",
    "What else is on for {day}?",
    "Did {name} ever reply about {service}?",
    "Is the laptop backup done yet?",
    "Sorry, I was on another call. Carry on.",
    "Transfer {small} to the holiday pot.",
)
ASSISTANT_OPENERS = (
    "Sure.",
    "Done.",
    "Okay, here's where things stand.",
    "Right, I checked.",
    "Got it.",
    "Here you go.",
    "Let me sum that up.",
)
ASSISTANT_PLAIN = (
    "Nothing else needs your attention right now.",
    "I can change that later if you like.",
    "Let me know if you want it in the calendar too.",
    "The rest of the week looks quiet.",
    "No action needed from you.",
    "I'll keep an eye on it.",
)
NOTICES: tuple[tuple[str, ...], ...] = (
    (  # backup status
        "The nightly backup finished at {time}: {n} files, {pct} GB.",
        "Backup status: completed {time}, {n} files changed.",
        "Your laptop backed up at {time} ({n} files).",
    ),
    (  # sync log
        "Sync log {time}: {n} contacts updated, no conflicts.",
        "[{time}] calendar sync ok, {n} events.",
        "The phone synced at {time} and pulled {n} new photos.",
    ),
    (  # quotes
        "{merchant} quoted {amt} for {service}, valid until {date}.",
        "The quote for {service} is {amt}, good until {date}.",
        "Quote in: {service}, {amt}, expires {date}.",
    ),
    (  # reminders
        "Reminder set: {task} on {day} at {time}.",
        "I'll remind you to {task} at {time} on {day}.",
        "Reminder: {task}, {day}, {time}.",
    ),
    (  # card payments
        "Card payment of {small} to {merchant} on {day}.",
        "{merchant} charged {small} to the card ending {n}.",
        "There's a pending charge of {amt} from {merchant}.",
    ),
    (  # travel status
        "Flight {code} is on time, boarding at {time} from gate {gate}.",
        "Train to {city} leaves platform {gate} at {time}.",
        "Your taxi with {name} is booked for {time}.",
    ),
)
USER_NOTICES = (
    "By the way, {merchant} texted that my order {code} ships on {day}.",
    "Also the alarm panel logged a door event at {time}, that was me.",
    "FYI {name} sent the quote, {amt} for {service}.",
    "I got a reminder to {task} on {day}, can you move it?",
)
ACKS = (
    "Noted, thanks.",
    "Got it, I've saved that.",
    "Thanks, I'll remember.",
    "Okay, added to your notes.",
    "Understood.",
    "Saved.",
)
AFTER_TOOL = (
    "That's the latest from the system.",
    "Those are the current details.",
    "All looks in order.",
    "That's what the account shows.",
)

# -- facts -------------------------------------------------------------------------------

USER_FACTS: dict[FactKind, tuple[str, ...]] = {
    "code": (
        "The alarm code for the back door is {v}, in case I forget it.",
        "Car registration is {v} if the parking app asks.",
        "My frequent flyer number is {v}.",
        "Write down the router admin password for me: {v}.",
        "Our home insurance policy number is {v}.",
        "Gym locker this term is {v}.",
    ),
    "name": (
        "Our new cleaner is {v}, she starts next week.",
        "The accountant doing our tax return is {v}.",
        "If the landlord calls, his name is {v}.",
        "I'm seeing {v} at the bank about the mortgage.",
        "The electrician who rewired the kitchen was {v}, really good.",
    ),
    "date": (
        "The lease on the flat runs out on {v}.",
        "Heads up, my passport expires {v}.",
        "We fly out to Crete on {v}.",
        "Car insurance renews {v}, remind me a week before.",
        "Mum's retirement party is {v}.",
    ),
    "value": (
        "Rent goes up to {v} a month from next quarter.",
        "The builder quoted {v} for the loft conversion.",
        "We paid {v} as a deposit on the cottage.",
        "I've got {v} left on the credit card limit.",
        "Keep the new laptop under {v}, that's my ceiling.",
    ),
}
PREFERENCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("an aisle seat", "On flights I always want {v}, never the window.", ("aisle seat",)),
    ("paper statements", "Please keep me on {v} for savings, I file them.", ()),
    ("the quiet coach", "When you book trains put me in {v} if there is one.", ("quiet coach",)),
    ("a ground-floor room", "Hotels: I need {v}, my knee hates stairs.", ("ground floor room",)),
    ("oat milk", "When you order groceries it's {v} for me, not dairy.", ()),
    ("dark mode", "Set up any new app in {v}, bright screens give me headaches.", ()),
    ("direct flights only", "I'll pay more for {v}, layovers wreck me.", ("direct flights",)),
    ("morning appointments", "Honestly I prefer {v}, before work.", ()),
    ("codes by email", "For logins I'd rather get {v} than by text.", ()),
    ("bank transfer", "I pay tradespeople by {v}, never cash.", ()),
    ("no calls after 8pm", "Rule for the phone: {v} unless it's family.", ()),
    ("a vegetarian meal", "Please request {v} on any long-haul flight.", ("vegetarian meal",)),
)
ASSISTANT_FACTS: dict[FactKind, tuple[tuple[str, str], ...]] = {
    "code": (
        ("Can you book the hotel in Ghent?", "Booked. Your confirmation code is {v}."),
        ("The broadband is down again.", "I've opened a fault with the provider, ticket {v}."),
        ("Renew my parking permit?", "Renewed; the new permit number is {v}."),
    ),
    "date": (
        ("Any dentist slots?", "The earliest the dentist can do is {v}, I've held it."),
        ("When will the visa be decided?", "They say a decision by {v} at the latest."),
        ("When does the new sofa come?", "Delivery is scheduled for {v}."),
    ),
    "value": (
        ("Move the bonus into savings.", "Done, the savings balance is now {v}."),
        ("What do we owe on the car loan?", "The outstanding balance on the car loan is {v}."),
    ),
    "name": (
        ("Who's handling the insurance claim?", "Your claim handler is {v}."),
        ("Who is fixing the boiler?", "The engineer coming round is {v}."),
    ),
}
TOOL_FACTS: dict[FactKind, tuple[tuple[str, str, str], ...]] = {
    # (user request, tool name, field): the value goes into ``field`` of a short result
    "code": (
        ("What's the reference for the Lisbon trip?", "travel_get_booking", "booking_ref"),
        ("What's the tracking number for the new router?", "parcels_latest", "tracking"),
    ),
    "date": (
        ("When is the next parents' evening?", "calendar_next", "date"),
        ("When is the water bill due?", "bills_next_due", "due"),
    ),
    "value": (
        ("How much is in the joint account?", "bank_balance", "balance"),
        ("How much was the council tax bill?", "bills_last", "amount"),
    ),
    "name": (
        ("Who did the last gas safety check?", "home_service_log", "engineer"),
        ("Who's my contact at the travel agency?", "travel_contact", "agent"),
    ),
}


@dataclass(frozen=True)
class Frame:
    """A sentence frame said several times with other words ``a`` and another value."""

    kind: FactKind
    template: str
    a: tuple[str, ...]


LIST_FRAMES = (
    Frame(
        "date",
        "{a} birthday is {v}, don't let me forget it.",
        ("My mother's", "My father's", "My grandmother's", "Our godson's", "My brother's"),
    ),
    Frame(
        "code",
        "The {a} account number is {v}.",
        ("joint current", "savings", "mortgage", "pension", "credit card", "kids' savings"),
    ),
    Frame(
        "value",
        "We pay {v} a year for {a}.",
        ("council tax", "electricity", "gas", "water", "home insurance", "the gym"),
    ),
    Frame(
        "name",
        "Our {a} is {v}.",
        ("family doctor", "dentist", "vet", "plumber", "childminder", "solicitor"),
    ),
    Frame(
        "preference",
        "Every morning I take {v} {a}.",
        ("with breakfast", "before breakfast", "with water", "with food", "after a run", "at 7"),
    ),
)
MEDICATIONS = (
    "amlodipine 5 mg",
    "levothyroxine 75 micrograms",
    "atorvastatin 20 mg",
    "bisoprolol 2.5 mg",
    "glucosamine 1500 mg",
    "montelukast 10 mg",
    "ramipril 2.5 mg",
    "omeprazole 20 mg",
)
PAIR_FRAMES = (
    Frame("name", "My {a} piano teacher is {v}.", ("daughter's", "son's")),
    Frame("code", "The wifi password at the {a} is {v}.", ("flat", "cabin")),
    Frame("date", "My {a} school term starts on {v}.", ("daughter's", "son's")),
    Frame("name", "The {a} spare key is with {v}.", ("house", "garage")),
)
CORRECTIONS = (
    ("The plumber is coming on {v}.", "Sorry, the plumber moved to {v} instead.", "date"),
    ("Our offer on the house is {v}.", "We've raised the offer to {v}.", "value"),
    ("The building door code is {v}.", "Door code changed again, it's {v} now.", "code"),
    (
        "The quote for the new windows is {v}.",
        "The window firm revised their quote to {v}.",
        "value",
    ),
)


# -- the writer --------------------------------------------------------------------------

Plan = tuple[str, Any]
"""One planted turn: ``(mode, detail)``; see :func:`plan_turns`."""


def plan_turns(rng: random.Random, turns: int, facts: int, corrections: int) -> dict[int, Plan]:
    """Turn -> what it plants: lists, far-apart pairs, corrections, tool, assistant, user facts.

    Raises:
        ValueError: when ``facts`` and ``corrections`` do not fit in ``turns``.
    """
    lists = [4, 3] if facts >= 16 else [3] if facts >= 8 else []
    pairs = 2 if facts >= 16 else 1 if facts >= 8 else 0
    rest = facts - sum(lists) - 2 * pairs
    tool = asst = rest // 4
    singles = rest - tool - asst
    if corrections > len(CORRECTIONS) or facts > 60 or turns < 4 * (facts + 2 * corrections):
        raise ValueError(
            f"heldout needs turns >= 4 * (facts + 2 * corrections), at most 60 facts and at "
            f"most {len(CORRECTIONS)} corrections, got {turns=} {facts=} {corrections=}"
        )
    plan: dict[int, Plan] = {}

    def free(lo: int, hi: int, span: int = 1) -> int:
        options = [
            s for s in range(lo, hi - span + 1) if all(s + i not in plan for i in range(span))
        ]
        if not options:  # pragma: no cover - the size check above leaves room
            raise ValueError(f"no room for {span} turns in [{lo}, {hi})")
        return rng.choice(options)

    frames = rng.sample(LIST_FRAMES, len(lists))
    for size, frame in zip(lists, frames, strict=True):
        start = free(0, turns, size)
        words = rng.sample(frame.a, size)
        for i in range(size):
            plan[start + i] = ("list", (frame, words[i]))
    for frame in rng.sample(PAIR_FRAMES, pairs):
        words = rng.sample(frame.a, 2)
        plan[free(0, turns // 3)] = ("pair", (frame, words[0]))
        plan[free(2 * turns // 3, turns)] = ("pair", (frame, words[1]))
    for k, (first, then, kind) in enumerate(rng.sample(CORRECTIONS, corrections)):
        at = free(0, turns - 40)
        plan[at] = ("state", (k, first, kind))
        plan[free(at + 8, at + 40)] = ("correct", (k, then, kind))
    others: list[FactKind] = ["code", "name", "date", "value"]
    single_kinds: list[FactKind] = ["preference"] * min(singles, 2 + singles // 4)
    single_kinds += [others[i % 4] for i in range(singles - len(single_kinds))]
    modes = [("user", k) for k in single_kinds]
    modes += [("tool", others[i % 4]) for i in range(tool)]
    modes += [("assistant", others[(i + 2) % 4]) for i in range(asst)]
    for mode in modes:
        plan[free(0, turns)] = mode
    return plan


class Writer:
    """Writes a ``heldout`` conversation turn by turn; all randomness comes from ``rng``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
        self.facts: list[PlantedFact] = []
        self.turn_starts: list[int] = []
        self.used: set[str] = set()
        self.preferences = list(PREFERENCES)
        rng.shuffle(self.preferences)
        self.medications = list(MEDICATIONS)
        rng.shuffle(self.medications)
        self.stated: dict[int, tuple[str, int]] = {}

    # -- values ----------------------------------------------------------------------------

    def _fresh(
        self, make: Callable[[], tuple[str, tuple[str, ...]]]
    ) -> tuple[str, tuple[str, ...]]:
        while True:
            value, aliases = make()
            if value not in self.used and not self.used.intersection(aliases):
                self.used.add(value)
                self.used.update(aliases)
                return value, aliases

    def name(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng
        return self._fresh(lambda: (f"{r.choice(FIRST)} {r.choice(LAST)}", ()))

    def code(self) -> tuple[str, tuple[str, ...]]:
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            def u() -> str:
                return r.choice(_UPPER)

            def d() -> str:
                return r.choice(_DIGITS)

            shape = r.randrange(3)
            if shape == 0:
                return f"{u()}{d()}{u()}{u()}{d()}{u()}", ()
            if shape == 1:
                return f"{u()}{u()}-{d()}{d()}{d()}{d()}-{u()}{d()}", ()
            return f"{u()}{u()}{u()}{d()}{d()}{d()}{d()}{d()}", ()

        return self._fresh(make)

    def date(self, iso: bool = False) -> tuple[str, tuple[str, ...]]:
        """A date in one of three surface forms; the other two are its aliases."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            year, month, day = r.randint(2025, 2028), r.randint(1, 12), r.randint(1, 28)
            forms = [
                f"{day} {MONTHS[month - 1]} {year}",
                f"{MONTHS[month - 1]} {day}, {year}",
                f"{year}-{month:02d}-{day:02d}",
            ]
            pick = 2 if iso else r.choice((0, 0, 1))
            return forms[pick], tuple(f for i, f in enumerate(forms) if i != pick)

        return self._fresh(make)

    def amount(self) -> tuple[str, tuple[str, ...]]:
        """An amount of 1,000 or more with cents; with and without the thousands comma."""
        r = self.rng

        def make() -> tuple[str, tuple[str, ...]]:
            whole, cents = r.randint(1000, 19999), r.choice([c for c in range(1, 100) if c % 10])
            plain, comma = f"{whole}.{cents:02d}", f"{whole:,}.{cents:02d}"
            assert json.dumps(float(plain)) == plain
            return (comma, (plain,)) if r.random() < 0.5 else (plain, (comma,))

        return self._fresh(make)

    def _slot(self, slot: str) -> str:
        r = self.rng
        if slot == "name":
            return self.name()[0]
        if slot == "code":
            return self.code()[0]
        if slot == "date":
            return self.date()[0]
        if slot == "amt":  # mostly hundreds, now and then as large as a planted amount
            if r.random() < 0.2:
                return self.amount()[0]
            return self._fresh(lambda: (f"{r.randint(40, 999)}.{r.randint(0, 99):02d}", ()))[0]
        if slot == "small":
            return self._fresh(lambda: (f"{r.randint(3, 480)}.{r.randint(0, 99):02d}", ()))[0]
        if slot == "n":
            return self._fresh(lambda: (str(r.randint(11, 9999)), ()))[0]
        if slot == "day":
            return f"{r.choice(('Monday', 'Tuesday', 'Friday', 'Sunday'))} the {r.randint(2, 28)}"
        if slot in ("time", "time2"):
            return f"{r.randint(6, 22):02d}:{r.choice((0, 10, 15, 30, 45, 50)):02d}"
        if slot == "pct":
            return f"{r.randint(1, 90)}.{r.randint(1, 9)}"
        if slot == "gate":
            return str(r.randint(2, 40))
        pools = {
            "city": CITIES,
            "merchant": MERCHANTS,
            "service": SERVICES,
            "task": TASKS,
            "month": MONTHS,
        }
        return r.choice(pools[slot])

    def fill(self, template: str) -> str:
        """``template`` with every slot but ``{v}`` filled, left to right."""
        out, rest = [], template
        while "{" in rest:
            head, _, tail = rest.partition("{")
            slot, _, rest = tail.partition("}")
            out.append(head)
            out.append("{v}" if slot == "v" else self._slot(slot))
        return "".join(out) + rest

    # -- messages --------------------------------------------------------------------------

    def say(self, role: str, content: str) -> int:
        self.messages.append({"role": role, "content": content})
        return len(self.messages) - 1

    def _filler_tool(self) -> tuple[str, dict[str, Any], dict[str, Any]]:
        r = self.rng
        choice = r.randrange(4)
        if choice == 0:
            rows = [
                {
                    "date": self._slot("day"),
                    "merchant": self._slot("merchant"),
                    "amount": float(self._slot("small")),
                }
                for _ in range(r.randint(2, 4))
            ]
            return "bank_transactions", {"account": "current", "limit": len(rows)}, {"rows": rows}
        if choice == 1:
            return (
                "home_status",
                {},
                {
                    "thermostat": r.randint(16, 24),
                    "alarm": r.choice(("armed", "disarmed")),
                    "last_backup": self._slot("time"),
                    "devices_online": int(self._slot("n")),
                },
            )
        if choice == 2:
            city = self._slot("city")
            return (
                "weather",
                {"city": city},
                {"city": city, "high": r.randint(4, 31), "rain_mm": r.randint(0, 19)},
            )
        events = [
            {"time": self._slot("time"), "with": self._slot("name")} for _ in range(r.randint(1, 3))
        ]
        return "calendar_day", {"day": self._slot("day")}, {"events": events}

    def exchange(self, first: tuple[str, dict[str, Any], dict[str, Any]]) -> list[int]:
        """A tool-calling assistant message and its results (sometimes a second call)."""
        r = self.rng
        calls = [first]
        if r.random() < 0.3:
            calls.append(self._filler_tool())
            r.shuffle(calls)
        ids = [f"call_{r.getrandbits(48):012x}" for _ in calls]
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": i,
                        "type": "function",
                        "function": {"name": n, "arguments": json.dumps(a)},
                    }
                    for i, (n, a, _) in zip(ids, calls, strict=True)
                ],
            }
        )
        where = []
        for call_id, (_, _, result) in zip(ids, calls, strict=True):
            self.messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)}
            )
            where.append(len(self.messages) - 1)
        return where

    def filler_reply(self) -> str:
        r = self.rng
        parts = [r.choice(ASSISTANT_OPENERS)]
        for _ in range(r.randint(1, 3)):
            notice = self.fill(r.choice(r.choice(NOTICES)))
            parts.append(notice[0].upper() + notice[1:])
        if r.random() < 0.5:
            parts.append(r.choice(ASSISTANT_PLAIN))
        return " ".join(parts)

    def filler_turn(self) -> None:
        r = self.rng
        request = self.fill(r.choice(USER_FILLER))
        if r.random() < 0.3:
            request = f"{request} {self.fill(r.choice(USER_NOTICES))}"
        self.say("user", request)
        if r.random() < 0.3:
            self.exchange(self._filler_tool())
        self.say("assistant", self.filler_reply())

    def record(
        self,
        kind: FactKind,
        value: str,
        aliases: tuple[str, ...],
        turn: int,
        where: int,
        stale: tuple[str, int] | None = None,
    ) -> None:
        self.facts.append(
            PlantedFact(
                id=f"f{len(self.facts):02d}",
                kind=kind,
                value=value,
                turn_index=turn,
                message_index=where,
                role=str(self.messages[where]["role"]),
                aliases=aliases,
                stale=None if stale is None else stale[0],
                stale_index=None if stale is None else stale[1],
            )
        )

    def value_of(self, kind: FactKind) -> tuple[str, tuple[str, ...]]:
        makers = {"code": self.code, "name": self.name, "date": self.date, "value": self.amount}
        return makers[kind]()

    def turn(self, index: int, plan: Plan | None) -> None:
        self.turn_starts.append(len(self.messages))
        r = self.rng
        if plan is None:
            self.filler_turn()
            return
        mode, detail = plan
        if mode == "user":
            kind: FactKind = detail
            if kind == "preference":
                value, template, aliases = self.preferences.pop()
                self.used.add(value)
            else:
                value, aliases = self.value_of(kind)
                template = r.choice(USER_FACTS[kind])
            lead = r.choice(("", "", "One more thing: ", "Before I forget: ", "Oh and "))
            sentence = template.replace("{v}", value)
            if lead:
                sentence = lead + sentence[0].lower() + sentence[1:]
            where = self.say("user", sentence)
            self.say("assistant", r.choice(ACKS))
            self.record(kind, value, aliases, index, where)
        elif mode == "assistant":
            kind = detail
            value, aliases = self.value_of(kind)
            request, template = r.choice(ASSISTANT_FACTS[kind])
            self.say("user", request)
            where = self.say("assistant", template.replace("{v}", value))
            self.record(kind, value, aliases, index, where)
        elif mode == "tool":
            kind = detail
            request, tool, key = r.choice(TOOL_FACTS[kind])
            if kind == "date":
                value, aliases = self.date(iso=True)
                stored: Any = value
            elif kind == "value":
                value, aliases = self.amount()
                plain = next(f for f in (value, *aliases) if "," not in f)
                aliases = tuple(f for f in (value, *aliases) if f != plain)
                value, stored = plain, float(plain)
            else:
                value, aliases = self.value_of(kind)
                stored = value
            result = {key: stored, "status": r.choice(("ok", "confirmed", "paid", "current"))}
            self.say("user", request)
            at = self.exchange((tool, {}, result))
            where = next(i for i in at if value in self.messages[i]["content"])
            self.say("assistant", r.choice(AFTER_TOOL))
            self.record(kind, value, aliases, index, where)
        elif mode in ("list", "pair"):
            frame, word = detail
            if frame.kind == "preference":
                value = self.medications.pop()
                self.used.add(value)
                aliases = (value.replace(" mg", "mg"),) if " mg" in value else ()
            else:
                value, aliases = self.value_of(frame.kind)
            text = frame.template.replace("{a}", word).replace("{v}", value)
            where = self.say("user", text[0].upper() + text[1:])
            self.say("assistant", r.choice(ACKS))
            self.record(frame.kind, value, aliases, index, where)
        else:  # a correction: stated first, replaced later
            pair, template, kind = detail
            value, aliases = self.value_of(kind)
            where = self.say("user", template.replace("{v}", value))
            self.say("assistant", r.choice(ACKS))
            if mode == "state":
                self.stated[pair] = (value, where)
            else:
                self.record("correction", value, aliases, index, where, self.stated[pair])
