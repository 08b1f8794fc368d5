"""``blind14-confirms``: a mobile dog groomer takes one of the assistant's options.

The assistant offers two to four van service slots, shampoo quotes, insurance policies,
grooming course dates or cover groomers, and sometimes recommends one. The groomer accepts in
everyday ways: by position ("go with the second"), by what sets it apart ("the cheaper
one"), with a thumbs-up or "perfect, book it" after a recommendation, or a modified version
("yes the second one but at 14:30", "... but the later intake, starting 19 May"). The fact
is what was accepted: an offered option (the others recorded as rejected) or, for a modified
acceptance, the groomer's own value.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, run, spread
from evals.families.blind14.base import Writer14
from evals.families.facts import FactKind
from evals.families.pools import WEEKDAYS
from evals.families.trajectories import Trajectory

__all__ = ["OFFERS", "generate"]

_ORD = ("first", "second", "third", "fourth")
_GARAGES = ("Brightwell Motors", "Kestrel Van Centre", "Mill Lane Garage", "Fosse Commercials")
_BRANDS = ("Groomers Choice", "Coat Kind", "Paw Naturals", "Fresh Fur Co")
OFFERS: dict[str, tuple[FactKind, str]] = {
    "service": ("value", "van service slots"),
    "shampoo": ("value", "shampoo quotes"),
    "policy": ("code", "insurance policies"),
    "course": ("date", "course dates"),
    "cover": ("name", "cover groomers"),
}


class _Confirms(Writer14):
    def options(self, what: str, n: int) -> tuple[list[str], list[str], list[tuple[str, ...]]]:
        """Each option's value, its line in the offer and its aliases."""
        r = self.rng
        values: list[str] = []
        lines: list[str] = []
        aliases: list[tuple[str, ...]] = []
        for k in range(n):
            if what == "service":
                v = self.time()
                lines.append(f"{r.choice(WEEKDAYS)} at {v} with {_GARAGES[k]}")
                aliases.append(())
            elif what == "shampoo":
                v = self.money(30, 180)
                lines.append(f"{_BRANDS[k]}: {v} for a case of six five-litre tubs")
                aliases.append(())
            elif what == "policy":
                v = self.code("PET-9999")
                lines.append(f"policy {v}, public liability and van contents")
                aliases.append(())
            elif what == "course":
                v, al = self.day()
                lines.append(f"a two-day hand stripping course starting {v}")
                aliases.append(al)
            else:
                v = self.person()
                lines.append(f"{v}, freelance, has their own van")
                aliases.append(())
            values.append(v)
        return values, lines, aliases

    def episode(self) -> None:
        r = self.rng
        what = r.choice(tuple(OFFERS))
        kind, label = OFFERS[what]
        self.user(
            r.choice(
                (
                    f"can you find me some {label}?",
                    f"I need {label}, what's out there",
                    f"sort me out some {label} please",
                )
            )
        )
        n = r.randint(2, 4)
        values, lines, aliases = self.options(what, n)
        way = r.choice(
            ("position", "position", "cheaper", "thumbs", "book", "modified", "modified")
        )
        if way == "cheaper" and what != "shampoo":
            way = "position"
        if way == "modified" and what not in ("service", "course"):
            way = "position"
        listing = "\n".join(f"{k + 1}. {line}" for k, line in enumerate(lines))
        pick = r.randrange(n)
        text = f"Here's what I found:\n\n{listing}"
        if way in ("thumbs", "book"):
            text += f"\n\nI'd go with the {_ORD[pick]}, it fits your week best."
        offer = self.say("assistant", text)
        for _ in range(r.choice((0, 0, 0, 1, 2))):
            self.chatter()
        if way == "cheaper":
            pick = min(range(n), key=lambda k: int(values[k].strip("£").replace(",", "")))
            said = r.choice(("the cheaper one", "whichever is cheapest, go with that"))
        elif way == "thumbs":
            said = r.choice(("👍", "👍👍", "yep 👍"))
        elif way == "book":
            said = r.choice(
                ("perfect, book it", "lovely, go ahead and book that", "sounds good, book it in")
            )
        elif way == "modified" and what == "course":
            new, changed = self.day()
            said = f"yes the {_ORD[pick]} one but the later intake, starting {new}"
        elif way == "modified":
            new, changed = self.time(), ()
            said = f"yes the {_ORD[pick]} one but at {new} if they can"
        else:
            said = r.choice(
                (
                    f"go with the {_ORD[pick]}",
                    f"the {_ORD[pick]} one please",
                    f"number {pick + 1}",
                    f"let's do the {_ORD[pick]}",
                )
            )
        ok = self.user(said)
        self.say(
            "assistant",
            r.choice(("Done, booked.", "Great, I've confirmed it.", "Sorted, it's confirmed.")),
        )
        if way == "modified":
            self.plant(kind, new, ok, aliases=changed)
            return
        rejected = tuple(v for k, v in enumerate(values) if k != pick)
        self.plant(
            kind, values[pick], offer, aliases=aliases[pick], rejected=rejected, confirm_index=ok
        )


def _write(w: _Confirms, turns: int, facts: int) -> None:
    starts = spread(w.rng, turns - 10, facts, min(18, (turns - 10) // facts))
    episodes: list[Callable[[], None]] = [w.episode] * facts
    run(w, turns, starts, episodes)


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """One dog groomer's conversation (see the module)."""
    return build(
        seed,
        "b14-confirms",
        turns,
        facts,
        _write,
        "You are the assistant of a mobile dog groomer: you find options, suppliers and "
        "slots and book what she picks.",
        writer=lambda rng, system: _Confirms(rng, system, "dogs"),
        prefix="blind14",
    )
