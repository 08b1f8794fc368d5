"""What the twelfth blind set's families share: its people, their chatter, the writer.

The people: a long-distance lorry driver with a family and an allotment, the manager of a small
boatyard and marina, a family moving house to another town, a freelance illustrator setting up
her business, and the owner of a homeware shop importing from Thailand, Japan, Ukraine and
Iran. Their chatter (this set's :class:`~evals.families.blind6.base.Talk`) never holds a digit,
a clock time, money, a weekday, a month, a code or a person's name, so a planted value cannot
turn up in it by chance; :func:`~evals.families.blind6.base.build` draws a seed again when one
still does.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind6.base import Talk, Writer

__all__ = ["PERSONAS", "TALK", "Writer12", "writer"]

PERSONAS = {
    "driver": (
        "keeping my back loose after a long stint behind the wheel",
        "what to cook on a little gas stove in the cab",
        "the allotment going wild while i'm away all week",
        "sleeping properly in a lay-by with the fridge units humming",
        "my lad wanting to learn to drive already",
        "staying awake on the boring stretches without gallons of coffee",
        "the shed roof that drips onto the lawnmower",
        "podcasts that are actually worth the time",
        "the runner beans not setting",
        "getting fitter without paying for a gym",
        "the washing machine making a grinding noise",
        "helping the youngest with fractions over the phone",
    ),
    "marina": (
        "gulls nesting on the pontoon shelter roof",
        "wording the berth holders' newsletter",
        "the slipway winch groaning under load",
        "osmosis blisters on an older fibreglass hull",
        "keeping the chandlery shelves tidy",
        "the fuel berth procedure for new staff",
        "weed growing on the visitor pontoon",
        "explaining the winter storage rules nicely",
        "the office printer jamming every other page",
        "a sailing club wanting to use the clubhouse",
        "rust streaks on the crane jib",
        "the shower block drains backing up",
    ),
    "mover": (
        "clearing out the loft before the move",
        "telling the kids about the new school",
        "packing the kitchen without losing the kettle",
        "the cat hating the carrier",
        "what to do with the old piano",
        "labelling boxes so we can actually find things",
        "saying goodbye to the neighbours properly",
        "the garden we're leaving behind",
        "getting the deposit back on the storage unit",
        "whether to paint before or after moving in",
        "keeping the toddler's routine during the chaos",
        "forwarding post without missing anything",
    ),
    "illustrator": (
        "clients who go quiet after the first sketches",
        "my wrist aching after a long inking session",
        "pricing a picture book cover",
        "colour profiles going odd when printed",
        "keeping a sketchbook habit going",
        "writing a friendly chaser for an unpaid invoice",
        "the studio corner being too dark in winter",
        "whether to take on a licensing deal",
        "scanning large pieces without seams showing",
        "putting together a portfolio for publishers",
        "brushes going stiff after gouache",
        "imposter syndrome before a big pitch",
    ),
    "importer": (
        "product photos on a plain background",
        "wording the returns policy",
        "a window display for the darker evenings",
        "packing fragile ceramics for posting",
        "writing descriptions for handwoven cushions",
        "the shop's newsletter going to spam",
        "a customer asking for a discount on a lamp",
        "rearranging the stockroom shelves",
        "the card machine dropping its connection",
        "choosing a scent for the shop",
        "pricing a batch of lacquer bowls",
        "training the weekend helper on the till",
    ),
}
"""Each person's topics (the ``persona`` a family's writer is made for)."""

TALK = Talk(
    asks=(
        "need a hand with {t}",
        "right, {t}. what am i missing",
        "been meaning to ask about {t} for ages",
        "{t} is doing my head in, any ideas",
        "whats the sensible way to go about {t}",
        "can we talk about {t} for a sec",
        "so {t}. thoughts?",
        "give me the short version on {t}",
        "im stuck on {t}, where would you start",
        "my partner reckons {t} sorts itself out. does it",
        "honest opinion on {t} please",
        "tips for {t}? nothing too fancy",
        "what do people usually get wrong about {t}",
        "be straight with me about {t}",
        "one more thing, {t}",
    ),
    context=(
        "",
        "",
        "",
        "",
        "bit of a long day so bear with me.",
        "no rush on this one.",
        "i asked somewhere else and got three different answers.",
        "it keeps coming back no matter what i do.",
        "just want to get it off my list.",
        "on my phone so excuse the typing.",
        "probably overthinking it.",
        "quick one while the kettle boils.",
    ),
    openers=(
        "Good question.",
        "Sure, let's work through it.",
        "That one trips up plenty of people.",
        "Okay.",
        "Happy to.",
        "Let's see.",
        "Right, here's my take.",
        "Makes sense to ask.",
        "Alright.",
        "No problem.",
    ),
    sentences=(
        "Start with the simplest explanation and rule it out before trying anything clever.",
        "It helps to write down what you've already tried so you don't go in circles.",
        "A little and often usually beats one big effort at the end.",
        "If something feels off, it's worth stopping and checking rather than pushing on.",
        "Most of the advice online is fine, it's just far more complicated than it needs to be.",
        "Give it a proper try for a while before judging whether it works.",
        "Small changes are easier to undo than big ones, so start there.",
        "A clear note to everyone involved saves a lot of back and forth later.",
        "You know your own situation better than any guide does, so trust that.",
        "Keep the first attempt rough; you can tidy it once you know it works.",
        "It's normal for this to take a couple of goes before it settles.",
        "Ask whoever deals with it every day, they'll have a trick or two.",
        "Don't spend more on the fix than the problem is costing you.",
        "Being upfront and friendly tends to get a better response than being formal.",
        "A bit of routine makes this much easier to keep up.",
        "Check the obvious things first: power, connections, settings.",
        "If you're tired, leave it and come back to it fresh.",
        "Break the job into pieces so each one feels doable.",
        "It's worth having a backup plan in case the first idea doesn't pan out.",
        "Take a photo before you change anything so you can put it back.",
        "Plenty of people find this awkward, so you're in good company.",
        "Keep it short and kind, that usually lands well.",
        "Patience is most of the trick here, honestly.",
        "Good lighting and a clean surface make more difference than expensive kit.",
        "Once it's working, write the steps down for next time.",
        "If it keeps happening, look for a pattern in when it happens.",
        "A second opinion from someone you trust can save a lot of worry.",
        "Try not to change three things at once, or you won't know what helped.",
        "There's no shame in paying someone to do the bit you hate.",
        "Let me know how it goes and we can adjust from there.",
        "Fresh air and a short walk often solve more than another hour of staring at it.",
        "The cheap fix is often good enough for now.",
        "It sounds like you're most of the way there already.",
        "Be kind to yourself, this stuff is fiddly.",
        "Stick with what's working and only tweak the part that isn't.",
    ),
    bullets=(
        "check the basics",
        "change one thing",
        "write it down",
        "ask someone who knows",
        "give it time",
        "keep it simple",
        "have a fallback",
        "take a break",
    ),
    bullets_head="In short:",
    bullet="*",
    thanks=("cheers", "ta", "thanks, helpful", "nice one", "ok will try", "good stuff", "ace"),
    welcomes=("No problem.", "Anytime.", "Hope it goes well."),
    web_results=(
        "Top results: a forum thread with a dozen suggestions, a how-to guide, and a short "
        "video walking through the basics.",
        "Results: general advice pages recommending patience, small changes and checking the "
        "simple causes first.",
        "A few guides and a discussion thread; most agree the simple approach works for most "
        "people.",
    ),
    small_talk=(
        ("morning!", "Morning! What's on today?"),
        ("what a week", "Sounds like it. Anything I can take off your plate?"),
        ("weather's turned hasn't it", "It has. Stay warm out there."),
        ("ok back again", "Welcome back. What do you need?"),
        ("hah that made me laugh", "Glad to hear it."),
    ),
    small_talk_p=0.06,
    lookup_p=0.1,
    thanks_p=0.15,
    bullets_p=0.25,
)
"""This set's chatter."""


class Writer12(Writer):
    """The blind6 writer with this set's chatter and people."""

    talk = TALK
    personas = PERSONAS


def writer(persona: str) -> Callable[[random.Random, str], Writer12]:
    """A maker of :class:`Writer12` for ``persona`` (what ``build`` takes as ``writer``)."""

    def make(rng: random.Random, system: str) -> Writer12:
        return Writer12(rng, system, persona)

    return make
