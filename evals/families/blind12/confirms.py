"""``b12-confirms``: a freelance illustrator takes one of two to four offers, as people do.

She needs a print lab, a portfolio host, an accountant, a framer, a desk in a shared studio, a
courier for originals, insurance, a scanner service, a bookkeeping app or business cards
(:data:`NEEDS`). The assistant offers 2-4 firms as a numbered list, bullets or one paragraph,
each with a price and something that sets it apart. She takes one without naming it or its
price, five ways (:data:`WAYS`): by what sets it apart ("the cotton rag one"); by ruling the
others out; by a pronoun after asking about one ("does the one that X ...?" / "Yes." / "great,
let's do it then"); after a detour of a few turns ("right, back to the framer question: the
second one"); or by picking one and changing her mind ("actually no, make it ..."). Two
facts an offer, both in the offer: the firm taken (``name``) and its price (``value``); the
others are ``rejected``; ``confirm_index`` is the message that settles it.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind12.base import Writer12, writer
from evals.families.trajectories import Trajectory

__all__ = ["NEEDS", "ORDINALS", "WAYS", "generate"]

NEEDS: dict[str, tuple[tuple[tuple[str, str, str], ...], tuple[int, int], str]] = {
    "print lab": (
        (
            ("Inkwell Giclee", "prints on cotton rag paper", "the cotton rag one"),
            ("Northlight Prints", "turns orders round in two days", "the quick one"),
            (
                "Papermill Press",
                "signs and numbers the edition for you",
                "the one that numbers them",
            ),
            ("Halftone House", "drop-ships straight to buyers", "the drop-shipping one"),
        ),
        (90, 700),
        "a run of art prints",
    ),
    "portfolio host": (
        (
            ("Easelpage", "has a built-in shop", "the one with the shop"),
            ("Folio Loft", "lets you use your own domain for free", "the free domain one"),
            ("Sketchwall", "has no monthly fee, just a cut of sales", "the no monthly fee one"),
            ("Canvasry", "password-protects client galleries", "the password one"),
        ),
        (60, 400),
        "a portfolio site",
    ),
    "accountant": (
        (
            (
                "Ledgerwell Accounts",
                "specialises in creative freelancers",
                "the creative specialist",
            ),
            ("Tallyhouse", "does everything by video call", "the video call one"),
            (
                "Brightbooks",
                "includes the tax return in the fee",
                "the one that includes the return",
            ),
            ("Quillcount", "is a ten minute walk from the studio", "the local one"),
        ),
        (300, 1800),
        "an accountant for the self-employed side",
    ),
    "framer": (
        (
            ("Gilt and Grain", "uses museum glass", "the museum glass one"),
            ("Mitre Works", "collects and delivers", "the one that collects"),
            ("Oakline Framing", "does float mounts", "the float mount one"),
            ("Hangfast Frames", "gives a trade discount on ten or more", "the trade discount one"),
        ),
        (120, 950),
        "framing for the exhibition pieces",
    ),
    "studio desk": (
        (
            ("The Print Shed", "has a shared risograph", "the riso one"),
            ("Skylight Studios", "has north-facing windows", "the north light one"),
            ("Loom Collective", "is open around the clock", "the all-hours one"),
        ),
        (110, 480),
        "a desk in a shared studio",
    ),
    "courier": (
        (
            ("Cradle Art Couriers", "uses a two-person crew", "the two-person one"),
            ("Flatpack Fine Art", "builds a crate for each piece", "the crate one"),
            ("Swiftpost Art", "has climate-controlled vans", "the climate controlled one"),
        ),
        (140, 1300),
        "getting the originals to the gallery",
    ),
    "insurance": (
        (
            ("Palette Cover", "covers work in transit", "the transit cover one"),
            ("Studiosure", "includes public liability", "the liability one"),
            ("Artsafe Mutual", "has no excess on theft", "the no excess one"),
        ),
        (90, 650),
        "insuring the studio and stock",
    ),
    "scanner service": (
        (
            ("Flatbed Bureau", "scans up to double elephant size", "the big format one"),
            ("Pixelgrain Scans", "colour-matches against the original", "the colour matching one"),
            ("Archive Lane", "does it while you wait", "the while you wait one"),
        ),
        (40, 380),
        "scanning the large originals",
    ),
    "bookkeeping app": (
        (
            ("Sumsmith", "reads receipts from a photo", "the receipt photo one"),
            ("Penny Ledger", "sends invoice reminders itself", "the reminders one"),
            ("Cashbook Cloud", "files the quarterly returns", "the one that files returns"),
        ),
        (30, 260),
        "keeping the books",
    ),
    "business cards": (
        (
            ("Cardstock Co", "letterpresses them", "the letterpress one"),
            ("Tinyprint Works", "does rounded corners", "the rounded corners one"),
            ("Ecomark Print", "uses recycled card", "the recycled one"),
        ),
        (25, 190),
        "new business cards",
    ),
}
"""Need -> ((firm, what sets it apart, how she names it), price range, what it is for)."""

ORDINALS = ("first", "second", "third", "fourth")
WAYS = ("feature", "exclude", "pronoun", "detour", "switch")
"""The ways an offer is taken."""

SYSTEM = "You help a freelance illustrator run the business side of her work."


def _offer(w: Writer12, need: str, firms: list[tuple[str, str, str]], prices: list[str]) -> str:
    r = w.rng
    head = r.choice(
        (
            f"Here are a few options for {NEEDS[need][2]}:",
            f"For {NEEDS[need][2]}, these look worth a look:",
            "I found these:",
        )
    )
    style = r.choice(("numbered", "bullets", "paragraph"))
    items = [f"{f} ({p}), which {feat}" for (f, feat, _), p in zip(firms, prices, strict=True)]
    if style == "numbered":
        lines = [
            f"{k + 1}. {f} - {p}; {feat}"
            for k, ((f, feat, _), p) in enumerate(zip(firms, prices, strict=True))
        ]
        return head + "\n" + "\n".join(lines) + "\n\nAny of them appeal?"
    if style == "bullets":
        lines = [f"- **{f}**: {p}, {feat}" for (f, feat, _), p in zip(firms, prices, strict=True)]
        return head + "\n" + "\n".join(lines) + "\n\nLet me know which way you lean."
    body = "; ".join(items[:-1]) + f"; or {items[-1]}"
    return f"There are a few around. There's {body}. Happy to dig into any of them."


def _write(w: Writer12, turns: int, facts: int) -> None:
    r = w.rng
    offers = facts // 2
    ways = [WAYS[k % len(WAYS)] for k in range(offers)]
    r.shuffle(ways)
    needs = r.sample(sorted(NEEDS), min(offers, len(NEEDS)))
    if offers > len(NEEDS):
        raise ValueError(f"{offers} offers, {len(NEEDS)} needs")
    slots = sorted(r.sample(range(1, turns - 14), offers))

    def episode(k: int) -> Callable[[], None]:
        def go() -> None:
            need, way = needs[k], ways[k]
            pool, (lo, hi), purpose = NEEDS[need]
            firms = list(r.sample(pool, r.randint(2, len(pool))))
            prices = [w.money(lo, hi) for _ in firms]
            pick = r.randrange(len(firms))
            w.user(
                r.choice(
                    (
                        f"can you find me options for {purpose}?",
                        f"i need {purpose}, what's out there",
                        f"help me sort {purpose}",
                    )
                )
            )
            at = w.say("assistant", _offer(w, need, firms, prices))
            others = [j for j in range(len(firms)) if j != pick]
            handle = firms[pick][2]
            if way == "feature":
                c = w.user(
                    r.choice(
                        (
                            f"{handle} please",
                            f"let's go with {handle}",
                            f"{handle} sounds right for me",
                        )
                    )
                )
            elif way == "exclude":
                out = " or ".join(firms[j][2] for j in others)
                c = w.user(f"not {out}, so that leaves the other one. go with that")
            elif way == "pronoun":
                w.user(f"does {handle} have decent reviews?")
                w.say(
                    "assistant",
                    "From what I can see, yes: people mention being happy with the service and "
                    "nobody complains about hidden costs.",
                )
                c = w.user(
                    r.choice(
                        ("great, let's do it then", "sold. book it", "ok that settles it, that one")
                    )
                )
            elif way == "detour":
                w.user(
                    r.choice(("let me think about it", "hmm, i'll mull it over", "give me a bit"))
                )
                w.say("assistant", "Of course, no rush.")
                for _ in range(r.randint(3, 7)):
                    w.chatter()
                c = w.user(f"right, back to the {need} question: the {ORDINALS[pick]} one")
            else:
                wrong = r.choice(others)
                w.user(f"the {ORDINALS[wrong]} one")
                w.say("assistant", "Great, I'll note that down.")
                c = w.user(
                    f"actually no, make it {handle}. the {ORDINALS[wrong]} doesn't really fit"
                )
            name = w.plant(
                "name",
                firms[pick][0],
                at,
                rejected=tuple(firms[j][0] for j in others),
                confirm_index=c,
            )
            w.plant(
                "value",
                prices[pick],
                at,
                rejected=tuple(prices[j] for j in others),
                confirm_index=c,
            )
            del name
            w.say(
                "assistant",
                r.choice(("Lovely, sorted.", "Done, I'll get that moving.", "Good choice.")),
            )

        return go

    timeline(w, turns, [(s, episode(k)) for k, s in enumerate(slots)])


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ``b12-confirms`` conversation: ``facts // 2`` offers over ``turns`` turns."""
    return build(
        seed,
        "b12-confirms",
        turns,
        facts,
        _write,
        SYSTEM,
        writer=writer("illustrator"),
        prefix="blind12",
    )
