"""``b10-confirms``: an amateur theatre company's director accepts the assistant's proposals.

The director asks for a rehearsal room, lighting, costumes, a printer and the like; the
assistant proposes one option or two to four (a numbered list, bullets or a sentence, each
with a price and a detail). The director accepts tersely without naming it, one of five ways:
by position the next turn ("the second one"), by position several turns of chatter later
("re the lighting: the first one"), by agreeing with a single proposal ("sounds good, do it"),
by taking the assistant's own pick ("fine, your call"), or with a change ("yes the second but
make it 19:30"), which also plants the new time as a ``correction`` of the time offered for
that option. The fact is the option taken, in the proposal (``rejected`` the others,
``confirm_index`` the acceptance).
"""

from __future__ import annotations

from functools import partial

from evals.families.blind10.base import PLACES, Writer, build, spaced
from evals.families.placement import Exhausted
from evals.families.trajectories import Trajectory

__all__ = ["NEEDS", "WAYS", "generate"]

NEEDS: dict[str, tuple[str, ...]] = {
    "rehearsal room": ("Weavers' Studio", "St Aldhelm's Hall", "The Drill Shed",
                       "Cordwainers Loft", "Brightwater Scout Hut", "Holloway Arts Barn"),
    "lighting hire": ("Limelight Lanterns", "Gobo & Gel Co", "Northlight Rigging",
                      "Footlights Direct", "Spotwell Hire"),
    "costume hire": ("Wardrobe Mistress Ltd", "Bustle & Brocade", "Petticoat Lane Costumes",
                     "The Dressing Up Box", "Threadbare Theatricals"),
    "programme printing": ("Inkwell Press", "Quire & Folio", "Saddlestitch Printers",
                           "Letterbox Print Co", "Bramble Print"),
    "piano tuning": ("Harmonic Hammers", "Octavia Tuning", "Keynote Piano Care",
                     "Felt & Wire Tuners"),
    "set building": ("Flatpack Scenery", "Batten & Brace", "Proscenium Joinery",
                     "Gantry Workshop"),
    "after-show venue": ("The Lamplighter Inn", "Crooked Billet", "The Ostler's Arms",
                         "Saltbox Cafe", "The Green Room Bar"),
    "van hire": ("Hartwell Vans", "Longboat Van Hire", "Rattle & Roll Rentals",
                 "Tailgate Hire"),
    "ticket platform": ("SeatSmith", "Boxoffice Buddy", "Stubly", "Curtain Up Tickets"),
}  # fmt: skip
"""What the director needs, and the firms that could supply it."""

_DETAILS = ("good reviews", "parking at the back", "can do short notice", "includes delivery",
            "step-free access", "friendly on the phone", "local", "flexible on cancellation",
            "a bit basic", "came recommended")  # fmt: skip
_ASKS = (
    "we need {n} for the spring show, what are the options",
    "can you find me some {n}? budget is tight",
    "sort me out with {n} please, nothing flashy",
    "any ideas for {n}",
)
_NOW = {
    "first": ("the first one", "first please", "go for the top one"),
    "second": ("the second one", "second, thanks", "number two"),
    "third": ("the third one", "third please", "go with number three"),
    "fourth": ("the fourth one", "last one on the list"),
}
_LATER = (
    "re the {n}: the {p} one",
    "on the {n} thing, {p} option please",
    "{n} - let's do the {p}",
)
_WAIT = ("let me think about it", "hmm, give me a bit", "i'll come back to you")
_SINGLE = ("sounds good, do it", "yep go ahead", "fine by me", "ok book it")
_PICK = ("fine, your call", "go with what you said", "whatever you reckon", "ok your pick")
_MODIFY = ("yes the {p} but make it {v}", "{p} one, but can it start at {v}",
           "the {p}, only at {v} instead")  # fmt: skip
WAYS = ("now", "later", "single", "pick", "modify")


def _offer(w: Writer, need: str, count: int, timed: bool) -> tuple[list[str], list[str], int]:
    """Ask for ``need`` and get ``count`` options; their names, times (if ``timed``), index."""
    r = w.rng
    names = [w.drawn(NEEDS[need]) for _ in range(count)]
    times = [w.time() for _ in names] if timed else []
    lines = []
    for k, name in enumerate(names):
        price = w.money(25, 900)
        when = f", from {times[k]}" if timed else ""
        lines.append(f"{name} ({price}{when}; {r.choice(_DETAILS)})")
    w.user(r.choice(_ASKS).replace("{n}", need))
    if count == 1:
        text = f"I could book {lines[0]}. Want me to go ahead?"
    elif r.random() < 0.5:
        text = "Here's what I found:\n" + "\n".join(f"{k + 1}. {x}" for k, x in enumerate(lines))
    elif r.random() < 0.5:
        text = "A few options:\n" + "\n".join(f"- {x}" for x in lines)
    else:
        text = "You could go with " + ", or ".join(lines) + "."
    return names, times, w.say("assistant", text)


def _need(w: Writer, least: int) -> tuple[str, int]:
    """A need with at least ``least`` firms not yet offered, and how many are left."""
    left = {n: len([x for x in firms if x not in w.used]) for n, firms in NEEDS.items()}
    open_ = sorted(n for n, k in left.items() if k >= least)
    if not open_:
        raise Exhausted("every need offered out")
    need = w.rng.choice(open_)
    return need, left[need]


def _episode(w: Writer, way: str) -> None:
    r = w.rng
    need, left = _need(w, 1 if way == "single" else 2)
    count = 1 if way == "single" else min(left, r.choice((2, 2, 3, 3, 4)))
    names, times, at = _offer(w, need, count, timed=way == "modify")
    if way == "pick":
        k = r.randrange(count)
        w.messages[at]["content"] += f" If it were me I'd take {names[k]}."
        answer = r.choice(_PICK)
    elif way == "single":
        k, answer = 0, r.choice(_SINGLE)
    else:
        k = r.randrange(count)
        place = PLACES[k] if k < count - 1 or r.random() < 0.7 else "last"
        if way == "now":
            answer = r.choice(_NOW[PLACES[k]])
        elif way == "later":
            w.user(r.choice(_WAIT))
            w.say("assistant", "Sure, no rush.")
            w.idle(2, 8)
            answer = r.choice(_LATER).replace("{n}", need).replace("{p}", place)
        else:
            answer = r.choice(_MODIFY).replace("{p}", place).replace("{v}", "{time}")
    new_time = w.time() if way == "modify" else ""
    confirm = w.user(answer.replace("{time}", new_time))
    others = tuple(n for j, n in enumerate(names) if j != k)
    w.plant("name", names[k], at, rejected=others, confirm_index=confirm)
    if way == "modify":
        w.plant("correction", new_time, confirm, stale=times[k], stale_index=at)
    w.say("assistant", w.rng.choice(("Done, booked.", "Great, I'll confirm with them.", "Sorted.")))


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    episodes = []
    left = facts
    while left > 0:
        way = r.choice(WAYS if left > 1 else WAYS[:-1])
        episodes.append(partial(_episode, w, way))
        left -= 2 if way == "modify" else 1
    spaced(w, turns, episodes, 14)


def generate(seed: int, turns: int = 450, facts: int = 20) -> Trajectory:
    """One theatre director's conversation: options proposed, accepted tersely."""
    return build(
        seed,
        "b10-confirms",
        turns,
        facts,
        _write,
        "You are a helpful assistant for the director of an amateur theatre company.",
        "theatre",
    )
