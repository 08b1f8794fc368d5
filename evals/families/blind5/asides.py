"""``b5-asides``: diets, allergies, pets, sizes, routines said in passing, in plain words.

Each planted fact is a clause inside a long, chatty user message about something else ("we're
vegetarian at home so keep that in mind", "the kid's allergic to sesame, by the way"), with no
cue word such as "prefer", "always" or "hate" (:data:`BANNED`). The assistant answers the main
question and does not repeat the detail.
"""

from __future__ import annotations

from evals.families.blind5.base import Writer, build, spread
from evals.families.trajectories import Trajectory

__all__ = ["ASIDES", "BANNED", "generate"]

SYSTEM = "You are a friendly general-purpose assistant. Users chat with you about everyday life."

BANNED = (
    "prefer",
    "always",
    "never",
    "hate",
    "love",
    "favourite",
    "favorite",
    "remember",
    "dislike",
    "can't stand",
    "fyi",
    "just so you know",
    "note that",
)
"""Cue words no aside (nor the message carrying it) uses."""

# (fact kind, value, clause with {v}); a clause reads as part of a longer sentence.
ASIDES: tuple[tuple[str, str, str], ...] = (
    ("preference", "vegetarian", "we're {v} at home so keep that in mind"),
    ("preference", "sesame", "the kid's allergic to {v}, by the way"),
    ("preference", "night shifts", "I'm on {v} till the end of the month, so mornings are dead"),
    ("name", "Biscuit", "the dog, {v}, comes with us wherever we go"),
    ("preference", "left-handed", "being {v} makes half the kitchen gadgets useless to me"),
    ("value", "size 38", "I'm a {v} in most European shoes, if that matters"),
    ("preference", "Portuguese", "my partner's family are {v}, so there'll be a crowd"),
    ("preference", "wheelchair", "my dad's in a {v} these days, so steps are a no"),
    ("name", "Leeds", "we moved up to {v} last spring"),
    ("preference", "oat milk", "it's {v} in my coffee, for what it's worth"),
    ("value", "two cats", "we've got {v} so nothing that's poisonous to them"),
    ("value", "third floor", "the flat's on the {v} with no lift"),
    ("preference", "coeliac", "my wife is {v} so the bread thing is serious"),
    ("preference", "halal", "my in-laws eat {v} only"),
    ("preference", "tree nuts", "my son reacts badly to {v}"),
    ("value", "twins", "we've got {v} who are nearly four"),
    ("preference", "no car", "we've got {v}, so it's trains and buses for us"),
    ("preference", "hay fever", "my {v} is brutal from May onwards"),
    ("preference", "bad knee", "I've a {v} from football so hills are tough"),
    ("value", "XL", "he's an {v} in tops, broad shoulders"),
    ("preference", "teetotal", "I'm {v} these days, have been for a couple of years"),
    ("preference", "hearing aid", "my mum has a {v}, so noisy restaurants are hard for her"),
    ("name", "Tuppence", "our old cat {v} hides from visitors"),
    ("preference", "pescatarian", "my sister's {v}, fish is fine but no meat"),
    ("value", "6ft 4", "I'm {v}, so legroom is a thing"),
    ("preference", "early riser", "being an {v} I'm useless after nine at night"),
    ("preference", "Welsh", "the kids are learning {v} at school"),
    ("preference", "dyslexic", "my eldest is {v}, so bigger fonts help"),
    ("preference", "no stairs", "my gran needs {v}, her hip is bad"),
    ("name", "Wren", "our youngest, {v}, starts nursery soon"),
    ("preference", "penicillin", "I react to {v}, found out the hard way"),
    ("preference", "decaf", "it has to be {v} after lunch or I'm up all night"),
    ("value", "a 2am finish", "my shifts mean {v} most Fridays"),
    ("preference", "anxious flyer", "I'm an {v}, so short hops are better than long hauls"),
    ("preference", "spicy food", "the kids won't touch {v}"),
)
CARRIERS = (
    "So I'm planning Sunday lunch for the in-laws and I'm slightly out of my depth, {a}. What "
    "could I make that doesn't keep me in the kitchen all morning?",
    "Work has been absolutely mad this week and I've barely had time to think, and {a}, but "
    "anyway — can you suggest a weekend trip that doesn't need much planning?",
    "Right, birthday present dilemma. My brother turns forty soon and I've got no ideas at all. "
    "Also {a}, if that changes anything. Something under a hundred quid?",
    "I'm trying to get a bit fitter before summer, nothing extreme. {A}. Could you sketch a "
    "gentle plan for the next few weeks?",
    "We're thinking about redoing the living room, it's been the same since we moved in and "
    "looks tired. {A}, so bear that in mind. Where do people usually start?",
    "Ok random one, we've got friends coming to stay next month and the spare room is a tip. "
    "{A}. How do I make it feel welcoming without spending much?",
    "Honestly the mornings in our house are chaos, everyone running late, lost shoes, the lot — "
    "{a} — any tricks for making them calmer?",
    "I'm looking at holidays for the autumn half term and going round in circles. {A}. What "
    "kind of place would you look at first?",
    "My manager asked me to organise the team night out and I'd rather not make a mess of it. "
    "{A}, which complicates things a bit. Any ideas?",
    "Can you help me put together a weekly meal plan? I keep buying food that goes off. {A}. "
    "Nothing too fiddly on weeknights please.",
    "We've finally decided to get a new sofa, after about three years of talking about it. {A}. "
    "What should we look out for?",
    "I need to write a short message to the neighbours about the party next weekend, keep it "
    "friendly. {A}, not that it's relevant to the note really.",
    "Thinking of starting a small veg patch in the garden this year, total beginner. {A}. What's "
    "easy to grow first time round?",
    "Could you suggest a few board games for family evenings? The screens are taking over. {A}, "
    "so keep it simple-ish.",
    "I've been asked to host the book club and I'm a bit nervous about the food side of it. {A}. "
    "What would be low effort but look nice?",
    "We're planning a day out in the city with the whole family, grandparents included. {A}. "
    "How would you pace the day?",
)
REPLIES = (
    "Sounds like a nice plan. I'd keep it simple: pick one thing you're confident about and "
    "build around it, then fill gaps with easy options you can prepare ahead.",
    "Good question. Start small, see what works for everyone, and adjust as you go; there's no "
    "need to get it perfect in one go.",
    "A couple of ideas: go for something flexible, check the practical details first, and keep "
    "a backup option in your pocket in case plans change on the day.",
    "I'd break it into three parts: what you must have, what would be nice, and what you can "
    "skip. That usually makes the choice much clearer.",
    "Happy to help. Keep the first step easy and quick, then decide the rest once you've seen "
    "how that goes. I can draft a short list if you like.",
    "Here's how I'd approach it: ask everyone involved for one must-have, find the option that "
    "covers most of them, and don't overthink the rest.",
)


def generate(seed: int, *, turns: int = 320, facts: int = 20) -> Trajectory:
    """A ``b5-asides`` conversation: ``facts`` details said in passing inside longer messages."""
    return build(seed, "b5-asides", turns, facts, _write, SYSTEM)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    asides = r.sample(ASIDES, facts)
    carriers: list[str] = []
    starts = set(spread(r, turns, facts, 4))
    for t in range(turns):
        if t not in starts:
            w.chatter()
            continue
        kind, value, clause = asides.pop()
        if not carriers:
            carriers = r.sample(CARRIERS, len(CARRIERS))
        text = clause.replace("{v}", value)
        carrier = carriers.pop()
        # A clause opening a sentence takes a capital, except where the value must stay as is.
        opened = text[0].upper() + text[1:]
        where = w.user(carrier.replace("{a}", text).replace("{A}", opened))
        w.say("assistant", r.choice(REPLIES))
        w.plant(kind, value, where)  # type: ignore[arg-type]
