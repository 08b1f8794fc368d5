"""The context a kept sentence depends on: its neighbours, or the message it answers.

A summary line must make sense once the turn it came from is gone. "a gift from my grandma in my
home country" says nothing without what the gift is; "It is due on Friday" nothing without
what is due; "ok, do it" nothing without what was offered. So the extractive summarizer keeps
units, not lone sentences (:func:`units`):

- a sentence that opens as a continuation (a pronoun or demonstrative, a conjunction, a
  lower-case fragment left by a dash, an ellipsis) or has a pronoun among its second and third
  words ("The new one is ada@example.org.") joins the sentence before it, and so does a
  short sentence (under ``SHORT_WORDS`` words) with a pronoun in it ("I hold it for a
  minute."), when it scores at least as high as what it depends on, or states a number (an
  amount, a date, a code: the point of "It should arrive by 21 March.") or says something of
  its own (a hard signal: a name, a time, a preference, an event: "They have gone off meat,
  so chickpea curry it is."); otherwise, scoring lower, it is left out and the sentence
  before it stands alone (it does not depend on it). A contracted pronoun opens a
  continuation as the full one does ("He's going in on 9 March." as "He is ..."): missing
  from the openers, such a sentence was kept alone without what it points at (round 16,
  docs-notes/fidelity-round16-frag26.md).
  A continuation whose antecedent is filler that continues in turn ("Lyrics and notes -
  that's awesome! It will boost my motivation!") joins the unit before that filler, so the
  line still says what "it" is. Joining every continuation cost 0.010 of LoCoMo's answers in
  view at 4,000 tokens (longer lines, fewer of them);
- a sentence that scores 0 is never kept for itself: a continuation that says nothing ("It was
  fun.") is left out, an antecedent that scores 0 comes along with what depends on it.

Keeping every short user message whole (at most 40 words, pleasantries at its edges left out),
the way providers' own compaction keeps users' messages, was measured and is not done: with
400-token summaries it cost 0.10 to 0.19 of the planted facts after 10 reductions on the
realistic, lists and held-out families (10 seeds), the whole messages crowding out other facts.
Instead, room left over once the facts are chosen is spent on them (``verbatim_words`` of
:class:`~summem.summarizers.extractive.ExtractiveSummarizer`), and the next round selects on
the sentence that was chosen, not on the whole message.

A sentence said elsewhere too (another message, the previous summary) is a stock phrase
("That model was updated recently, so older reviews may not apply."), not a continuation of
whatever precedes it: it stands alone (:func:`stands_alone`), so its copies merge as repeats.
Joined to a different sentence each time, an assistant's stock phrase made the plain family
lose 0.01 and the corrections family 0.015 of their facts at the end (2,000 tokens, 10 seeds).

A short reply of the user with nothing of its own (a confirmation, a choice: "lock that in",
"yes the second one", "ok the Marlowe one") is kept with what it answers
(:func:`answered_sentence`): the sentence of the assistant's message before it that names the
detail the reply repeats, else the option an ordinal picks, else the question or offer that
closed that message, on one line that says what was accepted or chosen.

A short sentence that opens a message and points at something ("I love this series.", "They're
called Peruvian Lilies.") leans on the previous message, another speaker's: kept alone, it
says nothing once that message is gone. It is kept with the sentence of that message it most
likely points at (:func:`antecedent`: the one sharing most of its words, else the last),
on one line: ``- Audrey: They're called Peruvian Lilies, in reply to Jolene: What are those
flowers?`` (:func:`leans_on_previous`). Only short ones: a sentence of
``SHORT_WORDS`` words or more usually says what it is about.

A short opening sentence right after a tool result that only presents it ("Here you go, 16
rows.", "Here's the list.": :func:`leans_on_result`, "here" counted as a pointer) cannot be
joined to it (the result is a line of its own, ``- tool: ...``), so it is kept only beside that
line, in this round and the later ones (``Fact.leans_on``, recorded in provenance as
``"leans"``; ``ablate=["result_context"]``): alone, "16 rows" of what? When a reduction cut
between the two, the summary records the result it ended on (``extra["ends_on_result"]``) and
the next round links the sentence to that result's carried line, or leaves it out when the line
is gone. In the own ``ledgers`` family such lines were most of the summary's dependent short
lines (docs-notes/fidelity-round11-fragments.md).

A short opening sentence that points at something it never names and cannot be joined to
what it answers ("I'd love to try it sometime.": no number, code or name of its own,
:func:`names_nothing_alone`) keeps 0.3 of its score: alone it tells a reader little, so it is
the first to go when room runs out. Its words new to the conversation still count in full
("She is allergic to peanuts." names nothing either, but says something new). Leaving such
sentences out altogether dropped facts like that one; see docs-notes/fidelity-round5.md,
"Short lines that point at what they never name".

The word lists are English closed classes (pronouns, conjunctions), not cue words of any
kind of fact.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from summem.summarizers.extractive.facts import asks, has_hard_signal

__all__ = [
    "SHORT_WORDS",
    "answered_sentence",
    "antecedent",
    "aside_statements",
    "asks_the_user",
    "is_bare_reply",
    "leans_on_previous",
    "leans_on_result",
    "names_nothing_alone",
    "says_nothing",
    "stands_alone",
    "units",
]

SHORT_WORDS = 8
"""A sentence shorter than this rarely stands alone when it refers to something."""
REPLY_WORDS = 8
"""A user reply this short, with no value of its own, is kept with what it answers."""
REPLY_EXTRA = 2
"""Words of a reply neither content-free nor repeated from the offer it picks a detail of."""
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}
"""Ordinals picking one of several options (a closed class)."""

_WORD_RE = re.compile(r"[A-Za-z0-9][\w'\u2019-]*")
_MARKER = re.compile(r"(?:^\s*[(\[]?(?:\d{1,2}|[a-z])|:\s*[(\[]?\d{1,2})[.)\]]\s*$", re.IGNORECASE)
"""A list item's marker split from its item, alone ("1.", "(b)", "3)") or closing an intro
("Two options: 1."): no option of its own, the next sentence is."""


def _split(text: str) -> list[str]:
    return text.split()


_OPENERS = frozenset(
    _split(
        """it it's its itself this that that's these those they they're them their theirs he she
        him her his hers there which who whom whose such so and but or nor because also too then
        both either neither another other others same one ones here
        it'll it'd he's he'd he'll she's she'd she'll they've they'd they'll that'll"""
    )
)
"""First words that make a sentence continue the one before it. The contracted ones (the last
line) point as the full ones do: "She's going in on 7 January." as "She is ..."; missing, such
a sentence stood alone without what it points at ("Mum booked her knee operation.")."""
_POINTERS = frozenset(
    _split("it it's its this that these those they them their he she him her his there one")
)
"""Words that, in a short sentence, point at something said before."""
_POINTING = _POINTERS | frozenset(_split("they're they've he's she's it'll that's"))
"""Pointers, contractions included, in a message's opening sentence."""
_RESULT_POINTING = _POINTING | frozenset(_split("here here's"))
"""Pointers at a tool result shown just before: "Here you go", "Here's the list" too."""
_SELF = frozenset(_split("i i'm i'd i'll i've"))
"""The speaker's own "I", capitalised anywhere: not a name."""
_CONTRASTS = frozenset(_split("but and"))
"""Conjunctions that, opening a message, continue the message before it."""
_ANTECEDENT_WORDS = 3
"""A sentence shorter than this ("Noted.", "Got it.") names nothing a reply could point at."""
_LEAN_WORDS = 4
"""How far into a message's opening sentence a pointer makes it lean on the message before."""
_CONTENT_FREE = frozenset(
    _split(
        """yes yeah yep yup sure ok okay fine great perfect good sounds go ahead do it that this
        one let's lets lock in book confirm confirmed agreed deal the a first second third last
        other no nope not either both neither option works let me with that's right exactly
        absolutely definitely alright cool nice done proceed"""
    )
)
"""Words a bare reply may consist of (it then says nothing without what it answers)."""
_ADDRESSEE = frozenset(_split("you ya your yours yourself you're you've you'll you'd y'all"))
"""The listener, addressed (a closed class)."""
_STOP = frozenset(_split("a an the of to in on at for with and or but is it's be me my i"))
"""Function words that name no detail of an offer."""


