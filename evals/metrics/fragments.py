"""Short summary lines that depend on a sentence the summary dropped.

An extractive summary copies sentences, and a copied sentence may mean nothing without the one
before it: "- user: It's on 3 May, first thing." (what is?), "- John: I hold it for 30-60
seconds." (hold what?). This check counts such lines from what is measurable without a model:
the line's text, the message its provenance names (``summary_info.extra["provenance"]``) and
the rest of the summary. A line is a **dependent fragment** when

1. it names its source messages and the one it was copied from is not a tool result (a tool
   record has no sentences to lean on);
2. it has fewer than :data:`MAX_WORDS` words, bullet, timestamp and speaker label left out;
3. it leans on context in one of four ways (its ``reason``):

   - ``clipped``: it starts in the middle of its source sentence, two words or more that are
     not greetings or interjections (:data:`DISCOURSE`) were cut before it, and that sentence
     is not elsewhere in the summary; a cut at the start of a clause with a subject of its
     own, joined to what was cut by a joining word (", and I'm ..."), is none
     (:func:`_clause_start`);
   - ``refers back``: it holds a referring word (:data:`REFERRING`: it, she, they, this, that
     one, the same...; "this morning", "that week" and the like do not count, nor an
     existential "there": "There are 10 boxes left.", "Is there a bus?") or opens with
     an ellipsis word (:data:`CONTINUATIONS`: and, but, also, yes...), and the sentence
     before it in its message is not in the summary;
   - ``replies to``: the same, but it is its message's first sentence, so what it refers to is
     the previous message, and no summary line cites that message;
   - ``announces``: it names nothing (no digit, address or capitalised word past its start)
     and the next sentence of its message opens with a referring or ellipsis word and names
     something (it completes this one: "I'm changing email soon. The new one is ..."), and
     is not in the summary.

A sentence counts as in the summary when its words are at least :data:`CARRIED_SHARE` in the
other lines that cite its message. The word lists are fixed and plain: expletive pronouns
("it's raining") are counted too, and a bare noun phrase with no marker ("Half nduja, half
plain.") is missed, so read the figure as an estimate of the problem's size, the same for
every summarizer with provenance. An LLM summary records none and is not checked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.text import normalize_text
from summem.messages import Message

__all__ = [
    "CARRIED_SHARE",
    "CONTINUATIONS",
    "DISCOURSE",
    "JOINING",
    "MAX_WORDS",
    "REFERRING",
    "SUBJECTS",
    "Fragment",
    "FragmentCount",
    "HistoryIndex",
    "dependent_fragments",
    "summary_fragments",
]

MAX_WORDS = 8
"""A line of fewer words than this is short enough to be checked."""
CARRIED_SHARE = 0.6
"""Share of a sentence's words other lines citing its message must hold for it to count."""
REFERRING = frozenset(
    [
        "it",
        "its",
        "it's",
        "itself",
        "they",
        "them",
        "their",
        "theirs",
        "they're",
        "he",
        "him",
        "his",
        "he's",
        "she",
        "her",
        "hers",
        "she's",
        "this",
        "that",
        "that's",
        "these",
        "those",
        "there",
        "here",
        "same",
        "such",
    ]
)
"""Words that point at something said before."""
DISCOURSE = frozenset(
    [
        "yeah",
        "yes",
        "yep",
        "oh",
        "wow",
        "well",
        "so",
        "btw",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "you",
        "ok",
        "okay",
        "sure",
        "right",
        "ah",
        "hmm",
        "haha",
        "lol",
        "definitely",
        "absolutely",
        "totally",
        "great",
        "cool",
        "awesome",
        "nice",
        "actually",
        "anyway",
    ]
)
"""Words a cut may drop without losing what the line is about."""
CONTINUATIONS = frozenset(
    [
        "and",
        "but",
        "also",
        "too",
        "so",
        "then",
        "yes",
        "yeah",
        "yep",
        "yup",
        "no",
        "nope",
        "either",
        "neither",
        "instead",
        "both",
        "plus",
        "or",
        "otherwise",
        "anyway",
    ]
)
"""Words that, opening a line, carry on from something said before."""

