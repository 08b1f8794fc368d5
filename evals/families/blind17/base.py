"""What the seventeenth blind set's families share: its people, their chatter, the writer.

Three people use the assistant here: the organiser of a hospice's sponsored coast-to-coast
walk (``chains``), the coordinator of a rural community minibus scheme (``tables``) and a
semi-retired piano tuner who sings in a barbershop quartet (``prose``). Their chatter
(:data:`TALK`, :data:`PERSONAS`) holds no digit, clock time, money, weekday, month, code or
person's name, so a planted value cannot turn up there by chance. The turn writer, the checks
and the seed redraw are :mod:`evals.families.blind6.base`'s, reused unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind6.base import Talk, Writer, build
from evals.families.trajectories import Trajectory

__all__ = ["PERSONAS", "TALK", "Writer17", "make"]

PERSONAS: dict[str, tuple[str, ...]] = {
    "walk": (
        "blister care on a long walk",
        "keeping the walkers fed at the rest stops",
        "the route through the dunes",
        "how to thank the sponsors",
        "the hi-vis vests for the marshals",
        "a first aid kit for a big group",
        "walking poles for the steep bits",
        "a slideshow for the hospice newsletter",
        "what to do if the weather turns",
        "the collection buckets",
        "training walks for the beginners",
        "a sign-up form for volunteers",
        "the playlist for the coach",
        "how to keep a group together on a narrow path",
        "the poster for the village noticeboard",
    ),
    "minibus": (
        "wheelchair clamps on the minibus",
        "the volunteer drivers' tea morning",
        "a leaflet for the doctor's surgery",
        "keeping the passenger list private",
        "cleaning the minibus seats",
        "the grant application for a new vehicle",
        "a thank-you card for a retiring driver",
        "winter tyres for the hill roads",
        "the booking line voicemail message",
        "a rota that the drivers actually read",
        "the parish council report",
        "first aid refreshers for the drivers",
        "the market day run",
        "a newsletter for the passengers",
        "fuel receipts piling up",
    ),
    "tuner": (
        "a sticky key on an old upright",
        "the quartet's tag at the end of the ballad",
        "humidity and soundboards",
        "warming up the voice before a rehearsal",
        "pricing a call-out to the far villages",
        "a tuning lever that has gone loose",
        "the harmony in the bridge of our new song",
        "moth damage in hammer felts",
        "a website for a one-man business",
        "the competition outfits for the quartet",
        "learning a part by ear",
        "the van's rattling back door",
        "keeping a record of which pianos I have seen",
        "breathing for long held notes",
        "a school piano that nobody has touched in years",
    ),
}
"""Each person's topics (``persona`` picks one), with no value in them."""

