"""What the seventh blind set's families share: chatter of its own people, fresh values, build.

The people here work shifts on a hospital ward and raise two children, coordinate a small
warehouse and its deliveries, run a community choir and a junior football club, or translate
for clients abroad. The turn writer, the checks and the seed redraw are the sixth set's
(:class:`evals.families.blind6.base.Writer`, ``check`` and ``build``); this module gives the
writer new chatter, which never holds a digit, a clock time, money, a weekday, a month, a code
or a person's name, so a planted value cannot turn up there by chance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.blind6 import base as b6
from evals.families.trajectories import Trajectory

__all__ = ["Writer", "build", "ordinal"]

TOPICS: dict[str, tuple[str, ...]] = {
    "ward": (
        "getting decent sleep in the daytime",
        "packed lunches the kids will actually eat",
        "handover notes that don't go on forever",
        "the school's new reading scheme",
        "keeping my feet from aching by the end of a shift",
        "a birthday party on a tight budget",
        "the washing machine leaving grey marks",
        "a revision timetable for my eldest",
        "talking to a relative who keeps arguing with the doctors",
        "batch cooking for a busy week",
        "the revalidation reflections I keep putting off",
        "bedtime turning into a battle",
        "a polite way to turn down extra shifts",
        "my youngest wanting a phone",
    ),
    "depot": (
        "the forklift battery charging rota",
        "pickers getting the bay numbers muddled",
        "a reply to a customer whose pallet arrived damaged",
        "making the goods-in board easier to read",
        "the van drivers ignoring the one-way system in the yard",
        "stock counts that never match the system",
        "a toolbox talk about manual handling",
        "cardboard piling up by the baler",
        "temps who don't come back after their first week",
        "labelling returns so they stop getting lost",
        "the dock door that sticks when it's cold",
        "a handover sheet between the early and late teams",
        "whether to go paperless on delivery notes",
        "getting the agency to send people with the right tickets",
    ),
    "club": (
        "the altos coming in late on the second verse",
        "getting parents to help with the tea urn",
        "warm-ups that don't feel silly to teenagers",
        "the under-tens losing heart after a heavy defeat",
        "writing the newsletter without it turning into an essay",
        "the treasurer's spreadsheet nobody understands",
        "kit going missing from the lost property box",
        "a fair way to pick the starting team",
        "new singers who can't read music yet",
        "the referee complaint from last weekend",
        "a raffle that actually makes money",
        "parents shouting from the touchline",
        "rehearsal nights clashing with school events",
        "encouraging the basses to sing out",
    ),
    "desk": (
        "a glossary that stays consistent across a long job",
        "clients who send a new version halfway through",
        "my back after long days at the desk",
        "chasing an overdue invoice without sounding rude",
        "legal terms that have no neat equivalent in English",
        "a style guide that contradicts itself",
        "marketing copy that's full of puns",
        "the CAT tool crashing on big files",
        "proofreading my own work after a long day",
        "how to quote for a rush job",
        "agencies that want everything yesterday",
        "keeping work and home apart in a small flat",
        "formatting tables that break in the target file",
        "a client who rewrites my translation and then blames me",
    ),
}
TOPICS["mixed"] = tuple(t for persona in ("ward", "depot", "club") for t in TOPICS[persona])
"""Ordinary topics, by the persona of the family."""

_ASKS = (
    "got a minute for {t}?",
    "what would you do about {t}",
    "quick one, {t}. any ideas",
    "i keep going back and forth on {t}, help me decide",
    "so {t}... is it just me or is this harder than it should be",
    "need a plan for {t}, nothing fancy",
    "can you give me a few pointers on {t}",
    "tried a couple of things with {t} already and none of it stuck",
    "a colleague reckons there's an easy fix for {t}, is there",
    "{t}. thoughts?",
    "back to {t} sorry, it's come up again",
    "how do people normally handle {t}",
    "what's a sensible first step with {t}",
    "bit stuck on {t} if you've got ideas",
    "write me something short about {t} that i can share",
    "honest opinion on {t} please",
)
_CONTEXT = (
    "",
    "",
    "",
    "on my phone so excuse typos.",
    "i've only got a few minutes.",
    "it's been one of those days.",
    "no rush on this one.",
    "half asleep here so go easy.",
    "feel like i've asked you something like this already.",
    "everyone has an opinion and they all disagree.",
    "trying to clear my head before the next thing.",
)
_OPENERS = (
    "Sure.",
    "Good question.",
    "Okay, here's a way to look at it.",
    "That one comes up a lot.",
    "Let's break it down.",
    "Happy to help with that.",
    "Right, a few thoughts.",
    "Fair enough.",
    "Makes sense to ask.",
)
_SENTENCES = (
    "Start with the smallest change that would make a visible difference.",
    "It helps to write down what's actually happening before deciding what to change.",
    "People respond better to a clear request than to a long explanation.",
    "If the same problem keeps coming back, the cause is usually upstream of where you see it.",
    "Keep it short enough that someone skimming it gets the point.",
    "Try the new approach for a little while before judging whether it works.",
    "Ask the people doing the job what gets in their way; they often know already.",
    "A simple checklist beats a clever system nobody follows.",
    "You don't need to solve all of it at once.",
    "It's fine to say no to things that don't fit; a short reason is enough.",
    "Make the easy option the right one and most people will take it.",
    "Praise in public and correct in private works here as well.",
    "Put the important bit in the first line, the rest can follow.",
    "A bit of routine takes a lot of the friction out.",
    "If you're not sure, ask one more question rather than guessing.",
    "Check the basics before assuming something bigger has gone wrong.",
    "Sleep, food and water fix more than people expect.",
    "Give people a clear deadline and a clear owner and it tends to get done.",
    "A quick conversation often saves a long email thread.",
    "Keep a copy of what you agreed so nobody has to rely on memory.",
    "It will feel awkward the first time and much easier after that.",
    "The plain version usually reads better than the clever one.",
    "Look after yourself as well; running on empty helps nobody.",
    "Try to end on something specific people can do next.",
    "If it isn't working after a fair try, change one thing and see.",
    "Most of the time a calm tone gets a better answer than an angry one.",
    "Don't be afraid to reuse something that already works.",
    "Break it into steps and tick them off as you go.",
    "Have a plan for when it goes wrong, not just for when it goes right.",
    "Small, regular effort adds up faster than one big push.",
    "Leave it for a while and come back with fresh eyes.",
    "Say thank you when people do it right, they notice.",
    "A short trial run will show you most of the problems early.",
    "Write it the way you'd say it out loud.",
    "That should be enough to get going, tell me how it goes.",
)
_BULLETS = (
    "keep it simple",
    "one change at a time",
    "write it down",
    "ask the people involved",
    "try it for a while",
    "check the basics",
    "say thanks",
    "look after yourself",
)
_THANKS = ("thanks", "ok cheers", "good, ta", "that helps", "nice one", "ok will try that")
_LOOKUPS = (
    "Guidance found: keep instructions short, show rather than tell, repeat the key step.",
    "Articles found: most recommend a routine, clear roles and a short review afterwards.",
    "Forum threads agree: start small, ask for feedback early, keep a written record.",
)


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
        welcomes=("You're welcome.", "Any time.", "Good luck."),
        web_results=_LOOKUPS,
        bullets_head="In short:",
        lookup_p=0.1,
        thanks_p=0.12,
    )

    def short(self) -> str:
        """A short acknowledgement that repeats nothing."""
        return self.rng.choice(
            (
                "Okay, changed.",
                "Got it.",
                "Noted, I've updated it.",
                "Right, that's amended.",
                "Thanks, sorted on my side.",
                "Understood.",
            )
        )

    def pick(self, values: Sequence[str]) -> str:
        """One of ``values`` not used yet in this conversation (then marked used)."""
        return self.fresh(lambda: self.rng.choice(values))


def ordinal(day: int) -> str:
    """``"14th"``, ``"21st"``, ``"2nd"``."""
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """One conversation of ``style`` (seeded ``blind7/<style>/<seed>/<attempt>``), checked."""
    return b6.build(
        seed,
        style,
        turns,
        facts,
        write,
        system,
        writer=lambda rng, text: Writer(rng, text, persona),
        prefix="blind7",
    )
