"""What the thirteenth blind set's families share: its people, their chatter, named speakers.

The turn writer, the placement check and the seed redraw are :mod:`evals.families.blind6.base`'s;
this module gives them this set's people (:data:`PERSONAS`), two kinds of chatter (:data:`TALK`,
a person asking an assistant; :data:`FRIENDS`, two friends writing to each other) and a
:class:`Writer` that can put a speaker's ``name`` on every user and assistant message. Chatter
never holds a digit, a clock time, money, a weekday, a month, a code or a person's name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from evals.families.blind6.base import Talk
from evals.families.blind6.base import Writer as _Writer

__all__ = ["CUES", "FRIENDS", "PERSONAS", "TALK", "Writer", "writer"]

CUES = ("i prefer", "i always", "i never", "my favourite", "i like", "i love", "i hate")
"""Cue words no planted detail is said with (lower case)."""

PERSONAS: Mapping[str, Sequence[str]] = {
    "falconer": (
        "the barn owl refusing to come to the glove",
        "weighing the hawks before the flying display",
        "a school group that wants a talk on owls",
        "keeping the aviary netting tight in the wind",
        "the harris hawk getting bored between displays",
        "how to explain imprinting to visitors",
        "cleaning the mews without stressing the birds",
        "the gift shop's leaflet about the centre",
        "the kestrel's jesses wearing thin",
        "a polite answer to someone who wants to hold an eagle owl",
        "the van's heater packing up on the way to shows",
        "whether to add a second flying field",
    ),
    "removals": (
        "the stair-climbing trolley squeaking",
        "how to word the quote email for a grand",
        "a customer worried about the parquet in the hall",
        "training the new lad to strap a piano to the skid board",
        "the blanket wraps getting grubby",
        "whether to tune pianos ourselves after a move",
        "the storage unit's humidity",
        "a review that complains we were late",
        "padding corners on a narrow turn of stairs",
        "the tail lift making a grinding noise",
        "keeping the job sheets readable",
        "what to tell people about pianos and underfloor heating",
    ),
    "cricket": (
        "the raffle prizes for the club dinner",
        "how to word the speech for the retiring groundsman",
        "the seating plan keeping the old rivals apart",
        "getting the juniors to help set up",
        "a vegetarian option that isn't just pasta",
        "the slideshow of the season's photos",
        "the bar tab arrangements",
        "a gentle reminder to members who haven't replied",
        "the trophies needing polishing",
        "how long the speeches should run",
        "music for the evening without it being naff",
        "the parking at the venue",
    ),
    "festival": (
        "the programme notes for the opening concert",
        "a quiet green room for the performers",
        "the sound engineer wanting more stage monitors",
        "how to describe a polyphonic choir to a local paper",
        "volunteer stewards for the tent",
        "the festival's social media posts",
        "dietary requests from the visiting musicians",
        "a welcome pack for performers",
        "how to tell the audience about the workshops",
        "keeping the instruments safe backstage",
        "the rain plan for the outdoor stage",
        "translating the safety briefing",
    ),
}
"""Each family's person: what they talk about with the assistant."""

