"""``prose-answers``: personal facts said as answers to the assistant's questions, among busy chat.

An own family (not held out; written in round 11 with the summarizer in view) for the loss the
held-out plain-prose cells show at 4,000/3,000/1,000, built from how people say things about
themselves in a chat rather than from any held-out set. People rarely announce "my X is Y":

- **Answer.** The assistant asks two to four questions before it helps ("How many of you? Is
  there anything anyone can't eat? Do you have a car?"), and the user answers them in one
  short message, a few words each ("Four of us. My youngest won't touch mushrooms. No car,
  we cycle."). The detail is one short sentence that only makes full sense beside the
  question.
- **Terse.** The assistant asks one question, the user answers in a handful of words
  ("Decaf, after two cups I'm up all night.").
- **Clause.** The user rambles about their day, dense with values (distances, money, times,
  counts), and the detail is one clause among many ("..., the physio says no running till the
  knee heals, ...").

Between them, the user's everyday chat is itself value-dense small talk, a lead-in, an event
with a distance, an amount or a time, and a tail, drawn apart so that a sentence is rarely said
twice in the same words ("Quick update before I forget, booked the plumber for 7:18 and he
wants 249.07 pounds just to come and look, go figure."), beside the fifth blind set's plain
requests (:meth:`~evals.families.blind5.base.Writer.chatter`). The long small-talk lines leave
a 1,000-token summary room for 30 to 40 lines, and at 4,000/3,000/1,000 the details lose to
them. No message carrying a detail uses a cue word ("prefer", "always", "never", "love",
"hate", "favourite", "remember").
"""

from __future__ import annotations

from evals.families.blind5.base import Writer, build, spread
from evals.families.trajectories import Trajectory

__all__ = ["CUES", "DETAILS", "generate"]

SYSTEM = "You are a friendly assistant helping with everyday plans. Ask before you assume."

CUES = ("prefer", "always", "never", "hate", "love", "favourite", "remember", "fyi", "note")
"""Words no message carrying a detail uses."""

