"""Sentence frames for the ``lists`` style of :mod:`evals.families.trajectories`.

A user states several facts of one kind in one shared frame, one after another, as people do
when they list their relatives, appointments, devices or allergies: "My sister {v} lives in
Leeds and ...", then the brother, then the cousin. Only the value and one or two plain words
change, which is exactly what a template rule against repeated filler might take for
boilerplate. ``{v}`` is the planted value; ``{a}`` and ``{b}`` are drawn from the frame's own
word lists, each word once per list. Filler words here never hold a person's name, a month, an
upper-case code or a number, so the generator's uniqueness check still holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.families.facts import FactKind

__all__ = ["ALLERGENS", "LIST_FRAMES", "LIST_LENGTH", "ListFrame"]


@dataclass(frozen=True)
class ListFrame:
    """One frame a user says a list of facts in: ``template`` and the words its slots take."""

    template: str
    a: tuple[str, ...]
    b: tuple[str, ...] = ("",)


_RELATIVES = ("sister", "brother", "cousin", "aunt", "uncle", "neighbour", "friend", "colleague")
_TOWNS = ("Leeds", "Porto", "Lyon", "Denver", "Austin", "Graz", "Turin", "Bergen")

LIST_FRAMES: dict[FactKind, tuple[ListFrame, ...]] = {
    "name": (
        ListFrame(
            "My {a} {v} lives in {b} and can pick up the keys if I am away.", _RELATIVES, _TOWNS
        ),
        ListFrame(
            "My {a} is {v}, who is allowed to collect parcels for me in {b}.", _RELATIVES, _TOWNS
        ),
    ),
    "date": (
        ListFrame(
            "I have a {a} appointment on {v} at the {b} clinic.",
            ("dentist", "physio", "optician", "dermatology", "cardiology", "hearing check"),
            ("riverside", "central", "north", "university", "harbour", "old town"),
        ),
        ListFrame(
            "My {a} is booked for {v}, please remind me the {b} before.",
            ("car service", "haircut", "boiler check", "vet visit", "flu shot", "tax meeting"),
            ("evening", "morning", "day", "weekend"),
        ),
    ),
    "code": (
        ListFrame(
            "My {a} has the serial number {v}, keep it in case it needs a repair.",
            ("laptop", "phone", "e-bike", "tablet", "camera", "printer", "router", "watch"),
        ),
        ListFrame(
            "The warranty number for my {a} is {v}, it was bought at the {b} shop.",
            ("laptop", "phone", "e-bike", "tablet", "camera", "printer", "router", "watch"),
            ("local", "online", "airport", "outlet"),
        ),
    ),
    "value": (
        ListFrame(
            "My {a} insurance costs {v} a year and renews in the {b}.",
            ("home", "car", "travel", "health", "pet", "phone", "bike", "contents"),
            ("spring", "summer", "autumn", "winter"),
        ),
        ListFrame(
            "I set aside {v} for the {a} this year, paid from the {b} account.",
            ("holiday", "garden", "kitchen", "wedding", "school fees", "new roof"),
            ("joint", "savings", "household", "current"),
        ),
    ),
    "preference": (
        ListFrame(
            "I am allergic to {v}, so please leave it out of any {a} you suggest.",
            ("recipes", "meal plans", "snacks", "restaurant dishes", "menus", "baking ideas"),
        ),
        ListFrame(
            "I can't eat {v}, so please never put it in the {a} you plan for me.",
            ("lunches", "dinners", "meal plans", "party food", "picnics", "menus"),
        ),
    ),
}
"""Per kind, the frames a list may be said in; a trajectory picks one frame per kind."""

ALLERGENS = (
    "peanuts",
    "shellfish",
    "sesame",
    "kiwi",
    "celery",
    "mustard",
    "lupin",
    "buckwheat",
    "walnuts",
    "hazelnuts",
    "mango",
    "squid",
)
"""The values of ``preference`` lists (lower-case words, each once per trajectory)."""

LIST_LENGTH = 4
"""Facts in one list, said in consecutive turns."""
