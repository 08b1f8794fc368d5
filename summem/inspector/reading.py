"""A session as the inspector reads it: its reductions, the view at any turn, its view sizes.

The store keeps each summary with its provenance (what it covers, its watermark, when it was
written) but not *when* it became current, counted in messages: a reduction runs once the
view passes the threshold, and the summary then stands for ``history[:watermark]`` while the
history is already longer. :class:`SessionReader` reconstructs that moment (the **turn** of a
reduction: the position of the message whose addition triggered it) in one of two ways:

- **recorded**: a ``summem replay`` output folder lists each summary's turn in
  ``summaries.jsonl``; those are exact;
- **estimated**: otherwise the view is replayed with the settings' budget: the reduction that
  wrote summary ``j`` is placed at the first message, at or after its watermark, past which
  the view (system, summary ``j - 1``, ``history[w_{j-1}:]``) exceeds the threshold. Reductions
  started early (``soft_threshold``), asked for by hand, or made under other settings do not
  follow that rule: when no such message exists before the next reduction's span, the turn is
  the watermark itself (the earliest it can be), and the page says it is estimated.

Only the summaries of the active branch count: the chain that ends with the current summary,
followed through ``previous_summary_id``. Sizes are read in windows and cached, so a chart or
a view costs O(the messages shown plus one view), never O(history).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from summem.messages import Message
from summem.stores.base import SessionState, Store
from summem.stores.summary_log import covered_count

__all__ = ["READ_WINDOW", "SEARCH_REACH", "Reduction", "SessionReader", "ViewAt", "active_chain"]

READ_WINDOW = 500
"""Messages read from the store per call when sizes are needed."""
SEARCH_REACH = 5000
"""How far past its watermark a reduction's turn is looked for (a bound on what is read)."""


@dataclass(eq=False)
class Reduction:
    """One summary of the active chain, with where it sits in the session.

    Attributes:
        index: 1 for the session's first summary of the chain, then 2, 3...
        summary: the summary message as the log keeps it.
        start: where the view began before it (the previous summary's watermark).
        watermark: it stands for ``history[:watermark]``.
        previous: the summary it replaced, when the log holds it.
        exact: whether :attr:`turn` was recorded (a replay) rather than estimated.
    """

    index: int
    summary: Message
    start: int
    watermark: int
    previous: Message | None
    exact: bool
    _estimate: Callable[[Reduction], int] = field(repr=False)
    _turn: int | None = field(default=None, repr=False)

    @property
    def turn(self) -> int:
        """The position of the message whose addition triggered the reduction.

        From then on this summary is what the model sees. Estimated on first use (reading
        about a view's worth of messages), so a page pays only for the reductions it shows.
        """
        if self._turn is None:
            self._turn = self._estimate(self)
        return self._turn


@dataclass(frozen=True)
class ViewAt:
    """The view as the model was sent it at one turn.

    Attributes:
        turn: the position of the newest message in it.
        reduction: the summary then current (``None``: no summary yet).
        messages: ``(position, message)`` for ``history[start:turn + 1]``.
        size: the view's size in the budget's unit, system message and summary included.
    """

    turn: int
    reduction: Reduction | None
    messages: list[tuple[int, Message]]
    size: int


def active_chain(summaries: list[Message], current: Message | None) -> list[Message]:
    """The summaries that led to the current one, oldest first.

    Followed backwards through ``previous_summary_id`` from ``current``; summaries of
    abandoned branches or superseded by a rollback are not on it. A chain broken by a
    summary the log no longer holds stops there.
    """
    if current is None:
        return []
    by_id: dict[str, Message] = {}
    for s in summaries:
        by_id[s.id] = s  # the latest entry of an id wins, as rollback() does
    chain: list[Message] = []
    seen: set[str] = set()
    found: Message | None = by_id.get(current.id, current)
    while found is not None and found.id not in seen:
        seen.add(found.id)
        chain.append(found)
        info = found.summary_info
        previous = info.previous_summary_id if info is not None else None
        found = by_id.get(previous) if previous is not None else None
    chain.reverse()
    return chain


