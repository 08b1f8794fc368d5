"""``blind11-prose``: a joiner's own details said in plain words, never with a cue word.

A semi-retired joiner who keeps bees and goes to an evening Spanish class says things about
himself in four ways no cue word marks: buried in the middle of a long rambling message about
something else, by contrast with someone else ("the wife's fine with any antibiotic going,
unlike me"), inside a short story that implies it ("the scanner went off at me again, it's the
metal in the knee replacement"), or said once and corrected in passing much later inside
another ramble ("i had it backwards the other day, i'm deaf in my left ear"). The fact is the
detail's key words; the reply never repeats them.
"""

from __future__ import annotations

from evals.families.blind6.base import build, timeline
from evals.families.blind11.base import Writer11, writer
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["CONTRASTS", "CORRECTIONS", "CUES", "RAMBLES", "STORIES", "generate"]

CUES = (
    "prefer",
    "always",
    "never",
    "hate",
    "love",
    "favourite",
    "usually",
    "rather",
    "by the way",
    "remember",
    "note",
    "fyi",
    "i like",
    "keep in mind",
)
"""Words that mark a statement as something to keep: none of them is in a fact's message."""

CONTRASTS = (
    ("allergic to penicillin", "the wife's fine with any antibiotic going, unlike me, allergic "
     "to penicillin and found out the hard way"),
    ("can't swim", "my grandson's like a fish in the water, whereas his grandad can't swim a "
     "stroke"),
    ("wear a hearing aid", "herself hears a pin drop two rooms away, me, i wear a hearing aid "
     "and half the time it's in the drawer"),
    ("teetotal", "the lads at the bee club go for a pint after, but i'm teetotal these days"),
    ("went vegetarian", "funnily enough our daughter is the meat eater in the family now, "
     "while i went vegetarian a good while back"),
    ("dizzy on a stepladder", "our Spanish teacher would climb anything, not me, i get dizzy on "
     "a stepladder now"),
    ("colour blind", "my old apprentice could match any stain by eye, whereas i'm colour blind, "
     "reds and greens mostly"),
    ("slipped disc", "the lads i trained with could carry a door on their own, i can't since "
     "the slipped disc"),
)  # fmt: skip
STORIES = (
    ("blood thinners", "nicked my thumb on a chisel at the weekend and it bled for ages, the "
     "nurse said that's the blood thinners for you"),
    ("knee replacement", "the scanner at the airport went off at me again on our last trip, "
     "it's the metal in the knee replacement, they had to pat me down in front of everyone"),
    ("type two diabetes", "had a funny turn at the bee club, went shaky and sweaty, so now i "
     "keep jelly babies in the bee suit on account of the type two diabetes"),
    ("lost my sense of smell", "the smoker went out and the whole shed was full of smoke "
     "before i noticed, i lost my sense of smell a while back and can't tell any more"),
    ("old tomcat", "came in to find the old tomcat asleep on the spare brood box, he goes "
     "wherever it's warm"),
    ("moved in with our daughter", "since we moved in with our daughter and her husband i've "
     "had to keep the workshop mess out of the hallway or there's words"),
    ("no more driving after dark", "got properly lost coming back from a job in the dark, "
     "couldn't read a single sign, so that's it, no more driving after dark for me"),
    ("gout flare", "missed the class last week because my big toe blew up like a plum, "
     "another gout flare"),
)  # fmt: skip
RAMBLES = (
    ("pacemaker", "the cardiology lot want to check the pacemaker again so that's another "
     "morning gone"),
    ("cut dairy out", "we've cut dairy out of the house altogether for my stomach"),
    ("sciatica", "sitting in the van for long is murder with the sciatica"),
    ("reading glasses", "i can't read the small print on the honey jars without my reading "
     "glasses"),
    ("collie cross", "the dog needs walking first thing, she's a collie cross and she'll wreck "
     "the place otherwise"),
    ("wife on nights", "with the wife on nights at the care home it's quiet in the evenings"),
    ("tremor in my right hand", "the tremor in my right hand makes the fine dovetails a bit of "
     "a lottery"),
    ("live in a bungalow", "we live in a bungalow now so at least there are no stairs to "
     "worry about"),
)  # fmt: skip
CORRECTIONS = (
    ("size eleven boots", "need new work boots, size eleven boots as before, the old pair have "
     "split at the toe",
     "size ten boots", "the boots came, i ordered size ten boots in the end, i had my own size "
     "wrong when we talked about it, the old pair had stretched"),
    ("deaf in my right ear", "i'm deaf in my right ear so the class is hard going when "
     "everyone talks at once",
     "deaf in my left ear", "i had it backwards the other day, i'm deaf in my left ear, so "
     "i sit with the good side to the teacher"),
    ("three grandchildren", "with three grandchildren running round the garden the hives "
     "have to stay fenced off",
     "four grandchildren", "i miscounted before, silly me, it's four grandchildren if you "
     "count the little one"),
    ("apiary on the allotment", "the apiary on the allotment gets a lot of sun which helps",
     "apiary at my brother's farm", "the bees aren't where i said, i mixed it up, the apiary "
     "at my brother's farm is the one with the strong colonies"),
    ("beginners' Spanish", "i'm in the beginners' Spanish group and most of them are half my "
     "age",
     "intermediate Spanish", "turns out i'm in the intermediate Spanish group, not the one i "
     "told you, they moved me up before the start"),
    ("half a dozen hives", "half a dozen hives is plenty for one pair of hands",
     "eight hives", "it's eight hives now, i'd undercounted, there were two nucs i'd "
     "forgotten"),
)  # fmt: skip
"""(old value, its first statement, new value, its correction in passing)."""