_ASKS = (
    "{t}. thoughts?",
    "right, {t}. where would you start",
    "quick one about {t}",
    "can we go over {t} again, i lost the thread last time",
    "what am i missing with {t}",
    "honest opinion on {t} please",
    "i keep putting off {t}. talk me into it",
    "help me think through {t}",
    "so {t}... is there a sensible way to do it",
    "need a second brain on {t}",
    "any ideas for {t}? keep it practical",
    "been stewing over {t} all afternoon",
    "what would a sensible person do about {t}",
    "is {t} something i can sort myself or do i need help",
    "draft me something short about {t}",
)
_CONTEXT = (
    "",
    "",
    "",
    "",
    "bit of a long day so bear with me.",
    "no rush on this.",
    "sorry, my head's all over the place.",
    "the boss asked me to look into it.",
    "i had a stab at it already and it went nowhere.",
    "everyone has an opinion on this and none agree.",
    "typing this on the bus.",
)
_OPENERS = (
    "Good question.",
    "Let's work through it.",
    "Okay.",
    "That's a fair thing to worry about.",
    "Sure.",
    "Here's one way to look at it.",
    "Happy to.",
    "Right, a few thoughts.",
    "That one comes up a lot.",
)
_SENTENCES = (
    "Start with the part that's cheapest to change and see whether it's enough.",
    "It usually helps to write down what you've already tried so you don't go round in circles.",
    "Keep the first version simple; you can always add detail once people respond to it.",
    "Most of the trouble tends to come from rushing the preparation rather than the job itself.",
    "If you can, try it once on a quiet occasion before it matters.",
    "People respond better to a clear reason than to a long apology.",
    "A short checklist on the wall saves a surprising amount of hassle.",
    "Ask the people who do it every week; they'll know the shortcuts that actually work.",
    "There's rarely one right answer here, so pick something you can keep doing.",
    "Give it a proper go before deciding it doesn't work.",
    "Safety first, then comfort, then looks; that order settles most arguments.",
    "Plain words beat clever ones when you're explaining something to the public.",
    "If it still bothers you after that, it's worth getting a professional to look.",
    "Small, regular maintenance is much easier than fixing things once they've failed.",
    "Don't underestimate how much a calm tone helps when people are anxious.",
    "Try to keep the important bit in the opening line; plenty of people won't read further.",
    "A bit of slack in the plan means one hiccup doesn't knock everything over.",
    "It's fine to say no to the parts that aren't worth the effort.",
    "Have a spare of anything that's a single point of failure.",
    "Check the simple explanations first; it's often something loose or worn.",
    "Splitting the job into stages makes it less daunting and easier to hand over.",
    "When in doubt, ask the people affected what they'd find useful.",
    "You'll learn more from one real attempt than from another hour of reading.",
    "Clear labels and a tidy space prevent half the mistakes.",
    "It might be worth a quick word with whoever did it last time.",
    "Leave it a day and read it again before sending it.",
    "Keep a note of what worked so next year's version is easier.",
    "That should be enough to get going; tell me how it goes.",
    "If something feels off, trust that and stop to check.",
    "A friendly reminder usually works better than a stern one.",
)
_BULLETS = (
    "do the cheap fix first",
    "write it down",
    "test it quietly",
    "ask someone who's done it",
    "keep a spare",
    "tidy as you go",
    "plain words",
    "leave slack in the plan",
)
_THANKS = (
    "cheers",
    "thanks, that helps",
    "ok good",
    "right, will do",
    "ta",
    "nice one",
    "that's useful thanks",
)
_SEARCHES = (
    ("search_web", "keeping birds calm during transport", "Advice: covered box, quiet vehicle, "
     "no food shortly before travel, check temperature regularly."),
    ("search_web", "moving an upright piano up stairs", "Use a trained crew, a piano skid board, "
     "straps and padding; never tip it on its keyboard side."),
    ("search_web", "club dinner speech tips", "Keep it short, thank people by role, tell one "
     "story, finish with a toast."),
    ("search_web", "festival green room checklist", "Water, seating, mirrors, a quiet corner, "
     "secure storage for instruments and a clear way to the stage."),
    ("search_notes", "checklist", "Notes mention: go through the list the evening before and "
     "tick things off on the day."),
)  # fmt: skip

TALK = Talk(
    asks=_ASKS,
    context=_CONTEXT,
    openers=_OPENERS,
    sentences=_SENTENCES,
    bullets=_BULLETS,
    thanks=_THANKS,
    welcomes=("No problem.", "Any time.", "Glad to help."),
    lookups=_SEARCHES,
    lookup_lead="I'll look that up.",
    small_talk=(
        ("long week this one", "Sounds like it. Hopefully the weekend is a quiet one."),
        ("it's chucking it down here", "Good excuse to stay in and get the paperwork done."),
        ("back again, sorry", "No need to apologise, that's what I'm here for."),
        ("morning", "Morning! What's on the list today?"),
    ),
    small_talk_p=0.06,
    bullets_p=0.25,
)
"""The chatter of a person asking an assistant (prose, tables, chains, intl)."""

# -- two friends writing to each other (dialogue) -------------------------------------------