def _words(sentence: str) -> list[str]:
    return [w.lower().replace("\u2019", "'") for w in _WORD_RE.findall(sentence)]


def _continues(sentence: str) -> bool:
    """Whether ``sentence`` opens as the continuation of the one before it."""
    stripped = sentence.lstrip("\"'([ ")
    if not stripped:
        return False
    if stripped.startswith(("...", "\u2026", "-", "\u2013", "\u2014")) or stripped[0].islower():
        return True
    words = _words(stripped)
    if not words:
        return False
    if words[0] in _OPENERS or not _POINTERS.isdisjoint(words[1:3]):  # "The new one is..."
        return True
    return len(words) < SHORT_WORDS and not _POINTERS.isdisjoint(words[1:])


def units(
    sentences: Sequence[str],
    scores: Sequence[float],
    repeated: Sequence[bool] | None = None,
) -> list[list[int]]:
    """Groups of sentence indexes, each one summary candidate (see the module docstring).

    Args:
        sentences: one message's sentences, in order.
        scores: each sentence's score alone (0: filler).
        repeated: whether each sentence is said elsewhere too (see :func:`stands_alone`);
            such a sentence is a candidate of its own, never part of a unit.
    """
    n = len(sentences)
    if n == 0:
        return []
    alone = [stands_alone(sentences, i, repeated) for i in range(n)]
    groups: list[list[int]] = []
    for i in range(n):
        if scores[i] <= 0:  # filler, or a continuation that says nothing ("It was fun.")
            continue
        if i > 0 and not alone[i] and _continues(sentences[i]):
            if groups and groups[-1][-1] == i - 1:
                if (
                    scores[i] >= max(scores[j] for j in groups[-1])
                    or _has_value(sentences[i])
                    or _brief_news(sentences[i])
                    or _completes([sentences[j] for j in groups[-1]], sentences[i])
                ):  # it says more than what it depends on, a value, or what that one is
                    groups[-1].append(i)
            elif scores[i] >= scores[i - 1]:
                if (
                    scores[i - 1] <= 0
                    and groups
                    and groups[-1][-1] == i - 2
                    and _continues(sentences[i - 1])
                ):  # "Lyrics, notes - that's awesome! It will ...": the filler continued too
                    groups[-1].extend([i - 1, i])
                else:
                    groups.append([i - 1, i])  # its antecedent comes along, whatever its score
        else:
            groups.append([i])
    return groups


