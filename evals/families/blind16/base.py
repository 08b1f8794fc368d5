"""What the sixteenth blind set's families share: its people, its chatter and its writer.

The turn writer, the placement check and the seed redraw are :mod:`evals.families.blind6.base`'s;
this set gives :class:`Writer16` its own people (``PERSONAS``: each family's topics) and chatter
(``TALK``), which hold no digit, clock time, money, weekday, month, code or person's name, so a
planted value cannot turn up there by chance.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind6.base import Talk, Writer, build
from evals.families.pools import WEEKDAYS
from evals.families.trajectories import Trajectory

__all__ = ["PERSONAS", "TALK", "Writer16", "make"]

PERSONAS: dict[str, tuple[str, ...]] = {
    # a fish-and-chip shop owner who crews the town's lifeboat
    "prose": (
        "the fryer oil going dark too quickly",
        "getting the batter crispier",
        "the queue out the door on a busy evening",
        "lifeboat training on choppy days",
        "the seagulls nicking chips off customers",
        "writing a notice about the new opening hours",
        "the extractor hood dripping grease",
        "keeping the mushy peas from going stodgy",
        "a pager going off in the middle of a fry",
        "the chippy's tired old menu board",
        "sorting out the rota when someone calls in sick",
        "drying out my kit after a shout",
    ),
    # the secretary of an allotment society
    "tables": (
        "the committee minutes",
        "a polite letter about an overgrown plot",
        "the shared water troughs leaking",
        "rats near the compost bays",
        "the society's newsletter",
        "the waiting list getting longer",
        "a dispute over a boundary path",
        "the annual show's vegetable classes",
        "the trading hut's opening rota",
        "bindweed coming through from the railway side",
        "the bonfire rules",
        "new members who never turn up",
    ),
    # a small-press publisher
    "confirms": (
        "the blurb for the poetry collection",
        "an author who keeps missing deadlines",
        "the cover brief for the autumn novel",
        "copy-editing style for the anthology",
        "getting reviews in the local papers",
        "the website's book pages",
        "the launch reading's running order",
        "an awkward email to a distributor",
        "returns from the bookshops",
        "whether to print a hardback at all",
        "the grant report for the arts council",
        "a translator's contract wording",
    ),
    # a grandson organising his grandmother's surprise birthday party
    "chains": (
        "what to write in the card",
        "a slideshow of old family photos",
        "keeping the party secret from gran",
        "the playlist of her old favourites",
        "getting the cousins to reply to messages",
        "whether to do a speech",
        "the table decorations",
        "a gift from all the grandchildren",
        "how to get gran there without her guessing",
        "the family group chat getting out of hand",
        "food for the guests who don't eat meat",
        "parking for the older relatives",
    ),
    # a sari and handloom shop owner in Leicester buying from Tamil Nadu and Bangladesh
    "intl": (
        "the shop window display",
        "pricing the wedding saris",
        "customers asking for alterations",
        "the shop's social media posts",
        "keeping silk from fading under the lights",
        "a customer who wants a refund on a worn item",
        "the festival season rush",
        "folding and storing the stock",
        "the card machine playing up",
        "writing a care label for handloom cotton",
        "hiring a weekend helper",
        "the insurance renewal paperwork",
    ),
}
"""Each family's person: the things they ask about between the planted details."""

