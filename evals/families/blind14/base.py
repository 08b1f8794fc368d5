"""What the fourteenth blind set's families share: its people, their chatter, a turn writer.

The set reuses the sixth set's :class:`~evals.families.blind6.base.Writer` (its checks, seed
redraw, ``spread``, ``run`` and ``timeline``) with chatter of its own: a stained-glass
workshop, a teacher running a school ski trip, a tea importer, a retired ship's engineer who
mends clocks and a mobile dog groomer. The chatter holds no digit, clock time, money,
weekday, month, code or person's name, so a planted value cannot turn up there by chance.
"""

from __future__ import annotations

from evals.families.blind6.base import Talk, Writer

__all__ = ["PERSONAS", "TALK", "Writer14"]

PERSONAS: dict[str, tuple[str, ...]] = {
    "glass": (
        "the lead came warping in the cold",
        "getting the apprentice to cut cleaner curves",
        "cleaning old putty off a panel without cracking it",
        "the kiln smelling odd on the last firing",
        "how to word a reply to a fussy parish committee",
        "photographing panels against the light for the website",
        "the dust extraction in the cutting room",
        "storing big sheets of antique glass safely",
        "whether to take on more teaching",
        "the soldering iron tip pitting",
    ),
    "ski": (
        "getting teenagers to pack sensible layers",
        "the permission slip wording for nervous parents",
        "what to do if a pupil gets homesick",
        "keeping the evening activities from descending into chaos",
        "explaining altitude and sun cream to a class",
        "a rota for the staff on night duty",
        "the kit list for pupils who have never skied",
        "how to run the parents' information evening",
        "what to put in the first aid bag",
        "getting the form tutors to chase the missing forms",
    ),
    "tea": (
        "the warehouse humidity creeping up",
        "how to describe a smoky oolong on the product page",
        "cupping notes getting vague by the end of a session",
        "the new packaging supplier's sample bags",
        "whether to start a subscription box",
        "training the new hire on grading leaf",
        "the website checkout being slow",
        "storing matcha so it doesn't go flat",
        "how to reply to a wholesale customer complaining about dust",
        "a talk I have to give at the local market",
    ),
    "clocks": (
        "a longcase clock that keeps stopping",
        "the allotment shed roof",
        "finding a decent watchmaker's lathe second hand",
        "my grandson's science homework",
        "the neighbour's hedge",
        "cleaning a movement without losing the little screws",
        "whether to join the local horological society",
        "the sourdough my daughter left me to look after",
        "getting the pendulum regulation right",
        "the crossword club at the library",
    ),
    "dogs": (
        "a doodle that hates the dryer",
        "the van's water heater being temperamental",
        "how to tell a client their dog needs a shorter clip",
        "clipper blades running hot",
        "the booking app sending reminders twice",
        "a nervous rescue greyhound",
        "keeping the van smelling fresh",
        "matted coats after the muddy season",
        "whether to offer nail trims as a walk-in thing",
        "my wrists aching after a full day",
    ),
}

_ASKS = (
    "hmm, {t}. what would you suggest",
    "can I pick your brains about {t}",
    "next thing on my mind is {t}",
    "any tips on {t}?",
    "I keep putting off thinking about {t}, help me get started",
    "what's a sensible approach to {t}",
    "back to {t} for a minute",
    "is it just me or is {t} harder than it should be",
    "could you give me a few pointers on {t}",
    "quick one: {t}",
    "I'd like a second opinion on {t}",
    "{t} - where would you begin?",
)
_CONTEXT = (
    "",
    "",
    "",
    "no rush on this.",
    "it's been one of those days.",
    "keep it practical please.",
    "I've read a bit about it already.",
    "someone at work raised it again.",
    "just thinking out loud really.",
)
_OPENERS = (
    "Good question.",
    "Sure, happy to think it through.",
    "Right, here's how I'd go about it.",
    "That one comes up a lot.",
    "Okay.",
    "Let's break it down.",
    "No problem.",
    "I can help with that.",
)
_SENTENCES = (
    "Start with the simplest fix and only move on if it doesn't help.",
    "It usually pays to look at the conditions first, then the tools, then the technique.",
    "Write down what you change so you can tell what actually made the difference.",
    "A little preparation up front saves a lot of backtracking later on.",
    "If you can, try it on something that doesn't matter before the real thing.",
    "People tend to overthink this part, and the plain approach works well enough.",
    "Keep the explanation short and friendly, then offer to go into detail if they ask.",
    "Cleaning and checking the basics solves more of these than anything clever.",
    "It's worth asking someone who has done it before, they'll spot things quickly.",
    "Give it time to settle before you judge whether it worked.",
    "Small, regular attention is better than one big effort when things go wrong.",
    "Be honest about what you can and can't do, it saves awkwardness later.",
    "Break the job into stages and stop at a natural point if you get tired.",
    "The manufacturer's guidance is usually more reliable than what you read on forums.",
    "Make sure everyone involved knows who to ask when something comes up.",
    "A checklist you actually use beats a perfect plan you never look at.",
    "Good light and a tidy bench make fiddly work much less frustrating.",
    "If something feels unsafe, stop and get a second opinion before carrying on.",
    "Most of the time the problem is earlier in the process than where you notice it.",
    "Try to keep the tone calm; people respond better to a clear plan than to worry.",
    "You don't need expensive kit for this, just a bit of patience.",
    "Keep the old version until you're sure the new approach is better.",
    "A short note after each session helps you pick up where you left off.",
    "Don't be afraid to say no to things that stretch you too thin.",
    "Think about what could go wrong, then decide which of those you can live with.",
    "Reading it aloud is a good way to catch anything that sounds off.",
    "That should get you going; tell me how it turns out and we can adjust.",
    "Have a look again tomorrow with fresh eyes before deciding.",
)
_BULLETS = (
    "check the basics first",
    "change one thing at a time",
    "keep notes",
    "ask someone experienced",
    "test on a spare",
    "leave it to settle",
    "keep it simple",
    "tidy as you go",
)
_THANKS = ("thanks", "that helps, cheers", "great, thank you", "ok will try that", "useful, ta")
_WELCOMES = ("You're welcome.", "Any time.", "Hope it goes well.", "Glad to help.")
_SMALL = (
    ("long day today", "Sounds like it. Hope you get a quiet evening."),
    ("finally some sunshine here", "Lovely, make the most of it."),
    ("sorry, got distracted by a phone call", "No problem at all, whenever you're ready."),
    ("coffee number three...", "Pace yourself!"),
)

TALK = Talk(
    asks=_ASKS,
    context=_CONTEXT,
    openers=_OPENERS,
    sentences=_SENTENCES,
    bullets=_BULLETS,
    thanks=_THANKS,
    welcomes=_WELCOMES,
    small_talk=_SMALL,
    small_talk_p=0.06,
    lookups=(
        (
            "search_web",
            "general tips",
            "Several guides agree: prepare well, go slowly, and check the result before moving on.",
        ),
        ("search_notes", "ideas", "Notes mention: ask around, keep it simple, review later."),
    ),
    lookup_lead="Let me check.",
    bullets_head="In short:",
)
"""This set's chatter (topics come from ``PERSONAS``)."""


class Writer14(Writer):
    """The sixth set's writer with this set's chatter and people."""

    talk = TALK
    personas = PERSONAS
