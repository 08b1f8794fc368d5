"""``blind17-prose``: a piano tuner's own details in plain words among chit-chat.

A semi-retired piano tuner who sings in a barbershop quartet mentions his health, food, home,
family and habits in plain words, with no cue word ("I prefer", "I always", "my X is"): before
an ask, as a clause inside one, as the answer to the assistant's question, as a remark of its
own, or as the second of two sentences in a longer message, leaning on the first ("The piano in
the front room is a Broadwood from before the war. It belonged to Gran."). Some details change
later and are said again in other words (``correction`` facts, the first words stale); two a
seed are said again in other words without changing (not planted again). The fact is the key
words of the sentence; the reply never repeats them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind6.base import timeline
from evals.families.blind17.base import Writer17, write
from evals.families.trajectories import Trajectory

__all__ = ["DETAILS", "LEANING", "REFINED", "generate"]

SYSTEM = (
    "You are a friendly assistant for a semi-retired piano tuner who also sings in a barbershop "
    "quartet. Remember what he tells you about himself."
)


@dataclass(frozen=True)
class Detail:
    """A detail: its key words, the sentences saying it, and one saying it again differently.

    ``again`` never holds ``value``'s words; ``""`` when the detail is not said again.
    """

    value: str
    says: tuple[str, ...]
    again: str = ""


DETAILS = (
    Detail("allergic to penicillin", (
        "found out the hard way I'm allergic to penicillin, came up in hives all over",
        "the doctor made a note that I'm allergic to penicillin after last winter's chest bug",
    ), "if I ever ask about antibiotics, remember that one made me break out in hives"),
    Detail("can't read music", (
        "funny for a tuner, but I can't read music, it all goes in by ear",
        "the others in the quartet laugh that I can't read music and still learn parts first",
    ), "the sheet music they hand out is no use to me, I learn it from the recording"),
    Detail("left-handed", (
        "being left-handed, the tuning lever never sits quite right in the grip",
        "the workshop is set up backwards because I'm left-handed",
    )),
    Detail("tinnitus in the right ear", (
        "there's tinnitus in the right ear these days, which is no joke in this line of work",
        "a ringing started a while back, tinnitus in the right ear the doctor says",
    ), "the whistling on that side is worse when I'm tired, so I tune with the other ear"),
    Detail("seasick", (
        "I get seasick on anything smaller than a ferry, so the boat trip is out",
        "the quartet's river cruise gig will be interesting, I get seasick on a pedalo",
    )),
    Detail("slipped disc", (
        "ever since the slipped disc I can't shift an upright on my own",
        "the slipped disc flares up if I kneel under a grand for too long",
    ), "the back still won't let me lift anything heavy, so the removal men do that part"),
    Detail("scared of ladders", (
        "I'm scared of ladders, so pianos in lofts and on stages are a nightmare",
        "honestly scared of ladders, my wife changes the light bulbs",
    )),
    Detail("shellfish makes me ill", (
        "shellfish makes me ill, even a prawn cracker sets me off",
        "we never order the seafood platter, shellfish makes me ill",
    )),
    Detail("inhaler for asthma", (
        "I keep an inhaler for asthma in the van, dusty old pianos set it off",
        "there's always an inhaler for asthma in my tool bag, felt dust is the worst",
    ), "if a piano has been in a damp shed, the dust gets my chest going, so I wear a mask"),
    Detail("motorways make me nervous", (
        "motorways make me nervous, so it's back roads everywhere, however long it takes",
        "I go the long way round since motorways make me nervous",
    )),
    Detail("nights as a midwife", (
        "my wife works nights as a midwife, so the house is quiet in the mornings",
        "with my wife working nights as a midwife, I do the cooking most days",
    )),
    Detail("daughter lives in Canada", (
        "our daughter lives in Canada now, we talk on video most weekends",
        "since our daughter lives in Canada, the grandchildren visits are few and far between",
    )),
    Detail("old flip phone", (
        "I still carry an old flip phone, no apps, no internet",
        "clients have to ring, an old flip phone is all I've got",
    ), "messages with pictures don't come through on my handset, it's calls and texts only"),
    Detail("false teeth", (
        "I've got false teeth at the top, so toffee is off the menu",
        "the false teeth make some vowels whistle when I sing, which the others love",
    )),
    Detail("peanut allergy", (
        "with a peanut allergy I read every label twice",
        "I carry a pen for the peanut allergy, the quartet all know how to use it",
    )),
    Detail("old Volvo estate", (
        "I drive an old Volvo estate, the only car the tools fit in",
        "everything goes in the old Volvo estate, it's more toolbox than car",
    )),
    Detail("lavender gives me headaches", (
        "lavender gives me headaches, and half the houses I visit reek of it",
        "lavender gives me headaches, so the wife keeps it out of the garden",
    )),
    Detail("type two diabetic", (
        "I'm type two diabetic, so biscuits at clients' houses are a polite no",
        "being type two diabetic, I watch the sugar at the quartet's afters",
    )),
    Detail("hearing aid on the left", (
        "I wear a hearing aid on the left, out it comes when I'm tuning",
        "a hearing aid on the left helps in conversation but not with the pianos",
    )),
)  # fmt: skip
"""Said once (and a few said again, in other words, without changing)."""

LEANING = (
    ("The piano in the front room is a Broadwood from before the war.", "belonged to Gran",
     "It belonged to Gran, and she played it every evening."),
    ("We had the bathroom done over a while ago.", "walk-in shower",
     "It had to be a walk-in shower, the knee won't do a bath any more."),
    ("There's a dog at home now, a big soppy lurcher.", "came from the rescue centre",
     "She came from the rescue centre, terrified of the vacuum."),
    ("They fitted a pacemaker last spring.", "no airport scanners",
     "It means no airport scanners for me, I get patted down instead."),
    ("My brother moved in with us over the winter.", "uses a wheelchair",
     "He uses a wheelchair, so the downstairs has had to change."),
    ("I've had a stammer since I was small.", "goes away when I sing",
     "It goes away when I sing, which is half the reason I joined the quartet."),
    ("The quartet rehearses in our kitchen.", "nobody wears shoes indoors",
     "That's the one house rule, nobody wears shoes indoors."),
)  # fmt: skip
"""(scene, key words, the sentence after it that holds them and leans on it)."""

REFINED = (
    ("cycle to most jobs", "I cycle to most jobs, the van stays at home unless it's a big one",
     "bought a little electric van", "gave up on the bike in the end, bought a little electric "
     "van for getting about"),
    ("vegetarian", "I've been vegetarian for years, so the quartet's curry nights are mostly "
     "dal for me",
     "eating fish again", "I'm eating fish again now, the doctor wanted more protein in me"),
    ("live on a narrowboat", "we live on a narrowboat, so a piano at home was never an option",
     "moved into a cottage by the lock", "we moved into a cottage by the lock, off the water "
     "at last"),
    ("sing baritone", "I sing baritone in the quartet, the awkward middle part",
     "moved down to bass", "the quartet shuffled parts, I've moved down to bass now"),
    ("decaf only", "it's decaf only in this house, the heart doesn't like the real stuff",
     "back on proper coffee", "the cardiologist says I'm fine, so I'm back on proper coffee"),
    ("work from the spare bedroom", "I work from the spare bedroom, actions and keys all over "
     "the bed", "rented a workshop behind the pub", "I've rented a workshop behind the pub, the "
     "spare room is a bedroom again"),
)  # fmt: skip
"""(old words, the sentence saying them, new words, the later sentence saying them)."""

_QUESTIONS = (
    "Happy to help. Anything about you I should bear in mind?",
    "Sure. Is there anything on your side I should work around?",
    "Of course. Anything about your health or home that matters here?",
)
_REMARK = ("random, but", "oh, while I think of it,", "no reason, just chatting:", "side note,")
_ACKS = ("Ha, fair enough.", "Good to know.", "Thanks for telling me.", "Noted.")


def _ask(w: Writer17) -> str:
    return w.rng.choice(w.talk.asks).replace("{t}", w.topic())


def _said(w: Writer17, sentence: str, value: str) -> None:
    """One detail said in one of the plain ways; planted in the user's message."""
    r = w.rng
    way = r.choice(("before", "clause", "answer", "remark"))
    if way == "before":
        where = w.user(f"{sentence}. anyway, {_ask(w).lower()}")
    elif way == "clause":
        ask = _ask(w)
        where = w.user(f"{ask[:-1]}, bearing in mind {sentence}?")
    elif way == "answer":
        w.user(_ask(w))
        w.say("assistant", r.choice(_QUESTIONS))
        where = w.user(f"hmm, {sentence}. That's about it.")
    else:
        where = w.user(f"{r.choice(_REMARK)} {sentence}.")
        w.say("assistant", r.choice(_ACKS))
        w.plant("preference", value, where)
        return
    w.say("assistant", w.reply((3, 6)))
    w.plant("preference", value, where)


