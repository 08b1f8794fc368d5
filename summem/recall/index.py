"""A keyword index over a session's history: BM25 ranking, built and extended incrementally.

Each message is one document, split into words by :mod:`summem._terms` (the same terms the
stores' full-text indexes hold). The index is kept in process, per
:class:`~summem.memory.Memory`, and extended with what was appended since it was last used; it
is read from the store once (in windows), never scanned again, and works on every store. It
serves the stores that have no search of their own (memory, Redis); SQLite and PostgreSQL
search their own index (see :class:`~summem.stores.base.SearchableStore`).

Ranking is Okapi BM25 (k1 = 1.2, b = 0.75). Ties go to the most recent message.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from summem._terms import message_terms, terms
from summem.messages import Message

__all__ = ["RecallHit", "RecallIndex", "terms", "tool_group"]

_K1 = 1.2
_B = 0.75


@dataclass(frozen=True)
class RecallHit:
    """One message found: the message as stored, its position in history, its score.

    ``matched`` is False for a message given with a match as part of its tool group (a call
    with its results), which may not match the query itself.
    """

    message: Message
    position: int
    score: float
    matched: bool = True


@dataclass
class RecallIndex:
    """BM25 over messages appended in order; ``epoch`` names the session it was built from."""

    epoch: str | None = None
    messages: list[Message] = field(default_factory=list)
    _lengths: list[int] = field(default_factory=list)
    _postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _by_id: dict[str, int] = field(default_factory=dict)
    _total: int = 0

    @property
    def length(self) -> int:
        """How many messages of history are indexed (positions ``0 .. length - 1``)."""
        return len(self.messages)

    def reset(self, epoch: str | None) -> None:
        """Forget everything (the session was cleared, deleted or replaced)."""
        self.epoch = epoch
        self.messages, self._lengths, self._postings, self._by_id = [], [], {}, {}
        self._total = 0

    def extend(self, messages: Iterable[Message]) -> None:
        """Index the messages that follow the last one indexed."""
        for message in messages:
            doc = len(self.messages)
            words = message_terms(message)
            counts: dict[str, int] = {}
            for w in words:
                counts[w] = counts.get(w, 0) + 1
            for w, n in counts.items():
                self._postings.setdefault(w, []).append((doc, n))
            self.messages.append(message)
            self._lengths.append(len(words))
            self._by_id.setdefault(message.id, doc)
            self._total += len(words)

    def position_of(self, message_id: str) -> int | None:
        """The position of the message with this id, if indexed."""
        return self._by_id.get(message_id)

    def search(self, query: str, *, k: int, below: int | None = None) -> list[RecallHit]:
        """The ``k`` best messages for ``query`` (positions below ``below`` only, if given)."""
        words = dict.fromkeys(terms(query))
        n = len(self.messages) if below is None else min(below, len(self.messages))
        if not words or n <= 0 or k <= 0:
            return []
        avg = (self._total / len(self.messages)) or 1.0
        scores: dict[int, float] = {}
        for w in words:
            postings = self._postings.get(w)
            if not postings:
                continue
            df = sum(1 for doc, _ in postings if doc < n)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for doc, tf in postings:
                if doc >= n:
                    break  # postings are in position order
                norm = tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * self._lengths[doc] / avg))
                scores[doc] = scores.get(doc, 0.0) + idf * norm
        best = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:k]
        return [RecallHit(self.messages[doc], doc, round(score, 4)) for doc, score in best]

    def around(self, positions: Sequence[int]) -> list[int]:
        """``positions`` with their tool groups, in position order (see :func:`tool_group`)."""
        wanted: set[int] = set()
        for pos in positions:
            wanted.update(tool_group(self.messages.__getitem__, pos, len(self.messages)))
        return sorted(wanted)


GROUP_REACH = 64
"""How far from a message its tool group is looked for (a call and its results)."""


def tool_group(at: Callable[[int], Message], pos: int, length: int) -> list[int]:
    """The position ``pos`` with its tool group, in position order.

    A call comes with all its results, a result with its call and the call's other results: a
    group is never split, as in the view. ``at`` gives the message at a position (only
    positions within :data:`GROUP_REACH` of ``pos`` and below ``length`` are asked for).
    """
    wanted = {pos}
    start = pos
    msg = at(pos)
    if msg.role == "tool" and msg.tool_call_id:
        for back in range(pos - 1, max(-1, pos - GROUP_REACH), -1):
            if msg.tool_call_id in at(back).tool_call_ids:
                start = back
                break
    ids = set(at(start).tool_call_ids)
    if not ids:
        return [pos]
    wanted.add(start)
    for fwd in range(start + 1, min(length, start + 1 + GROUP_REACH)):
        other = at(fwd)
        if other.role == "tool" and other.tool_call_id in ids:
            wanted.add(fwd)
            ids.discard(other.tool_call_id)
        if not ids:
            break
    return sorted(wanted)