MUSINGS = (
    "so the morning got away from me again",
    "went out to the shed to fetch one thing and came back with a list of other jobs",
    "the radio was on and i ended up listening to a programme about canals for far too long",
    "herself has been on at me to clear the garage before the weather turns",
    "the neighbour's building an extension and the drilling starts first thing",
    "i've been meaning to tidy the offcuts for ages and they're breeding in the corner",
    "had a good chat with the lad who sells timber, he's thinking of packing it in",
    "the garden's gone wild with all the rain",
    "honestly some days i don't know where the time goes",
    "i did manage a bit of homework for the class though, which felt like progress",
    "the kettle in the workshop has finally given up the ghost",
    "anyway i digress",
    "the bees were calm enough when i looked in, which was a relief",
    "got roped into fixing a gate for the church hall, as you do",
    "i keep finding sawdust in places sawdust has no business being",
    "that's enough waffle from me",
    "we had the family round and the house still looks like a bomb hit it",
    "i was up a ladder clearing the gutters half the afternoon",
)


def _ramble(w: Writer11, detail: str) -> str:
    """A long message about nothing much with ``detail`` somewhere in its middle."""
    r = w.rng
    before = r.sample(MUSINGS, r.randint(3, 5))
    after = r.sample([m for m in MUSINGS if m not in before], r.randint(2, 4))
    ask = r.choice(w.talk.asks).replace("{t}", w.topic())
    return ". ".join([*before, detail, *after]) + f". anyway, {ask}"


def _write(w: Writer11, turns: int, facts: int) -> None:
    r = w.rng
    pairs = max(1, facts // 5)
    singles = facts - 2 * pairs
    ways = [CONTRASTS, STORIES, RAMBLES]
    r.shuffle(ways)
    pools = [r.sample(pool, len(pool)) for pool in ways]
    chosen = [pools[k % 3][k // 3] for k in range(singles)]
    fixes = r.sample(CORRECTIONS, pairs)
    events = []
    last = turns - 6
    gap = min(45, last // 3)

    def single(value: str, text: str, framed: bool) -> None:
        body = _ramble(w, text) if framed else text + ". " + _tail(w)
        w.plant("preference", value, w.user(body))
        w.say("assistant", w.reply())

    for k, (value, text) in enumerate(chosen):
        framed = ways[k % 3] is RAMBLES or r.random() < 0.4
        events.append((r.randint(2, last), lambda v=value, t=text, f=framed: single(v, t, f)))
    for old, first, new, fix in fixes:
        start = r.randint(2, max(2, last - gap))
        held: list[PlantedFact] = []

        def said(old: str = old, first: str = first, held: list[PlantedFact] = held) -> None:
            held.append(w.plant("preference", old, w.user(_ramble(w, first))))
            w.say("assistant", w.reply())

        def fixed(new: str = new, fix: str = fix, held: list[PlantedFact] = held) -> None:
            i = w.user(_ramble(w, fix))
            stated = held[0]
            w.plant("correction", new, i, stale=stated.value, stale_index=stated.message_index)
            w.supersede(stated, i)
            w.say("assistant", w.reply())

        events.append((start, said))
        events.append((r.randint(start + gap, max(start + gap, last)), fixed))
    timeline(w, turns, events)


def _tail(w: Writer11) -> str:
    """What the user goes on to ask after a story or a contrast."""
    return "anyway, " + w.rng.choice(w.talk.asks).replace("{t}", w.topic())


def generate(seed: int, *, turns: int = 420, facts: int = 20) -> Trajectory:
    """A joiner's conversation with ``facts`` details said in plain words (see the module)."""
    return build(
        seed,
        "b11-prose",
        turns,
        facts,
        _write,
        "You are a helpful assistant for a semi-retired joiner who keeps bees.",
        writer=writer("joiner"),
        prefix="blind11",
    )
