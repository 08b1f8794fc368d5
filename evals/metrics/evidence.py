"""Evidence retention on LoCoMo: what a bounded view of a conversation carries, scored.

Every memory under test (summem's engine, :mod:`evals.engine.locomo`; a baseline,
:mod:`evals.baselines`) ends the conversation with a view of at most ``budget_tokens`` tokens,
as a :class:`CarriedView`. For each QA item we ask whether its evidence turns are still carried
by that view: verbatim (the turn is one of the kept messages) or by the summary (its provenance
names the turn). We also ask whether the gold answer's text is in the view, beside its ceiling:
whether it is in the full conversation at all (LoCoMo answers are often paraphrases, so the
ceiling is well below 1).

Views are counted with any :class:`summem.tokens.base.TokenCounter`, whole requests included.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evals.families.locomo import CATEGORY_NAMES, Conversation, QAItem, Turn
from evals.text import contains_normalized, normalize_text, person_neutral
from summem.messages import Message, parse_message
from summem.tokens.base import TokenCounter

__all__ = [
    "CarriedView",
    "GroupScore",
    "ItemScore",
    "aggregate",
    "carried_view",
    "score_items",
    "summary_message",
    "turn_message",
]

SIDES = ("user", "assistant")


@dataclass(frozen=True)
class CarriedView:
    """One view of a conversation and the turns it carries.

    Attributes:
        messages: the view as it would be sent: the summary message first, if any, then turns.
        verbatim: ids of the turns kept as messages.
        summarized: ids of the turns the summary stands for, by its provenance.
        text: the summary's text and every kept message's text, one per line.
        tokens: the whole request under the counter used (overhead included).
        summary_tokens: the summary message alone.
        summary_text: the summary message's text ("" without a summary): where an answer
            sits, in the summary or in the kept turns, is read from it (``text`` holds it
            once, as the view's first message or after the system message).
    """

    messages: tuple[dict[str, Any], ...]
    verbatim: frozenset[str]
    summarized: frozenset[str]
    text: str
    tokens: int
    summary_tokens: int = 0
    summary_text: str = ""

    @property
    def carried(self) -> frozenset[str]:
        """Turns carried one way or the other."""
        return self.verbatim | self.summarized

    @property
    def turns_text(self) -> str:
        """The view's text without the summary's: what the kept messages hold."""
        if not self.summary_text:
            return self.text
        head, found, tail = self.text.partition(self.summary_text)
        return head + tail if found else self.text


@functools.lru_cache(maxsize=20_000)
def turn_message(turn: Turn) -> Message:
    """The turn's message, built once so token counts are cached across views."""
    return parse_message(turn.to_openai())


def summary_message(text: str) -> Message:
    """A summary's text as the one ``system`` message a view sends it as."""
    return parse_message({"role": "system", "content": text})


def carried_view(
    turns: Sequence[Turn],
    watermark: int,
    counter: TokenCounter,
    *,
    summary_text: str | None = None,
    summary_ids: Iterable[str] = (),
) -> CarriedView:
    """The view ``[summary]? + turns[watermark:]``: how a replay of summem is turned into scores.

    Args:
        turns: the conversation's turns, replayed in order.
        watermark: ``k``, the number of turns the summary stands for.
        counter: counts the view.
        summary_text: the summary, if any (sent as one ``system`` message).
        summary_ids: turn ids the summary carries (an extractive summary's provenance).
    """
    kept = turns[watermark:]
    messages = [turn_message(t) for t in kept]
    summary = summary_message(summary_text) if summary_text else None
    summary_tokens = counter.count_message(summary) if summary is not None else 0
    tokens = summary_tokens + sum(counter.count_message(m) for m in messages)
    view = ([summary] if summary is not None else []) + messages
    return CarriedView(
        messages=tuple(m.to_openai() for m in view),
        verbatim=frozenset(t.dia_id for t in kept),
        summarized=frozenset(summary_ids),
        text="\n".join(m.text for m in view),
        tokens=tokens + counter.request_overhead,
        summary_tokens=summary_tokens,
        summary_text=summary.text if summary is not None else "",
    )


# -- scoring ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemScore:
    """One QA item against one view.

    Attributes:
        qid: the item's id.
        category: LoCoMo's category (1-5).
        evidence: evidence turns the item names (known turns only).
        carried: of those, turns the view carries.
        verbatim: of those, turns kept as messages.
        answer_in_view: the normalised answer is in the view's text; ``None`` when there is no
            answer to look for (adversarial items, answers empty after normalisation).
        answer_in_full: the same check against the whole conversation: the ceiling.
        whole: of the evidence turns, those whose whole text the view still holds (kept
            verbatim, or copied whole into the summary).
        answer_kept: of the evidence turns, those kept verbatim, or carried by the summary
            with their answer-bearing part: the answer is in the view when the turn holds
            it; a turn that does not hold the answer literally counts only when whole.
        side: ``"user"`` or ``"assistant"`` when every evidence turn comes from the speaker
            mapped to that role, ``None`` when from both (or no evidence).
        answer_in_summary: the normalised answer is in the summary's text alone (``None``
            as for ``answer_in_view``).
        answer_in_turns: ... in the kept messages' text alone. An answer in the view may be
            in both, or in neither alone (it spans the two: rare).
        answer_literal: some evidence turn holds the normalised answer word for word (what a
            summary that keeps the speakers' own sentences can hold); False when the gold
            answer rewords them ("her faith" for "my faith", "routine examination and
            vaccination" from two sentences); ``None`` as for ``answer_in_view``.
        answer_in_view_neutral: the answer is in the view once personal pronouns are folded
            on both sides (:func:`evals.text.person_neutral`): a diagnostic of wording, more
            lenient than ``answer_in_view``; ``None`` as for ``answer_in_view``.
    """

    qid: str
    category: int
    evidence: int
    carried: int
    verbatim: int
    answer_in_view: bool | None
    answer_in_full: bool | None
    whole: int = 0
    answer_kept: int = 0
    side: str | None = None
    answer_in_summary: bool | None = None
    answer_in_turns: bool | None = None
    answer_literal: bool | None = None
    answer_in_view_neutral: bool | None = None


def score_items(
    conv: Conversation, view: CarriedView, *, full_text_normalized: str | None = None
) -> list[ItemScore]:
    """Score every QA item of ``conv`` against ``view``."""
    full = full_text_normalized or normalize_text(conv.full_text())
    seen = normalize_text(view.text)
    parts = (normalize_text(view.summary_text), normalize_text(view.turns_text))
    turns = {t.dia_id: t for t in conv.turns}
    neutral = person_neutral(seen)
    return [_score(q, view, seen, full, turns, parts, neutral) for q in conv.qa]


@functools.lru_cache(maxsize=50_000)
def _turn_text(turn: Turn) -> str:
    return normalize_text(turn.text)


def _score(
    q: QAItem,
    view: CarriedView,
    seen: str,
    full: str,
    turns: dict[str, Turn],
    parts: tuple[str, str] = ("", ""),
    neutral: str | None = None,
) -> ItemScore:
    answer = q.answer if q.category != 5 else None
    has_answer = answer is not None and bool(normalize_text(answer))
    in_view = contains_normalized(seen, answer) if has_answer and answer else None
    in_summary = in_turns = literal = in_neutral = None
    if in_view is not None and answer:  # where it sits (none of it when not in the view)
        in_summary = in_view and contains_normalized(parts[0], answer)
        in_turns = in_view and contains_normalized(parts[1], answer)
        literal = any(
            contains_normalized(_turn_text(turns[e]), answer) for e in q.evidence if e in turns
        )
        folded = person_neutral(normalize_text(answer))
        haystack = person_neutral(seen) if neutral is None else neutral
        in_neutral = f" {folded} " in f" {haystack} "
    whole = answer_kept = 0
    sides = set()
    for e in q.evidence:
        turn = turns.get(e)
        if turn is None:
            continue
        sides.add(turn.role)
        text = _turn_text(turn)
        is_whole = e in view.verbatim or (bool(text) and f" {text} " in f" {seen} ")
        whole += is_whole
        if is_whole:
            answer_kept += 1
        elif e in view.summarized and answer and contains_normalized(text, answer):
            answer_kept += bool(in_view)  # the turn's answer-bearing part survived
    return ItemScore(
        qid=q.qid,
        category=q.category,
        evidence=len(q.evidence),
        carried=sum(1 for e in q.evidence if e in view.carried),
        verbatim=sum(1 for e in q.evidence if e in view.verbatim),
        answer_in_view=in_view,
        answer_in_full=contains_normalized(full, answer) if has_answer and answer else None,
        whole=whole,
        answer_kept=answer_kept,
        side=next(iter(sides)) if len(sides) == 1 else None,
        answer_in_summary=in_summary,
        answer_in_turns=in_turns,
        answer_literal=literal,
        answer_in_view_neutral=in_neutral,
    )


@dataclass(frozen=True)
class GroupScore:
    """Scores of a group of QA items: a category, or all of them.

    A share is ``None`` when no item of the group has anything to measure (adversarial items
    have no answer to look for).

    Attributes:
        items: items with at least one evidence turn (the others are left out of evidence
            figures).
        evidence_all: share of those items whose every evidence turn is cited: kept verbatim
            or named by the summary's provenance (a cited turn may have lost its answer).
        evidence_whole: share whose every evidence turn the view holds whole.
        evidence_answer: share whose every evidence turn is kept with its answer-bearing part
            (see :attr:`ItemScore.answer_kept`).
        evidence_verbatim: share whose every evidence turn is kept verbatim.
        evidence_turns: mean, over items, of the share of their evidence turns carried.
        answer_items: items with an answer to look for.
        answer_in_view: share of those whose answer is in the view.
        answer_ceiling: share of those whose answer is in the full conversation.
        answer_summary_only: share of those whose answer is in the summary's text and not
            in the kept turns' (what the summary adds).
        answer_turns_only: ... in the kept turns' and not in the summary's.
        answer_both: ... in both (the same answer said again later, or carried twice).
        answer_literal_items: items with an answer some evidence turn holds word for word
            (:attr:`ItemScore.answer_literal`).
        answer_in_view_literal: share of those whose answer is in the view.
        answer_in_view_reworded: share of the other answer items (the gold answer rewords
            the evidence) whose answer is in the view.
        answer_in_view_neutral: share of the answer items whose answer is in the view with
            personal pronouns folded (:attr:`ItemScore.answer_in_view_neutral`).
    """

    items: int
    evidence_all: float | None
    evidence_whole: float | None
    evidence_answer: float | None
    evidence_verbatim: float | None
    evidence_turns: float | None
    answer_items: int
    answer_in_view: float | None
    answer_ceiling: float | None
    answer_summary_only: float | None = None
    answer_turns_only: float | None = None
    answer_both: float | None = None
    answer_literal_items: int = 0
    answer_in_view_literal: float | None = None
    answer_in_view_reworded: float | None = None
    answer_in_view_neutral: float | None = None

    def as_dict(self) -> dict[str, float | int | None]:
        """The scores as a plain dict, for reports."""
        return dict(self.__dict__)


def _group(scores: Sequence[ItemScore]) -> GroupScore:
    ev = [s for s in scores if s.evidence]
    ans = [s for s in scores if s.answer_in_view is not None]
    literal = [s for s in ans if s.answer_literal]
    reworded = [s for s in ans if not s.answer_literal]

    def share(values: Iterable[bool | float], n: int) -> float | None:
        return sum(values) / n if n else None

    return GroupScore(
        items=len(ev),
        evidence_all=share((s.carried == s.evidence for s in ev), len(ev)),
        evidence_whole=share((s.whole == s.evidence for s in ev), len(ev)),
        evidence_answer=share((s.answer_kept == s.evidence for s in ev), len(ev)),
        evidence_verbatim=share((s.verbatim == s.evidence for s in ev), len(ev)),
        evidence_turns=share((s.carried / s.evidence for s in ev), len(ev)),
        answer_items=len(ans),
        answer_in_view=share((bool(s.answer_in_view) for s in ans), len(ans)),
        answer_ceiling=share((bool(s.answer_in_full) for s in ans), len(ans)),
        answer_summary_only=share(
            (bool(s.answer_in_summary and not s.answer_in_turns) for s in ans), len(ans)
        ),
        answer_turns_only=share(
            (bool(s.answer_in_turns and not s.answer_in_summary) for s in ans), len(ans)
        ),
        answer_both=share((bool(s.answer_in_summary and s.answer_in_turns) for s in ans), len(ans)),
        answer_literal_items=len(literal),
        answer_in_view_literal=share((bool(s.answer_in_view) for s in literal), len(literal)),
        answer_in_view_reworded=share((bool(s.answer_in_view) for s in reworded), len(reworded)),
        answer_in_view_neutral=share((bool(s.answer_in_view_neutral) for s in ans), len(ans)),
    )


def aggregate(scores: Sequence[ItemScore]) -> dict[str, GroupScore]:
    """Scores per category (by name), ``"all"``, ``"all-but-adversarial"``, and per speaker.

    ``"user side"`` and ``"assistant side"`` hold the items whose evidence all comes from the
    speaker mapped to that role (LoCoMo's two speakers are both people).
    """
    out = {
        name: _group([s for s in scores if s.category == number])
        for number, name in CATEGORY_NAMES.items()
    }
    out["all"] = _group(scores)
    out["all-but-adversarial"] = _group([s for s in scores if s.category != 5])
    for side in SIDES:
        out[f"{side} side"] = _group([s for s in scores if s.side == side])
    return out