FRIEND_TOPICS = (
    "that film you went on about",
    "the new bakery on the corner",
    "your sister's wedding plans",
    "the weather lately",
    "that book club you joined",
    "the noise from the flats next door",
    "the podcast you sent me",
    "your fancy new coffee machine",
    "the pub quiz team",
    "the state of the trains",
    "your attempt at growing chillies",
    "the jigsaw that's taken over your table",
    "your neighbour's cat visiting",
    "the charity shop find you mentioned",
    "the hike we keep talking about",
    "that terrible karaoke night",
)
_FRIEND_ASKS = (
    "did anything come of {t}?",
    "ok tell me about {t}, i need distracting",
    "i keep thinking about {t} for some reason",
    "whatever happened with {t}",
    "sorry went quiet! anyway, {t}?",
    "random but {t} popped into my head today",
    "so {t}. go on then",
    "haha you'd have loved it. speaking of which, {t}?",
    "have you got any news on {t}",
    "i owe you a proper reply about {t}",
)
_FRIEND_CONTEXT = (
    "",
    "",
    "",
    "what a day.",
    "on the sofa finally.",
    "it's been ages!",
    "just got in.",
    "ugh my phone keeps dying.",
)
_FRIEND_OPENERS = (
    "Ha, well.",
    "Oh god, don't get me started.",
    "Honestly?",
    "Right so.",
    "You won't believe it.",
    "Not much to report really.",
    "Funny you should ask.",
    "Ahh yes.",
)
_FRIEND_SENTENCES = (
    "It was better than I expected, which isn't saying much.",
    "I keep meaning to tell you about it properly.",
    "We ended up laughing about it for ages afterwards.",
    "It went a bit sideways but nobody got hurt.",
    "I'll show you the photos when I see you.",
    "Everyone had a different opinion and nobody would back down.",
    "I think we'll give it another go when things calm down.",
    "It's one of those things that sounds simple until you try it.",
    "Honestly I could talk about it for hours, so I'll stop there.",
    "It did make me think of you.",
    "I'm not convinced it was worth the fuss.",
    "The whole thing took twice as long as it should have.",
    "At least it gave us something to talk about.",
    "I've decided not to think about it until after the weekend.",
    "You'd have rolled your eyes at the whole business.",
    "We should do it together next time, it'd be more fun.",
    "It was a proper mess but a fun one.",
    "I think I've finally got the hang of it.",
    "I'll tell you the rest when we speak.",
    "Anyway, enough about that, how are things your end?",
    "The best bit was how seriously everyone took it.",
    "I'm still a bit annoyed about it, if I'm honest.",
    "It sounds daft written down but it was lovely.",
    "No regrets, apart from the bits I regret.",
    "I'll put it on the list of things we never got round to.",
)
_FRIEND_THANKS = ("haha", "omg", "classic", "love that", "ha, fair", "brilliant", "oh no")
_FRIEND_WELCOMES = ("I know!", "Right?", "Ha, exactly.", "Tell me about it.")

FRIENDS = Talk(
    asks=_FRIEND_ASKS,
    context=_FRIEND_CONTEXT,
    openers=_FRIEND_OPENERS,
    sentences=_FRIEND_SENTENCES,
    bullets=(),
    thanks=_FRIEND_THANKS,
    welcomes=_FRIEND_WELCOMES,
    small_talk=(
        ("how's your week been", "Busy but fine. Yours?"),
        ("miss you!", "Miss you too. We need to sort a proper catch-up."),
        ("are you around later?", "Should be, give me a shout."),
        ("sorry, crazy few days", "Don't worry, same here."),
    ),
    small_talk_p=0.1,
    lookup_p=0.0,
    thanks_p=0.2,
    bullets_p=0.0,
)
"""The chatter of two friends writing to each other (dialogue)."""


class Writer(_Writer):
    """:class:`evals.families.blind6.base.Writer` with this set's people, talk and names.

    ``names`` (``{"user": ..., "assistant": ...}``) puts a ``name`` on every message of
    those roles, as a chat between two people carries who wrote each line.
    """

    personas: Mapping[str, Sequence[str]] = {**PERSONAS, "friends": FRIEND_TOPICS}

    def __init__(
        self,
        rng: random.Random,
        system: str,
        persona: str | None = None,
        *,
        talk: Talk = TALK,
        names: Mapping[str, str] | None = None,
    ) -> None:
        self.names = dict(names or {})
        super().__init__(rng, system, persona)
        self.talk = talk
        if "system" in self.names:  # pragma: no cover - a system message has no speaker
            raise ValueError("only user and assistant messages carry a name")

    def say(self, role: str, text: str) -> int:
        if role in self.names:
            self.messages.append({"role": role, "content": text, "name": self.names[role]})
            return len(self.messages) - 1
        return super().say(role, text)


def writer(
    persona: str, *, talk: Talk = TALK, names: Mapping[str, str] | None = None
) -> Callable[[random.Random, str], Writer]:
    """What :func:`evals.families.blind6.base.build` calls to make this set's writer."""

    def make(rng: random.Random, system: str) -> Writer:
        return Writer(rng, system, persona, talk=talk, names=names)

    return make
