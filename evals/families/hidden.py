"""Templates for the ``indirect`` and ``nested-tool`` styles of :mod:`evals.families.trajectories`.

``indirect``: a fact is implied by what the speaker says rather than stated as "my X is Y" ("I'll
be flying out on 14 March 2025, same as last time", "whoever drives, {v} has the spare key").
``nested-tool``: a fact sits three or more levels deep inside a tool result, among many other
keys, numbers and lower-case identifiers. As in :mod:`evals.families.pools`, ``{v}`` is the planted
value and other ``{slot}`` names are filled at random; filler values here never hold a person's
name, a month, an upper-case code or a number of four or more digits, so the generator's
uniqueness check still holds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from evals.families.pools import CARRIERS, CITIES, PRODUCTS, STORES, Call

__all__ = ["INDIRECT_PREFERENCES", "INDIRECT_TEMPLATES", "NESTED_FIELDS", "NESTED_TOOLS"]

# -- indirect: the value is implied by context ---------------------------------------------------

INDIRECT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "code": (
        "Same as last time, I'll be flying out of gate {v} if the app is right, so pack light.",
        "The courier slip from the last box had {v} scribbled on it, nothing came since.",
        "Funny, every parcel you sent me so far had {v} on the label, is that me?",
        "When I called last week they read {v} back to me before hanging up, whatever that was.",
        "Leave it in the club locker with {v} on the door, the one I always use.",
    ),
    "name": (
        "{v} will be the one opening the door on Thursday, I'm away all week.",
        "Whoever drives up, {v} has the spare key to the shed where the kayak lives.",
        "The kids will be staying with {v} that weekend, so don't ring the house.",
        "Last time {v} signed for it and nobody told me for three days.",
        "Ask for {v} at reception if I don't pick up, she sits next to me.",
    ),
    "date": (
        "We fly out on {v}, same as last time, so the boots need breaking in before then.",
        "The kids finish school on {v} and after that we're off to the lakes.",
        "Since the move on {v} nothing has been delivered to the right door.",
        "The last time I wore them properly was the wedding on {v}, and they pinched.",
        "Everything has to be packed by {v}, the movers come the morning after.",
    ),
    "value": (
        "The old stove did {v} km with me before it gave up, so I expect the same.",
        "Last season I logged {v} metres of climbing on the watch, knees still complain.",
        "The cabin sits at {v} metres, so nights get cold even in summer.",
        "We raised {v} for the charity walk last year, the team wants nicer jackets now.",
        "Our street is up at {v} feet, the snow comes early.",
    ),
}
"""Per kind, sentences that imply the value rather than state what it is. A trajectory uses
each at most once until all have been used: nobody tells four facts in one sentence frame."""

INDIRECT_PREFERENCES: tuple[tuple[str, str], ...] = (
    ("ended up in hospital after trail mix", "No nuts in anything, I {v} once."),
    ("my partner reads every label for me", "Since the milk thing, {v}, so list ingredients."),
    ("knees wedged against a tall guy's seat", "Six hours with my {v} last flight, never again."),
    ("the smell of leather makes me queasy", "Honestly {v}, so suggest other boots."),
    ("my right hand is in a cast", "Until the autumn {v}, so zips need big pulls."),
    ("my dog comes everywhere with me", "Whatever tent we pick, {v}, and he's big."),
    ("reading glasses for the small print", "I need {v} now, so bigger labels help."),
    ("the ferry makes my husband sick", "We drive now, {v} every single time."),
    ("my skin reacts to wool jumpers", "Base layers are tricky, {v} within an hour."),
    ("I only get messages after dark", "Working nights means {v}, so write rather than call."),
    ("my knees hate steep descents", "Pick the gentle route please, {v} these days."),
    ("the last orange jacket went in the bin", "Colours matter, {v} after a week."),
)
"""``(value, sentence)``: a preference implied by what the speaker says about themselves."""

# -- nested-tool: the value deep inside a tool result -------------------------------------------

_STATUSES = ("ok", "pending", "settled", "queued", "archived")


def _hexid(r: random.Random, prefix: str) -> str:
    return f"{prefix}_{r.getrandbits(32):08x}"


def _clutter(r: random.Random, depth: int) -> dict[str, Any]:
    """Keys, small numbers and lower-case ids around the planted value."""
    out: dict[str, Any] = {
        "id": _hexid(r, "obj"),
        "status": r.choice(_STATUSES),
        "count": r.randint(0, 40),
        "ratio": round(r.randint(1, 99) / 100, 2),
    }
    if depth > 0:
        out["meta"] = {"rev": r.randint(1, 9), "etag": _hexid(r, "e"), "flags": [r.randint(0, 7)]}
    return out


def _nest(r: random.Random, path: tuple[str, ...], leaf: dict[str, Any]) -> dict[str, Any]:
    """``leaf`` at ``path`` (objects and one-element-plus lists), each level among clutter."""
    node: Any = leaf
    for depth, key in enumerate(reversed(path)):
        if key.endswith("[]"):
            siblings = [_clutter(r, 0) for _ in range(r.randint(1, 3))]
            at = r.randint(0, len(siblings))
            node = {key[:-2]: [*siblings[:at], node, *siblings[at:]]}
        else:
            node = {key: node}
        node.update({k: v for k, v in _clutter(r, depth).items() if k not in node})
    result: dict[str, Any] = node
    return result


def _account(r: random.Random, field: str, value: Any) -> Call:
    leaf = {field: value, "currency": "EUR", "tier": r.choice(("silver", "gold"))}
    return (
        "get_account_overview",
        {"include": ["billing", "loyalty"]},
        _nest(r, ("account", "billing", "ledger[]", "entry"), leaf),
    )


def _shipment(r: random.Random, field: str, value: Any) -> Call:
    leaf = {field: value, "carrier": r.choice(CARRIERS), "hub": r.choice(CITIES)}
    return (
        "get_shipment_history",
        {"which": "all"},
        _nest(r, ("shipments[]", "legs[]", "handover", "details"), leaf),
    )


def _booking(r: random.Random, field: str, value: Any) -> Call:
    leaf = {field: value, "store": r.choice(STORES), "item": r.choice(PRODUCTS)}
    return (
        "list_bookings",
        {"period": "upcoming"},
        _nest(r, ("data", "bookings[]", "slot", "attributes"), leaf),
    )


def _warranty(r: random.Random, field: str, value: Any) -> Call:
    leaf = {field: value, "product": r.choice(PRODUCTS), "units": r.randint(1, 4)}
    return (
        "get_warranty_claims",
        {"state": "any"},
        _nest(r, ("response", "claims[]", "history[]", "record"), leaf),
    )


NESTED_TOOLS: tuple[tuple[str, Callable[[random.Random, str, Any], Call]], ...] = (
    ("Can you pull up everything on my account?", _account),
    ("Where have all my shipments been this year?", _shipment),
    ("What bookings do I have coming up?", _booking),
    ("What's the state of my warranty claims?", _warranty),
)
"""``(request, tool)``: a tool whose result buries ``field: value`` three or more levels deep."""

NESTED_FIELDS: dict[str, tuple[str, ...]] = {
    "code": ("reference", "case_number", "voucher"),
    "name": ("contact_name", "signed_by", "assigned_to"),
    "date": ("scheduled_for", "valid_until", "created_on"),
    "value": ("amount", "balance", "total_paid"),
}
"""Per kind, the key the planted value is stored under."""
