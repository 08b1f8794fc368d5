"""``blind8-accepts``: the assistant offers two or three options, the user picks in a few words.

A couple moving house while opening a café ask for removals firms, broadband, storage, paint,
coffee machines, milk suppliers, card readers, sign makers, bakers and insurers. The assistant
offers two or three, with prices, as a numbered list, bullets or prose, sometimes with its
own pick. The user answers tersely without naming one: by position ("the second"), by price
("go with the cheaper"), by agreeing with the pick ("your one"), by taking one and refusing
the rest ("yes to the first, no to the rest"), now and then after asking a question the
assistant answers by position; or refuses all and names their own choice (then the fact is
in the user's message; the refused options are not scored: the sixth set's check wants an
option not taken in the fact's own message).
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.families.blind6.base import spread
from evals.families.blind8.base import Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["DOMAINS", "generate"]


@dataclass(frozen=True)
class Domain:
    """What is offered: the user's request, the assistant's lead-in, the names, the prices."""

    ask: str
    lead: str
    names: tuple[str, ...]
    low: int
    high: int
    unit: str


DOMAINS: tuple[Domain, ...] = (
    Domain(
        "can you find us a removals firm for the move",
        "A few removals firms cover both ends",
        (
            "Packhorse Moving",
            "Bluebird Removals",
            "Cartwright Movers",
            "Swiftlane Removals",
            "Ferryman Moves",
            "Hearthside Removals",
            "Tortoise Removals",
            "Northbound Moving",
        ),
        380,
        1900,
        "",
    ),
    Domain(
        "broadband for the new house, what's out there",
        "These providers reach the new street",
        (
            "Brightwire",
            "Kestrel Fibre",
            "Village Net",
            "Hopscotch Broadband",
            "Lumen Home",
            "Skylark Fibre",
            "Poplar Net",
            "Copperline",
        ),
        22,
        65,
        " a month",
    ),
    Domain(
        "we need a storage unit for a few months",
        "Storage near the new place",
        (
            "Dockside Storage",
            "Keepsafe Units",
            "Hilltop Self Store",
            "Boxwell Storage",
            "Lockstock Units",
            "Stowaway Storage",
            "Cubbyhole Self Store",
            "Bramley Storage",
        ),
        60,
        240,
        " a month",
    ),
    Domain(
        "paint for the café walls, something warm",
        "Some warm colours that work in cafés",
        (
            "Toasted Almond",
            "Harbour Mist",
            "Terracotta Dust",
            "Elderflower Cream",
            "Burnt Honey",
            "Linen Sand",
            "Saffron Glow",
            "Clay Pot",
        ),
        38,
        95,
        " a tin",
    ),
    Domain(
        "help me choose a coffee machine for the café",
        "Machines that suit a small café",
        (
            "Corvo Duo",
            "Brava Classic",
            "Alto Twin",
            "Piccolo Pro",
            "Vela Compact",
            "Ruota Uno",
            "Stella Bar",
            "Fiamma Lever",
        ),
        2400,
        9800,
        "",
    ),
    Domain(
        "milk supplier for the café, local if possible",
        "Local dairies that deliver",
        (
            "Meadowcroft Dairy",
            "Hollins Farm",
            "Dale End Dairy",
            "Greenacre Milk",
            "Fellside Creamery",
            "Ashby Dairy",
            "Whitecross Farm",
            "Brookmoor Milk",
        ),
        40,
        180,
        " a week",
    ),
    Domain(
        "which card reader should we get",
        "Card readers small cafés use",
        (
            "Tapwell",
            "PayPebble",
            "Countertop Go",
            "Swipesmith",
            "Tillbird",
            "Chipdip",
            "Paywheel",
            "Coinlark",
        ),
        29,
        149,
        "",
    ),
    Domain(
        "someone to make the sign over the door",
        "Sign makers nearby",
        (
            "Gilt & Grain Signs",
            "Letterbox Signworks",
            "Oakline Signs",
            "Brushstroke Signs",
            "Halloway Signcraft",
            "Neonwood Signs",
            "Copperplate Signs",
            "Fairground Letters",
        ),
        300,
        2200,
        "",
    ),
    Domain(
        "we need a bakery to supply pastries",
        "Bakeries that do wholesale",
        (
            "Crumb & Co",
            "Rising Dough Bakery",
            "Ovenbird Bakehouse",
            "Sourhill Bakery",
            "Larder Lane Bakes",
            "Flourmill Bakery",
            "Kneadwell",
            "Morning Loaf",
        ),
        90,
        420,
        " a week",
    ),
    Domain(
        "insurance for the café, who should we look at",
        "Insurers that cover small cafés",
        (
            "Shieldwell Insurance",
            "Harbourline Cover",
            "Cornerstone Mutual",
            "Anchorpoint",
            "Safeharbour Business",
            "Bulwark Insure",
            "Evenkeel Cover",
            "Lighthouse Mutual",
        ),
        350,
        1600,
        " a year",
    ),
)
"""What the couple ask for and the names offered."""

_WORDS = ("first", "second", "third")
_DONE = (
    "Great, I'll go ahead with that one.",
    "Lovely, I'll sort it.",
    "Perfect, booking that now.",
    "Good choice, I'll get it arranged.",
)


def _offer(
    w: Writer, domain: Domain, options: list[str], prices: list[str], pick: int | None
) -> str:
    r = w.rng
    lines = [f"{o} ({p}{domain.unit})" for o, p in zip(options, prices, strict=True)]
    form = r.choice(("numbered", "bullets", "prose"))
    if form == "numbered":
        body = "\n".join(f"{k + 1}. {line}" for k, line in enumerate(lines))
        text = f"{domain.lead}:\n\n{body}"
    elif form == "bullets":
        body = "\n".join(f"- {line}" for line in lines)
        text = f"{domain.lead}:\n{body}"
    else:
        said = ", ".join(lines[:-1]) + f" or {lines[-1]}"
        text = f"{domain.lead}: {said}. " + " ".join(r.sample(_NOTES, 2))
    if pick is not None:
        text += f"\n\nIf I had to choose, I'd go for the {_WORDS[pick]}; it has the best reviews."
    return text


_NOTES = (
    "All of them can start within a fortnight.",
    "Reviews are decent across the board.",
    "Each has a short minimum term.",
    "None of them charge for a first visit.",
    "They all deliver to your side of town.",
)


def _answer(w: Writer, n: int, prices: list[str], pick: int | None) -> tuple[str, int]:
    """The user's terse answer and the option it takes."""
    r = w.rng
    values = [int(p.strip("£").replace(",", "")) for p in prices]
    cheap = values.index(min(values))
    ways = ["position", "position", "price", "yes-no"] + (
        ["agree", "agree"] if pick is not None else []
    )
    way = r.choice(ways)
    if way == "agree":
        return r.choice(
            ("your one", "go with your pick", "yeah what you said", "fine, yours")
        ), pick or 0
    if way == "price":
        word = "cheaper" if n == 2 else "cheapest"
        return r.choice((f"go with the {word}", f"the {word} one", f"{word}, obviously")), cheap
    k = r.randrange(n)
    if way == "yes-no":
        rest = "the other" if n == 2 else "the rest"
        return f"yes to the {_WORDS[k]}, no to {rest}", k
    last = k == n - 1 and n == 3
    return r.choice(
        (f"the {_WORDS[k]}", f"{_WORDS[k]} one pls", f"number {k + 1}")
        + (("the last one",) if last else ())
        + (("top one",) if k == 0 else ())
    ), k


