"""Word lists behind the extractive summarizer's scoring (see :mod:`._facts`).

Plain English function words, chat filler and cue words, looked up as sets: one tokenization
of a sentence, then set intersections, keeps scoring a sentence to microseconds. Nothing here
is specific to one conversation or data set.
"""

from __future__ import annotations

__all__ = [
    "DECISION_BIGRAMS",
    "DECISION_WORDS",
    "EMPTY_WORDS",
    "FILLER_WORDS",
    "FIRST_PERSON",
    "INTERJECTIONS",
    "IRREGULAR_PAST",
    "LOOSE_INTERJECTIONS",
    "MONTH_WORDS",
    "MONTH_WORDS_WITH_DIGIT",
    "NOT_EVENTS",
    "PERSONAL_BIGRAMS",
    "PLAN_BIGRAMS",
    "PLAN_WORDS",
    "PREFERENCE_BIGRAMS",
    "PREFERENCE_WORDS",
    "QUESTION_OPENERS",
    "SECOND_PERSON",
    "SELF_OPENINGS",
    "STOPWORDS",
    "TASK_BIGRAMS",
    "TASK_WORDS",
    "WHEN_BIGRAMS",
    "WHEN_WORDS",
]


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


MONTH_WORDS = _wordset(
    """january february april june july august september october november december jan feb
    apr jun jul aug sep sept oct nov dec"""
)
MONTH_WORDS_WITH_DIGIT = frozenset(("may", "march", "mar"))
WHEN_WORDS = _wordset(
    """monday tuesday wednesday thursday friday saturday sunday mon tue tues thu thurs fri
    yesterday tomorrow tonight weekend ago recently upcoming"""
)
WHEN_BIGRAMS = frozenset(
    f"{a} {b}"
    for a in ("next", "last", "this", "every", "that")
    for b in (
        "week",
        "month",
        "year",
        "weekend",
        "summer",
        "winter",
        "spring",
        "autumn",
        "fall",
        "night",
        "morning",
        *(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]),
    )
)
DECISION_WORDS = _wordset(
    """decided agreed confirmed booked scheduled reserved ordered chose chosen approved
    cancel cancelled canceled"""
)
DECISION_BIGRAMS = frozenset(("settled on", "going with", "signed up", "sign up"))
PREFERENCE_WORDS = _wordset(
    """prefer prefers preferred allergic allergy favourite favorite vegetarian vegan dislike
    dislikes intolerant likes loves hates enjoys"""
)
PREFERENCE_BIGRAMS = frozenset(
    (
        *("i like", "i love", "i'd love", "i hate", "i enjoy", "don't like", "not like"),
        *("can't stand", "i always", "i never", "i usually", "please always", "please never"),
        *("please only", "please don't"),
        "i'm into",
    )
)
PERSONAL_BIGRAMS = frozenset(
    (
        *("call me", "my name", "i live", "i work", "i'm from", "am from", "i'm a", "i'm an"),
        *("lives in", "live in", "works at", "works as", "work at", "moved to", "born in"),
        *("married to", "studies at", "studying at", "retired from"),
        *(
            f"my {w}"
            for w in _wordset(
                """wife husband partner son daughter kids kid children dog cat birthday address
                budget sister brother mom mother dad father friend family job home"""
            )
        ),
    )
)
SELF_OPENINGS = frozenset(("i am", "i have", "i've got", "i'd like", "i'd prefer", "i want"))
"""How a sentence about the speaker opens (its first two words; or ``i'm``)."""
TASK_WORDS = _wordset("remind todo to-do deadline due asap pending must follow-up")
TASK_BIGRAMS = frozenset(
    (
        "need to",
        "needs to",
        "have to",
        "has to",
        "don't forget",
        "not forget",
        "follow up",
        "waiting for",
        "still need",
    )
)
SECOND_PERSON = _wordset("you you'd you'll you're")
FIRST_PERSON = _wordset("i i'm i've i'd i'll my me mine we we're we've we'd we'll our us")
PLAN_WORDS = _wordset(
    "gonna plan plans planning planned upcoming hoping wanna trying i'll we'll will"
)
PLAN_BIGRAMS = frozenset(("going to", "want to", "thinking about", "about to", "plan to"))
IRREGULAR_PAST = _wordset(
    """went got had took made saw bought did found met ran began came felt gave kept left lost
    paid said sent sold spent told thought won wrote built caught chose drove ate flew heard
    held knew led rode sang sat slept spoke stood swam taught threw woke wore became brought
    broke fell grew hung hurt quit gone done seen been taken given begun known"""
)
NOT_EVENTS = _wordset(
    """need indeed feed speed seed proceed succeed excited interested inspired amazed thrilled
    blessed tired bored scared stressed relaxed pleased surprised impressed overwhelmed
    motivated determined worried touched stoked glad red bed shed"""
)

FILLER_WORDS = _wordset(
    """hi hello hey hiya thanks thank thx you ok okay sure great cool awesome yes yeah yep yup
    no nope bye goodbye please welcome you're youre np got it sounds good perfect nice alright
    right glad help happy to i can how what else anything the a is are there with for today me
    do assist of that so much wonderful excellent see later have day morning evening afternoon
    again fine well oh ah hmm lol haha will be let know if any more questions feel free
    and you your my all set done appreciate appreciated no problem hope this helps that's
    sounds understood noted let check checking look looking moment sec second one just into
    lot lots really very sorry hear amazing indeed absolutely certainly course wow whoa
    totally definitely super fantastic incredible proud thankful grateful congrats
    congratulations luck wish wishing cheers lovely sweet kind beautiful fun exciting excited
    stoked thrilled agree agreed true exactly cute chat talk soon take care keep up it's
    that'll you'll you've you'd we'll we're let's"""
)
STOPWORDS = _wordset(
    """a an the and or but if of to in on at for with by from as is are was were be been am it
    its this that these those i you he she we they me my your our their his her them us do does
    did so not no yes just also very really can could would should will shall may might there
    here what which who whom when where why how all any some about into over than then too
    again still yet even now please i'm i've i'd i'll it's that's through out up off down
    back away after before around"""
)

INTERJECTIONS = _wordset(
    """oh ohh wow whoa yeah yea yes yep yup hey hi hello hiya well haha hahaha lol omg ah aw
    aww ok okay sure thanks thx btw anyway anyways so honestly actually totally absolutely
    great cool awesome nice man hmm um uh alright right indeed definitely exactly agreed
    true yay ooh gosh"""
)
LOOSE_INTERJECTIONS = _wordset("oh ohh wow whoa yeah yea hey hi hello well so haha lol omg")
EMPTY_WORDS = FILLER_WORDS | STOPWORDS
"""Words that carry no content of their own."""

CORRECTION_WORDS = frozenset(
    (
        "actually",
        "now",
        "instead",
        "changed",
        "change",
        "changing",
        "correction",
        "corrected",
        "correct",
        "update",
        "updated",
        "updating",
        "rather",
        "revised",
        "moved",
        "rescheduled",
        "switched",
        "increased",
        "decreased",
        "raised",
        "lowered",
        "mistake",
        "wrong",
        "anymore",
        "longer",
        "sorry",
        "oops",
        "scratch",
        "mind",
    )
)
"""Words by which a statement says it replaces an earlier one."""

QUESTION_OPENERS = _wordset(
    "what what's which who whom whose where when why how does do did can could would "
    "will is are was were isn't aren't don't doesn't didn't can't won't should shall "
    "may might have has any anything right ok okay"
)
"""First words of a question (or of a question tagged on a statement: "..., does that help?")."""