# (kind, value, the assistant's question, a terse answer, a clause of a ramble); {v} = value.
DETAILS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "preference",
        "mushrooms",
        "Is there anything anyone won't eat?",
        "My youngest won't go near {v}.",
        "the youngest picked every last bit of {v} out of the stew again",
    ),
    (
        "preference",
        "decaf",
        "How do you take your coffee?",
        "Just {v}, after two cups I'm up all night.",
        "I've switched to {v} since the second cup keeps me up",
    ),
    (
        "value",
        "no car",
        "Do you have a car, or is it public transport?",
        "We've got {v}, it's bikes and the tram.",
        "with {v} it's the tram or the bikes for everything",
    ),
    (
        "preference",
        "knee",
        "Anything physical I should keep in mind?",
        "The {v} is still dodgy, no stairs if I can help it.",
        "the physio says the {v} needs another six weeks before any running",
    ),
    (
        "name",
        "Biscuit",
        "Is anyone else in the house I should plan around?",
        "Just the dog, {v}, she can't be left more than a few hours.",
        "{v} the spaniel had to come with us because she can't be left alone",
    ),
    (
        "preference",
        "halal",
        "Any dietary rules for the group?",
        "My in-laws eat {v}, so that needs sorting.",
        "the in-laws eat {v} so half the menu was out anyway",
    ),
    (
        "value",
        "night shifts",
        "What does your week look like?",
        "I work {v} on the ward, so mornings are for sleeping.",
        "after three {v} in a row on the ward I barely know what day it is",
    ),
    (
        "preference",
        "vertigo",
        "Would you be up for the cable car?",
        "Not with my {v}, anything high and I freeze.",
        "my {v} kicked in halfway up the lighthouse steps",
    ),
    (
        "value",
        "left-handed",
        "Who'll be using the tools mostly?",
        "Me, and I'm {v}, which rules out half the scissors in the shop.",
        "being {v} I had to borrow the only pair of scissors that worked",
    ),
    (
        "preference",
        "sparkling water",
        "What do you usually drink when you're out?",
        "Only {v}, I gave up alcohol two years ago.",
        "I stuck to {v} because I gave up drinking a while back",
    ),
    (
        "name",
        "Ottoline",
        "What's your daughter called, so I can put it on the card?",
        "{v}, she'll be six.",
        "{v} lost her first tooth at the table",
    ),
    (
        "value",
        "third floor",
        "Is there a lift where you live?",
        "No lift, and we're on the {v}.",
        "hauling the shopping up to the {v} without a lift nearly finished me",
    ),
    (
        "preference",
        "hay fever",
        "Indoors or outdoors, would you say?",
        "Indoors in summer, my {v} is brutal.",
        "my {v} was so bad I spent the picnic sneezing in the car",
    ),
    (
        "value",
        "Polish",
        "Which language should the invitation be in?",
        "English is fine, though Gran only reads {v}.",
        "Gran had the menu translated into {v} for her",
    ),
    (
        "preference",
        "wheelchair",
        "Does anyone need step-free access?",
        "Yes, my brother uses a {v}.",
        "we had to find a café my brother's {v} could get into",
    ),
    (
        "value",
        "twins",
        "How many kids are we talking?",
        "Two, {v}, both nine.",
        "the {v} had a fight over the last slice of cake",
    ),
    (
        "preference",
        "pescatarian",
        "Meat, fish, or neither for you?",
        "Fish is fine, I've been {v} for years.",
        "being {v} I had the salmon while everyone else had burgers",
    ),
    (
        "value",
        "allotment",
        "Do you have any outdoor space?",
        "No garden, but we rent an {v} down the road.",
        "I spent an hour at the {v} pulling up bindweed",
    ),
    (
        "preference",
        "early riser",
        "Morning or evening person?",
        "Very much an {v}, I'm useless after nine at night.",
        "as an {v} I was yawning by the time the film started",
    ),
    (
        "value",
        "hearing aid",
        "Would a phone call or a text be easier for your dad?",
        "Text, he wears a {v} and phone calls are hard for him.",
        "Dad's {v} whistled all through the speeches",
    ),
    (
        "name",
        "Corfu",
        "Have you been anywhere with the kids that worked well?",
        "{v} a couple of summers back, the quiet end.",
        "the photos from {v} came out of the printer at last",
    ),
    (
        "preference",
        "sesame",
        "Any allergies at all?",
        "My partner can't have {v}, it's a serious one.",
        "my partner checked every label for {v} like a hawk",
    ),
)
# Value-dense small talk from the user: the chatter a summary is tempted to keep. A lead-in, an
# event with values and a tail, drawn apart, so a sentence is rarely said twice in the same words.
_LEADS = (
    "Honestly, what a day:",
    "So, news from here,",
    "Quick update before I forget,",
    "Not that you asked, but",
    "Right, so this morning",
    "Funny thing,",
    "Typical week really,",
    "Small victories,",
)
_BUSY = (
    "ran {n} km along the canal before work",
    "spent {m} at the garage on a noise that turned out to be nothing",
    "the {t} train was cancelled so I didn't get in until {t2}",
    "booked the plumber for {t} and he wants {m} just to come and look",
    "read {n} pages of the book club novel in one go",
    "did {n} loads of washing and the airer is about to give up",
    "the heating bill came in at {m} for the quarter",
    "walked {n} km round the reservoir with a friend from work",
    "the bus was {n} minutes late and then skipped my stop",
    "the swimming lesson got pushed back to {t} without any warning",
    "paid {m} for a parking ticket I'm still going to appeal",
    "picked {n} tomatoes off the one plant that survived the slugs",
    "the online shop charged {m} for delivery on a {m2} order",
    "sat in a {n} minute queue at the post office behind a man with a sofa",
    "my step counter says {n} thousand and it's barely lunchtime",
    "the dentist moved my check-up to {t} on a day I'm at work",
)
_TAILS = (
    "",
    ", which was about the level of it",
    ", so that's where my head's at",
    ", and I'm still not over it",
    ", classic",
    ", go figure",
)
_ASKS = (
    "anyway, what's a quick dinner I can make tonight?",
    "anyway, any ideas for something to do this weekend?",
    "anyway, how do I get red wine out of a rug?",
    "anyway, what's a nice way to say no to a party invite?",
    "anyway, could you suggest a podcast for the commute?",
    "anyway, what should I pack for a long weekend away?",
)
_HELP = (
    "Could you help me plan a small get-together at ours next month?",
    "I want to sort out a day out for the family soon, can you help?",
    "Can you help me put together a week of simple dinners?",
    "I'd like to plan a short trip somewhere in the spring, where do I start?",
    "Help me organise a birthday lunch, nothing fancy.",
    "Could you help me set up a weekly routine that actually works for us?",
)
_QUESTIONS = (
    "How many people are we planning for?",
    "Roughly what budget did you have in mind?",
    "Any particular date you're aiming at?",
    "Is it indoors or could it be outdoors?",
    "How much time can you give it?",
)
_COUNTS = ("Six of us.", "Four, maybe five.", "Not a lot, keep it cheap.", "Whenever suits.")
_WELL = (
    "Thanks, that helps a lot. With that in mind, here's a plan.",
    "Great, that narrows it down. Here's what I'd suggest.",
    "Perfect, that's useful to know. Let's build around it.",
)


