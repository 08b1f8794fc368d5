"""``blind14-chains``: a school ski trip's details changed two to four times in everyday ways.

A teacher plans the trip with the assistant. Four of its details a seed (the departure day,
the coach pickup time, the deposit per pupil, the lodge, the lodge's booking ref, the lead
ski instructor) are stated and then changed: the teacher goes with another value instead,
says the old one won't work and names the new one, accepts the coach firm's or the lodge's
counter-offer read from the inbox, confirms a change the assistant reports, or pastes a
revised letter to parents holding only the new value. Old values are never said again. A few
turns after one of a chain's values comes a look-alike about something else, never replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from evals.families.blind6.base import build, timeline
from evals.families.blind14.base import Writer14
from evals.families.facts import FactKind
from evals.families.trajectories import Trajectory

__all__ = ["LODGES", "SUBJECTS", "WAYS", "generate"]

LODGES = (
    "Chalet Edelweiss", "Hotel Alpenrose", "Residence Les Marmottes", "Gasthof Zum Hirschen",
    "Hotel Bellevue Saalbach", "Chalet Le Grand Sorbier", "Hotel Sonnblick",
    "Albergo Stella Alpina",
    "Haus Bergkristall", "Residence Le Rocher",
)  # fmt: skip

# subject -> (kind, how it is named, the firm whose counter-offer changes it)
SUBJECTS: dict[str, tuple[FactKind, str, str]] = {
    "day": ("date", "the departure date", "the coach firm"),
    "pickup": ("value", "the coach pickup time", "the coach firm"),
    "deposit": ("value", "the deposit per pupil", "the travel company"),
    "lodge": ("name", "the lodge", "the travel company"),
    "ref": ("code", "the lodge booking ref", "the lodge"),
    "instructor": ("name", "the lead instructor", "the ski school"),
}
WAYS = ("instead", "wont", "counter", "assistant", "letter")
# a look-alike of each subject: said about something else, never replaced
_ALIKE = {
    "day": "the year eight museum trip is on {v}, totally separate from the ski trip",
    "pickup": "the geography field trip coach leaves at {v}, don't mix that up with the ski one",
    "deposit": "the music tour deposit is {v}, that's a different trip altogether",
    "lodge": "my sister stayed at {v} last winter, she said the food was great",
    "ref": "the minibus hire for sports day is {v}, nothing to do with skiing",
    "instructor": "{v} is running the dry slope taster for year seven, not coming on the trip",
}


class _Chains(Writer14):
    def value(self, subject: str) -> tuple[str, tuple[str, ...]]:
        if subject == "day":
            return self.day()
        if subject == "pickup":
            return self.time(), ()
        if subject == "deposit":
            return self.money(150, 650), ()
        if subject == "lodge":
            return self.fresh(lambda: self.rng.choice(LODGES)), ()
        if subject == "ref":
            return self.code("SKI-99999"), ()
        return self.person(), ()

    def first(self, subject: str, value: str) -> int:
        r = self.rng
        what = SUBJECTS[subject][1]
        said = r.choice(
            (
                f"ok for the ski trip, {what} is {value}. can you keep track of that",
                f"right, ski trip admin: {what} is {value}",
                f"note for the trip file - {what}: {value}",
            )
        )
        at = self.user(said)
        self.say(
            "assistant",
            r.choice(
                (
                    "Noted for the trip file.",
                    "Got it, it's on the trip sheet.",
                    "Okay, I'll keep that with the ski trip notes.",
                )
            ),
        )
        return at

    def change(self, subject: str, value: str, way: str) -> int:
        r = self.rng
        kind, what, firm = SUBJECTS[subject]
        if way == "instead":
            at = self.user(
                r.choice(
                    (
                        f"for {what} we'll go with {value} instead",
                        f"thinking about it, let's do {value} for {what} instead",
                    )
                )
            )
            self.say("assistant", self.short())
            return at
        if way == "wont":
            at = self.user(
                r.choice(
                    (
                        f"{what} we had won't work for the head, make it {value}",
                        f"hmm {what} won't work after all, the cover rota clashes. make it {value}",
                    )
                )
            )
            self.say("assistant", self.short())
            return at
        if way == "counter":
            self.user(f"anything back from {firm} about {what}?")
            email = (
                f"From: bookings\nSubject: your school trip\n\nHello,\nSorry, we can't do "
                f"what you asked for {what}. We could offer {value} instead, if that suits?"
                f"\n\nBest wishes,\nthe bookings team"
            )
            at = self.tool("read_inbox", {"from": firm}, email, lead="Checking the inbox.")
            self.say("assistant", f"Yes, {firm} replied with a counter-offer, see above.")
            self.user(
                r.choice(
                    (
                        "fine, tell them yes",
                        "ok that works, accept it",
                        "go on then, say yes to that",
                    )
                )
            )
            self.say("assistant", "Done, I've replied to accept.")
            return at
        if way == "assistant":
            self.user(r.choice((f"any news from {firm}?", f"did {firm} get back to us?")))
            at = self.say(
                "assistant",
                f"Yes, {firm} wrote this morning: they've changed "
                f"{what} to {value}. Shall I update the trip sheet?",
            )
            self.user(r.choice(("yes please", "yep do that", "ok go ahead")))
            self.say("assistant", "Updated.")
            return at
        label = {
            "day": "Departure",
            "pickup": "Coach pickup",
            "deposit": "Deposit per pupil",
            "lodge": "Accommodation",
            "ref": "Booking reference",
            "instructor": "Lead instructor",
        }[subject]
        at = self.user(
            "here's the revised letter to parents, can you tidy the wording?\n\n"
            "Dear parents and carers,\n\nThank you for your patience while we finalised "
            "arrangements for this winter's ski trip. Please note the details below.\n\n"
            f"{label}: {value}\n\nPlease make sure the consent and medical forms are "
            "returned to the school office. Kind regards,\nthe trip leader"
        )
        self.say(
            "assistant",
            "Here's a tidier version: I've shortened the opening and made "
            "the request for forms clearer. The details line is unchanged.",
        )
        _ = kind
        return at

    def alike(self, subject: str) -> None:
        value, aliases = self.value(subject)
        at = self.user(_ALIKE[subject].replace("{v}", value))
        self.say(
            "assistant",
            self.rng.choice(("Okay, kept separate.", "Noted, separate from the ski trip.")),
        )
        self.plant(SUBJECTS[subject][0], value, at, aliases=aliases)


def _write(w: _Chains, turns: int, facts: int) -> None:
    r = w.rng
    subjects = r.sample(tuple(SUBJECTS), 4)
    alikes = facts - 16  # four chains of sixteen values in all
    counts = r.choice(((2, 3, 3, 4), (3, 3, 3, 3), (2, 2, 4, 4), (2, 3, 4, 3)))
    events: list[tuple[int, Callable[[], None]]] = []
    for c, (subject, n) in enumerate(zip(subjects, counts, strict=True)):
        start = r.randint(0, 40)
        gap = (turns - 30 - start) // (n + 1)
        times = [start + k * gap + r.randint(0, gap // 3) for k in range(n + 1)]
        state: dict[str, Any] = {"prev": None}

        def step(k: int, subject: str = subject, state: dict[str, Any] = state) -> None:
            value, aliases = w.value(subject)
            prev = state["prev"]
            if prev is None:
                at = w.first(subject, value)
                state["prev"] = w.plant(SUBJECTS[subject][0], value, at, aliases=aliases)
                return
            at = w.change(subject, value, r.choice(WAYS))
            fact = w.plant(
                "correction",
                value,
                at,
                aliases=aliases,
                stale=prev.value,
                stale_index=prev.message_index,
                older=(*prev.older, prev.stale) if prev.stale else (),
            )
            w.supersede(prev, at)
            state["prev"] = fact

        events += [(t, partial(step, k)) for k, t in enumerate(times)]
        if c < alikes:
            events.append((times[r.randrange(n)] + r.randint(2, 6), partial(w.alike, subject)))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 430, facts: int = 20) -> Trajectory:
    """One ski-trip conversation: four chains of changes and their look-alikes."""
    return build(
        seed,
        "b14-chains",
        turns,
        facts,
        _write,
        "You help a secondary school teacher organise the school ski trip. You can read the "
        "trip inbox.",
        writer=lambda rng, system: _Chains(rng, system, "ski"),
        prefix="blind14",
    )