JOINING = frozenset(
    [
        "and",
        "but",
        "or",
        "nor",
        "so",
        "because",
        "cause",
        "since",
        "as",
        "given",
        "seeing",
        "now",
        "considering",
        "though",
        "although",
        "while",
        "whilst",
        "whereas",
        "plus",
        "also",
        "then",
        "that",
        "with",
        "what",
    ]
)
"""Words that join a clause to its host without being part of what it says ("..., and I'm a
size 11", "... \u2014 because I'm on crutches \u2014", "..., what with my knee")."""
SUBJECTS = frozenset(
    ["i", "i'm", "i've", "i'd", "i'll", "my", "we", "we're", "we've", "we'd", "we'll", "our"]
)
"""The speaker as a clause's subject: a clause opening with one says who it is about."""

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\s\d\.)(?<!\s\d\d\.)\s+|\n+")
"""Sentence ends; not the dot of a day in a date ("3. März 2026")."""
_BE = """is are was were isn't aren't wasn't weren't will won't would wouldn't has hasn't have
haven't had hadn't must may might could couldn't should shouldn't can can't cannot does doesn't
did didn't do don't"""


def _either(*words: str) -> str:
    """A regex group matching any of the space-separated words."""
    return "(?:" + "|".join(w for text in words for w in text.split()) + ")"


_EXISTENTIAL = re.compile(
    r"\bthere(?=(?:'s|'ll|'d|'re|'ve)\b|\s+"
    + _either(
        _BE,
        "seem seems seemed appear appears appeared exist exists existed remain remains remained",
        "used ought",
    )
    + r"\b)"
)
"""An existential "there" before its verb ("There are 10 boxes left for Irbid.", "We checked.
Currently there seem to be two.", "there'll be a bus at 9"): it stands for no place said
before, so it refers to nothing. A locative one ("My car is there", "I left it there.") is
not matched; "There is my wallet." is (rare: counted as not leaning)."""
_EXISTENTIAL_ASKED = re.compile(
    r"((?:^|[.!?,;:(\u2013\u2014-]\s*|\b(?:how\s+many|how\s+much|what|why|where|when|who)\s+)"
    + _either(_BE)
    + r"\s+)there\b"
)
"""The same asked: "Is there a fee?", "Hi, will there be parking?", "How many are there?"; the
verb opens a clause or follows a question word, so "My car is there." is not matched."""
_BULLET = re.compile(r"^\s*(?:[-*\u2022]\s+)?(?:\[[^\]]*\]\s*)?")


@dataclass(frozen=True)
class Fragment:
    """A summary line that depends on a dropped sentence, and why."""

    line: str
    reason: str
    source_id: str


@dataclass
class FragmentCount:
    """The check over one or more summaries.

    Attributes:
        lines: summary lines with provenance naming a non-tool message.
        short: of those, lines under :data:`MAX_WORDS` words.
        dependent: the dependent fragments (short lines leaning on a dropped sentence).
        reasons: ``reason -> count`` of the dependent ones.
        examples: a few of them.
    """

    lines: int = 0
    short: int = 0
    dependent: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    examples: list[Fragment] = field(default_factory=list)

    def add(self, other: FragmentCount, keep: int = 10) -> None:
        self.lines += other.lines
        self.short += other.short
        self.dependent += other.dependent
        self.reasons.update(other.reasons)
        self.examples += other.examples[: max(0, keep - len(self.examples))]

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "short": self.short,
            "dependent": self.dependent,
            "reasons": dict(sorted(self.reasons.items())),
            "examples": [f"{f.line}  [{f.reason}]" for f in self.examples],
        }


def _words(text: str) -> list[str]:
    return [w.lower().replace("\u2019", "'") for w in _WORD.findall(text)]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _strip_label(line: str, source: Message) -> str:
    text = _BULLET.sub("", line, count=1)
    label, sep, rest = text.partition(": ")
    speakers = {source.role.lower(), (source.name or "").lower()}
    if sep and label.strip().lower() in speakers:
        return rest.strip()
    return text.strip()


def _leans(text: str) -> bool:
    words = _words(text)
    if not words:
        return False
    if words[0] in CONTINUATIONS:
        return True
    timeless = re.sub(
        r"\b(?:this|that)\s+(?:morning|afternoon|evening|week|weekend|month|year)\b",
        "",
        _EXISTENTIAL_ASKED.sub(r"\1", _EXISTENTIAL.sub("", text.lower().replace("\u2019", "'"))),
    )
    if any(w in REFERRING for w in _words(timeless)):
        return True
    return bool(re.search(r"\b(?:the|this|that)\s+(?:\w+\s+)?ones?\b", text.lower()))


