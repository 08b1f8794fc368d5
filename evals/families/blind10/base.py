"""What the tenth blind set's families share: its people's chatter, a schedule helper, build.

The people here teach maths and run marathons badly, keep a community bike workshop going,
plan a wedding on a budget, direct an amateur theatre company, or produce a documentary shot
in four countries. The turn writer, the placement check and the seed redraw are the sixth
set's (:class:`evals.families.blind6.base.Writer`, ``check`` and ``build``, which raise
:class:`evals.families.placement.Exhausted` on a used-up pool); this module gives the writer
this set's chatter, which never holds a digit, a clock time, money, a weekday, a month, a code,
a street or a person's name, so a planted value cannot turn up there by chance.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from evals.families.blind6 import base as b6
from evals.families.facts import PlantedFact
from evals.families.trajectories import Trajectory

__all__ = ["PLACES", "Writer", "build", "spaced"]

PLACES = ("first", "second", "third", "fourth", "fifth")
"""Ordinal words, as a user points at an option or a row."""

SUBJECTS: dict[str, tuple[str, ...]] = {
    "teacher": (
        "marking a pile of mock papers without losing the will to live",
        "a year nine class that talks over every explanation",
        "planning a starter on fractions that isn't deadly dull",
        "the parents' evening small talk",
        "my training plan falling apart halfway through the block",
        "how to pace the long run so the last bit isn't a shuffle",
        "writing a reference for a student who coasted",
        "the department's shared folder being a mess",
        "a colleague who keeps borrowing my board pens",
        "getting teenagers to show their working",
        "running shoes wearing out faster than they should",
        "the staffroom kettle politics",
        "an observation lesson coming up",
        "keeping a revision timetable realistic",
    ),
    "workshop": (
        "volunteers leaving tools out at the end of a session",
        "a customer who swears the gears were fine before we touched them",
        "sorting the donated frames into keep and strip for parts",
        "the workshop smelling of degreaser for days",
        "teaching kids to fix their own punctures",
        "the noticeboard being covered in out of date flyers",
        "people dropping bikes off with no note at all",
        "the grant report for the community fund",
        "whether to start charging for the drop-in sessions",
        "the rota spreadsheet nobody updates",
        "cable housing offcuts everywhere",
        "a volunteer who is brilliant but very slow",
        "the shutter sticking when it's damp",
        "writing the newsletter without it sounding desperate",
    ),
    "wedding": (
        "the seating plan and which cousins can't sit together",
        "my future mother-in-law having opinions about everything",
        "writing vows that don't sound like a greeting card",
        "keeping the guest list from creeping up",
        "whether favours are a waste of money",
        "the playlist arguments",
        "my partner leaving every decision to me",
        "how to word the no-kids request politely",
        "dress alterations taking forever",
        "what to do if it rains on the photos",
        "the group chat with the bridal party",
        "the hen do planning getting out of hand",
        "thank you cards I haven't started",
        "not letting the whole thing eat every weekend",
    ),
    "theatre": (
        "an actor who still doesn't know their lines",
        "blocking the crowd scene on a tiny stage",
        "the props table being raided by the cast",
        "a director's note that landed badly",
        "the programme copy nobody has proofread",
        "getting the youth section to turn up on time",
        "the set build running behind",
        "costume continuity between the two acts",
        "our social media posts getting no likes",
        "the committee meeting that went in circles",
        "keeping the interval short enough",
        "an understudy who is better than the lead",
        "warm-ups that aren't embarrassing for adults",
        "the sound cues coming in late",
    ),
    "documentary": (
        "the rough cut dragging in the middle",
        "logging hours of interview footage",
        "a contributor who goes quiet on camera",
        "the edit suite fan being deafening",
        "pitch deck wording for the broadcaster",
        "backing up the drives every night",
        "the colour grade looking muddy",
        "jet lag wrecking the shoot schedule",
        "release forms and who still needs to sign",
        "keeping the crew fed on location",
        "the narration script feeling too earnest",
        "transcription quality from the cheap service",
        "too much drone footage and not enough story",
        "the archive licensing emails",
    ),
}

_OPEN = (
    "{t} - any advice",
    "hey, so {t}. what would you do",
    "talk me through {t}, i'm stuck",
    "need ideas on {t}",
    "{t}!! help",
    "is it just me or is {t} impossible",
    "quick sense check about {t}",
    "can you draft something short about {t}",
    "what's a sensible way to deal with {t}",
    "any tips for {t}? nothing fancy",
    "honest opinion on {t}",
    "thinking out loud about {t}, tell me if i'm overthinking",
    "ok, {t}. go",
    "morning. {t} again, sorry",
    "i keep putting off {t}, can you break it down",
    "how do other people handle {t}",
)
_MOOD = (
    "",
    "",
    "",
    "",
    "long day.",
    "typing this on the bus.",
    "no rush on this one.",
    "sorry for the wall of text earlier.",
    "brain is fried.",
    "the cat is sitting on my keyboard so bear with me.",
    "feeling weirdly optimistic today.",
    "tried to sort it myself and made a mess.",
    "quick one before i head out.",
)
_LEADS = (
    "Okay.",
    "Sure, here's a way to look at it.",
    "That's a good thing to pin down.",
    "Let's untangle it.",
    "I get why that's frustrating.",
    "A few thoughts.",
    "Happy to.",
    "Fair enough, this comes up a lot.",
    "Right, let's be practical.",
    "Good question, actually.",
)
_LINES = (
    "Start with the piece that's blocking everything else and leave the polish for later.",
    "It helps to decide what good enough looks like before you begin.",
    "Most of the stress here comes from keeping it all in your head, so write it down.",
    "People tend to respond better to a clear ask than to a long explanation.",
    "If the same problem keeps coming back, the cause is probably upstream of where it shows.",
    "Give yourself a small win early on, it makes the harder part easier to face.",
    "Try it the simple way once before reaching for anything clever.",
    "A short checklist you actually use beats a detailed one you ignore.",
    "It's fine to say no to the parts that aren't yours to carry.",
    "When you're unsure, ask one person you trust rather than polling everyone.",
    "Keep the tone warm but get to the point in the first line.",
    "You'll learn more from a rough attempt than from another hour of reading about it.",
    "Set a stopping point in advance so it doesn't swallow the whole evening.",
    "If someone keeps ignoring a rule, make the rule easier to follow.",
    "Praise the specific thing that went well; it lands better than general thanks.",
    "Timebox the fiddly bit and move on when the time is up.",
    "Leave a note for future you about why you made the choice you made.",
    "A calm, boring routine usually outperforms bursts of effort.",
    "Show a draft early; people react more usefully to something concrete.",
    "Don't fix what isn't broken just because you're in a fixing mood.",
    "Be honest about the trade-off instead of pretending there isn't one.",
    "Group the small jobs together and do them in one sitting.",
    "Rest counts as part of the plan, not a break from it.",
    "Ask what they need from you before offering a solution.",
    "If the first version reads stiffly, say it out loud and write what you said.",
    "Cut anything that repeats a point already made.",
    "It usually looks worse halfway through than it really is.",
    "Agree who owns each piece, otherwise everybody assumes someone else does.",
    "Keep copies of anything you'd hate to lose.",
    "The quickest fix is often just asking the person directly.",
    "A bit of structure at the start saves a lot of tidying at the end.",
    "Let the dull parts be dull; not everything needs to be perfect.",
    "If you're tired, pick the version of the task that needs the least judgement.",
    "Try to end each session knowing exactly what you'll do first next time.",
    "Most people are more forgiving than we expect when we're upfront.",
    "Check the obvious things first, they're the cause more often than not.",
    "That should get you unstuck; tell me how it goes.",
    "Once it's working, resist the urge to keep fiddling with it.",
)
_POINTS = (
    "pick one thing",
    "write it down",
    "ask early",
    "keep it short",
    "check the obvious",
    "rest properly",
    "share a draft",
    "agree who owns it",
)
_SNIPPETS = (
    '```\n=IFERROR(VLOOKUP(A2, Sheet2!A:B, 2, FALSE), "missing")\n```',
    '```python\ndone = [t for t in tasks if t.finished]\nprint(len(done), "of", len(tasks))\n```',
    "```bash\nrsync -av --progress ./footage/ ./backup/footage/\n```",
    "```sql\nSELECT name FROM volunteers WHERE active ORDER BY name;\n```",
    "```\n- warm up\n- main set\n- cool down\n- stretch\n```",
)
_CHITCHAT = (
    ("how's your day going", "Quietly, thanks for asking. How's yours?"),
    ("do you ever get bored of my questions", "Not at all, keep them coming."),
    ("it's absolutely chucking it down here", "Sounds like a good day for indoor jobs."),
    ("i think i need a holiday", "That sounds well earned. Anything in mind?"),
    ("just had the best cup of tea", "Small pleasures make a big difference."),
    ("sorry, got distracted, where were we", "No problem, pick up wherever suits you."),
    ("you're very patient", "Thanks, that's kind of you."),
)
_LOOKUPS = (
    ("web_search", "how to stop procrastinating", "Results: break tasks down, remove "
     "distractions, start with a small step, use short focused blocks."),
    ("notes_search", "ideas list", "Found a note: 'ask around for spare chairs, check the "
     "storage cupboard, email the group about the clear-out'."),
    ("web_search", "polite reminder email wording", "Results: keep it brief, restate the "
     "request, offer help, thank them in advance."),
    ("notes_search", "to do", "Found a note: 'sort the shelves, reply to emails, book the "
     "usual thing, chase the forms'."),
    ("web_search", "stretching after running", "Results: gentle calf, hamstring and hip "
     "stretches, held without bouncing, after easing down."),
)  # fmt: skip
_NODS = ("cheers", "thank you!", "ok good", "nice one", "that's useful", "will do", "ta")


class Writer(b6.Writer):
    """The sixth set's turn writer, with this set's people and their chatter."""

    personas = SUBJECTS
    talk = b6.Talk(
        asks=_OPEN,
        context=_MOOD,
        openers=_LEADS,
        sentences=_LINES,
        bullets=_POINTS,
        thanks=_NODS,
        welcomes=("You're welcome.", "Any time.", "Good luck!"),
        lookups=_LOOKUPS,
        lookup_lead="One moment.",
        small_talk=_CHITCHAT,
        code=_SNIPPETS,
        code_head="For example:",
        bullets_head="The gist:",
        bullet="*",
        small_talk_p=0.07,
        context_first=0.4,
        lookup_p=0.1,
        thanks_p=0.08,
        bullets_p=0.18,
        code_p=0.26,
    )

    def short(self) -> str:
        """A short acknowledgement that repeats nothing."""
        return self.rng.choice(("Noted.", "Okay, got that.", "Thanks, I'll use that.", "Done."))

    def drawn(self, pool: Sequence[str]) -> str:
        """One of ``pool`` not yet used in this conversation (raises ``Exhausted`` when none)."""
        return self.fresh(lambda: self.rng.choice(pool))

    def idle(self, lo: int, hi: int) -> None:
        """Between ``lo`` and ``hi`` turns of chatter."""
        self.pad(self.rng.randint(lo, hi))

    def replace(self, old: PlantedFact, value: str, at: int, **fields: object) -> PlantedFact:
        """``value`` in message ``at`` replaces ``old`` (a correction; ``old`` stops there)."""
        history = old.stale_values  # newest first
        fact = self.plant(
            "correction",
            value,
            at,
            stale=old.value,
            stale_index=old.message_index,
            older=tuple(reversed(history)),
            **fields,
        )
        self.supersede(old, at)
        return fact


def spaced(w: Writer, turns: int, episodes: Sequence[Callable[[], None]], width: int) -> None:
    """``episodes`` at seeded turns at least ``width`` apart, chatter everywhere else."""
    room = min(width, max(1, (turns - 12) // max(1, len(episodes))))
    b6.run(w, turns, b6.spread(w.rng, turns - 12, len(episodes), room), episodes)


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """One conversation of ``style`` (seeded ``blind10/<style>/<seed>/<attempt>``), checked."""

    def make(rng: random.Random, text: str) -> Writer:
        return Writer(rng, text, persona)

    return b6.build(seed, style, turns, facts, write, system, writer=make, prefix="blind10")