def _brief_news(sentence: str) -> bool:
    """Whether a continuation says something of its own (a hard signal) in few words.

    "They've gone off meat, so chickpea curry it is." comes along with what it leans on. A
    long one does not: "She's a counsellor I met there, Dr Lena Ortiz, and she runs ..." would
    make one candidate too large for a tight budget, which then loses the sentence before it
    too (kept alone on its own score otherwise).
    """
    return len(_words(sentence)) < 2 * SHORT_WORDS and has_hard_signal(sentence)


def _completes(unit: Sequence[str], sentence: str) -> bool:
    """Whether a continuation names what the short unit before it only announces.

    "I got a puppy two weeks ago! Her name's Coco.": the unit is under ``SHORT_WORDS`` words
    and names nothing (no number, code or name), the continuation names something. Kept
    alone, the unit leaves out what it was said for (the name, the address, the date), so
    the continuation comes along whatever it scores.
    """
    words = _words(" ".join(unit))
    return 0 < len(words) < SHORT_WORDS and not _names(" ".join(unit)) and _names(sentence)


_COUNT_RE = re.compile(r"\d{1,3}(?:,\d{3})+|\d+")
_TOKEN_EDGES = "\"'()[]{}.,;:!?"
"""A bare whole number, and what is stripped off a token's edges before reading it."""


