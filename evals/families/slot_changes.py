"""``slot-changes``: one thing's value changed over and over, beside its other values never changed.

Own family (round 13, issue #29, stale values), written from the general case: a thing has
several values (a wedding venue's deposit, its balance and its coordinator; a holiday
cottage's booking reference, its nightly rate and its host), and each conversation changes
one of them two or three times, 8 to 40 turns apart, said with a change word ("went up",
"knocked down", "moved", "new"), while the thing's other values are said once and never
replaced. Some changes arrive through a tool result: an email from the vendor or a booking
record the assistant looks up, which gives the new value where the user gave the old one.

Every change is a fact from its message until the next change (``until``), with the value it
replaced (``stale``) and the ones before (``older``); every value said once is a fact to the
end. A rule that links a change to the latest statement of its slot must link it to the value
it changes, not to the thing's other values (they share the thing's words and a value kind).
"""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass

from evals.families.blind.base import Writer
from evals.families.facts import FactKind

__all__ = ["THINGS", "Slot", "Thing", "write"]


@dataclass(frozen=True)
class Slot:
    """One value of a thing: how it is first said, how a change of it is said, by mail."""

    kind: FactKind
    first: tuple[str, ...]
    then: tuple[str, ...]
    mail: tuple[str, ...]
    """A vendor's email body changing it (``{v}`` the new value)."""


@dataclass(frozen=True)
class Thing:
    name: str
    sender: str
    slots: tuple[Slot, ...]


THINGS = (
    Thing(
        "wedding venue",
        "events@hollybrook-barn.example",
        (
            Slot(
                "value",
                (
                    "The wedding venue deposit is {v}, payable next month.",
                    "We paid nothing yet, but the wedding venue deposit will be {v}.",
                ),
                (
                    "Wedding venue deposit has gone up, they now want {v}.",
                    "They knocked the wedding venue deposit down to {v}.",
                    "The wedding venue changed the deposit again, it's {v} after all.",
                ),
                ("Following our call, your wedding venue deposit is now {v}. Best, the team",),
            ),
            Slot(
                "value",
                (
                    "The wedding venue balance is {v}, due the week before.",
                    "For the wedding venue, the balance comes to {v} in the end.",
                ),
                (
                    "Wedding venue balance went up to {v} with the extra hour.",
                    "The wedding venue balance is now {v}, they dropped the service charge.",
                ),
                ("Please note the balance for the wedding venue is now {v}. Regards",),
            ),
            Slot(
                "name",
                (
                    "Our wedding venue coordinator is {v}, she answers the phone fast.",
                    "At the wedding venue we deal with {v} now, the coordinator.",
                ),
                (
                    "The wedding venue coordinator changed, it's {v} now.",
                    "New coordinator at the wedding venue: {v}.",
                ),
                ("From today your wedding venue coordinator will be {v}. Warm wishes",),
            ),
        ),
    ),
    Thing(
        "holiday cottage",
        "stay@brackenlee-cottages.example",
        (
            Slot(
                "code",
                ("The holiday cottage booking reference is {v}.",),
                (
                    "Holiday cottage reissued the booking, new reference {v}.",
                    "The holiday cottage reference changed to {v} when I added a night.",
                ),
                ("Your holiday cottage booking has been amended, new reference {v}.",),
            ),
            Slot(
                "value",
                (
                    "The holiday cottage costs {v} for the whole week.",
                    "For the holiday cottage we're paying {v} all in.",
                ),
                (
                    "The holiday cottage price went up to {v} with the cleaning fee.",
                    "Holiday cottage cost is now {v}, they took off the dog charge.",
                ),
                ("The total for your holiday cottage stay is now {v}. Thank you",),
            ),
            Slot(
                "name",
                (
                    "The holiday cottage host is {v}, keys are under the pot.",
                    "Our holiday cottage host, {v}, lives next door.",
                ),
                (
                    "Holiday cottage host changed, it's {v} from now on.",
                    "We have a new holiday cottage host, {v}.",
                ),
                ("Your holiday cottage host for this stay is now {v}. Enjoy",),
            ),
        ),
    ),
    Thing(
        "car insurance",
        "renewals@pennant-insure.example",
        (
            Slot(
                "code",
                ("My car insurance policy number is {v}.",),
                (
                    "Car insurance sent a new policy number, {v}.",
                    "The car insurance policy number is {v} now, after the renewal.",
                ),
                ("Your car insurance was renewed under the new policy number {v}.",),
            ),
            Slot(
                "value",
                (
                    "The car insurance premium is {v} a year.",
                    "For the car insurance I'm paying {v} a year at the moment.",
                ),
                (
                    "Car insurance premium went up again, {v} now.",
                    "They cut the car insurance premium to {v} after I called.",
                ),
                ("Your car insurance premium for the coming year is now {v}.",),
            ),
            Slot(
                "date",
                (
                    "The car insurance renews on {v}.",
                    "My car insurance runs out on {v}, I need to shop around.",
                ),
                (
                    "The car insurance renewal moved to {v}.",
                    "Car insurance renewal date is {v} now, they realigned it.",
                ),
                ("Please note your car insurance now renews on {v}.",),
            ),
        ),
    ),
    Thing(
        "kitchen refit",
        "office@oakfield-kitchens.example",
        (
            Slot(
                "value",
                (
                    "The kitchen refit budget is {v}, including the island.",
                    "We set the kitchen refit budget at {v}.",
                ),
                (
                    "Kitchen refit budget is now {v}, we cut the island.",
                    "OK the kitchen refit budget ends at {v}, no more changes.",
                ),
                ("Revised quote: your kitchen refit now comes to {v} in total.",),
            ),
            Slot(
                "name",
                (
                    "The kitchen refit fitter is {v}, starting after the weekend.",
                    "Our kitchen refit is being done by {v}, a one-man firm.",
                ),
                (
                    "Kitchen refit fitter swapped, we've got {v} now.",
                    "The kitchen refit fitter changed to {v}, the first one is ill.",
                ),
                ("Your kitchen refit will now be fitted by {v}. Kind regards",),
            ),
            Slot(
                "date",
                (
                    "The kitchen refit starts on {v}.",
                    "We have the kitchen refit starting on {v}.",
                ),
                (
                    "Kitchen refit start pushed back to {v}.",
                    "The kitchen refit start moved again, now {v}.",
                ),
                ("Your kitchen refit start date has been moved to {v}.",),
            ),
        ),
    ),
    Thing(
        "removal van",
        "moves@swiftshift.example",
        (
            Slot(
                "code",
                ("The removal van booking number is {v}.",),
                (
                    "Removal van rebooked, the new booking number is {v}.",
                    "Another new removal van booking number, {v}.",
                ),
                ("We have rebooked your removal van, new booking number {v}.",),
            ),
            Slot(
                "date",
                (
                    "The removal van comes on {v}.",
                    "We have the removal van booked for {v}.",
                ),
                (
                    "The removal van moved to {v}, the flat wasn't ready.",
                    "Removal van day changed again, it's {v} now.",
                ),
                ("Your removal van date has been changed to {v}.",),
            ),
            Slot(
                "name",
                (
                    "The removal van driver is {v}, he'll ring an hour before.",
                    "Our removal van driver will be {v}.",
                ),
                (
                    "Removal van driver changed, it's {v} now.",
                    "We've got a new removal van driver, {v}.",
                ),
                ("Your removal van driver on the day will now be {v}.",),
            ),
        ),
    ),
)
"""What the conversations are about: each thing's slots share the thing's words and kinds."""