def generate(seed: int, *, turns: int = 240, facts: int = 16) -> Trajectory:
    """A ``prose-answers`` conversation: ``facts`` details among value-dense chat."""
    return build(seed, "prose-answers", turns, facts, _write, SYSTEM)


def _busy(w: Writer, k: int) -> list[str]:
    """``k`` sentences of the user's value-dense small talk."""
    r = w.rng
    out = []
    for event in r.sample(_BUSY, k):
        t = f"{r.randint(6, 9)}:{r.choice((5, 12, 18, 27, 34, 48, 52)):02d}"
        t2 = f"{r.randint(10, 11)}:{r.choice((3, 14, 22, 37, 41, 56)):02d}"
        m = f"\u00a3{r.randint(18, 260)}.{r.randint(1, 99):02d}"
        m2 = f"\u00a3{r.randint(9, 40)}"
        said = (
            event.replace("{n}", str(r.randint(3, 40)))
            .replace("{m2}", m2)
            .replace("{m}", m)
            .replace("{t2}", t2)
            .replace("{t}", t)
        )
        lead = r.choice(_LEADS)
        out.append(f"{lead} {said}{r.choice(_TAILS)}.")
    return out


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    details = r.sample(DETAILS, facts)
    starts = set(spread(r, turns, facts, 3))
    t = 0
    while t < turns:
        if t not in starts:
            if r.random() < 0.45:  # the user's busy small talk
                w.user(" ".join(_busy(w, r.randint(2, 4))) + " " + r.choice(_ASKS))
                w.say("assistant", w.reply((2, 4)))
            else:
                w.chatter()
            t += 1
            continue
        kind, value, question, answer, clause = details.pop()
        shape = r.choice(("answer", "terse", "clause"))
        if shape == "clause":
            told = _busy(w, r.randint(3, 4))
            aside = clause.replace("{v}", value)
            told.insert(r.randint(1, len(told) - 1), f"{aside[0].upper()}{aside[1:]}.")
            where = w.user(" ".join(told) + " " + r.choice(_ASKS))
            w.say("assistant", w.reply((2, 4)))
            t += 1
        else:
            w.user(r.choice(_HELP))
            asked = [question]
            if shape == "answer":
                asked = [*r.sample(_QUESTIONS, r.randint(1, 3)), question]
                r.shuffle(asked)
            w.say("assistant", "Happy to. A few questions first. " + " ".join(asked))
            said = answer.replace("{v}", value)
            said = said[0].upper() + said[1:]
            if shape == "answer":
                others = r.sample(_COUNTS, len(asked) - 1)
                said = " ".join([*others, said])
            where = w.user(said)
            w.say("assistant", f"{r.choice(_WELL)} {w.reply((3, 6))}")
            t += 2
        w.plant(kind, value, where)  # type: ignore[arg-type]
