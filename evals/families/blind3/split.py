"""``blind3-split``: a fact split over two consecutive user messages.

People type in bursts: the first message says what it is about ("can you keep an eye on my
sister's flight tomorrow"), the second, sent before any reply, gives the detail and leans on
the first ("it lands at 6:40, gate B12"). The fact is the detail in the second message; alone
it says nothing about whose flight or which gate, so a summary that keeps it without the
first message keeps a value with no subject. The assistant answers both without repeating the
detail.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind3.base import Conversation, date_value, smalltalk

__all__ = ["PAIRS", "write"]

_L = "ABCDEFGHJKLMNPRSTUVWXYZ"

Pair = Callable[[random.Random], tuple[str, str, str, str, tuple[str, ...], str]]
"""rng -> (first message, second message, value, kind, aliases, the assistant's answer)."""


def _flight(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    gate = f"gate {rng.choice('ABCD')}{rng.randint(10, 59)}"
    who = rng.choice(("sister's", "brother's", "mum's", "best mate's"))
    return (
        f"can you keep an eye on my {who} flight from Dublin tomorrow",
        f"it lands at {rng.randint(5, 11)}:{rng.randint(0, 59):02d} at {gate}, I'm collecting",
        gate,
        "code",
        (),
        "Will do. I'll check the arrivals board an hour before and tell you if it's delayed.",
    )


def _plumber(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    name = rng.choice(
        (
            "Declan Moorcroft",
            "Ifeoma Blackwood",
            "Stanislav Greer",
            "Rhiannon Tulloch",
            "Aurelio Penhaligon",
        )
    )
    return (
        "the plumber finally got back to me about the radiator",
        f"{name}, he's coming Thursday between 8 and 10 and wants the cupboard cleared",
        name,
        "name",
        (),
        "Good news. Clear the cupboard and the space under the sink the night before and it'll "
        "save time.",
    )


def _wifi(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    words = (
        "maple",
        "otter",
        "quartz",
        "lantern",
        "biscuit",
        "harbour",
        "thistle",
        "copper",
        "walrus",
        "saffron",
    )
    a, b = rng.sample(words, 2)
    pw = f"{a}-{b}-{rng.randint(10, 99)}"
    return (
        "right, the new router is in, finally",
        f"password is {pw}, can you write out how to connect the printer to it",
        pw,
        "code",
        (),
        "On most printers: open the wireless setup on its panel, pick the new network, type the "
        "password, then re-add the printer on the laptop.",
    )


def _mot(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    date = date_value(rng)
    return (
        "oh and I need to sort the Corsa's MOT",
        f"it runs out on {date.text}, the garage on Kirkstall Road usually has slots",
        date.text,
        "date",
        date.aliases,
        "You can book up to a month before it runs out and keep the same renewal date, so it's "
        "worth booking early.",
    )


def _trip(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    amount = f"£{rng.randint(41, 389)}.{rng.choice(('00', '50', '75', '20'))}"
    return (
        "the letter about Sam's school trip came home crumpled in his bag",
        f"{amount} by the end of the month, on the payment app, and a signed consent form",
        amount,
        "value",
        (),
        "Worth doing both tonight: pay on the app and put the signed form straight back in his "
        "bag.",
    )


def _vet(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    when = rng.choice(("twice a day", "every morning", "with dinner"))
    dose = f"{rng.choice(('1.25', '2.5', '3.75', '0.5', '5'))}mg {when}"
    return (
        "the vet called about Biscuit's joints",
        f"{dose} of the new tablets, hidden in cheese if he'll take them",
        dose,
        "value",
        (),
        "That's a common way to do it. Giving them at the same time each day helps you not miss "
        "one.",
    )


def _storage(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    unit = f"unit {rng.choice(_L)}{rng.randint(100, 499)}"
    return (
        "we're putting the spare furniture into storage over the summer",
        f"it's {unit} on the second floor, the lift is round the back apparently",
        unit,
        "code",
        (),
        "Handy. Wrapping the wooden pieces in blankets rather than plastic stops damp getting "
        "trapped.",
    )


def _gp(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    name = "Dr " + rng.choice(
        ("Oyelowo-Birch", "Fenwick-Asante", "Marchetti", "Lindgren", "Abernethy")
    )
    return (
        "Dad's been moved to a new GP after the surgery merged",
        f"{name} at the Elm Road practice, they want him in for bloods next week",
        name,
        "name",
        (),
        "It's worth ringing early in the morning for blood test slots; they go quickly.",
    )


def _roof(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    amount = f"£{rng.randint(1, 9)},{rng.randint(100, 999)}"
    return (
        "the roofer's quote came through",
        f"{amount} plus VAT, valid thirty days, for the flashing and two ridge tiles",
        amount,
        "value",
        (),
        "That's worth comparing with one more quote; for flashing and a couple of ridge tiles "
        "the range is wide.",
    )


def _party(rng: random.Random) -> tuple[str, str, str, str, tuple[str, ...], str]:
    date = date_value(rng)
    return (
        "Maya's party is sorted, sort of",
        f"{date.text} at the soft play on Armley Road, she wants a dinosaur cake",
        date.text,
        "date",
        date.aliases,
        "A dinosaur cake is doable: a plain sponge, green icing and a few toy dinosaurs on top "
        "goes a long way.",
    )


PAIRS: tuple[Pair, ...] = (
    _flight,
    _plumber,
    _wifi,
    _mot,
    _trip,
    _vet,
    _storage,
    _gp,
    _roof,
    _party,
)
"""The kinds of split message, each used again only once all the others have been."""


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """``facts`` split pairs spread over ``turns`` turns of small talk and lookups."""
    conv = Conversation("You are a personal assistant helping one person keep their week together.")
    step = max(3, (turns - 4) // max(1, facts))
    at = {2 + i * step + rng.randrange(step - 1) for i in range(facts)}
    order: list[Pair] = []
    while len(order) < facts:
        order += rng.sample(PAIRS, len(PAIRS))
    k = 0
    for turn in range(turns):
        if turn in at and k < facts:
            first, second, value, kind, aliases, answer = order[k](rng)
            k += 1
            if rng.random() < 0.5:
                first, second = first[0].upper() + first[1:], second
            conv.user(first + rng.choice(("", "...", " -", "?")))
            idx = conv.user_more(second)
            conv.assistant(answer)
            conv.plant(kind, value, idx, aliases=aliases)
            continue
        user, answer = smalltalk(rng)
        conv.user(user)
        conv.assistant(answer)
    return conv
