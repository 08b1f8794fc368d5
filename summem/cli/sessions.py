"""``summem sessions``: what a store holds, as rows and as an export that replays.

An export is the session's conversation with its ids, each message as
``{"id": ..., "message": {...}}`` (plus ``"meta"`` when summem recorded some, such as a reply's
usage): the system message first, then the full history. ``summem replay`` reads that shape
back, keeping the ids, so an exported session can be replayed through other settings. The JSON
form also carries the current summary and the log of every summary, with their provenance, and
the session's branches (what an edit, a regenerate, a rewind or a pop abandoned) with their
messages.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.messages import Message
    from summem.stores.base import Branch, Store

__all__ = [
    "branch_document",
    "branch_messages",
    "branch_rows",
    "export_text",
    "reduction_timeline",
    "session_rows",
    "show_document",
]


def session_rows(
    store: Store, *, limit: int | None = None, after: str | None = None
) -> list[dict[str, Any]]:
    """One row per session (id order): its size, how much the summary covers, how many summaries.

    A :class:`~summem.stores.base.ListingStore` answers from its session rows without
    reading any message; another store loads each session whole (the slow way).

    Raises:
        StoreError: ``limit`` is not a positive int or ``after`` not a str.
    """
    from summem.stores.base import ListingStore, check_page

    check_page(limit, after)
    if isinstance(store, ListingStore):
        from summem.session.usage import SUMMARIZER_TOTAL_KEY, add_spend

        return [
            _row(
                i.session_id,
                i.length,
                i.watermark,
                i.summaries,
                add_spend(i.summary_extra(SUMMARIZER_TOTAL_KEY), {}),
            )
            for i in store.session_infos(limit=limit, after=after)
        ]
    rows: list[dict[str, Any]] = []
    for sid in sorted(store.list_sessions()):
        if after is not None and sid <= after:
            continue
        if limit is not None and len(rows) >= limit:
            break
        state = store.load(sid)
        rows.append(
            _row(
                sid,
                state.length,
                state.watermark,
                len(store.summaries(sid)),
                _spent(state.summary),
            )
        )
    return rows


def _row(
    sid: str, length: int, watermark: int, summaries: int, spent: dict[str, float]
) -> dict[str, Any]:
    return {
        "session": sid,
        "messages": length,
        "summarized": watermark,
        "in_view": length - watermark,
        "summaries": summaries,
        "summarizer_cost_usd": spent.get("cost_usd", 0.0),
    }


def _spent(summary: Message | None) -> dict[str, float]:
    from summem.session.usage import summarizer_total

    return summarizer_total(summary)


def reduction_timeline(summaries: list[Message]) -> list[dict[str, Any]]:
    """Every reduction of a session, oldest first, from its summaries' provenance.

    Each entry: when, which span of history it folded in (``history[start:end]``), the
    summary's tokens, the summarizer's calls, tokens in/out and cost, who wrote it (and the
    fallback chain's failed steps), and what it dropped when the summarizer records that (ids
    no summary line cites, or messages truncated without a summary). Read from what each
    summary records, so it survives restarts.
    """
    from summem.stores.summary_log import covered_count

    timeline: list[dict[str, Any]] = []
    for summary in summaries:
        info = summary.summary_info
        if info is None:
            continue
        extra = info.extra
        found = extra.get("usage")
        usage: dict[str, Any] = found if isinstance(found, dict) else {}
        fallback = extra.get("fallback") if isinstance(extra.get("fallback"), dict) else None
        recomputed = isinstance(extra.get("recomputed"), dict)
        uncovered = extra.get("uncovered_ids")
        truncated = extra.get("dropped_messages")
        count = covered_count(summary)
        timeline.append(
            {
                "summary_id": summary.id,
                "at": info.created_at.isoformat(timespec="seconds"),
                "start": 0 if recomputed else info.watermark - count,
                "end": info.watermark,
                "messages": count,
                "summary_tokens": info.tokens,
                "calls": int(usage.get("calls") or 0),
                "input_tokens": int(usage.get("input_tokens") or 0),
                "output_tokens": int(usage.get("output_tokens") or 0),
                "cost_usd": float(usage.get("cost_usd") or 0.0),
                "summarizer": info.summarizer,
                "model": info.model,
                "fallback_failed": list(fallback.get("failed") or []) if fallback else [],
                "fallback_reasons": list(fallback.get("reasons") or []) if fallback else [],
                "dropped_ids": list(uncovered) if isinstance(uncovered, list) else None,
                "truncated_messages": int(truncated) if isinstance(truncated, int) else None,
                "recomputed": recomputed,
            }
        )
    return timeline


def show_document(store: Store, session: str) -> dict[str, Any]:
    """``sessions show --json``: the state, the current summary and the reduction timeline."""
    state = store.load(session)
    return {
        "session_id": session,
        "history_length": state.length,
        "watermark": state.watermark,
        "version": state.version,
        "system": state.system.to_openai() if state.system is not None else None,
        "summary": _summary(state.summary) if state.summary is not None else None,
        "summarizer_spent": _spent(state.summary),
        "view": [m.to_openai() for m in state.view()],
        "timeline": reduction_timeline(store.summaries(session)),
        "branches": branch_rows(store, session),
    }


def _branches(store: Store, session: str) -> list[Branch]:
    """The session's branches (none in a store that cannot branch)."""
    from summem.stores.base import BranchingStore

    return store.branches(session) if isinstance(store, BranchingStore) else []


