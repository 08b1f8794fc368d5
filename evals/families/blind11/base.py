"""What the eleventh blind set's families share: its people, their chatter, the writer.

The people: a semi-retired joiner who keeps bees and is learning Spanish, the head brewer of a
small brewery, a potter taking a stand at a craft trade fair, someone arranging care for their
mother after a fall, and a museum registrar arranging loans from abroad. Their chatter (this
set's :class:`~evals.families.blind6.base.Talk`) never holds a digit, a clock time, money, a
weekday, a month, a code or a person's name, so a planted value cannot turn up in it by chance;
:func:`~evals.families.blind6.base.build` draws a seed again when one still does.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind6.base import Talk, Writer

__all__ = ["PERSONAS", "TALK", "Writer11", "writer"]

PERSONAS = {
    "joiner": (
        "the hives getting tetchy when the weather turns",
        "a sticking sash window at a customer's house",
        "Spanish verbs that change in the past tense",
        "whether to take the honey off early",
        "sharpening chisels properly",
        "getting my grandson interested in woodwork",
        "a wobbly oak table that somebody glued badly",
        "listening practice for my evening class",
        "wax moth in the spare frames",
        "quoting for a small job without underselling myself",
        "the shed roof letting water in at one corner",
        "keeping the workshop warm without a fortune in heating",
        "a swarm that settled in the neighbour's hedge",
        "why my mortise joints come out loose",
    ),
    "brewer": (
        "a stuck fermentation on the stout",
        "the label printer smearing ink",
        "cleaning schedules for the bright tanks",
        "the taproom staff rota feeling unfair",
        "dry hopping without oxygen pickup",
        "a pub that keeps sending kegs back late",
        "whether to try a barrel-aged release",
        "the glycol chiller making a new noise",
        "writing tasting notes that aren't pretentious",
        "the yeast getting tired after a few generations",
        "our social posts getting no engagement",
        "a haze that won't settle in the pale ale",
        "the grain mill dust everywhere",
        "keeping the cold store organised",
    ),
    "potter": (
        "glazes crawling on the rims",
        "packing mugs so they survive the van",
        "pricing small pieces without undercutting myself",
        "the kiln taking ages to cool",
        "a display that doesn't look like a car boot sale",
        "talking to customers without sounding pushy",
        "throwing taller cylinders",
        "the card reader dropping its connection",
        "what to put on the little signs",
        "reclaiming clay without a mess",
        "cracks appearing on the bases of bowls",
        "whether to offer commissions at the fair",
        "photographing pieces for the website",
        "staying on my feet all day without wrecking my back",
    ),
    "carer": (
        "getting mum to use the walking frame",
        "the pile of forms from the council",
        "my brother not pulling his weight",
        "meals she'll actually eat",
        "the bathroom being a hazard",
        "keeping her spirits up",
        "juggling all this with work",
        "her getting muddled about her tablets",
        "the hospital discharge letter nobody explained",
        "whether she should still be living alone",
        "the stairs in her house",
        "keeping track of who's visiting when",
        "her refusing help from strangers",
        "looking after myself through all of it",
    ),
    "registrar": (
        "condition reports for fragile textiles",
        "the crate builder's drawings",
        "humidity in the temporary gallery",
        "insurance wording for works on loan",
        "a lender who keeps changing their mind",
        "packing a carved panel with a loose edge",
        "the exhibition labels being too long",
        "keeping the loan paperwork in one place",
        "light levels for works on paper",
        "the curator wanting everything at once",
        "how much to explain to the couriers",
        "the customs paperwork in general",
        "storing empty crates during the show",
        "a polite chaser to a slow lender",
    ),
}
"""Each person's topics: nothing with a digit, a date, a place or a person's name."""

TALK = Talk(
    asks=(
        "been stewing on {t}, what would you do",
        "right, {t}. talk me through it",
        "{t} is doing my head in, any advice",
        "got a minute? {t}",
        "honest opinion on {t} please",
        "what am i missing with {t}",
        "how do other people deal with {t}",
        "one more thing on my list: {t}",
        "i keep putting off {t}, where do i start",
        "can you give me a plan for {t}",
        "dumb question maybe, but {t}",
        "what's a sensible first step for {t}",
        "{t} came up again today, ideas welcome",
        "is it just me or is {t} harder than it looks",
        "short version please: {t}",
        "bit stuck on {t}",
    ),
    context=(
        "",
        "",
        "",
        "no rush on this.",
        "long day, be gentle.",
        "on my phone so keep it brief.",
        "asking before i forget again.",
        "had a go already, didn't go well.",
        "someone gave me advice on this but i wasn't convinced.",
        "just thinking out loud really.",
        "it's been nagging at me all week.",
    ),
    openers=(
        "Good question.",
        "Let's sort this out.",
        "Okay, here's my take.",
        "That one catches a lot of people out.",
        "Sure, let's go through it.",
        "Makes sense to ask.",
        "Right, a few thoughts.",
        "Happy to think it through with you.",
        "Fair enough.",
        "Here's where I'd begin.",
    ),
    sentences=(
        "Start with whatever is cheapest to check, then work outwards.",
        "Small, steady changes are easier to judge than one big overhaul.",
        "Write down what you see before you change anything, so you can compare afterwards.",
        "If it worked before, look for what changed around the time it stopped working.",
        "Take a step back and ask what a good result would actually look like.",
        "Most of the effort goes into preparation, and it pays off later.",
        "A second opinion from someone who does this often can save a lot of guesswork.",
        "Don't try to solve every part of it at once; pick the part that bothers you most.",
        "Keep the tone calm and specific when you raise it with other people.",
        "A short trial before committing properly is often worth it.",
        "Clean tools and a tidy space make this kind of job noticeably easier.",
        "If the first fix doesn't hold, that tells you something useful too.",
        "Give it time to settle before judging whether it worked.",
        "A simple checklist stops the same small mistake coming back.",
        "There's no shame in asking the supplier directly; they get these questions a lot.",
        "Be wary of advice that promises a quick fix for something slow by nature.",
        "Working in good light makes it much easier to spot problems early.",
        "A bit of patience here saves a lot of rework down the line.",
        "You can always tighten things up later once the basics are steady.",
        "If something feels unsafe, stop and get a proper look at it first.",
        "Look after yourself in the middle of it; tired people make avoidable mistakes.",
        "A short note after each attempt builds into a really useful record.",
        "It's fine to keep it plain; plain tends to work.",
        "People respond better to a clear request than to hints.",
        "Try it on something that doesn't matter before the thing that does.",
        "If the instructions and the forums disagree, trust the instructions first.",
        "Most problems like this have a boring cause, which is good news.",
        "Keep spares of the small parts that tend to go missing.",
        "When in doubt, slow down rather than push harder.",
        "The aim is steady improvement, not perfection on the first go.",
        "Tidy up as you go so the next step starts from a clean slate.",
        "Once it works, write down how, because you'll forget.",
        "A bit of routine takes the decision-making out of it.",
        "Share the load where you can; you don't have to carry all of it.",
        "Check the simplest explanation before the dramatic one.",
        "Leave enough margin that a small delay doesn't become a crisis.",
        "If you're unsure which option is better, try the easier one to undo.",
        "Let me know how it goes and we can adjust from there.",
    ),
    bullets=(
        "check the basics",
        "change one thing",
        "write it down",
        "give it time",
        "ask someone who knows",
        "keep it simple",
        "tidy as you go",
        "stop if unsure",
    ),
    bullets_head="In short:",
    bullet="*",
    thanks=(
        "cheers",
        "ta, that helps",
        "brilliant thank you",
        "ok will try",
        "good, thanks",
        "sound",
        "that's useful ta",
        "nice one",
    ),
    welcomes=("You're welcome.", "Any time.", "Hope it goes well."),
    lookups=(
        (
            "search_web",
            "common causes and fixes",
            "Forum threads mostly agree: check the "
            "simple things first, give changes time to show, and keep notes of what was tried.",
        ),
        (
            "search_web",
            "beginner guide",
            "Guides suggest starting small, using decent tools, "
            "and asking an experienced person to look over the first attempt.",
        ),
        (
            "search_notes",
            "earlier notes",
            "Notes mention: tried the gentle approach first, "
            "partly worked, come back to it when there's more time.",
        ),
        (
            "search_notes",
            "to do list",
            "Notes mention: sort the paperwork, tidy the workspace, chase the outstanding replies.",
        ),
    ),
    lookup_lead="One moment, checking.",
    small_talk=(
        ("grim weather out there today", "Sounds it. A good day for indoor jobs, maybe."),
        ("finally had a proper night's sleep", "That makes all the difference. Glad to hear it."),
        ("kettle's on, what shall we tackle", "Let's pick whatever is nagging at you most."),
        ("feeling a bit flat today honestly", "Sorry to hear that. We can keep things light."),
        ("sun's out at last", "Lovely. Make the most of it if you can get outside."),
        ("back again, sorry", "No need to apologise, happy to carry on."),
    ),
    code=(
        "Hi there,\n\nJust following up on my earlier message. Could you let me know where "
        "things stand when you get a chance?\n\nThanks very much",
        "Checklist:\n[ ] gather what's needed\n[ ] do a small trial\n[ ] note what happened\n"
        "[ ] decide the next step",
        "Hello,\n\nThanks for your patience with this. I've had a look and I think we can sort "
        "it out between us without too much trouble.\n\nKind regards",
    ),
    code_head="Something like this, if it helps:",
    small_talk_p=0.08,
    lookup_p=0.1,
    thanks_p=0.15,
    bullets_p=0.25,
    code_p=0.32,
)
"""This set's chatter: asks about a person's own topics, generic answers, small talk."""


class Writer11(Writer):
    """The sixth set's writer with this set's chatter and people."""

    talk = TALK
    personas = PERSONAS


def writer(persona: str) -> Callable[[random.Random, str], Writer11]:
    """A maker of :class:`Writer11` for ``persona`` (what :func:`build` takes as ``writer``)."""

    def make(rng: random.Random, system: str) -> Writer11:
        return Writer11(rng, system, persona)

    return make
