"""``passing-details``: a personal detail said as a clause inside a long message on another topic.

An own family (not held out; written with the summarizer in view, session 14) for the loss
``blind6-prose`` measured by counts: a detail about the user (a diet, a condition, a household
member, a constraint) said in passing, inside a user message of 40 to 80 words whose subject
and question are something else, is never chosen when the message is first summarized. Each
detail is one clause of a longer sentence (after a comma, in a dash aside or brackets, or
"since ..."), never its own sentence, and uses no cue word ("prefer", "always", "remember").
The assistant answers the question and never repeats the detail. Chatter between is the fifth
blind set's everyday traffic (:meth:`~evals.families.blind5.base.Writer.chatter`).
"""

from __future__ import annotations

from evals.families.blind5.base import Writer, build, spread
from evals.families.trajectories import Trajectory

__all__ = ["CARRIERS", "CUES", "DETAILS", "generate"]

SYSTEM = "You are a helpful assistant for a busy household. Keep answers practical."

CUES = ("prefer", "always", "never", "hate", "love", "favourite", "remember", "fyi", "note")
"""Words no message carrying a detail uses."""

# (fact kind, value, clause with {v}): a clause of a longer sentence, lower case.
DETAILS: tuple[tuple[str, str, str], ...] = (
    ("preference", "lactose", "given that I can't have {v} at all"),
    ("preference", "vegan", "since my partner went {v} in the spring"),
    ("preference", "gluten", "and my daughter has to avoid {v}"),
    ("name", "Pickles", "while our hamster {v} runs around on his wheel"),
    ("value", "fourth floor", "because we live on the {v} of an old building"),
    ("preference", "insomnia", "what with my {v} getting worse lately"),
    ("preference", "asthma", "as my son's {v} flares up in the cold"),
    ("value", "three kids", "and with {v} under ten in the house"),
    ("name", "Galway", "ever since we moved over to {v}"),
    ("preference", "shellfish", "though my husband swells up from {v}"),
    ("preference", "migraines", "since bright screens give me {v}"),
    ("value", "size 11", "and I'm a {v} in trainers"),
    ("preference", "night owl", "being a {v} who barely functions before ten"),
    ("preference", "crutches", "because I'm on {v} for another month"),
    ("name", "Moss", "and our old collie {v} can't manage long walks"),
    ("preference", "kosher", "as my parents keep {v}"),
    ("value", "one bathroom", "given we share {v} between five of us"),
    ("preference", "diabetic", "since my father is {v} now"),
    ("preference", "colour blind", "because I'm {v} and mix up reds and greens"),
    ("preference", "motion sickness", "as I get {v} in the back of any car"),
    ("value", "electric bike", "since I commute on an {v} in all weathers"),
    ("preference", "rheumatoid", "what with my mother's {v} arthritis"),
    ("name", "Ziggy", "and the cockatiel, {v}, screams at strangers"),
    ("preference", "braces", "since my youngest just got {v} fitted"),
)
CARRIERS = (
    "I need to sort out the garden before the weather turns and honestly I don't know where to "
    "begin, the hedge is enormous and the lawn is more moss than grass at this point, {a}, so "
    "what would you tackle first if you had a couple of free weekends and not much money?",
    "We're trying to get the spare room ready for visitors and it has become a dumping ground "
    "for boxes, old bikes and paperwork — {a} — and I keep putting it off, so how would you "
    "break it into small jobs that I could do in an evening or two?",
    "My sister is coming to stay for a week and I want to plan a few outings that aren't too "
    "expensive, the usual museums feel a bit tired to me ({a}), so could you suggest a mix of "
    "things to do that would suit a long week with some rainy days?",
    "I've been asked to organise a small leaving do for a colleague at work, nothing fancy, just "
    "drinks and maybe some food in the afternoon, {a}, so how do people usually handle the "
    "collection for a gift and the card without making it awkward for anyone?",
    "The car is due for its service and I'm also thinking about whether we even need it any "
    "more, {a}, because the running costs keep creeping up, so what are the main things to "
    "weigh up before deciding to sell it and rely on other options?",
    "Our kitchen is tiny and every cupboard is overflowing with mugs and gadgets nobody uses, "
    "{a}, and I'd like it to feel calmer without a big renovation, so what are some cheap ways "
    "to reorganise it that actually last more than a fortnight?",
    "I'm putting together a budget for the next few months because everything seems to cost "
    "more lately, {a}, and I want something simple that the whole family can follow, so how "
    "would you set up the categories and check in on it each week?",
    "The school has asked parents to help with a summer fair and I somehow volunteered to run a "
    "stall, {a}, so I've got a few weeks to come up with something fun that doesn't need much "
    "setting up, what kinds of stalls usually go down well with families?",
    "I keep meaning to start running again after a long break and every time I try I give up "
    "after a week or so, {a}, so could you suggest a routine that builds up slowly and fits "
    "around a working day without needing a gym?",
    "We're hosting a games night for the neighbours next month and I want it to feel relaxed "
    "rather than competitive, {a}, so which kinds of games and snacks tend to work for a mixed "
    "group of adults who don't know each other very well yet?",
    "I want to clear out the loft this autumn because it's full of things from three house "
    "moves ago, {a}, and I'm not sure what's worth selling, so how would you go about sorting "
    "it into keep, sell, donate and bin without it taking forever?",
    "Could you help me think through a weekly routine for household chores, at the moment it "
    "all falls on whoever notices first and that causes arguments, {a}, so what would a fair "
    "split look like that people might actually stick to?",
)
REPLIES = (
    "A good way in is to pick the one part that bothers you most, give it a fixed slot, and let "
    "the rest wait. Small visible wins make the next step easier to start.",
    "I'd write down everything involved, group it into three or four chunks, and take one chunk "
    "at a time. Decide in advance what counts as done so it doesn't drag on.",
    "Keep it simple: set a budget and a date, ask one or two people to help, and have a backup "
    "plan for anything that depends on the weather.",
    "Start with what you already have, then fill the gaps. Most of the effort goes into the "
    "first hour; after that it tends to run itself if the plan is written down.",
    "Try a short trial run first and adjust from there. A plan that is easy to repeat usually "
    "beats a perfect one that is hard to keep up.",
)


def generate(seed: int, *, turns: int = 240, facts: int = 16) -> Trajectory:
    """A ``passing-details`` conversation: ``facts`` details inside long messages."""
    return build(seed, "passing-details", turns, facts, _write, SYSTEM)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    details = r.sample(DETAILS, facts)
    carriers: list[str] = []
    starts = set(spread(r, turns, facts, 4))
    for t in range(turns):
        if t not in starts:
            w.chatter()
            continue
        kind, value, clause = details.pop()
        if not carriers:
            carriers = r.sample(CARRIERS, len(CARRIERS))
        where = w.user(carriers.pop().replace("{a}", clause.replace("{v}", value)))
        w.say("assistant", r.choice(REPLIES))
        w.plant(kind, value, where)  # type: ignore[arg-type]
