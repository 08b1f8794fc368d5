"""Candidate facts for the extractive summarizer: sentence splitting, compaction, scoring.

Kept apart from the summarizer itself (which selects facts under the budget) so each
stays small. Everything here is a pure function of text, linear in its input, and
deterministic: the same conversation always yields the same facts with the same scores.

A sentence's score estimates how much an assistant would miss it later. It is the sum of a
small base that grows with the sentence's content words and of cheap signals of information
an assistant cannot reconstruct: identifiers and contact details, numbers (more for precise
ones, ``48213.57``, than for small counts), dates and times (more for absolute ones), names,
first-person statements (``I went...``, ``my sister lives...``, ``we're moving...``),
decisions, preferences and open tasks. A question is worth a fraction of the same statement,
and nothing when it asks without telling (``"What made you pick it?"``); greetings, thanks,
praise and other chat filler score 0 and are never kept. The speaker's role weighs the result.
The weights are in ``_W``; the word lists in :mod:`summem.summarizers.extractive.lexicon`.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterator

from summem.summarizers.extractive import lexicon as lex
from summem.summarizers.extractive.scripts import other_script, script_words, scripts_on

__all__ = [
    "ROLE_WEIGHT",
    "SCORING_HEURISTICS",
    "asks",
    "compact_sentence",
    "content_words",
    "digit_words",
    "fold",
    "has_hard_signal",
    "names_a_name",
    "score_sentence",
    "split_sentences",
    "tokenize",
    "value_signal",
]

ROLE_WEIGHT: dict[str, float] = {
    "user": 1.0,
    "assistant": 1.0,
    "tool": 1.0,
    "system": 0.6,
    "developer": 0.6,
    "summary": 1.0,
}
"""Both sides of a conversation weigh the same (a fixed bias would starve one speaker, e.g.
the person mapped to ``assistant`` in a dialogue between two people); instructions less."""

_W: dict[str, float] = {
    "base": 0.25,
    "per_word": 0.18,
    "code": 3.0,
    "date": 2.0,
    "when": 2.25,
    "time": 0.75,
    "contact": 2.0,
    "name": 1.1,
    "full_name": 2.5,
    "names_cap": 3.0,
    "self": 0.8,
    "event": 0.8,
    "decision": 1.5,
    "preference": 3.0,
    "personal": 1.5,
    "self_opening": 0.75,
    "task": 1.5,
    "correction": 1.5,
    "need": 0.5,
    "user_question": 0.55,
    "question": 0.35,
}
"""Signal weights of :func:`score_sentence`: ``base + per_word * content words + signals``
(``per_word`` counts at most 10 words); a question keeps ``user_question`` (from the user) or
``question`` (from anyone else) of its score."""

SCORING_HEURISTICS: dict[str, tuple[str, ...]] = {
    "time_words": ("date", "when", "time"),
    "numbers": (),
    "codes": ("code",),
    "contacts": ("contact",),
    "names": ("name", "full_name"),
    "first_person": ("self", "personal", "self_opening"),
    "events": ("event",),
    "decisions": ("decision",),
    "preferences": ("preference",),
    "tasks": ("task", "need"),
    "correction_words": ("correction",),
    "question_discount": (),
    "filler_drop": (),
}
"""The signals of :func:`score_sentence` an ablation may switch off (``off=``), each with the
weights of ``_W`` it zeroes. ``numbers`` drops the number signal, ``question_discount`` scores
a question like a statement (and keeps bare ones), ``filler_drop`` keeps short sentences with
no signal. For evals only: the default scoring has every one on."""


@functools.cache
def _weights(off: frozenset[str]) -> dict[str, float]:
    zero = {k for name in off for k in SCORING_HEURISTICS.get(name, ())}
    return {k: 0.0 if k in zero else v for k, v in _W.items()} if zero else _W


_ABBREVIATIONS = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "Jr", "Sr", "vs", "e.g", "i.e")
_SENTENCE_END_RE = re.compile(
    r"(?<=[.!?])"
    + r"(?!(?:(?<=\s\d\.)|(?<=\s\d\d\.))\s+[^\W\d_]+\.?\s+\d{4}\b)"  # "am 3. November 2028"
    + "".join(rf"(?<!\b{re.escape(a)}\.)" for a in (*_ABBREVIATIONS, "approx"))
    + r"[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+|\s+[-\u2013\u2014]\s+(?=[A-Za-z])"
)
_CLAUSE_RE = re.compile(r"(?<=[;:])\s+|(?<=,)\s+(?=(?:and|but|so|which|while)\b)")
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9'.@+-]*[a-z0-9]|[a-z0-9]")
_SPACE_RE = re.compile(r"\s+")


_DIGIT_RE = re.compile(r"\d")
_NUMBER_RE = re.compile(r"\d[\d,.:]*\d|\d")
_CODE_RE = re.compile(
    r"\b(?:[A-Z]{1,6}-?\d[\w-]*|\d+[A-Z]{1,4}\d*|[A-Z0-9]{2,}-[A-Z0-9-]*\d[A-Z0-9-]*)\b"
)
_CONTACT_RE = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+|\w+://\S+|\+\d[\d ().-]{7,}\d")
_NUMERIC_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\b(?:19|20)\d{2}\b")
_TIME_RE = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2} ?(?:am|pm)\b", re.IGNORECASE)
_NAME_RE = re.compile(
    r"(?<=[\w,;] )[A-Z][a-z]{1,}(?:[ -][A-Z][a-z]+)*"
    r"|(?<==)[A-Z][a-z]{1,}(?:[ -][A-Z][a-z]+)+"  # a full name as a record's value: key=Ada Lee
    r"|\b[A-Z]{2,6}s?\b\+?"
)
_NOT_NAMES = frozenset(("I", "I'm", "I'll", "I've", "I'd", "OK", "Ok", "AM", "PM", "TV", "OMG"))

_LEAD_RE = re.compile(r"([A-Za-z][\w']*)((?:\s*[,!.:;\u2014\u2013-])*)\s+")
_HI_THERE_RE = re.compile(r"^(?:hi|hello|hey) there\b[\s,!.]*", re.IGNORECASE)
_TRAIL_VOCATIVE_RE = re.compile(r",\s+([A-Z][a-z]+)(\s*[.!?]*)$")


def split_sentences(text: str, max_chars: int = 280) -> Iterator[str]:
    """Sentences of ``text``, whitespace collapsed; long ones split at clauses, then clipped.

    A statement with its question tagged on is two sentences (:func:`split_asked`).
    """
    for raw in _SENTENCE_END_RE.split(text):
        for sentence in split_asked(_SPACE_RE.sub(" ", raw).strip()):
            yield from _fitted(sentence, max_chars)


def split_asked(sentence: str) -> tuple[str, ...]:
    """``sentence`` as what it tells and what it asks, when it joins a question to a statement.

    People run what they say about themselves into their question: "I keep meaning to start
    running again, as my son's asthma flares up in the cold, so could you suggest a routine?"
    Read whole, the sentence ends in "?" and is a question: with no value in it, it scored 0
    and the message's statement was never a candidate; with one, it kept a question's share
    and its line carried the question too. Split before the last clause that opens with "so",
    "and", "but" or "then" and a question word or an auxiliary, after a statement of at
    least :data:`_TOLD_WORDS` words that does not itself open like a question, the told part
    is scored as a statement and the question as one. A question tagged on with no joining
    word ("The printer shows error 6419 again, any idea?") is already read as told
    (:func:`_tells_then_asks`) and stays whole: split, its shorter line made such reports
    stronger than the facts they crowd out (own ``heldout`` at 2,000, 5 seeds, after 10
    reductions 0.643 -> 0.571). Closed-class words only: no word of what is told is read.
    """
    if not sentence.endswith("?"):
        return (sentence,)
    at = len(sentence)
    while (at := sentence.rfind(", ", 0, at)) > 0:
        tail = tokenize(sentence[at + 2 :])
        if len(tail) < 2 or tail[1] not in lex.QUESTION_OPENERS:
            continue
        if tail[0] not in _ASK_JOINERS:
            continue
        words = tokenize(sentence[:at])
        if len(words) < _TOLD_WORDS or words[0] in lex.QUESTION_OPENERS:
            return (sentence,)
        ask = sentence[at + 2 :]
        return (sentence[:at], ask[0].upper() + ask[1:])
    return (sentence,)


_ASK_JOINERS = frozenset(("so", "and", "but", "then"))
"""Words that may join a tagged-on question to what was told before it ("..., so what ...?")."""
_TOLD_WORDS = 6
"""Fewest words a told part needs to stand apart from its question ("I'm free, so can we
talk?" stays whole)."""


def _fitted(sentence: str, max_chars: int) -> Iterator[str]:
    """``sentence`` within ``max_chars``: split at clauses, then clipped."""
    if len(sentence) <= max_chars:
        if sentence:
            yield sentence
        return
    chunk = ""
    for clause in _CLAUSE_RE.split(sentence):
        if chunk and len(chunk) + 1 + len(clause) > max_chars:
            yield _clip(chunk, max_chars)
            chunk = clause
        else:
            chunk = f"{chunk} {clause}" if chunk else clause
    if chunk:
        yield _clip(chunk, max_chars)


def compact_sentence(sentence: str, speakers: frozenset[str] = frozenset()) -> str:
    """``sentence`` without the interjections and forms of address that open or close it.

    ``"Wow, Mel, I went to a support group yesterday, Caroline!"`` becomes ``"I went to a
    support group yesterday!"``. Only words that carry nothing are removed: interjections
    (``oh``, ``yeah``, ``thanks``...) and the names of the conversation's ``speakers`` used to
    address them; the rest is kept as written.
    """
    rest = _HI_THERE_RE.sub("", sentence, count=1) if sentence[:1] in "hH" else sentence
    for _ in range(8):
        m = _LEAD_RE.match(rest)
        if m is None:
            break
        word, punct = m.group(1).lower(), m.group(2)
        filler = word in lex.INTERJECTIONS and (punct or word in lex.LOOSE_INTERJECTIONS)
        if filler or (punct and m.group(1)[0].isupper() and _is_speaker(word, speakers)):
            rest = rest[m.end() :]
        else:
            break
    m = _TRAIL_VOCATIVE_RE.search(rest)
    if m is not None and _is_speaker(m.group(1).lower(), speakers):
        rest = rest[: m.start()] + (m.group(2).strip() or ".")
    if rest is not sentence and rest[:1].islower():
        rest = rest[0].upper() + rest[1:]
    return rest


def _is_speaker(word: str, speakers: frozenset[str]) -> bool:
    return len(word) >= 3 and any(s.startswith(word) for s in speakers)


def asks(sentence: str) -> bool:
    """Whether ``sentence`` is read as a question: it ends in "?" and does not tell first.

    "Could you check the menu?" asks; "The code is KQ-52205, does that help?" tells, with its
    question tagged on (:func:`_tells_then_asks`), and is scored as a statement.
    """
    if not sentence.rstrip("\"')]").endswith("?"):
        return False
    words = tokenize(sentence)
    return bool(words) and not _tells_then_asks(sentence, words)


def _tells_then_asks(sentence: str, words: list[str]) -> bool:
    """A statement with a question tagged on: "The code is KQ-52205, does that help?".

    The sentence opens like a statement (not with a question word or an auxiliary) and its
    question is a last clause after a comma, so what comes before it is told, not asked.
    """
    if words[0] in lex.QUESTION_OPENERS:
        return False
    head, comma, tail = sentence.rpartition(", ")
    if not comma or len(head) < 12:
        return False
    tail_words = tokenize(tail)
    return bool(tail_words) and tail_words[0] in lex.QUESTION_OPENERS


def tokenize(text: str) -> list[str]:
    """Lowercased words of ``text`` (apostrophes, dots and dashes kept inside words).

    Words of other scripts and digits of other numeral systems are read too
    (:mod:`~summem.summarizers.extractive.scripts`); ASCII text is read as ASCII words only.
    """
    lowered = text.lower().replace("\u2019", "'")
    if lowered.isascii() or not other_script(lowered) or not scripts_on():
        return _WORD_RE.findall(lowered)
    return script_words(lowered)


def score_sentence(
    sentence: str,
    role: str,
    focus: frozenset[str] = frozenset(),
    *,
    words: list[str] | None = None,
    speakers: frozenset[str] = frozenset(),
    off: frozenset[str] = frozenset(),
) -> float:
    """How much an assistant would miss ``sentence`` later; 0 for greetings and filler.

    Args:
        sentence: one sentence.
        role: the speaker's role (see ``ROLE_WEIGHT``).
        focus: content words of the application's focus; matching sentences get a bonus.
        words: ``tokenize(sentence)``, when the caller already has it.
        speakers: lowercased names of the conversation's speakers: addressing someone
            ("Thanks, Mel!") does not make a sentence worth keeping.
        off: names of :data:`SCORING_HEURISTICS` to switch off (ablations; default none).
    """
    w = _weights(off) if off else _W
    if words is None:
        words = tokenize(sentence)
    if not words:
        return 0.0
    has_digit = _DIGIT_RE.search(sentence) is not None
    empty = lex.EMPTY_WORDS
    content = [w for w in words if w not in empty and w not in speakers]
    if not has_digit and not content:
        return 0.0
    wordset = set(words)
    bigrams = {f"{a} {b}" for a, b in itertools.pairwise(words)}
    signal = 0.0
    explicit_date = False
    named = sentence  # where names are looked for: a code's letters are not a name
    if has_digit:
        if _CODE_RE.search(sentence):
            signal += w["code"]
            named = _CODE_RE.sub(" ", sentence)
        if "numbers" not in off:
            signal += _number_signal(sentence)
        explicit_date = bool(
            _NUMERIC_DATE_RE.search(sentence.lower())
            or not lex.MONTH_WORDS_WITH_DIGIT.isdisjoint(wordset)
        )
    explicit_date = explicit_date or not lex.MONTH_WORDS.isdisjoint(wordset)
    if explicit_date:
        signal += w["date"]
    elif not lex.WHEN_WORDS.isdisjoint(wordset) or not lex.WHEN_BIGRAMS.isdisjoint(bigrams):
        signal += w["when"]
    elif has_digit and _TIME_RE.search(sentence):
        signal += w["time"]  # a time of day, with no day to anchor it
    if ("@" in sentence or "://" in sentence or "+" in sentence) and _CONTACT_RE.search(sentence):
        signal += w["contact"]
    names = [
        n
        for n in _NAME_RE.findall(named)
        if n not in _NOT_NAMES and not any(s.startswith(n.lower()) for s in speakers)
    ]
    if names:
        full, single = w["full_name"], w["name"]
        signal += min(w["names_cap"], sum(full if " " in n else single for n in names))
    if not lex.DECISION_WORDS.isdisjoint(wordset) or not lex.DECISION_BIGRAMS.isdisjoint(bigrams):
        signal += w["decision"]
    if _preference(words, wordset, bigrams):
        signal += w["preference"]
    if not lex.TASK_WORDS.isdisjoint(wordset):
        signal += w["task"]
    if has_digit and not lex.CORRECTION_WORDS.isdisjoint(wordset):
        signal += w["correction"]  # a value corrected or updated: what is true now
    question = sentence.endswith("?") and not _tells_then_asks(sentence, words)
    if "question_discount" in off:
        question = False
    if question and signal == 0.0:
        return 0.0  # a bare question: "What made you pick it?"
    # Softer signals: a sentence about the speaker, or about something that happened.
    if len(content) >= 2:
        if not lex.FIRST_PERSON.isdisjoint(wordset):
            signal += w["self"]
        if _is_event(content, wordset, bigrams):
            signal += w["event"]
    if not lex.PERSONAL_BIGRAMS.isdisjoint(bigrams):
        signal += w["personal"]
    elif content and (words[0] == "i'm" or " ".join(words[:2]) in lex.SELF_OPENINGS):
        signal += w["self_opening"]
    if not lex.TASK_BIGRAMS.isdisjoint(bigrams):
        signal += w["need"]
    if signal == 0.0 and len(content) <= 2 and "filler_drop" not in off:
        return 0.0  # "Great, thanks a lot!", "Love that painting!": no signal, no content
    score = w["base"] + w["per_word"] * min(len(content), 10) + signal
    if question:  # asking is not knowing
        score *= w["user_question"] if role == "user" else w["question"]
    if focus:
        hits = len(wordset & focus)
        score += 1.5 * min(1.0, hits / max(1, min(3, len(focus))))
    return score * ROLE_WEIGHT.get(role, 1.0)


_SOFT_SIGNALS = frozenset(["first_person"])
_HARD_SIGNALS = frozenset(
    [
        "events",
        "time_words",
        "numbers",
        "codes",
        "contacts",
        "names",
        "decisions",
        "preferences",
        "tasks",
        "correction_words",
    ]
)


def has_hard_signal(sentence: str, speakers: frozenset[str] = frozenset()) -> bool:
    """Whether ``sentence`` says something beyond being about its speaker.

    Any signal of :func:`score_sentence` but the first-person ones: a time, number, code,
    contact, name, event, decision, preference, task or correction. "I'm here for you no
    matter what!" has none (only "I'm"); "She is allergic to peanuts." (a preference), "We
    adopted a cat." (an event) and "I got a puppy two weeks ago!" (a time) have one.
    """
    soft = score_sentence(sentence, "user", speakers=speakers, off=_SOFT_SIGNALS)
    bare = score_sentence(sentence, "user", speakers=speakers, off=_SOFT_SIGNALS | _HARD_SIGNALS)
    return soft != bare


_CALENDAR = lex.MONTH_WORDS | lex.MONTH_WORDS_WITH_DIGIT | lex.WHEN_WORDS
"""The calendar's words: a capitalised one ("Monday", "May") names no one."""


def names_a_name(sentence: str) -> bool:
    """Whether ``sentence`` names someone or something, as :func:`score_sentence` reads names.

    A capitalised word or run of them after the first word ("Our cleaner is Hester Blackwood",
    "the flight to Cork"), or an acronym; "I" and its contractions, "OK", a code's letters and
    the calendar's words ("on Monday", "in May") are not names.
    """
    return any(
        n not in _NOT_NAMES and not set(tokenize(n)) <= _CALENDAR
        for n in _NAME_RE.findall(_CODE_RE.sub(" ", sentence))
    )


_LOWER_ID_RE = re.compile(r"[a-z0-9]+(?:[_.:-][a-z0-9]+)*")
_PLAIN_NUMBER_RE = re.compile(r"[-+]?\d+(?:\.\d+)?")
_PROPER_RE = re.compile(r"[A-Z][\w'.-]*(?: (?:[a-z]{1,3} )?[A-Z][\w'.-]*)*")


def value_signal(value: str) -> float:
    """How much one field's value tells alone (a tool result's ``key=value``).

    The value signals of :func:`score_sentence`: a code, a date, a contact, a proper name, a
    precise number.

    What carries little scores little: a small count, a flag, a lower-case word or
    machine id (``pending``, ``obj_3fa2``).
    """
    if not value or value in ("true", "false", "null"):
        return 0.0
    w = _W
    if _PLAIN_NUMBER_RE.fullmatch(value):
        if ("." not in value and len(value.lstrip("+-")) <= 2) or abs(float(value)) < 1:
            return 0.3  # a small count, a share or a score
        return w["base"] + _number_signal(value)
    if (
        _LOWER_ID_RE.fullmatch(value)
        and re.search("[a-z]", value)
        and not _NUMERIC_DATE_RE.search(value)
    ):
        return 0.8 if _DIGIT_RE.search(value) else 0.3  # a machine id; an enum-like word
    signal = w["base"]
    has_digit = _DIGIT_RE.search(value) is not None
    if has_digit:
        if _CODE_RE.search(value):
            signal += w["code"]
        signal += _number_signal(value)
    lower = value.lower()
    words = set(tokenize(lower))
    if (has_digit and _NUMERIC_DATE_RE.search(lower)) or not lex.MONTH_WORDS.isdisjoint(words):
        signal += w["date"]
    elif has_digit and _TIME_RE.search(value):
        signal += w["time"]
    if _CONTACT_RE.search(value):
        signal += w["contact"]
    if value not in _NOT_NAMES and _PROPER_RE.fullmatch(value):
        signal += w["full_name"] if " " in value else w["name"]
    return signal


def _number_signal(sentence: str) -> float:
    """Precise numbers (``48213.57``, ``£120``) say more than small counts (``3``).

    Times of day (``09:00``) count as times, not numbers.
    """
    best = 0.0
    count = 0
    for number in _NUMBER_RE.findall(sentence):
        if ":" in number:
            continue
        digits = sum(c.isdigit() for c in number)
        if digits >= 3 or "." in number or "," in number:
            value = 1.4 + 0.15 * min(digits, 8)
        else:
            value = 1.0 if digits == 2 else 0.6
        best = max(best, value)
        count += 1
    return best + min(0.6, 0.3 * (count - 1)) if count else 0.0


def _preference(words: list[str], wordset: set[str], bigrams: set[str]) -> bool:
    """A stated preference; not the polite "if you prefer" or "if you like"."""
    if not lex.PREFERENCE_BIGRAMS.isdisjoint(bigrams):
        return True
    if lex.PREFERENCE_WORDS.isdisjoint(wordset):
        return False
    return any(
        w in lex.PREFERENCE_WORDS and (i == 0 or words[i - 1] not in lex.SECOND_PERSON)
        for i, w in enumerate(words)
    )


def _is_event(content: list[str], wordset: set[str], bigrams: set[str]) -> bool:
    """Something that happened or is planned: a past tense or a plan."""
    if not lex.PLAN_WORDS.isdisjoint(wordset) or not lex.PLAN_BIGRAMS.isdisjoint(bigrams):
        return True
    if not lex.IRREGULAR_PAST.isdisjoint(wordset):
        return True
    return any(w.endswith("ed") and len(w) >= 5 and w not in lex.NOT_EVENTS for w in content)


def content_words(text: str = "", *, words: list[str] | None = None) -> frozenset[str]:
    """Words of ``text`` (or the given tokens) without stopwords, for near-duplicate detection."""
    if words is None:
        words = tokenize(text)
    stop = lex.STOPWORDS
    kept = {w for w in words if w not in stop and (len(w) > 1 or w.isdigit())}
    return frozenset(kept or words)


def digit_words(words: frozenset[str]) -> frozenset[str]:
    """The words carrying a digit: two facts that differ in one are never duplicates."""
    return frozenset(w for w in words if _DIGIT_RE.search(w))


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", 0, max_chars - 1)
    if cut < max_chars // 2:
        cut = max_chars - 1
    return text[:cut].rstrip(" ,;:") + "\u2026"


_LETTERS = str.maketrans(
    {
        "ł": "l",
        "Ł": "L",
        "ø": "o",
        "Ø": "O",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "þ": "th",
        "ß": "ss",
        "æ": "ae",
        "Æ": "Ae",
        "œ": "oe",
        "Œ": "Oe",
    }
)


def fold(text: str) -> str:
    """``text`` without its accents (``Gdańsk`` -> ``Gdansk``, ``Łódź`` -> ``Lodz``).

    Words are read with :func:`tokenize`, whose words are ASCII letters: unfolded, "Gdańsk"
    would be the two words "gda" and "sk".
    """
    if text.isascii():
        return text
    plain = unicodedata.normalize("NFKD", text.translate(_LETTERS))
    return "".join(c for c in plain if not unicodedata.combining(c))