class SessionReader:
    """Reads one session for the inspector (see the module docstring).

    Args:
        store: the store, only read.
        session_id: the session.
        size: a message's size in the budget's unit.
        head_size: the size of what precedes the conversation (system message, summary).
        threshold: the budget's threshold (``None``: unknown, turns are the watermarks).
        recorded_turns: summary id -> turn, from a replay's ``summaries.jsonl`` (an index in
            the transcript, which counts the head system message the history does not hold).
    """

    def __init__(
        self,
        store: Store,
        session_id: str,
        *,
        size: Callable[[Message], int],
        head_size: Callable[[Message | None, Message | None], int],
        threshold: int | None,
        recorded_turns: dict[str, int] | None = None,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.state: SessionState = store.load(session_id)
        self._size = size
        self._head_size = head_size
        self.threshold = threshold
        self._recorded = recorded_turns or {}
        self._messages: dict[int, Message] = {}
        self._sizes: dict[int, int] = {}
        self.log: list[Message] = store.summaries(session_id)
        self._watermarks: list[int] = []
        self.reductions: list[Reduction] = self._place(active_chain(self.log, self.state.summary))

    @property
    def length(self) -> int:
        """How many messages the history holds."""
        return self.state.length

    # -- reading ---------------------------------------------------------------------------

    def messages(self, start: int, stop: int) -> list[tuple[int, Message]]:
        """``history[start:stop]`` with positions, read in windows and cached."""
        start, stop = max(0, start), min(stop, self.length)
        missing = [p for p in range(start, stop) if p not in self._messages]
        while missing:
            lo = missing[0]
            hi = min(stop, lo + READ_WINDOW)
            for offset, m in enumerate(self.store.history(self.session_id, lo, hi)):
                self._messages[lo + offset] = m
            missing = [p for p in missing if p >= hi]
        return [(p, self._messages[p]) for p in range(start, stop) if p in self._messages]

    def message(self, position: int) -> Message | None:
        """The message at ``position``, if the history has one."""
        found = self.messages(position, position + 1)
        return found[0][1] if found else None

    def size_of(self, position: int) -> int:
        """The size of the message at ``position`` in the budget's unit (cached)."""
        if position not in self._sizes:
            m = self.message(position)
            self._sizes[position] = self._size(m) if m is not None else 0
        return self._sizes[position]

    def _sizes_of(self, start: int, stop: int) -> Iterable[int]:
        self.messages(start, stop)
        return (self.size_of(p) for p in range(start, stop))

    # -- reductions ------------------------------------------------------------------------

    def _place(self, chain: list[Message]) -> list[Reduction]:
        placed: list[Reduction] = []
        previous: Message | None = None
        offset = 1 if self.state.system is not None else 0  # a transcript's system message
        for i, summary in enumerate(chain):
            info = summary.summary_info
            watermark = info.watermark if info is not None else 0
            if previous is not None and previous.summary_info is not None:
                start = previous.summary_info.watermark
            else:  # the first summary, or its predecessor is no longer in the log
                start = watermark - covered_count(summary)  # a stub keeps the count
            if info is not None and isinstance(info.extra.get("recomputed"), dict):
                start = previous.summary_info.watermark if previous and previous.summary_info else 0
            reduction = Reduction(
                i + 1, summary, max(start, 0), watermark, previous, False, self.estimate_turn
            )
            recorded = self._recorded.get(summary.id)
            if recorded is not None:
                reduction.exact, reduction._turn = True, max(recorded - offset, watermark)
            placed.append(reduction)
            previous = summary
        self._watermarks = [r.watermark for r in placed]
        return placed

    def estimate_turn(self, reduction: Reduction) -> int:
        """The first turn at or after ``reduction``'s watermark whose view passed the threshold.

        Looked for within :data:`SEARCH_REACH` messages; else the watermark (the earliest).
        """
        earliest = reduction.watermark
        if self.threshold is None or earliest >= self.length:
            return min(earliest, max(self.length - 1, 0))
        total = self._head_size(self.state.system, reduction.previous)
        total += sum(self._sizes_of(reduction.start, earliest))
        for turn in range(earliest, min(earliest + SEARCH_REACH, self.length)):
            total += self.size_of(turn)
            if total > self.threshold:
                return turn
        return earliest

    def reduction_at(self, turn: int) -> Reduction | None:
        """The reduction whose summary the model saw at ``turn`` (``None``: none yet).

        The latest whose watermark is at most ``turn`` (a summary never stands for a message
        not yet added), stepping back while its own turn comes later.
        """
        j = bisect.bisect_right(self._watermarks, turn) - 1
        while j >= 0 and self.reductions[j].turn > turn:
            j -= 1
        return self.reductions[j] if j >= 0 else None

    def view_at(self, turn: int) -> ViewAt:
        """What the model was sent once ``history[turn]`` was added (the system message as now).

        Raises:
            IndexError: ``turn`` is not a position of the history.
        """
        if not 0 <= turn < self.length:
            raise IndexError(turn)
        reduction = self.reduction_at(turn)
        start = reduction.watermark if reduction is not None else 0
        messages = self.messages(start, turn + 1)
        size = self._head_size(
            self.state.system, reduction.summary if reduction is not None else None
        )
        size += sum(self.size_of(p) for p, _ in messages)
        return ViewAt(turn, reduction, messages, size)

    def sizes(self, start: int, stop: int) -> list[tuple[int, int]]:
        """``(turn, view size)`` for each turn in ``[start, stop)``.

        A reduction's turn comes twice: the size that passed the threshold, then the size
        once the summary replaced what it folded in.
        """
        start, stop = max(0, start), min(stop, self.length)
        if start >= stop:
            return []
        out: list[tuple[int, int]] = []
        reduction = self.reduction_at(start)
        base = reduction.watermark if reduction is not None else 0
        head = self._head_size(self.state.system, reduction.summary if reduction else None)
        running = sum(self._sizes_of(base, start))
        for turn in range(start, stop):
            now = self.reduction_at(turn)
            running += self.size_of(turn)
            if now is not reduction:  # the view passed the threshold here, then dropped
                out.append((turn, head + running))
                reduction = now
                base = reduction.watermark if reduction is not None else 0
                head = self._head_size(self.state.system, reduction.summary if reduction else None)
                running = sum(self._sizes_of(base, turn + 1))
            out.append((turn, head + running))
        return out

    def positions_of(self, ids: Iterable[str]) -> dict[str, int]:
        """Where the messages with these ids sit in the history (those the chain covers)."""
        wanted = set(ids)
        found: dict[str, int] = {}
        for r in self.reductions:
            info = r.summary.summary_info
            if info is None:
                continue
            span_start = r.watermark - len(info.covered_ids)
            for offset, mid in enumerate(info.covered_ids):
                if mid in wanted:
                    found[mid] = span_start + offset
        rest = wanted - found.keys()
        if rest:
            tail_start = self.state.watermark
            for offset, m in enumerate(self.state.tail):
                if m.id in rest:
                    found[m.id] = tail_start + offset
        return found
