"""What the ninth blind set's families share: its people's chatter, a few helpers, build.

The people here answer the phones at a vet clinic, write a PhD thesis, let several flats,
tour with a band, or coordinate the volunteers of a small charity. The turn writer, the checks
and the seed redraw are the sixth set's (:class:`evals.families.blind6.base.Writer`, ``check``
and ``build``); this module gives the writer new chatter (small talk, long answers, code
blocks, tool logs), which never holds a digit, a clock time, money, a weekday, a month, a code
or a person's name, so a planted value cannot turn up there by chance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.blind6 import base as b6
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["ORDINALS", "Writer", "build", "correct", "fill"]

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")

TOPICS: dict[str, tuple[str, ...]] = {
    "vet": (
        "owners who turn up late and expect to be seen straight away",
        "the waiting room when a big dog and a nervous cat are both in",
        "explaining the cost of an estimate without sounding cold",
        "phone calls from people who want advice but won't book",
        "the reminder texts going out with the wrong wording",
        "a grieving owner collecting ashes",
        "cleaning the consult rooms between appointments",
        "the booking system freezing at the busiest point of the morning",
        "clients who argue about the insurance excess",
        "keeping the reception desk tidy with leaflets everywhere",
        "a new receptionist who's scared of the phones",
        "the noise from the kennels carrying into reception",
        "the flea treatment display nobody looks at",
        "calming someone whose pet has just been hit by a car",
    ),
    "phd": (
        "a literature review that keeps growing",
        "my supervisor taking ages to read chapters",
        "a reviewer who clearly didn't read the paper",
        "code for the analysis that only runs on my laptop",
        "imposter syndrome before the lab meeting",
        "teaching a seminar group that never does the reading",
        "keeping a reference manager tidy",
        "writing the methods section so it can be replicated",
        "a figure that looks awful when printed",
        "saying no to side projects",
        "the thesis structure not hanging together",
        "a poster that has far too much text",
        "funding running out before I finish",
        "motivation in the middle of the second year",
    ),
    "flats": (
        "a tenant who never answers the door for inspections",
        "mould in a bathroom with no window",
        "whether to let a flat furnished or unfurnished",
        "a deposit dispute over a stained carpet",
        "the letting agent not passing on messages",
        "a boiler that keeps losing pressure",
        "neighbours complaining about bins left out",
        "writing a listing that doesn't oversell the place",
        "keeping receipts for the tax return",
        "a tenant asking to keep a dog",
        "damp on an outside wall",
        "the communal hallway lights going off",
        "choosing a cheap but decent flooring",
        "a tenant who pays late but always pays",
    ),
    "band": (
        "the van being a mess after a week on the road",
        "sleeping properly between shows",
        "merch stock running low halfway through the run",
        "a promoter who won't answer about the guest list",
        "the drummer's kit taking forever to load in",
        "eating something other than service station sandwiches",
        "a sound engineer who keeps the vocals too low",
        "setlists that feel stale by the end of the tour",
        "keeping my voice going with back-to-back gigs",
        "splitting the money fairly in the band",
        "posting on social media without it feeling forced",
        "a broken string in the middle of a song",
        "arguments in the van after a bad show",
        "lost laundry in a hotel",
    ),
    "charity": (
        "volunteers who sign up and then don't show",
        "thanking people without it sounding like a form letter",
        "the shared calendar nobody updates",
        "a food bank shelf that's always short of the same things",
        "training new volunteers on safeguarding",
        "a trustee who wants weekly reports",
        "getting younger people to volunteer",
        "the minibus being booked by two groups at once",
        "writing a small grant application",
        "keeping the storeroom in some sort of order",
        "volunteers falling out with each other",
        "a newsletter that people actually open",
        "risk assessments for a sponsored walk",
        "burnout among the regular helpers",
    ),
}
"""Ordinary topics, by the persona of the family."""

_ASKS = (
    "so {t}. any thoughts",
    "can u help me think about {t}",
    "quick one, {t} - what would you do",
    "i keep going back and forth on {t}, help",
    "what's a sensible way to handle {t}",
    "ugh, {t} again. ideas?",
    "could you write me a few lines about {t}",
    "how do other people deal with {t}",
    "not sure if im overreacting about {t}",
    "{t}: is there an obvious fix im missing",
    "give me a plan for {t}, nothing fancy",
    "thoughts on {t}? be honest",
    "right, next thing is {t}",
    "talk me through {t} like i'm new to it",
)
_CONTEXT = (
    "",
    "",
    "",
    "sorry for the essay.",
    "typing on my phone so excuse typos.",
    "no rush on this.",
    "bit frazzled today.",
    "quick one before i forget.",
    "been meaning to ask for ages.",
    "one of those days.",
    "had a go myself already, didn't go well.",
    "my flatmate says just ignore it lol.",
)
_SMALL_TALK = (
    ("how are you doing today", "Doing well, thanks. What's on your plate?"),
    ("it's pouring down here", "Sorry to hear it. A good excuse for desk work, maybe."),
    ("lovely day finally", "Nice. Hopefully you get a bit of it outside."),
    ("knackered", "Sounds rough. Let's keep things simple today."),
    ("back, sorry, got pulled away", "No worries. Where were we?"),
)
_OPENERS = (
    "Sure.",
    "Good question.",
    "Here's how I'd approach it.",
    "That's a common one.",
    "Let's break it down.",
    "Happy to help.",
    "A few thoughts.",
    "Okay.",
    "Right, let's see.",
)
_SENTENCES = (
    "Start by writing down what actually happens, step by step, before changing anything.",
    "Often the real cause sits a little earlier than where the trouble shows up.",
    "Make one change at a time so you can tell what made the difference.",
    "A short, clear message with one ask gets a reply faster than a long one.",
    "It's worth asking the people closest to the problem what slows them down.",
    "Keep the first attempt small so it's easy to drop if it doesn't work.",
    "Write the decision down so nobody has to rely on memory later on.",
    "A simple checklist that people actually use beats a perfect one nobody opens.",
    "If the same thing keeps happening, look at the system rather than the person.",
    "Give it a fair trial before judging it; a couple of weeks is usually enough.",
    "Plain wording tends to land better than clever wording.",
    "Make the right thing the easy thing, and most people will go along with it.",
    "Check the boring basics first, since they explain most problems.",
    "Agree who owns each part before anything starts.",
    "You can be firm and kind at the same time, and it usually works better.",
    "Leave some slack in the plan, because something always takes longer.",
    "Thank people when they get it right; it makes the next request easier.",
    "If a conversation gets heated, move it off text and talk it through.",
    "Keep a short log of what you tried so you don't repeat yourself.",
    "Get a second opinion before committing to anything expensive.",
    "Aim for clear rather than perfect on the first pass.",
    "Look after yourself too; nobody does good work when they're exhausted.",
    "A small trial run shows most of the problems early and cheaply.",
    "Say what you need first, then the reasons, then any background.",
    "When people disagree, write the options side by side and compare them calmly.",
    "Tidy as you go, because the big clear-out at the end is where things get lost.",
    "It's fine to say no, and a short reason is plenty.",
    "If nobody reads the long version, write a short one and keep the rest as a link.",
    "That should be enough to get started, let me know how it goes.",
    "It gets much easier after the first couple of attempts.",
)
_BULLETS = (
    "write it down",
    "one change at a time",
    "ask the people involved",
    "keep it short",
    "check the basics",
    "agree an owner",
    "try it, then review",
    "say thank you",
)
_CODE = (
    "```python\ndef dedupe(items):\n    seen = set()\n    out = []\n    for item in items:\n"
    "        key = item.strip().lower()\n        if key and key not in seen:\n"
    "            seen.add(key)\n            out.append(item.strip())\n    return out\n```",
    "```bash\nls -t notes/ | head\n# then archive the old ones\nmv notes/old-* archive/\n```",
    "```sql\nselect name, status\nfrom jobs\nwhere status <> 'closed'\norder by name;\n```",
    '```\n=IF(ISBLANK(B:B), "chase", "ok")\n```\nDrag it down the column.',
    "```yaml\nreminders:\n  send: weekly\n  channel: email\n  skip_if: already_replied\n```",
)
_LOGS = (
    (
        "run_command",
        "sync notes folder",
        "sync: scanning\nsync: nothing new in Archive\nsync: uploaded changed files\nsync: done",
    ),
    (
        "search_web",
        "how to say no politely at work",
        "Results: be brief, give one reason, offer an alternative if you can, "
        "don't over-apologise.",
    ),
    (
        "search_web",
        "keeping a voice healthy when singing a lot",
        "Results: warm up gently, drink water, rest between sessions, avoid shouting over noise.",
    ),
    (
        "run_command",
        "check backup",
        "backup: snapshot taken\nbackup: verified\nbackup: older snapshots pruned",
    ),
    (
        "search_web",
        "mould in bathroom without window",
        "Results: extractor fan on a timer, wipe condensation, mould-resistant paint, "
        "keep the door open after showers.",
    ),
)
_THANKS = ("thanks", "cheers", "ta", "that helps", "ok nice", "will try that", "great")


class Writer(b6.Writer):
    """The sixth set's turn writer, with this set's people and their chatter."""

    personas = TOPICS
    talk = b6.Talk(
        asks=_ASKS,
        context=_CONTEXT,
        openers=_OPENERS,
        sentences=_SENTENCES,
        bullets=_BULLETS,
        thanks=_THANKS,
        welcomes=("No problem.", "Any time.", "Good luck with it."),
        lookups=_LOGS,
        lookup_lead="Let me check.",
        small_talk=_SMALL_TALK,
        code=_CODE,
        code_head="Something like this might help:",
        bullets_head="In short:",
        small_talk_p=0.06,
        thanks_p=0.1,
        code_p=0.3,
        bullets_p=0.2,
    )

    def short(self) -> str:
        """A short acknowledgement that repeats nothing."""
        return self.rng.choice(
            ("Okay, noted.", "Got it.", "Thanks, updated.", "Right, changed.", "Noted, ta.")
        )

    def pick(self, values: Sequence[str]) -> str:
        """One of ``values`` not used yet in this conversation (then marked used)."""
        return self.fresh(lambda: self.rng.choice(values))

    def gap(self, lo: int, hi: int) -> None:
        """``lo`` to ``hi`` turns of chatter."""
        self.pad(self.rng.randint(lo, hi))


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """One conversation of ``style`` (seeded ``blind9/<style>/<seed>/<attempt>``), checked."""
    return b6.build(
        seed,
        style,
        turns,
        facts,
        write,
        system,
        writer=lambda rng, text: Writer(rng, text, persona),
        prefix="blind9",
    )


def fill(w: Writer, turns: int, episodes: Sequence[Callable[[], None]]) -> None:
    """Spread ``episodes`` over ``turns`` (each at most a few turns), chatter around them."""
    width = max(1, (turns - 10) // max(1, len(episodes)))
    starts = b6.spread(w.rng, turns - 10, len(episodes), min(width, 12))
    b6.run(w, turns, starts, episodes)


def correct(w: Writer, old: PlantedFact, value: str, at: int, **fields: object) -> PlantedFact:
    """Plant ``value`` in message ``at`` as the correction of ``old`` (and supersede ``old``)."""
    older = (*old.older, old.stale) if old.stale is not None else ()
    fact = w.plant(
        "correction",
        value,
        at,
        stale=old.value,
        stale_index=old.message_index,
        older=older,
        **fields,
    )
    w.supersede(old, at)
    return fact