def _names(sentence: str, *, counts: bool = True) -> bool:
    """Whether a sentence names something: a number, code, address or capital past its first.

    With ``counts=False`` a bare whole number ("16 rows", "1,204 results") is not a name: it
    says how much of something there is, not what.
    """
    raw = _WORD_RE.findall(sentence)
    if "@" in sentence or "://" in sentence:
        return True
    if counts:
        if any(any(c.isdigit() for c in w) for w in raw):
            return True
    elif any(
        any(c.isdigit() for c in core) and not _COUNT_RE.fullmatch(core)
        for core in (token.strip(_TOKEN_EDGES) for token in sentence.split())
    ):
        return True
    return any(w[0].isupper() and w.lower().replace("\u2019", "'") not in _SELF for w in raw[1:])


def _has_value(sentence: str) -> bool:
    """True when a sentence states a number (an amount, a date, a code).

    A continuation that carries one is not left out for scoring below what it depends on
    ("Your refund is approved. It should arrive by 21 March.": the date is the point).
    """
    return any(ch.isdigit() for ch in sentence)


def stands_alone(sentences: Sequence[str], i: int, repeated: Sequence[bool] | None) -> bool:
    """Whether sentence ``i`` is kept on its own whatever its first words.

    A sentence said elsewhere too (``repeated[i]``: in another message, or in the previous
    summary) is a stock phrase, not a continuation of what happens to precede it: joined to
    a different sentence each time, its copies could no longer be merged as repeats. Neither
    is a sentence whose antecedent is a repeated one or an interjection alone ("Absolutely.
    That model is new." keeps "That model is new.").
    """
    if repeated is not None and (repeated[i] or (i > 0 and repeated[i - 1])):
        return True
    if i == 0:
        return False
    words = _words(sentences[i - 1])
    return bool(words) and all(w in _CONTENT_FREE for w in words)


_ASIDE_PARTS_RE = re.compile(r"[,;:]\s+|\s+[-\u2013\u2014]+\s+|\s*[()\[\]]\s*")
"""Where a sentence's clauses part: a comma, semicolon or colon, a dash, a bracket."""
_ASIDE_LEADS = frozenset(
    _split(
        """and but or so because cause 'cause cos since as given seeing now considering though
        although even ever then while whilst whereas plus also especially btw fyi with"""
    )
)
"""Words that join a clause to its host without being part of what it says (a closed class:
conjunctions and subordinators). "what with" and "given/seeing/now that" too, see
:func:`_aside_body`."""
_ASIDE_SUBJECTS = frozenset(_split("i i'm i've i'd i'll we we're we've we'd we'll my our me being"))
"""First words of a clause about the speaker or the speaker's world ("being a night owl": the
speaker described, with no subject of its own)."""
_ASIDE_SUBORDINATORS = frozenset(
    _split("because cause cos since given seeing considering though although while whilst whereas")
)
"""Words that open a clause with a subject of its own (never an imperative): "since bright
screens give me migraines" is about the speaker though its subject is not "I"."""
_ASIDE_SELF = frozenset(_split("i i'm i've i'd i'll me my mine we we're we've we'd we'll us our"))
_ASIDE_NOT_SUBJECTS = frozenset(
    _split(
        """what what's which who whom whose where when why how if unless that to for of about
        in on at from by into than like there it"""
    )
)
"""First words after a subordinator that open no statement of the speaker's ("since when",
"because of", "though it ...")."""
_ASIDE_OWNERS = frozenset(_split("my our being"))
_ASIDE_OWNED_WORDS = 3
"""Fewest words of a clause opening with :data:`_ASIDE_OWNERS`: what it is about, and what is
said of it ("my knee hurts"; "my partner" alone says nothing)."""
_ASIDE_QUOTED_RE = re.compile(
    r"\"[^\"]*\"?|\u201c[^\u201d]*\u201d?|`[^`]*`?|(?<!\w)['\u2018](?=\w).*?\w['\u2019](?!\w)"
)
"""A quotation or code (an unclosed double quote runs to the end): someone else's words, or
words to translate or check, not what the speaker tells."""
_ASIDE_CONDITIONS = frozenset(
    _split("if unless suppose supposing assuming imagine provided providing")
)
"""First words of a clause that is a hypothesis: the clause after it is its consequent."""
_ASIDE_LEANING = (
    (_POINTING - {"one"})
    | _ADDRESSEE
    | frozenset(_split("its itself these those theirs he's she's hers here same such"))
)
"""Words that make a clause lean on its host or address the listener."""


