"""``blind14-prose``: a retired ship's engineer who mends clocks, his details in plain words.

Among chit-chat about clocks, his allotment and his grandchildren, he mentions his own
details with no cue words ("I prefer", "I always"): before or after an ask, or as a remark
answered by a friendly word. Four details a seed are said once and narrowed or refined much
later (60-160 turns) in other words; the first statement then counts as stale.
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6.base import build, timeline
from evals.families.blind14.base import Writer14
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["DETAILS", "REFINED", "generate"]

# (value, how he says it)
DETAILS = (
    ("hearing aid", "my hearing aid whistles every time I lean over the bench"),
    ("tremor in my right hand", "the tremor in my right hand makes the tiny screws a nightmare"),
    ("widower", "been a widower for a good while now, the house is quiet"),
    ("six grandchildren", "with six grandchildren there's always a birthday coming"),
    ("spent thirty years at sea", "spent thirty years at sea so engine rooms still feel like home"),
    ("bungalow by the canal", "the bungalow by the canal floods the garden most winters"),
    ("can't eat shellfish", "can't eat shellfish, my throat swells up, so fish suppers are cod"),
    ("colour blind", "being colour blind, the red and green wires on anything electric are a "
     "guess"),
    ("pacemaker", "the pacemaker means I stay away from the big magnets at the repair cafe"),
    ("welsh speaker", "being a welsh speaker I end up translating at the chapel coffee morning"),
    ("no car any more", "no car any more, so it's the bus or my daughter's lifts"),
    ("gout in my big toe", "the gout in my big toe flared up again after the wedding"),
    ("two budgies", "the two budgies shout at the cuckoo clock when it goes off"),
    ("piano by ear", "I play piano by ear, never learnt to read music"),
    ("night owl", "I'm a night owl, most of my clock work happens after the news"),
    ("chapel choir", "the chapel choir has roped me into the tenor part again"),
    ("ex-smoker", "as an ex-smoker the stairs still get me puffing"),
    ("glaucoma drops", "the glaucoma drops blur everything for an hour after"),
)  # fmt: skip
# (old value, old sentence, new value, new sentence): the new one never repeats the old words
REFINED = (
    ("off dairy", "I'm off dairy these days, doctor's orders",
     "turns out it was only milk itself, hard cheese and butter are back on the table",
     "hard cheese and butter are back"),
    ("bad back", "my bad back doesn't like the low workbench",
     "the physio had a proper look: a slipped disc low down, she's given me exercises",
     "slipped disc"),
    ("reading glasses", "I can't find my reading glasses half the time",
     "the optician switched me to varifocals, so one pair does everything now",
     "varifocals"),
    ("decaf only", "it's decaf only for me since the heart scare",
     "the cardiologist says one proper coffee before noon is fine now",
     "one proper coffee before noon"),
    ("live alone", "I live alone so the clocks are my company",
     "my grandson moved into the spare room for his apprenticeship, so it's the two of us",
     "grandson moved into the spare room"),
    ("gave up driving", "I gave up driving after the eye trouble",
     "I'm allowed to drive in daylight now, local trips only",
     "drive in daylight now"),
    ("low salt", "low salt for me, the blood pressure tablets",
     "the dietitian gave me a proper limit: a teaspoon a day all in",
     "a teaspoon a day"),
)  # fmt: skip
_REACT = ("Ha, fair enough.", "That sounds like a full life.", "Oh dear, that's a nuisance.",
          "I can imagine.", "Ah, understood.")  # fmt: skip


class _Prose(Writer14):
    def detail(self, sentence: str) -> int:
        r = self.rng
        way = r.randrange(3)
        if way == 0:
            ask = r.choice(self.talk.asks).replace("{t}", self.topic())
            at = self.user(f"{sentence}. anyway, {ask}")
            self.say("assistant", self.reply())
        elif way == 1:
            ask = r.choice(self.talk.asks).replace("{t}", self.topic())
            at = self.user(f"{ask}. {sentence}, by the way")
            self.say("assistant", self.reply())
        else:
            at = self.user(sentence)
            self.say("assistant", r.choice(_REACT))
        return at


def _write(w: _Prose, turns: int, facts: int) -> None:
    r = w.rng
    narrowed = r.sample(REFINED, min(4, facts // 5))
    plain = r.sample(DETAILS, facts - 2 * len(narrowed))
    events: list[tuple[int, Callable[[], None]]] = []
    for value, sentence in plain:

        def say(value: str = value, sentence: str = sentence) -> None:
            w.plant("preference", value, w.detail(sentence))

        events.append((r.randrange(turns - 5), say))
    for old, old_sentence, new_sentence, new in narrowed:
        box: dict[str, PlantedFact] = {}
        t = r.randrange(max(turns - 180, turns // 3))

        def first(old: str = old, s: str = old_sentence, box: dict[str, PlantedFact] = box) -> None:
            box["f"] = w.plant("preference", old, w.detail(s))

        def later(new: str = new, s: str = new_sentence, box: dict[str, PlantedFact] = box) -> None:
            prev = box["f"]
            at = w.detail(s)
            w.plant("correction", new, at, stale=prev.value, stale_index=prev.message_index)
            w.supersede(prev, at)

        events += [(t, first), (t + r.randint(60, 160), later)]
    timeline(w, turns, events)


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """One clock mender's conversation (see the module)."""
    return build(
        seed,
        "b14-prose",
        turns,
        facts,
        _write,
        "You are a friendly assistant chatting with a retired ship's engineer who restores clocks.",
        writer=lambda rng, system: _Prose(rng, system, "clocks"),
        prefix="blind14",
    )