_ASKS = (
    "quick one, {t}",
    "can you help me think through {t}",
    "right, {t}. what would you do",
    "{t} is doing my head in, any ideas",
    "been putting off {t}, give me a push",
    "thoughts on {t}?",
    "how do people usually handle {t}",
    "need a hand with {t} if you've got a minute",
    "what's the simplest way to deal with {t}",
    "so about {t}, am i overthinking it",
    "could you draft a few lines about {t}",
    "any tips for {t} that aren't obvious",
    "back to {t} again, sorry",
    "is there a sensible order to tackle {t} in",
)
_CONTEXT = (
    "",
    "",
    "",
    "no rush on this.",
    "bit of a long day so keep it short.",
    "been meaning to ask for ages.",
    "typing on my phone, excuse the typos.",
    "it's one of those small things that never gets done.",
    "tried a couple of things already.",
    "everyone's got an opinion on this one.",
)
_OPENERS = (
    "Sure.",
    "Good question.",
    "Happy to help with that.",
    "Let's sort it out.",
    "That one comes up a lot.",
    "Okay, here's my take.",
    "No problem.",
    "Right, a few thoughts.",
    "Understandable, it's fiddly.",
)
_SENTENCES = (
    "Start with the part that bothers you most and the rest tends to follow.",
    "Change one thing at a time so you can see what actually helped.",
    "A short written plan saves a lot of going back and forth later.",
    "Most people overcomplicate this; the plain approach works well enough.",
    "Be friendly but direct, people appreciate knowing where they stand.",
    "If it keeps happening, it's worth looking one step earlier in the process.",
    "Ask someone who's done it before, they'll spot the snag quickly.",
    "Give it a proper clean first, a lot of problems are just build-up.",
    "Keep a note of what you tried so you don't repeat it.",
    "It's fine for the first go to be rough, the second is always better.",
    "Set aside a quiet stretch for it rather than squeezing it between jobs.",
    "Keep the wording short; long explanations invite long arguments.",
    "Don't spend on new kit until you've ruled out the simple causes.",
    "Sharing the job out usually works better than doing it all yourself.",
    "Leave it overnight and look again with fresh eyes.",
    "A checklist pinned up somewhere visible does wonders.",
    "If anything feels unsafe, stop and get a professional to look at it.",
    "The people involved will mostly be relieved someone took charge.",
    "A quick test on a small scale tells you more than any amount of reading.",
    "Whatever you settle on, tell everyone once, clearly, in one place.",
    "It's worth asking what the others expect before deciding.",
    "Good enough and done beats perfect and still on the list.",
    "You can always revisit it once the busy spell is over.",
    "Shout if that doesn't do the trick and we'll dig further.",
)
_BULLETS = (
    "start with the worst bit",
    "one change at a time",
    "write it down",
    "ask someone who's done it",
    "test small first",
    "tell everyone once",
    "stop when it's good enough",
)
_THANKS = ("cheers", "thanks, that helps", "ta", "great, thank you", "ok will try", "nice one")
_SMALL_TALK = (
    ("grim weather out there today", "Sounds miserable. Stay dry if you can."),
    ("finally a quiet moment, made a cuppa", "Enjoy it, you've earned a break."),
    ("the kettle's packed in so I'm making do", "That's a small tragedy. Hope it's replaced soon."),
    ("neighbour's dog has been barking all morning", "That would wear anyone down."),
    ("had a lovely walk earlier, clears the head", "Nothing beats it for a reset."),
    ("can't believe how fast this year is going", "It really does fly once things get busy."),
    ("phone's nearly dead so might go quiet", "No worries, pick it up whenever."),
    ("someone brought cake in, dangerous", "The best kind of danger, honestly."),
)
_LOOKUPS = (
    ("search_web", "remove grease from extractor", "Degreaser or hot soapy water with soda "
     "crystals; soak filters and rinse well, replace if the mesh is damaged."),
    ("search_web", "how to write a polite reminder", "Keep it short, restate what was agreed, "
     "give a clear next step and thank them for their time."),
    ("search_notes", "committee", "Notes mention: agenda drafted, minutes to circulate, a vote "
     "on the hedge at the next meeting."),
    ("search_web", "store silk fabric", "Keep away from direct light, fold with acid-free "
     "tissue, refold now and then to avoid permanent creases."),
)  # fmt: skip

TALK = Talk(
    asks=_ASKS,
    context=_CONTEXT,
    openers=_OPENERS,
    sentences=_SENTENCES,
    bullets=_BULLETS,
    thanks=_THANKS,
    welcomes=("Any time.", "Glad it helps.", "Good luck with it."),
    lookups=_LOOKUPS,
    lookup_lead="I'll check.",
    small_talk=_SMALL_TALK,
    small_talk_p=0.1,
    lookup_p=0.1,
    thanks_p=0.15,
)
"""This set's chatter."""


class Writer16(Writer):
    """The sixth set's writer with this set's people and chatter."""

    talk = TALK
    personas = PERSONAS
    turns_total = 0
    chain_ids: dict[str, list[str]]
    """A family's chains: each one's fact ids, oldest first (set by a family that has them)."""
    """How many turns the conversation is written to (set by a family that needs it)."""

    def weekday_any(self) -> str:
        """A weekday, not a fresh one: a slot's day is not its value."""
        return self.rng.choice(WEEKDAYS)


def make(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer16, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """:func:`~evals.families.blind6.base.build` with this set's writer and prefix."""

    def writer(rng: random.Random, text: str) -> Writer16:
        return Writer16(rng, text, persona)

    return build(seed, style, turns, facts, write, system, writer=writer, prefix="blind16")