def _clause_start(text: str, sentence: str) -> bool:
    """Whether ``text`` starts ``sentence``'s clause.

    After a dash, colon or semicolon, a capital ("Guess what - I got a puppy"); or a clause
    with a subject of its own, the speaker or a name, cut off its host at a comma, dash,
    colon or semicolon and joined to it by at least one joining word (:data:`JOINING`):
    "..., and I'm a size 11 in trainers, so ...", "... \u2014 since my father is diabetic now
    \u2014 ...". Such a clause says what it says alone; a cut before a clause with no subject
    of its own ("... routines - rehearsing hard"), one whose subject points back ("..., and
    it's on 3 May"), or a main clause cut off its fronted condition, exception or time with
    no joining word ("Apart from shellfish, I eat everything.", "If it rains, I'll drive.")
    is not one.
    """
    first = _WORD.findall(text)[:2]
    if not first:
        return True
    pattern = r"[^\w]+".join(re.escape(w) for w in first)
    found = re.search(rf"(?<![^\W_]){pattern}", sentence, re.IGNORECASE)
    if found is None or found.start() == 0:
        return True
    before = sentence[: found.start()].rstrip()
    boundary = before.endswith(("-", ":", ";", "\u2014", "\u2013"))
    if boundary and sentence[found.start()].isupper():
        return True
    return _own_subject(text, sentence[found.start() :], before)


def _own_subject(text: str, rest: str, before: str) -> bool:
    """Whether ``text`` (``rest`` of its sentence, ``before`` cut) is a clause of its own."""
    raw = _WORD.findall(rest)
    start = 0
    while start < len(raw) - 1 and raw[start].lower() in JOINING:
        start += 1  # the line's own joining words: "since my father is diabetic now"
    if start >= len(raw):
        return False
    word = raw[start]
    if word.lower().replace("\u2019", "'") not in SUBJECTS and not (start and word[0].isupper()):
        return False
    cut = before.split()
    joined = start > 0  # a joining word of its own, or one cut with the host before it
    while cut and _words(cut[-1]) and all(w in JOINING for w in _words(cut[-1])):
        cut.pop()  # "..., and", "... \u2014 because", "..., what with"
        joined = True
    # Without a joining word the host is a fronted qualifier the clause is the main clause of:
    # "Apart from shellfish, I eat everything." cut to "I eat everything." says the opposite.
    return (
        joined
        and bool(cut)
        and cut[-1].endswith((",", "-", ":", ";", "\u2014", "\u2013"))
        and bool(text)
    )


def _specific(text: str) -> bool:
    """Whether ``text`` names something: a digit, an address, or a capital past its start."""
    if re.search(r"\d|@", text):
        return True
    return any(w[:1].isupper() and w != "I" and not w.startswith("I'") for w in text.split()[1:])


def _carried(sentence: str, others: Sequence[str]) -> bool:
    words = set(_words(sentence))
    if not words:
        return True
    held = set().union(*(set(_words(o)) for o in others)) if others else set()
    return len(words & held) / len(words) >= CARRIED_SHARE


def _locate(text: str, sentences: Sequence[str]) -> tuple[int, bool] | None:
    """Which sentence ``text`` came from, and whether words that say something were cut.

    A cut of greetings and interjections only ("Yeah, ...", "Thanks, Gina! ...") is not one,
    nor a cut at a clause boundary (a dash, colon or semicolon) before a capital ("Guess what -
    I got a puppy"); a cut before a lower-case word is ("... routines - rehearsing hard").
    """
    norm = normalize_text(text)
    if not norm:
        return None
    for i, sentence in enumerate(sentences):
        padded = f" {normalize_text(sentence)} "
        at = padded.find(f" {norm} ")
        if at >= 0:
            cut = [w for w in padded[:at].split() if w not in DISCOURSE]
            return i, len(cut) >= 2 and not _clause_start(text, sentence)
    words = set(_words(text))
    best = max(
        range(len(sentences)),
        key=lambda i: len(words & set(_words(sentences[i]))),
        default=None,
    )
    if best is None or len(words & set(_words(sentences[best]))) < len(words) / 2:
        return None
    return best, False