def branch_messages(store: Store, session: str, branch_id: str) -> list[Message]:
    """The messages of one branch, in their old order.

    Raises:
        StoreError: the session has no such branch (naming it).
    """
    from summem.errors import StoreError
    from summem.stores.base import BranchingStore

    if not any(b.id == branch_id for b in _branches(store, session)):
        raise StoreError(
            f"session {session!r} has no branch {branch_id!r} (summem sessions branches "
            f"{session} lists them)"
        )
    assert isinstance(store, BranchingStore)  # it has branches
    return store.branch_messages(session, branch_id)


def branch_rows(store: Store, session: str) -> list[dict[str, Any]]:
    """``sessions branches``: one row per branch, oldest first."""
    return [_branch_row(b) for b in _branches(store, session)]


def _branch_row(branch: Branch) -> dict[str, Any]:
    import datetime

    when = datetime.datetime.fromtimestamp(branch.created_at, tz=datetime.timezone.utc)
    return {
        "branch_id": branch.id,
        "at": branch.at,
        "abandoned": branch.length,
        "created_at": when.isoformat(timespec="seconds"),
        "summary_id": branch.summary_id,
        "watermark": branch.watermark,
    }


def branch_document(store: Store, session: str, branch_id: str) -> dict[str, Any]:
    """``sessions show --branch``: the branch and the messages it abandoned, with ids.

    Raises:
        StoreError: the session has no such branch (naming it).
    """
    messages = branch_messages(store, session, branch_id)
    found = next(b for b in _branches(store, session) if b.id == branch_id)
    return {
        "session_id": session,
        "branch": _branch_row(found),
        "messages": [_item(m) for m in messages],
    }


def _item(message: Message) -> dict[str, Any]:
    item: dict[str, Any] = {"id": message.id, "message": message.to_openai()}
    if message.meta:
        item["meta"] = message.meta
    return item


def _summary(message: Message) -> dict[str, Any]:
    info = message.summary_info
    return {
        **_item(message),
        "provenance": info.model_dump(mode="json") if info is not None else None,
    }


def export_text(store: Store, session: str, fmt: str) -> str:
    """The session as JSON (one document) or JSONL (one message per line).

    Raises:
        SessionNotFoundError: no such session.
    """
    state = store.load(session)
    messages = ([state.system] if state.system is not None else []) + store.history(session)
    if fmt == "jsonl":
        return "".join(json.dumps(_item(m), ensure_ascii=False) + "\n" for m in messages)
    doc = {
        "session_id": session,
        "history_length": state.length,
        "watermark": state.watermark,
        "version": state.version,
        "messages": [_item(m) for m in messages],
        "summary": _summary(state.summary) if state.summary is not None else None,
        "summaries": [_summary(s) for s in store.summaries(session)],
        "branches": [
            {
                **_branch_row(b),
                "messages": [_item(m) for m in branch_messages(store, session, b.id)],
            }
            for b in _branches(store, session)
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
