"""``blind13-dialogue``: two friends write to each other; their details come out in passing.

Ottilie (a tree surgeon who rings church bells) is the ``user``, Caspian (who runs a small
lighthouse museum) the ``assistant``; every message of theirs carries its writer's ``name``,
as a chat log of two people does. Ten details of each come out three ways, never with a cue
word: as the answer to the other's question (the question ends the message before), as an
aside in a message about something else, or inside a short story. The reply that follows
reacts without repeating the detail. Between them the two chat about films, bakeries and the
pub quiz.
"""

from __future__ import annotations

import functools

from evals.families.blind6.base import build, run, spread
from evals.families.blind13.base import FRIENDS, Writer, writer
from evals.families.trajectories import Trajectory

__all__ = ["DETAILS", "SPEAKERS", "WAYS", "generate"]

SPEAKERS = {"user": "Ottilie", "assistant": "Caspian"}
"""Who writes each role's messages (the ``name`` on them)."""

Detail = tuple[str, str, str, str, str]
"""``(value, question the other asks, answer, aside, story)``; ``{v}`` is the value."""

DETAILS: dict[str, tuple[Detail, ...]] = {
    "user": (
        ("tenor bell", "do they still put you on the same bell at practice?",
         "yep, still the {v}. it's the heavy one, my shoulders know about it for days",
         "my arms are jelly after the {v} all evening",
         "practice went on forever, the ropes kept tangling and by the end the {v} felt like "
         "it was pulling me up the tower"),
        ("allergic to wasp stings", "do you carry one of those pens around at work?",
         "i have to, i'm {v} and half the trees i climb have a nest in them somewhere",
         "spent the morning dodging a nest, which is fun when you're {v}",
         "a whole cloud of them came out of a hollow limb and i had to abseil down sharpish, "
         "being {v} doesn't make for a relaxed lunch"),
        ("narrowboat", "are you still in that little place by the canal?",
         "still on the {v}, yes. it's cosy, in a damp sort of way",
         "the {v} roof leaked again overnight so i'm a bit grumpy",
         "woke up with ice on the inside of the windows, the {v} is charming until the stove "
         "goes out"),
        ("twin brother in aberdeen", "is any of your family still up north?",
         "only my {v}, the rest drifted south years ago",
         "been on the phone for an hour with my {v}, he talks more than i do",
         "my {v} sent me a photo of snow on his car just to be smug about it"),
        ("vertigo on ladders", "how do you cope with heights, honestly?",
         "weirdly fine in a harness, but i get {v}. don't ask me to clear a gutter",
         "had to clear the gutters with {v}, so that was an hour of shaking",
         "the client wanted me to fetch a kite off the porch and with my {v} i ended up "
         "climbing the tree next to it instead"),
        ("pescatarian", "are you still off meat or did that not last?",
         "still {v}, it's been easy really, fish and chips saved me",
         "the crew did a barbecue and being {v} i lived on corn and prawns",
         "my nan made her famous stew for me and forgot i'm {v}, so i ate round the beef"),
        ("left-handed", "do they make chainsaws the other way round for you?",
         "no, being {v} i just had to learn everything backwards",
         "borrowed a right-hand saw today which is great fun when you're {v}",
         "the new lad set all the kit up for me and forgot i'm {v}, so nothing was where my "
         "hand went"),
        ("grew up on orkney", "where did you pick up all that wind stuff anyway?",
         "i {v}, you learn about wind or it learns about you",
         "the gales today were nothing, i {v}",
         "someone at work moaned about a breeze and i told him i {v}, we had a gate blow off "
         "once and never found it"),
        ("deaf lurcher", "how is the dog doing?",
         "she's grand, my {v} sleeps through every storm",
         "walked my {v} along the towpath at dawn, she can't hear the geese so it was calm",
         "a cyclist rang his bell at my {v} for ages and she just stood there looking at the "
         "water"),
        ("night classes in welsh",
         "what are you doing with your evenings now the clocks went back?",
         "{v}, would you believe. my pronunciation is a crime",
         "i'm tired because of {v} last night",
         "the teacher at my {v} asked me to read out loud and i mangled every double l"),
        ("torn rotator cuff", "are you still climbing every day with that shoulder?",
         "only half days, it's a {v} and the physio is strict",
         "the physio says the {v} needs another month before the big trees",
         "pulled on a stuck rope and felt it go, that's how i got the {v}"),
    ),
    "assistant": (
        ("harbour swim club", "do you still go in the sea at silly o'clock?",
         "Every morning with the {v}, even when it's grey and horrible",
         "I'm still shivering from the {v} this morning",
         "The {v} had a seal pop up in the middle of us this morning, half of them screamed "
         "and swam for the steps"),
        ("coeliac", "can you even eat at that bakery?",
         "Barely, I'm {v} so it's one sad slice of flourless cake for me",
         "the café at work only had sandwiches and I'm {v}, so lunch was crisps",
         "My aunt baked me a birthday cake and forgot I'm {v}, so I watched everyone eat it"),
        ("colour blind", "what colour did you end up painting the museum door?",
         "No idea, I'm {v}, the volunteers picked it and told me it's nice",
         "the volunteers were laughing at my signage since I'm {v}",
         "I labelled the new display cables by colour, forgetting I'm {v}, so none of them "
         "matched anything"),
        ("two stepdaughters", "how's family life these days?",
         "Loud. The {v} are both home for a bit and the bathroom is never free",
         "I've been ferrying my {v} around all weekend",
         "My {v} made me a birthday breakfast and set off the smoke alarm twice"),
        ("vintage motorbike", "what are you doing with your weekends now?",
         "Mostly in the shed restoring a {v}, covered in oil",
         "I've got oil under my nails from the {v} again",
         "I took the {v} out for its first run and it died at the top of the hill, so I "
         "pushed it home"),
        ("flat above the museum", "are you still renting that place?",
         "No, I moved into the {v}, the commute is one staircase",
         "the foghorn recording woke me up in the {v} again",
         "A school trip arrived early and rang the bell of the {v} because they thought it was "
         "the entrance"),
        ("button accordion", "are you still playing anything?",
         "A bit, the {v}, mostly badly and mostly late at night",
         "the neighbours complained about the {v} again",
         "I played the {v} at the museum's open evening and a toddler danced in front of me "
         "the whole time"),
        ("migraines", "do you get bothered by the bright lights at work?",
         "Yes, the {v} come on with the glare off the lamp room glass",
         "had one of my {v} so I lay in a dark room most of the afternoon",
         "A photographer used a flash in the lamp room and it set off one of my {v} for the "
         "rest of the day"),
        ("grew up in Valletta", "where is your family from originally?",
         "I {v}, so all this grey drizzle still baffles me",
         "this cold is a shock to me, I {v}",
         "A visitor asked why I'm so bothered by the wind and I told her I {v}, where the "
         "harbour is warm enough to swim in most of the year"),
        ("seasick", "have you ever been out to the lighthouse on the rock?",
         "Once, and I was {v} the whole way there and back",
         "they want me on the boat trip next week, which is a joke because I get {v}",
         "We took the boat out to the rock to film the lamp and I was so {v} I filmed mostly "
         "the inside of a bucket"),
        ("teetotal", "are you coming to the pub after the quiz?",
         "Sure, I'm {v} but I'll happily sit on a lemonade",
         "I drove everyone home from the quiz, being {v} has its uses",
         "Someone bought a round of whisky and forgot I'm {v}, so I ended up with three "
         "glasses in front of me"),
    ),
}  # fmt: skip
WAYS = ("answer", "aside", "story")
"""How a detail comes out."""

