"""The sessions list: one page of rows, read from the store's session index, never messages.

A :class:`~summem.stores.base.ListingStore` (every built-in store) answers a page from its
session rows: the sizes, the watermark, the log's length and the current summary (whose
provenance carries the summarizer's running spend and when it was written). A search is a
prefix of the session id: ids sort in code point order, so the ids starting with it follow one
another and a page stops at the first that does not match. A third-party store without an
index is listed from ``list_sessions()``, loading only the sessions of the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from summem.messages import Message
from summem.stores.base import ListingStore, Store

__all__ = ["SessionRow", "list_page"]


@dataclass(frozen=True)
class SessionRow:
    """One session as the list shows it.

    Attributes:
        session_id: the session.
        messages: how many messages its history holds.
        summarized: how many of them the current summary stands for (the watermark).
        summaries: how many summaries its log holds.
        summary_tokens: the current summary's size in tokens (0: none).
        summarizer_calls: LLM calls its committed reductions made.
        summarizer_tokens: tokens those calls read and wrote.
        cost_usd: what they cost.
        last_reduction: when the current summary was written (ISO, UTC), if any.
        last_activity: when the session was last written (ISO, UTC): ``None`` when the store
            does not keep it (a third-party store without a session index).
    """

    session_id: str
    messages: int
    summarized: int
    summaries: int
    summary_tokens: int
    summarizer_calls: int
    summarizer_tokens: int
    cost_usd: float
    last_reduction: str | None
    last_activity: str | None = None

    @property
    def in_view(self) -> int:
        """History messages the view still shows whole."""
        return self.messages - self.summarized


def _row(
    sid: str,
    length: int,
    watermark: int,
    summaries: int,
    summary: Message | None,
    updated_at: float | None = None,
) -> SessionRow:
    info = summary.summary_info if summary is not None else None
    total = info.extra.get("summarizer_total") if info is not None else None
    spent = total if isinstance(total, dict) else {}

    def number(key: str) -> float:
        value = spent.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return 0.0

    return SessionRow(
        session_id=sid,
        messages=length,
        summarized=watermark,
        summaries=summaries,
        summary_tokens=info.tokens if info is not None else 0,
        summarizer_calls=int(number("calls")),
        summarizer_tokens=int(number("input_tokens") + number("output_tokens")),
        cost_usd=number("cost_usd"),
        last_reduction=info.created_at.isoformat(timespec="seconds") if info else None,
        last_activity=None
        if updated_at is None
        else datetime.fromtimestamp(updated_at, timezone.utc).isoformat(timespec="seconds"),
    )


def _before(prefix: str) -> str | None:
    """An id sorting just before every id that starts with ``prefix`` (``None``: from the start).

    ``prefix`` with its last character lowered by one and followed by the highest code points:
    the ids between that and ``prefix`` itself are skipped by the caller.
    """
    if not prefix:
        return None
    last = ord(prefix[-1])
    if last == 0:
        return prefix[:-1] or None
    return prefix[:-1] + chr(last - 1) + "\U0010ffff" * 4


def list_page(
    store: Store, *, prefix: str = "", after: str | None = None, limit: int = 50
) -> tuple[list[SessionRow], str | None]:
    """Up to ``limit`` sessions whose ids start with ``prefix``, after ``after``, in id order.

    Returns:
        The rows, and the ``after`` of the next page (``None``: this is the last page).
    """
    rows: list[SessionRow] = []
    start = after if after is not None else _before(prefix)
    if isinstance(store, ListingStore):
        while len(rows) <= limit:
            wanted = limit + 1 - len(rows)
            infos = store.session_infos(limit=wanted, after=start)
            for i in infos:
                start = i.session_id
                if i.session_id < prefix:
                    continue  # between _before(prefix) and prefix: never a match
                if not i.session_id.startswith(prefix):
                    return rows, None
                rows.append(
                    _row(i.session_id, i.length, i.watermark, i.summaries, i.summary, i.updated_at)
                )
            if len(infos) < wanted:
                break
    else:
        for sid in sorted(store.list_sessions()):
            if (start is not None and sid <= start) or not sid.startswith(prefix):
                continue
            if len(rows) > limit:
                break
            state = store.load(sid)
            rows.append(
                _row(sid, state.length, state.watermark, len(store.summaries(sid)), state.summary)
            )
    if len(rows) > limit:
        return rows[:limit], rows[limit - 1].session_id
    return rows, None