def aside_statements(sentence: str, whole: bool = False) -> list[str]:
    """The statements about the speaker that ``sentence`` makes in passing, each as a sentence.

    People tell the assistant about themselves inside a request: "Could you help me plan the
    chores, as my son's asthma flares up in the cold, so what would a fair split look like?",
    "We're clearing the spare room \u2014 because I'm on crutches for another month \u2014 and
    ...", "Could you book a table for Friday (my brother is vegan)?". Such a clause is kept by
    no line of its own: its host is a question (asked, not known: it scores a question's share
    or nothing), or a dash left it a continuation that scores below what it continues, so
    :func:`units` leaves it out. A clause (split at commas, semicolons, colons, dashes and
    brackets) is a statement of its own when, its joining words left out ("and", "because",
    "since", "given that", "what with"...: :data:`_ASIDE_LEADS`), it opens with the speaker
    as its subject ("I", "we", "my", "our": "I'm on crutches for another month"), or, opened
    by a subordinator ("since", "because": a clause with a subject of its own, never an
    imperative), names the speaker ("since bright screens give me migraines"), and leans on
    nothing: no pronoun or demonstrative that points at the host ("and I keep putting it
    off"), no listener ("I was hoping you could ..."). It is returned as a sentence of its
    own ("I'm on crutches for another month."); so is one that describes the speaker with no
    subject of its own ("being a night owl who barely functions before ten"). The question's
    last clause counts too when it tells ("..., since I can't eat gluten?"). A clause that is
    a question, a pleasantry or a conditional ("if I'm late") is not (it does not open with
    the speaker, or, with no detail, scores nothing where the caller scores it), nor is the
    clause right after a conditional, its consequent ("if I get the job, then we'd move"),
    nor a purpose (:func:`_purpose`: "so that I can leave early"), nor a clause in or
    touching a quotation or code ("how do I say 'I'm vegan, I eat no
    fish' in French?": the words to translate, or someone else's). ``whole``:
    ``sentence`` is itself a clause left out of its message's units; it is taken whole when
    it is a statement, and split only when it is not. Closed-class words only: no word of
    what is told is read.
    """
    found: list[str] = []
    if whole:
        body = _aside_body(sentence)
        if body is not None:
            return [body]
    text = sentence.strip()
    cuts = [(m.start(), m.end()) for m in _ASIDE_PARTS_RE.finditer(text)]
    starts, ends = [0, *(end for _, end in cuts)], [*(start for start, _ in cuts), len(text)]
    spans = zip(starts, ends, strict=True)
    parts = [(a, b) for a, b in spans if text[a:b].strip()]
    if len(parts) < 2:
        return found
    quoted = [m.span() for m in _ASIDE_QUOTED_RE.finditer(text)]
    consequent = False
    for a, b in parts:
        part = text[a:b]
        after_if, consequent = consequent, not _ASIDE_CONDITIONS.isdisjoint(_words(part)[:2])
        if after_if or any(a < end and start < b for start, end in quoted):
            continue  # "if I get the job, we'd move": a hypothesis; "say 'I'm vegan'": a quote
        body = _aside_body(part)
        if body is not None and body not in found:
            found.append(body)
    return found