def _episode(w: Writer, domain: Domain) -> None:
    r = w.rng
    n = r.choice((2, 3, 3))
    options = [w.pick(domain.names) for _ in range(n)]
    prices = [w.money(domain.low, domain.high) for _ in range(n)]
    pick = r.randrange(n) if r.random() < 0.3 else None
    own = r.random() < 0.15
    w.user(domain.ask)
    offered = w.say("assistant", _offer(w, domain, options, prices, pick))
    if own:
        mine = w.pick(domain.names)
        said = w.user(
            r.choice(
                (
                    f"none of those tbh, we're going with {mine}, a friend uses them",
                    f"no to all of them, we've already spoken to {mine}",
                    f"hmm not keen. {mine} instead",
                )
            )
        )
        w.say("assistant", "Fair enough, I'll work with that.")
        w.plant("value", mine, said, confirm_index=said)  # the refused options are not scored
        return
    if r.random() < 0.2:
        k = r.randrange(n)
        q = r.choice(
            ("which is closest to us", "which one has the best reviews", "which is quickest")
        )
        w.user(f"{q}?")
        w.say("assistant", f"The {_WORDS[k]} one, by a fair bit.")
        text, taken = r.choice(("that one then", "ok that one", "go on then, that")), k
    else:
        text, taken = _answer(w, n, prices, pick)
    answer = w.user(text)
    w.say("assistant", r.choice(_DONE))
    rejected = tuple(o for k, o in enumerate(options) if k != taken)
    w.plant("value", options[taken], offered, rejected=rejected, confirm_index=answer)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    domains = [DOMAINS[k % len(DOMAINS)] for k in r.sample(range(facts), facts)]
    starts = spread(r, turns - 4, facts, 4)
    for start, domain in zip(starts, domains, strict=True):
        while w.turn + 1 < start:
            w.chatter()
        _episode(w, domain)
    while w.turn + 1 < turns:
        w.chatter()


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """One ``blind8-accepts`` conversation."""
    return build(
        seed,
        "b8-accepts",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a couple moving house and opening a small café.",
        "move",
    )