_ASK_MAIL = (
    "Can you check my email for anything from the {t}?",
    "Did the {t} people write back?",
    "Anything new in my inbox about the {t}?",
)
_AFTER_MAIL = (
    "Yes, they wrote this morning, see above.",
    "Found their email, it's in the message above.",
    "They replied, the details are above.",
)
_ACKS = (
    "Updated.",
    "Okay, changed it in your notes.",
    "Noted. Anything else on that?",
    "Right, got it. Your {time} is still on.",
)


def _plan(rng: random.Random, turns: int, things: int) -> dict[int, tuple[int, int, int]]:
    """Turn -> (thing, slot, step): slot 0 changed, its steps 8 to 40 turns apart.

    The thing's other two slots are said once each, anywhere in the conversation.
    """
    for _ in range(500):
        plan: dict[int, tuple[int, int, int]] = {}
        ok = True
        for c in range(things):
            steps = 1 + rng.randint(2, 3)
            at = rng.randrange(0, max(1, turns - 12 * steps))
            for s in range(steps):
                while at in plan and at < turns:
                    at += 1
                if at >= turns:
                    ok = False
                    break
                plan[at] = (c, 0, s)
                at += rng.randint(8, 40)
            for other in (1, 2):
                at = rng.randrange(0, turns)
                while at in plan and at < turns:
                    at += 1
                if at >= turns:
                    ok = False
                    break
                plan[at] = (c, other, 0)
            if not ok:
                break
        if ok:
            return plan
    raise ValueError(f"could not fit {things} things in {turns} turns")


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` things (at most one each), one slot changed 2-3 times, two said once."""
    if facts > len(THINGS):
        raise ValueError(f"slot-changes has {len(THINGS)} things, got {facts=}")
    things = rng.sample(THINGS, facts)
    order = {c: rng.sample(range(3), 3) for c in range(facts)}  # which slot changes
    plan = _plan(rng, turns, facts)
    w = Writer(rng)
    said: dict[int, list[str]] = {}
    where_said: dict[int, int] = {}
    latest: dict[int, int] = {}
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None:
            w.small_talk()
            continue
        c, k, s = step
        thing = things[c]
        slot = thing.slots[order[c][k]]
        make = {"name": w.person, "date": w.date, "value": w.money, "code": w.code}[slot.kind]
        value, aliases = make()
        if k or s == 0:
            where = w.say("user", rng.choice(slot.first).replace("{v}", value))
            w.say("assistant", w.fill(rng.choice(_ACKS)))
        elif rng.random() < 0.35:  # the change arrives by mail
            w.say("user", rng.choice(_ASK_MAIL).replace("{t}", thing.name))
            mail = {
                "from": thing.sender,
                "subject": f"Your {thing.name}",
                "body": rng.choice(slot.mail).replace("{v}", value),
            }
            where = w.call("search_email", {"query": thing.name}, json.dumps([mail]))
            w.say("assistant", rng.choice(_AFTER_MAIL))
        else:
            where = w.say("user", rng.choice(slot.then).replace("{v}", value))
            w.say("assistant", w.fill(rng.choice(_ACKS)))
        if k:
            w.record(slot.kind, value, aliases, t, where)
            continue
        if s > 0:
            if c in latest:
                i = latest[c]
                w.facts[i] = dataclasses.replace(w.facts[i], until=where)
            history = said[c]
            w.record(
                slot.kind,
                value,
                aliases,
                t,
                where,
                stale=history[-1],
                stale_index=where_said[c],
                older=tuple(history[:-1]),
            )
            latest[c] = len(w.facts) - 1
        said.setdefault(c, []).append(value)
        where_said[c] = where
    return w