_ASIDE_PURPOSE_MODALS = frozenset(_split("can could"))
"""Modals that, after "so" and the speaker, say what something is for, not what is so."""


def _purpose(leads: Sequence[str], rest: Sequence[str]) -> bool:
    """Whether a clause says what something is for: a purpose, not a statement.

    "..., so that I can pick up my kid?", "..., so we could leave early?": what the speaker
    wants to be able to do, not what is true of them. A consequence is a statement and stays
    one: "..., so I can't lift anything", "..., so I could not sleep", "..., so I'm on
    crutches", "..., so I'd rather skip dairy", "..., so I might miss the standup" (what may
    happen to the speaker, not what they want).
    """
    if list(leads[-2:]) == ["so", "that"]:
        return True  # "so that ...": what for, whatever follows
    return (
        "so" in leads
        and len(rest) > 1
        and rest[0] in _ASIDE_SELF
        and rest[1] in _ASIDE_PURPOSE_MODALS
        and rest[2:3] != ["not"]
    )


def _aside_body(clause: str) -> str | None:
    """``clause`` as a sentence about the speaker, its joining words left out; None if not one."""
    raw = clause.strip().strip("\"'([])").strip().rstrip("?").rstrip()
    words = _words(raw)
    start = 0
    while start < len(words) - 1:
        w, nxt = words[start], words[start + 1]
        if w in _ASIDE_LEADS:
            start += 1
        elif (w == "what" and nxt == "with") or (w == "that" and start > 0):
            start += 1  # "what with my back", "given that I", "now that we"
        else:
            break
    rest = words[start:]
    if len(rest) < 2 or _purpose(words[:start], rest):
        return None
    if rest[0] not in _ASIDE_SUBJECTS and not (
        len(rest) > _ASIDE_OWNED_WORDS
        and not _ASIDE_SUBORDINATORS.isdisjoint(words[:start])
        and not _ASIDE_SELF.isdisjoint(rest)
        and rest[0] not in _ASIDE_NOT_SUBJECTS
    ):  # "since bright screens give me migraines": its own subject, the speaker named
        return None
    if rest[0] in _ASIDE_OWNERS and len(rest) < _ASIDE_OWNED_WORDS:
        return None  # "my partner": who, not what is said of them
    if not _ASIDE_LEANING.isdisjoint(rest):
        return None
    if start:  # cut the joining words off the clause as written
        raw = raw[list(_WORD_RE.finditer(raw))[start].start() :]
    raw = raw.rstrip(" ,;:.-\u2013\u2014")
    if not raw:
        return None
    return raw[0].upper() + raw[1:] + ("" if raw.endswith(("!", ".")) else ".")


def is_bare_reply(text: str, offer: str = "") -> bool:
    """A short reply that says nothing alone ("ok lock that in", "yes, the Friday one").

    Made of words that say nothing alone, and of at most one other word, or at most
    ``REPLY_EXTRA`` others when the rest of its words come from ``offer`` (the assistant's
    message it answers: "ok but make it the Friday one" picks a detail of the offer).
    """
    words = _words(text)
    if not words or len(words) > REPLY_WORDS or any(c.isdigit() for c in text):
        return False
    free = sum(w in _CONTENT_FREE for w in words)
    echoed = {w for w in words if w not in _CONTENT_FREE and w in set(_words(offer))}
    if free and len(words) - free <= 1:
        return True
    others = len(words) - free - sum(w in echoed for w in words)
    return bool(echoed) and others <= REPLY_EXTRA