_REACT_USER = (
    "ha, of course",
    "oh that's so you",
    "no way",
    "that's brilliant",
    "poor you",
    "i'd forgotten that",
)
_REACT_ASSISTANT = (
    "Ha, that's so typically you.",
    "Oh no, that sounds rough.",
    "I'd completely forgotten that.",
    "That made me laugh.",
    "Fair enough, honestly.",
    "You're braver than me.",
)


def _detail(w: Writer, speaker: str, item: Detail, way: str) -> None:
    """One detail of ``speaker`` (``user`` or ``assistant``) comes out ``way``."""
    r = w.rng
    value, question, answer, aside, story = item
    if way == "answer":
        if speaker == "user":
            # the friend asks at the end of an ordinary exchange, she answers in the next turn
            w.user(r.choice(w.talk.asks).replace("{t}", w.topic()))
            w.say("assistant", f"{w.reply((2, 4))} Anyway, {question}")
            at = w.user(answer.replace("{v}", value))
            w.say("assistant", f"{r.choice(_REACT_ASSISTANT)} {w.reply((2, 4))}")
        else:
            w.user(question)
            text = answer.replace("{v}", value)
            at = w.say("assistant", f"{text}. {' '.join(r.sample(w.talk.sentences, 2))}")
    elif way == "aside":
        if speaker == "user":
            ask = r.choice(w.talk.asks).replace("{t}", w.topic())
            at = w.user(f"{aside.replace('{v}', value)}. {ask}")
            w.say("assistant", w.reply((3, 6)))
        else:
            w.user(r.choice(w.talk.asks).replace("{t}", w.topic()))
            text = aside.replace("{v}", value)
            lead = r.choice(w.talk.openers)
            at = w.say("assistant", f"{lead} {text[0].upper()}{text[1:]}. {w.reply((2, 4))}")
    else:
        text = story.replace("{v}", value)
        if speaker == "user":
            at = w.user(f"{text}. anyway how are you")
            w.say("assistant", f"{r.choice(_REACT_ASSISTANT)} {w.reply((2, 4))}")
        else:
            w.user(r.choice(w.talk.asks).replace("{t}", w.topic()))
            at = w.say("assistant", f"{r.choice(('Oh, story for you.', 'So.'))} {text}.")
            w.user(r.choice(_REACT_USER))
            w.say("assistant", r.choice(w.talk.welcomes))
    w.plant("preference", value, at)


def _write(w: Writer, turns: int, facts: int) -> None:
    r = w.rng
    halves = (facts + 1) // 2, facts // 2
    plan: list[tuple[str, Detail, str]] = []
    for speaker, n in zip(("user", "assistant"), halves, strict=True):
        items = r.sample(DETAILS[speaker], n)
        ways = [WAYS[k % 3] for k in range(n)]
        r.shuffle(ways)
        plan += [(speaker, item, way) for item, way in zip(items, ways, strict=True)]
    r.shuffle(plan)
    starts = spread(r, turns - 3, len(plan), 3)
    run(w, turns, starts, [functools.partial(_detail, w, *p) for p in plan])


SYSTEM = "A chat between two old friends, Ottilie and Caspian, who write to each other most days."


def generate(seed: int, *, turns: int = 540, facts: int = 20) -> Trajectory:
    """Seed ``seed``'s chat of ``turns`` turns with ``facts`` details (half each)."""
    return build(
        seed,
        "b13-dialogue",
        turns,
        facts,
        _write,
        SYSTEM,
        writer=writer("friends", talk=FRIENDS, names=SPEAKERS),
        prefix="blind13",
    )