_ASKS = (
    "Any thoughts on {t}?",
    "Could you help me think through {t}?",
    "What would you suggest for {t}?",
    "I keep putting off {t}. Where should I start?",
    "Quick one about {t}: what do people usually do?",
    "Can you give me a short plan for {t}?",
    "I'd love a second opinion on {t}.",
    "What am I likely to forget about {t}?",
    "How would you explain {t} to a newcomer?",
    "Is there a simple way to handle {t}?",
)
_CONTEXT = (
    "",
    "",
    "Bit of a long day here.",
    "The kettle's on, so I have a few minutes.",
    "Sorry if I asked something like this before.",
    "No rush on this one.",
    "It has been on my mind all morning.",
    "A friend asked me and I had no good answer.",
    "I'm trying to get ahead of things for once.",
)
_OPENERS = (
    "Good question.",
    "Happy to help with that.",
    "Here is how I would think about it.",
    "That comes up a lot.",
    "Sure, let me lay it out.",
    "A few thoughts on that.",
)
_SENTENCES = (
    "Start with the part that would cause the most trouble if it went wrong, and work outwards.",
    "Writing the steps down somewhere everyone can see saves a surprising amount of back and "
    "forth later on.",
    "It usually helps to ask the people doing the work what gets in their way before changing "
    "anything.",
    "A short checklist you actually use beats a long one that lives in a drawer.",
    "If it feels like too much, split it into pieces small enough to finish in one sitting.",
    "Keep a little slack in the plan, because something always takes longer than expected.",
    "People respond well to a clear ask and a word of thanks afterwards.",
    "Try the simple version first and only add detail where it clearly pays off.",
    "A quick note at the end of the day about what changed makes the next day much easier.",
    "It is worth checking what the local groups already do, since they have often solved it.",
    "Make one person responsible for each loose end so nothing falls between two stools.",
    "When in doubt, choose the option that is easiest to undo.",
    "A photo on your phone is often the fastest record of how something was set up.",
    "Ask for feedback while it is fresh, not weeks later when nobody remembers the details.",
    "The best time to sort the boring admin is before it becomes urgent.",
    "Plain words work better than jargon, especially for people new to it.",
    "A spare of anything small and easy to lose will save you a lot of stress.",
    "Check the weather and the roads before setting off, and have a fallback in mind.",
    "It helps to rehearse the awkward conversation once in your head before having it.",
    "Group the similar jobs together so you are not switching back and forth all the time.",
    "If something keeps going wrong in the same place, the process there probably needs a look.",
    "Tell people what to expect, and they are far more patient when things run late.",
    "Small regular effort tends to beat one big push that leaves everyone tired.",
    "Keep the instructions next to the thing they are about, not in a separate folder.",
    "Not every problem needs solving today; some just need noting so they are not forgotten.",
    "Where you can, let people choose how they help; they stick with it for longer.",
    "A cheerful tone in a reminder gets a better response than a stern one.",
    "It is fine to say no to extra jobs when the main ones are not yet done.",
    "Look after the volunteers and helpers first, and the rest tends to follow.",
    "If the budget is tight, ask around before buying; someone often has one spare.",
    "Keep a simple log of what you tried and what happened, so you do not repeat it.",
    "Break for a cup of tea when you get stuck; the answer often turns up afterwards.",
)
_BULLETS = (
    "write it down",
    "ask who else is affected",
    "set a reminder",
    "keep a spare",
    "check it again the day before",
    "tell everyone involved",
    "take a photo of the setup",
    "leave some slack",
    "thank the helpers",
)
_THANKS = (
    "thanks, that helps",
    "brilliant, cheers",
    "that's useful, ta",
    "makes sense, thank you",
    "lovely, thanks a lot",
)
_SMALL = (
    ("it's chucking it down out there", "Sounds grim. Stay dry if you can."),
    ("just back from a walk with the dog, feel much better", "Nothing like fresh air for it."),
    ("the neighbour's cat has adopted our porch", "They do pick their people. Enjoy the company."),
    ("I burnt the toast again", "It happens to the best of us."),
    ("the garden is finally waking up", "Lovely time of year for it."),
    ("had a proper lie-in for once", "Good for you, you probably needed it."),
)

TALK = Talk(
    asks=_ASKS,
    context=_CONTEXT,
    openers=_OPENERS,
    sentences=_SENTENCES,
    bullets=_BULLETS,
    thanks=_THANKS,
    welcomes=("Any time.", "Glad it helps.", "You're welcome, good luck with it."),
    small_talk=_SMALL,
    small_talk_p=0.12,
    lookups=(
        (
            "search_web",
            "volunteer thank you ideas",
            "Ideas: a handwritten card, a shout-out in "
            "the newsletter, a small gathering with tea and cake, a certificate.",
        ),
        (
            "search_web",
            "keeping records tidy small charity",
            "Tips: one shared folder, clear "
            "names, a weekly tidy, and a single person who owns each list.",
        ),
        (
            "search_notes",
            "reminders",
            "Notes mention: chase the outstanding forms, order more "
            "leaflets, ask about the spare keys.",
        ),
        (
            "search_web",
            "group safety briefing basics",
            "Cover the route, the meeting points, what to do if someone is lost, and who to call.",
        ),
    ),
    lookup_lead="Let me check.",
    lookup_p=0.1,
)
"""This set's chatter."""


class Writer17(Writer):
    """The sixth set's writer with this set's chatter and people."""

    talk = TALK
    personas = PERSONAS


def make(
    persona: str,
) -> Callable[[random.Random, str], Writer17]:
    """A writer factory for :func:`build` speaking as ``persona``."""

    def writer(rng: random.Random, system: str) -> Writer17:
        return Writer17(rng, system, persona)

    return writer


def write(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    episode: Callable[[Writer17, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """Build one of this set's conversations (``random.Random("blind17/<style>/...")``)."""
    return build(seed, style, turns, facts, episode, system, writer=make(persona), prefix="blind17")