def answered_sentence(sentences: Sequence[str], reply: str = "") -> int | None:
    """The sentence of the assistant's message a bare reply answers, if any.

    The sentence naming a detail the reply repeats (the most such words; the latest on a
    tie), else the option an ordinal picks among the message's sentences with a value
    ("the second one"), else its closing question or offer (the last sentence, ending in
    ``?``); None when none applies (a reply to a statement, "thanks, that helps", decides
    nothing).
    """
    said = [w for w in _words(reply) if w not in _CONTENT_FREE and w not in _STOP]
    if said:
        overlap = [len(set(said) & set(_words(s))) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: (overlap[i], i), default=None)
        if best is not None and overlap[best]:
            return best
    ordinal = next((_ORDINALS[w] for w in _words(reply) if w in _ORDINALS), None)
    options: list[int] = []
    for i, s in enumerate(sentences):
        if _MARKER.search(s):  # "1." split from its item: the item is the option
            if i + 1 < len(sentences):
                options.append(i + 1)
        elif any(c.isdigit() for c in s) and (not options or options[-1] != i):
            options.append(i)
    if ordinal is not None and len(options) > 1 and -len(options) <= ordinal < len(options):
        return options[ordinal]
    if sentences and sentences[-1].rstrip().rstrip("\"')").endswith("?"):
        return len(sentences) - 1
    return None


def leans_on_previous(sentence: str) -> bool:
    """Whether a message's opening sentence points at the message before it.

    Short (under ``SHORT_WORDS`` words) and holding a pointer (a pronoun or demonstrative)
    among its first ``_LEAN_WORDS`` words, an interjection aside: "I love this series.",
    "They're called Peruvian Lilies.", "Thanks! I got it a while ago."; not "Door code
    changed again, it's 4471 now" (it says what it is about first). An opening "but" or "and"
    leans too ("Cool, but my favourite is the Hawaiian."). A pointer later in a sentence about
    the speakers ("I'd love to try it sometime.") is not enough: counting it raised held-out
    stale-only by 0.06-0.07 at both budgets (20 seeds), see docs-notes/fidelity-round5.md.
    """
    words = _words(sentence.lstrip("\"'([ "))
    if not 0 < len(words) < SHORT_WORDS:
        return False
    start = 0
    while start < len(words) and words[start] in _CONTENT_FREE and words[start] not in _POINTING:
        start += 1  # "Thanks! I got it ...": the interjection aside
    if start < len(words) and words[start] in _CONTRASTS:
        return True  # "Cool, but my favourite is ...": it answers what came before
    return not _POINTING.isdisjoint(words[start : start + _LEAN_WORDS])


def leans_on_result(sentence: str) -> bool:
    """Whether a message's opening sentence only presents the tool result shown before it.

    Short (under ``SHORT_WORDS`` words) and holding a pointer among its first ``_LEAN_WORDS``
    words, an interjection aside, "here" counted: "Here you go, 16 rows.", "Here's the
    list.", "That's all of them.". Said right after a tool result, it points at that result:
    once the result's line is gone, "16 rows" of what? So it is kept only beside that line
    (:attr:`.selection.Fact.leans_on`).
    """
    words = _words(sentence.lstrip("\"'([ "))
    if not 0 < len(words) < SHORT_WORDS or _names(sentence, counts=False):
        return False
    start = 0
    while start < len(words) and words[start] in _CONTENT_FREE and words[start] not in _POINTING:
        start += 1
    return not _RESULT_POINTING.isdisjoint(words[start : start + _LEAN_WORDS])


def names_nothing_alone(sentence: str) -> bool:
    """Whether a short sentence points at something it does not name, and names nothing else.

    Under ``SHORT_WORDS`` words, a pointer anywhere in it ("I'd love to try it sometime.",
    "I enjoy the taste of these."), and no number, code or capitalised word past its first
    (a name: "Italy! I always dreamed of visiting there." names Italy). Alone, once the
    message it answers is gone, it says nothing a reader can use.
    """
    words = _words(sentence.lstrip("\"'([ "))
    if not 0 < len(words) < SHORT_WORDS or _POINTING.isdisjoint(words):
        return False
    return not _names(sentence)


