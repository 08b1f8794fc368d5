"""``blind6-session``: one long mixed session with everything the other families plant.

Plain facts stated once (by the user, the assistant or a tool), a few values corrected under
other words (:mod:`.restated`), tables looked up and a row picked later (:mod:`.tables`),
personal details in passing (:mod:`.prose`), an option proposed and accepted (:mod:`.confirms`),
among ordinary chatter and look-ups.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from evals.families.blind6 import confirms, prose, restated, tables
from evals.families.blind6.base import Writer, build, dumps, timeline
from evals.families.trajectories import Trajectory

__all__ = ["generate"]

SYSTEM = (
    "You are the user's everyday assistant: the bakery, the renovation, the allotment, the "
    "kids, the trip and the research all go through you. Use tools when they help."
)


def _reader(w: Writer) -> None:
    v = w.code("TID-999999")
    at = w.user(
        f"writing this here because post-its vanish in the shop: the new card reader's "
        f"terminal id is {v}, the bank will ask for it if it plays up again"
    )
    w.plant("code", v, at)
    w.say("assistant", "Good idea, that's safer than a post-it.")


def _cover(w: Writer) -> None:
    v = w.person()
    at = w.user(
        f"my supervisor's off on leave for a bit and {v} is covering her students, so the "
        "draft chapter goes to them now i guess. bit nervous, never met them"
    )
    w.plant("name", v, at)
    w.say("assistant", w.reply((3, 5)))


def _boiler(w: Writer) -> None:
    v, aliases = w.day()
    w.user("when's the boiler service? i know i booked it but cant find where")
    at = w.tool(
        "search_calendar",
        {"query": "boiler"},
        dumps({"event": "boiler service", "on": v, "engineer": "from the gas company"}),
    )
    w.plant("date", v, at, aliases=aliases)
    w.say("assistant", "It's in your calendar, booked with the gas company.")


def _rota(w: Writer) -> None:
    w.user("can you work out when my turn is on the allotment watering rota, the sheet's a mess")
    v = w.weekday()
    at = w.say(
        "assistant",
        f"From the sheet, your watering turn is {v} each week, starting from the next one.",
    )
    w.plant("date", v, at)
    w.user(w.rng.choice(("ta", "ok thanks", "great")))
    w.say("assistant", "No problem.")


def _parcel(w: Writer) -> None:
    w.user("did the glazing clips for the greenhouse ship yet?")
    v = w.code("JD999999999GB")
    at = w.tool(
        "track_parcel",
        {"order": "glazing clips"},
        dumps({"item": "greenhouse glazing clips", "tracking": v, "status": "in transit"}),
    )
    w.plant("code", v, at)
    w.say("assistant", "They've shipped and are on the way.")


def _swim(w: Writer) -> None:
    v = w.time()
    at = w.user(
        f"kids' swimming is {v} now, they moved the whole group. so the pick up from "
        "school will be a scramble"
    )
    w.plant("date", v, at)
    w.say("assistant", w.reply((3, 5)))


PLAIN: tuple[Callable[[Writer], None], ...] = (_reader, _cover, _boiler, _rota, _parcel, _swim)


def _single(episode: Callable[[], None], turn: int) -> list[tuple[int, Callable[[], None]]]:
    return [(turn, episode)]


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    n = max(1, facts // 20)
    events: list[tuple[int, Callable[[], None]]] = []
    plain = r.sample(PLAIN, min(len(PLAIN), 5 * n))
    subjects = r.sample(list(restated.SUBJECTS), 4 * n)
    kinds = r.sample(list(tables.KINDS), 3 * n)
    details = r.sample(list(prose.DETAILS), 3 * n)
    offers = r.sample(["paint", "delivery", "campsite", "fence", "party"], 3 * n)
    jobs: list[Callable[[int], list[tuple[int, Callable[[], None]]]]] = []
    jobs += [partial(_single, partial(f, w)) for f in plain]
    for s in subjects:
        fixes = r.choice((1, 1, 2))
        gaps = [r.choice((0, 2, 5, 9, 15)) for _ in range(fixes)]
        jobs.append(partial(_single, partial(restated.chain_episode, w, s, fixes, gaps)))
    for k in kinds:
        picks = r.choice((1, 1, 2))
        gaps = [r.choice((0, 1, 4, 10, 30)) for _ in range(picks)]
        jobs.append(partial(tables.table_episode, w, k, picks, gaps))
    jobs += [partial(_single, partial(prose.prose_episode, w, d)) for d in details]
    jobs += [partial(_single, partial(confirms.confirm_episode, w, o)) for o in offers]
    r.shuffle(jobs)
    slot = max(3, (turns - 60) // len(jobs))
    for i, job in enumerate(jobs):
        events += job(i * slot + r.randint(0, slot // 2))
    if r.random() < 0.8:  # a table nobody refers to
        events += tables.table_episode(w, r.choice(list(tables.KINDS)), 0, [], r.randrange(turns))
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """One ``blind6-session`` conversation for ``seed``."""
    return build(seed, "b6-session", turns, facts, _write, SYSTEM)
