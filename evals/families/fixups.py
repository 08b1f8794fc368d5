"""Corrections that name their subject only in an earlier message (the ``fixups`` family).

A tuned-on family, written with the rule it exercises
(:mod:`summem.summarizers.extractive.bare_corrections`): an appointment, booking or order is
stated with a value (a time, a date, a weekday, an amount, a count or a name), by the assistant
or by the user, and the user corrects it in the next turn without naming the subject again:
"No wait, make it 16:15", "Thursday, not Tuesday", "hmm, four instead". The fact is the new
value; the stale one must go or be marked. Some values are stated and then only confirmed
("no, six is fine"): the fact is the value, never corrected. Filler turns talk about other
things with other values (two-digit numbers, times at minutes 05/25/35/55, codes), never a
weekday or a planted value.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS", "fixups_trajectory"]

_SUBJECTS = (
    "dentist check-up",
    "table at the bistro",
    "car service",
    "haircut",
    "delivery slot",
    "boiler inspection",
    "yoga class",
    "vet visit",
    "piano lesson",
    "room viewing",
    "bike repair",
    "tax call",
)
_NAMES = (
    "Marisol",
    "Teodor",
    "Ingrid",
    "Oluwaseun",
    "Priyanka",
    "Bartholomew",
    "Ximena",
    "Leopold",
    "Anouk",
    "Cosimo",
    "Radhika",
    "Finnegan",
)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_COUNTS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_MONTHS = ("March", "April", "June", "July", "September", "October")

_STATED: dict[str, tuple[str, ...]] = {
    "assistant": (
        "I've booked your {s} for {v}.",
        "All set: the {s} is down for {v}.",
        "Done, your {s} is confirmed for {v}.",
    ),
    "user": (
        "Please put the {s} down for {v}.",
        "Can you book the {s} for {v}?",
    ),
}
_FRAMES: dict[str, str] = {
    "time": "{v}",
    "date": "{v}",
    "weekday": "{v}",
    "amount": "a budget of {v}",
    "count": "{v} people",
    "name": "{v} as the contact",
}
_CORRECTIONS = (
    "No wait, make it {n}.",
    "Actually, {n}.",
    "{n}, not {o}.",
    "Hmm, {n} instead.",
    "Scratch that, {n}.",
    "Sorry, change it to {n}.",
)
_FILLER_USER = (
    "How long does the ticket {c} usually take?",
    "Did the parcel with {k} items ship yet?",
    "Is the {t} train still running today?",
    "Any news on the order {c}?",
    "Thanks, what else do I need for the move?",
)
_FILLER_ASSISTANT = (
    "The ticket {c} is in the queue, usually {k} minutes.",
    "The parcel with {k} items left the depot at {t}.",
    "The {t} service is on time as far as I can see.",
    "Order {c} is being packed, about {k} items left before yours.",
    "You will need boxes, tape and about {k} labels.",
)


def _values(rng: random.Random, kind: str, used: set[str]) -> tuple[str, str]:
    """An old and a new value of ``kind``, never used before in this trajectory."""
    while True:
        if kind == "time":
            a, b = (f"{rng.randint(8, 19)}:{rng.choice(('00', '15', '30', '45'))}" for _ in "ab")
        elif kind == "date":
            month = rng.choice(_MONTHS)
            a, b = (f"{rng.randint(1, 28)} {month}" for _ in "ab")
        elif kind == "weekday":
            a, b = rng.sample(_WEEKDAYS, 2)
        elif kind == "amount":
            a, b = (f"£{rng.randint(101, 999)}" for _ in "ab")
        elif kind == "count":
            a, b = rng.sample(_COUNTS, 2)
        else:
            a, b = rng.sample(_NAMES, 2)
        if a != b and a not in used and b not in used:
            used.update((a, b))
            return a, b


def fixups_trajectory(seed: int, *, turns: int = 200, facts: int = 10) -> Trajectory:
    """A conversation of ``turns`` user turns with ``facts`` corrected or confirmed values."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful booking assistant."}
    ]
    starts: list[int] = []
    planted: list[PlantedFact] = []
    used: set[str] = set()
    weekday_left = 2  # seven weekdays: at most two weekday facts keep every value unique
    count_left = 3  # eight single digits likewise
    plan = sorted(rng.sample(range(2, turns - 2, 3), facts))  # each takes two turns
    turn = 0

    def say(role: str, content: str) -> int:
        if role == "user":
            starts.append(len(messages))
        messages.append({"role": role, "content": content})
        return len(messages) - 1

    filler_no = 0

    def filler() -> None:
        nonlocal filler_no
        filler_no += 1
        fill: dict[str, Callable[[], str]] = {
            "c": lambda: f"QX-{seed % 97:02d}{filler_no:03d}",
            "k": lambda: str(rng.randint(11, 99)),
            "t": lambda: f"{rng.randint(6, 22)}:{rng.choice(('05', '25', '35', '55'))}",
        }
        say("user", _fill(rng.choice(_FILLER_USER), fill))
        say("assistant", _fill(rng.choice(_FILLER_ASSISTANT), fill))

    while turn < turns:
        if plan and turn == plan[0]:
            plan.pop(0)
            kinds = ["time", "date", "amount", "name"]
            if weekday_left:
                kinds.append("weekday")
            if count_left:
                kinds.append("count")
            kind = rng.choice(kinds)
            weekday_left -= kind == "weekday"
            count_left -= kind == "count"
            old, new = _values(rng, kind, used)
            subject = _SUBJECTS[len(planted) % len(_SUBJECTS)]
            who = rng.choice(("assistant", "user", "assistant"))
            stated = rng.choice(_STATED[who]).format(s=subject, v=_FRAMES[kind].format(v=old))
            confirm = kind == "count" and rng.random() < 0.3
            if who == "user":
                stale_at = say("user", stated)
                say("assistant", "Sure, noted.")
            else:
                say("user", f"Could you sort out the {subject}?")
                stale_at = say("assistant", stated)
            turn += 1
            if confirm:  # "no, five is fine": accepts the value, corrects nothing
                say("user", f"No, {old} is fine.")
                say("assistant", "Great.")
                index = stale_at
                planted.append(
                    PlantedFact(f"f{len(planted):02d}", "value", old, turn - 1, index, who)
                )
            else:
                text = rng.choice(_CORRECTIONS).format(n=new, o=old)
                at = say("user", text)
                say("assistant", "Got it, updated.")
                planted.append(
                    PlantedFact(
                        f"f{len(planted):02d}",
                        "correction",
                        new,
                        turn,
                        at,
                        "user",
                        stale=old,
                        stale_index=stale_at,
                    )
                )
                if "not" in text and " not " in text:  # the stale value is said again there
                    planted[-1] = PlantedFact(
                        planted[-1].id, "correction", new, turn, at, "user", stale=None
                    )
            turn += 1
            continue
        filler()
        turn += 1
    return Trajectory(
        seed=seed,
        messages=tuple(messages),
        facts=tuple(planted),
        turn_starts=tuple(starts),
        params={"turns": turns, "facts": facts, "style": "fixups"},
    )


def _fill(template: str, fill: dict[str, Callable[[], str]]) -> str:
    out = template
    for key, make in fill.items():
        token = "{" + key + "}"
        if token in out:
            out = out.replace(token, make())
    return out


GENERATORS: dict[str, Callable[..., Trajectory]] = {"fixups": fixups_trajectory}
