"""``summem sessions``: what a store holds, as rows and as an export that replays.

An export is the session's conversation with its ids, each message as
``{"id": ..., "message": {...}}`` (plus ``"meta"`` when summem recorded some, such as a reply's
usage): the system message first, then the full history. ``summem replay`` reads that shape
back, keeping the ids, so an exported session can be replayed through other settings. The JSON
form also carries the current summary and the log of every summary, with their provenance.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.messages import Message
    from summem.stores.base import Store

__all__ = ["export_text", "session_rows"]


def session_rows(store: Store) -> list[dict[str, Any]]:
    """One row per session: its size, how much the summary covers, how many summaries."""
    rows: list[dict[str, Any]] = []
    for sid in store.list_sessions():
        state = store.load(sid)
        rows.append(
            {
                "session": sid,
                "messages": state.length,
                "summarized": state.watermark,
                "in_view": len(state.tail),
                "summaries": len(store.summaries(sid)),
            }
        )
    return rows


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
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