def says_nothing(sentence: str, speakers: frozenset[str] = frozenset()) -> bool:
    """Whether a short sentence to the listener says nothing but that its speaker cares.

    Under ``SHORT_WORDS`` words, addressed to the listener ("you"), it names nothing (no
    number, code or name; the speakers' own names aside) and has no signal of a fact but
    the first-person ones (:func:`.facts.has_hard_signal`): "I'm here for you no matter
    what!", "I'm always here to cheer you on.", "Friends like you make a big difference.".
    Such a line is worth less than its tokens: it tells a reader nothing once the turn is
    gone, and it leans on that turn (what "here" is). "We adopted a cat." (an event), "She
    is allergic to peanuts." (a preference), "Our cat refuses anything except salmon pate."
    (not to the listener) say something.
    """
    words = _words(sentence.lstrip("\"'([ "))
    if not 0 < len(words) < SHORT_WORDS:
        return False
    if _ADDRESSEE.isdisjoint(words):
        return False
    unnamed = " ".join(w for w in sentence.split() if (_words(w) or [""])[0] not in speakers)
    return not _names(unnamed) and not has_hard_signal(sentence, speakers)


def antecedent(
    sentences: Sequence[str], sentence: str, repeated: Sequence[bool] | None = None
) -> int | None:
    """The sentence of the previous message ``sentence`` most likely points at, if any.

    The one sharing most of its words (function words aside; the latest on a tie), else the
    last one that is not filler (content-free words only), an acknowledgement too short to
    name anything ("Noted.", "Got it.": under ``_ANTECEDENT_WORDS`` words) nor a stock phrase
    (``repeated``: said elsewhere too, see :func:`stands_alone`); None when every one is.
    """
    said = {w for w in _words(sentence) if w not in _STOP and w not in _POINTING}
    meaningful = [
        i
        for i, s in enumerate(sentences)
        if not _content_free(s)
        and len(_words(s)) >= _ANTECEDENT_WORDS
        and not (repeated is not None and repeated[i])
    ]
    if not meaningful:
        return None
    overlap = {i: len(said & set(_words(sentences[i]))) for i in meaningful}
    best = max(meaningful, key=lambda i: (overlap[i], i))
    return best if overlap[best] else meaningful[-1]


def _content_free(sentence: str) -> bool:
    words = _words(sentence)
    return all(w in _CONTENT_FREE for w in words)


_ABOUT_THEM = frozenset(
    ("you", "your", "you're", "you've", "yours", "anyone", "anybody", "anything")
)
"""Words a question about the person asked, or their household, holds."""
_OFFERS = frozenset(
    (
        *("shall i", "should i", "can i", "may i", "want me", "like me", "shall we"),
        *("i can", "i could", "we can", "help you", "make sense"),
    )
)
"""A question offering to do something asks for a decision, not for a detail; one about the
speaker's own help or explanation ("Anything else I can help with?", "Does that make sense to
you?") asks nothing about the listener either."""


def asks_the_user(sentence: str) -> bool:
    """Whether ``sentence`` asks the person it talks to about themselves or their plans.

    "Is there a lift where you live?", "Any allergies at all?" (anything asked of the listener
    with no subject of the speaker's), "How do you take your coffee?"; not an offer ("Shall I
    book it?", "Would you like me to draft it?"), which asks for a decision the reply's own
    rule reads (:func:`answered_sentence`), not a check on the speaker's own help ("Anything
    else I can help with?", "Does that make sense to you?"), and not a statement with a
    question tagged on. What it reads is closed-class words only: a question that names the
    listener ("you", "your", "any...") and is none of those. A question about the listener's
    world that does not name them ("How old are the kids?", "When is the move?") is missed,
    and a choice put to them ("Would you like a window seat?") counts: its answer is theirs,
    as does a question that only tells ("Did you know it closes early?").
    """
    if not asks(sentence):
        return False
    words = [w.lower().replace("\u2019", "'") for w in _WORD_RE.findall(sentence)]
    pairs = {f"{a} {b}" for a, b in itertools.pairwise(words)}
    if not _OFFERS.isdisjoint(pairs):
        return False
    return not _ABOUT_THEM.isdisjoint(words) or (bool(words) and words[0] == "any")
