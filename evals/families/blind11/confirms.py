"""``blind11-confirms``: someone caring for their mother takes one of several offers.

After their mother's fall, the user asks for a stairlift, a home care agency, grab rails, meal
deliveries, a physio, a personal alarm, a chiropodist, a cleaner, a wet room or transport to
appointments. The assistant offers two to four firms (a numbered list, bullets or one
paragraph), each with a price or a start time and something that sets it apart ("does
weekends", "no contract"). The user takes one without naming it or its price: by what sets it
apart ("the one that does weekends"), by ruling the others out ("not the no-contract one or
the one with the waiting list"), after a question about it ("does the weekend one include
fitting?" / "Yes." / "go on then"), by position and then switching ("the first" / "hang on,
no, the second, the first can't do mornings"), or turns later after talking it over. Two facts
an offer: the firm taken and its price or time, the others' firms and prices ``rejected``, the
acceptance ``confirm_index``.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, run, spread
from evals.families.blind11.base import Writer11, writer
from evals.families.placement import Exhausted
from evals.families.trajectories import Trajectory

__all__ = ["NEEDS", "ORDINALS", "generate"]

NEEDS = {
    "a stairlift": (
        ("Hillrise Stairlifts", "Banister and Bloom", "Landing Lift Services", "Easystep "
         "Mobility"),
        ("fits at weekends", "includes a service plan", "is reconditioned", "has a folding rail"),
        "money",
    ),
    "a home care agency": (
        ("Kindly Care", "Brightwater Homecare", "Heron Carers", "Willow Lane Care"),
        ("does weekends", "has no minimum hours", "sends the same carer each time", "does "
         "overnight"),
        "time",
    ),
    "someone to fit grab rails": (
        ("Steady Hands Handyman", "Rail Right", "Fixwell Services", "Sure Grip Fitters"),
        ("can come this week", "brings the rails", "does the outside step too", "is council "
         "approved"),
        "money",
    ),
    "meal deliveries": (
        ("Hearth Meals", "Table for One Kitchen", "Greenfield Dinners", "Pantry Door"),
        ("does soft food", "has no contract", "delivers hot", "lets you skip weeks"),
        "money",
    ),
    "a physio": (
        ("Moorside Physio", "Kinetic Rehab", "Bridgefoot Physiotherapy", "Oakmere Therapy"),
        ("does home visits", "has a waiting list", "takes her insurance", "offers group "
         "classes"),
        "time",
    ),
    "a personal alarm": (
        ("SafeCall Alarms", "Beacon Response", "Homeguard Pendants", "Tidewater Telecare"),
        ("detects falls", "has no contract", "works outdoors", "includes a key safe"),
        "money",
    ),
    "a chiropodist": (
        ("Happy Feet Podiatry", "Stepwise Foot Clinic", "Solemate Chiropody"),
        ("does home visits", "has parking outside", "can see her this week"),
        "time",
    ),
    "a cleaner": (
        ("Spick and Span Cleaning", "Tidy Nest", "Fresh Start Cleaners", "Brightbroom"),
        ("brings their own products", "does ironing too", "is insured", "has a waiting list"),
        "money",
    ),
    "a wet room fitter": (
        ("Dryfloor Bathrooms", "Level Access Wetrooms", "Castlegate Adaptations"),
        ("does a free survey", "is council approved", "can start soon"),
        "money",
    ),
    "transport to appointments": (
        ("Riverside Cabs", "Blue Badge Cars", "Vale Community Transport", "Ferncliff Taxis"),
        ("takes a wheelchair", "waits at the clinic", "has no booking fee", "does early "
         "runs"),
        "time",
    ),
}  # fmt: skip
"""What the user needs -> (firms, what sets each apart, whether each comes with a price or a
start time)."""

PRICES = {
    "a stairlift": (1400, 4800),
    "someone to fit grab rails": (60, 340),
    "meal deliveries": (35, 120),
    "a personal alarm": (40, 260),
    "a cleaner": (45, 180),
    "a wet room fitter": (3200, 9800),
}
"""What a firm asks, in pounds, for what is priced (the rest come with a start time)."""

ORDINALS = ("first", "second", "third", "fourth")

_ASKS = (
    "mum needs {n} now, can you find me some options",
    "we've been told to sort out {n} before she comes home. what's out there?",
    "can you look into {n} for mum?",
    "next job on the list: {n}. options please",
)


def _detail(w: Writer11, need: str) -> str:
    if need in PRICES:
        return w.money(*PRICES[need])
    return w.time()


def _offer(w: Writer11, need: str, firms: list[str], feats: list[str], details: list[str],
           shape: str) -> str:  # fmt: skip
    r = w.rng
    said = [
        f"{f}, {'from ' if shape == 'time' else ''}{d}, {x}"
        for f, d, x in zip(firms, details, feats, strict=True)
    ]
    style = r.choice(("numbered", "bullets", "prose"))
    head = r.choice((f"Here are some options for {need}:", f"I found these for {need}:"))
    if style == "numbered":
        return head + "\n" + "\n".join(f"{k + 1}. {s}" for k, s in enumerate(said))
    if style == "bullets":
        return head + "\n" + "\n".join(f"- {s}" for s in said)
    return head + " " + "; ".join(said) + ". Any of these would do the job."


def _write(w: Writer11, turns: int, facts: int) -> None:
    r = w.rng
    offers = (facts + 1) // 2
    needs = r.sample(list(NEEDS), len(NEEDS))
    if offers > len(needs):
        raise Exhausted("more offers than needs")
    ways = [("feature", "exclude", "question", "switch", "later")[k % 5] for k in range(offers)]
    r.shuffle(ways)
    width = max(6, min(36, (turns - 12) // offers))
    starts = spread(r, turns - 12, offers, width)
    episodes: list[Callable[[], None]] = []
    planted = 0
    for k in range(offers):
        need, way = needs[k], ways[k]
        both = planted + 2 <= facts
        planted += 2 if both else 1

        def episode(need: str = need, way: str = way, both: bool = both) -> None:
            firms_all, feats_all, shape = NEEDS[need]
            n = r.choice((2, 3, 3, 4))
            n = min(n, len(firms_all))
            if way == "exclude" and n < 3:
                n = 3
            pick = r.sample(range(len(firms_all)), n)
            firms = [firms_all[i] for i in pick]
            feats = r.sample(feats_all, n)
            details = [_detail(w, need) for _ in range(n)]
            take = r.randrange(n)
            w.user(r.choice(_ASKS).format(n=need))
            offer = w.say("assistant", _offer(w, need, firms, feats, details, shape))
            feat = feats[take]
            if way == "feature":
                said = r.choice(("the one that {f}", "go for the one that {f}", "whichever "
                                 "{f}, that one"))  # fmt: skip
                confirm = w.user(said.format(f=feat))
            elif way == "exclude":
                out = [feats[i] for i in range(n) if i != take]
                said = "not the one that " + " or the one that ".join(out) + ", the other one"
                confirm = w.user(said)
            elif way == "question":
                w.user(f"does the one that {feat} have good reviews?")
                w.say("assistant", "From what's online, yes, people seem happy with them.")
                confirm = w.user(r.choice(("go on then, that one", "ok, book them",
                                           "right, them then")))  # fmt: skip
            elif way == "switch":
                wrong = r.choice([i for i in range(n) if i != take])
                w.user(f"the {ORDINALS[wrong]} one")
                w.say("assistant", "Okay, I'll go ahead with that one.")
                confirm = w.user(
                    f"hang on, no, make it the {ORDINALS[take]}. the {ORDINALS[wrong]} "
                    "can't fit round her appointments"
                )
            else:
                w.user(r.choice(("let me run it past my brother first", "i'll talk to mum "
                                 "and get back to you")))  # fmt: skip
                w.say("assistant", "Of course, take your time.")
                for _ in range(r.randint(3, 8)):
                    w.chatter()
                confirm = w.user(f"we've talked it over. for {need}, the {ORDINALS[take]} one")
            w.say("assistant", r.choice(("Great, I'll set that up.", "Done, that's arranged.",
                                         "Lovely, I'll sort it.")))  # fmt: skip
            others = [i for i in range(n) if i != take]
            w.plant(
                "name",
                firms[take],
                offer,
                rejected=tuple(firms[i] for i in others),
                confirm_index=confirm,
            )
            if both:
                w.plant(
                    "value",
                    details[take],
                    offer,
                    rejected=tuple(details[i] for i in others),
                    confirm_index=confirm,
                )

        episodes.append(episode)
    run(w, turns, starts, episodes)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """A carer's conversation: firms and their prices taken from offers (see the module)."""
    return build(
        seed,
        "b11-confirms",
        turns,
        facts,
        _write,
        "You are an assistant helping someone arrange care and equipment for their mother.",
        writer=writer("carer"),
        prefix="blind11",
    )