class HistoryIndex:
    """Message id -> position in a history that only grows, extended with what is new.

    A run that checks every cycle's summary passes one of these so that each check costs
    O(new messages + summary), not O(history): rebuilding the map per cycle made a long
    replay quadratic. A history that is not the same one grown (a different first or last
    indexed message) is indexed again from the start.
    """

    def __init__(self) -> None:
        self._position: dict[str, int] = {}
        self._first: str | None = None
        self._last: str | None = None
        self.indexed = 0
        """Messages indexed so far (for tests: a grown history adds only its new ones)."""

    def positions(self, history: Sequence[Message]) -> dict[str, int]:
        """The map for ``history``, after indexing the messages added since the last call."""
        n = self.indexed
        same = (
            0 < n <= len(history)
            and history[0].id == self._first
            and history[n - 1].id == self._last
        )
        if not same:
            self._position, n = {}, 0
        for i in range(n, len(history)):
            self._position[history[i].id] = i
        self.indexed = len(history)
        self._first = history[0].id if history else None
        self._last = history[-1].id if history else None
        return self._position


def dependent_fragments(
    body: str,
    provenance: Sequence[Mapping[str, Any]],
    history: Sequence[Message],
    *,
    examples: int = 5,
    history_index: HistoryIndex | None = None,
) -> FragmentCount:
    """The check over one summary (see the module docstring).

    Args:
        body: the summary's text without the reducer's prefix, one line per entry.
        provenance: its entries, ``{"line": n, "ids": [...]}`` (``summary_info.extra``).
        history: the conversation so far, in order (to look up sources and what preceded them).
        examples: how many dependent lines to keep as examples.
        history_index: kept by the caller across checks of one growing history (see
            :class:`HistoryIndex`); without it the history is indexed here, O(history).
    """
    lines = body.splitlines()
    position = (history_index or HistoryIndex()).positions(history)
    by_id = _ById(history, position)
    cited: dict[str, list[int]] = {}
    entries: list[tuple[int, list[str]]] = []
    for entry in provenance:
        number, ids = entry.get("line"), entry.get("ids") or ()
        ids = [i for i in ids if isinstance(i, str) and i in by_id]
        if isinstance(number, int) and 0 <= number < len(lines) and ids:
            entries.append((number, ids))
            for i in ids:
                cited.setdefault(i, []).append(number)
    count = FragmentCount()
    for number, ids in entries:
        line = lines[number]
        located = None
        for source_id in ids:
            source = by_id[source_id]
            sentences = _sentences(source.text)
            where = _locate(_strip_label(line, source), sentences)
            if where is not None:
                located = (source, sentences, where)
                break
        if located is None or located[0].role == "tool":
            continue
        source, sentences, (index, clipped) = located
        text = _strip_label(line, source)
        count.lines += 1
        if len(_words(text)) >= MAX_WORDS:
            continue
        count.short += 1
        others = [lines[n] for n in cited.get(source.id, []) if n != number]
        reason = None
        if clipped and not _carried(sentences[index], others):
            reason = "clipped"
        elif _leans(text):
            if index > 0:
                if not _carried(sentences[index - 1], others):
                    reason = "refers back"
            else:
                before = position[source.id] - 1
                while before >= 0 and history[before].is_system:
                    before -= 1
                if before >= 0 and not cited.get(history[before].id):
                    reason = "replies to"
        if reason is None and index + 1 < len(sentences):
            following = sentences[index + 1]
            opens = _leans(" ".join(_words(following)[:3]))
            named = _specific(following) and not _specific(text)
            if opens and named and not _carried(following, others):
                reason = "announces"
        if reason is None:
            continue
        count.dependent += 1
        count.reasons[reason] += 1
        if len(count.examples) < examples:
            count.examples.append(Fragment(line, reason, source.id))
    return count


class _ById(Mapping[str, Message]):
    """``id -> message`` over ``history`` through its position map (no copy)."""

    def __init__(self, history: Sequence[Message], position: Mapping[str, int]) -> None:
        self._history, self._position = history, position

    def __getitem__(self, key: str) -> Message:
        return self._history[self._position[key]]

    def __contains__(self, key: object) -> bool:
        return key in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)


def summary_fragments(
    summary: Message | None,
    body: str | None,
    history: Sequence[Message],
    *,
    history_index: HistoryIndex | None = None,
) -> FragmentCount:
    """:func:`dependent_fragments` of a committed summary (none when it has no provenance)."""
    info = summary.summary_info if summary is not None else None
    entries = info.extra.get("provenance") if info is not None else None
    if body is None or not isinstance(entries, list):
        return FragmentCount()
    kept = [e for e in entries if isinstance(e, Mapping)]
    return dependent_fragments(body, kept, history, history_index=history_index)