def _leaning(w: Writer17, scene: str, value: str, lean: str) -> None:
    """The scene, then the sentence holding the value, then an ask, in one message."""
    where = w.user(f"{scene} {lean} {_ask(w)}")
    w.say("assistant", w.reply((3, 6)))
    w.plant("preference", value, where)


def _again(w: Writer17, text: str) -> None:
    w.user(f"{text[0].upper()}{text[1:]}. {_ask(w)}")
    w.say("assistant", w.reply((3, 6)))


def episodes(w: Writer17, turns: int, facts: int) -> None:
    """Schedule the details, the changes 60-160 turns later and the plain repeats."""
    r = w.rng
    refined = max(1, facts // 6)
    leaning = max(1, (facts - 2 * refined) // 4)
    singles = facts - 2 * refined - leaning
    events: list[tuple[int, Callable[[], None]]] = []
    far = min(160, turns - 10)
    near = min(60, far // 2)
    for old, say_old, new, say_new in r.sample(REFINED, refined):
        at = r.randint(2, max(2, turns - 8 - far))
        events.append((at, _event(w, _said, say_old, old)))
        events.append((at + r.randint(near, far), _change(w, old, new, say_new)))
    for scene, value, lean in r.sample(LEANING, leaning):
        events.append((r.randint(2, turns - 3), _event(w, _leaning, scene, value, lean)))
    repeats = 2
    for d in r.sample(DETAILS, singles):
        at = r.randint(2, turns - 40)
        events.append((at, _event(w, _said, r.choice(d.says), d.value)))
        if d.again and repeats:
            repeats -= 1
            events.append((at + r.randint(20, 35), _event(w, _again, d.again)))
    timeline(w, turns, events)


def _event(w: Writer17, write_it: Callable[..., None], *args: str) -> Callable[[], None]:
    def event() -> None:
        write_it(w, *args)

    return event


def _change(w: Writer17, old: str, new: str, sentence: str) -> Callable[[], None]:
    """The later, changed detail: a correction of the first one's words."""

    def event() -> None:
        prev = next(f for f in w.facts if f.value == old)
        where = w.user(f"{w.rng.choice(_REMARK).capitalize()} {sentence}.")
        w.say("assistant", w.rng.choice(_ACKS))
        w.plant("correction", new, where, stale=old, stale_index=prev.message_index)
        w.supersede(prev, where)

    return event


def generate(seed: int, *, turns: int = 440, facts: int = 20) -> Trajectory:
    """The ``blind17-prose`` conversation for ``seed``."""
    return write(seed, "b17-prose", turns, facts, episodes, SYSTEM, "tuner")
