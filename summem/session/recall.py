"""The recall flow: search the session's history, with the store's index or our own.

A store that searches itself (:class:`~summem.stores.base.SearchableStore`: SQLite's FTS5,
PostgreSQL's ``tsvector``) is asked for the best positions; otherwise the in-process
:class:`~summem.recall.index.RecallIndex` is brought up to date (read from the store in
windows) and searched. Either way the results are the stored messages, each with its tool
group, capped in tokens, the same sync and async.
"""

from __future__ import annotations

from collections.abc import Callable

from summem._flow import Flow
from summem.messages import Message
from summem.recall.index import GROUP_REACH, RecallHit, RecallIndex, tool_group
from summem.session.core import SessionCore
from summem.session.flows import READ_WINDOW, reload_flow
from summem.session.steps import StoreSteps
from summem.tokens.base import TokenCounter

__all__ = ["recall_flow"]


def recall_flow(
    core: SessionCore,
    store: StoreSteps,
    index: RecallIndex,
    *,
    query: str | None,
    message_id: str | None,
    k: int,
    evicted_only: bool,
    max_tokens: int,
    counter: TokenCounter,
) -> Flow[list[RecallHit]]:
    """The best matches for ``query`` (or the message ``message_id``), with their tool groups.

    Searches ``history[:watermark]`` when ``evicted_only``, else the history this memory knows
    (``history[:length]``). Results come best first, each with the rest of its tool group (a
    call with its results), and stop before ``max_tokens`` would be passed; the first result
    is always given whole.
    """
    if core.stale:
        yield from reload_flow(core, store)
    stop = core.watermark if evicted_only else core.length
    length = core.length
    if store.searchable:
        hits, at, length = yield from _store_hits(core, store, query, message_id, k, stop)
    else:
        hits = yield from _index_hits(core, store, index, query, message_id, k, stop)
        at = index.messages.__getitem__
    out: list[RecallHit] = []
    seen: set[int] = set()
    used = 0
    for hit in hits:
        group = [p for p in tool_group(at, hit.position, length) if p not in seen]
        cost = sum(counter.count_message(at(p)) for p in group)
        if out and used + cost > max_tokens:
            break
        used += cost
        seen.update(group)
        out += [hit if p == hit.position else RecallHit(at(p), p, hit.score, False) for p in group]
    return out


def _index_hits(
    core: SessionCore,
    store: StoreSteps,
    index: RecallIndex,
    query: str | None,
    message_id: str | None,
    k: int,
    stop: int,
) -> Flow[list[RecallHit]]:
    """Extend the in-process index with what was appended since its last use, then search.

    A new epoch (the session was cleared or replaced), or a history that no longer ends the
    way the index does (a branch: an edit, a regenerate, a pop), rebuilds it.
    """
    if index.epoch != core.epoch or index.length > core.length:
        index.reset(core.epoch)
    elif index.length:
        last = yield from _message_at(core, store, index.length - 1)
        if last is None or last.id != index.messages[-1].id:
            index.reset(core.epoch)
    for lo in range(index.length, core.length, READ_WINDOW):
        window = yield from store.history(core.session_id, lo, min(core.length, lo + READ_WINDOW))
        index.extend(window)
    if message_id is not None:
        pos = index.position_of(message_id)
        return [] if pos is None else [RecallHit(index.messages[pos], pos, 1.0)]
    return index.search(query or "", k=k, below=stop)


def _message_at(core: SessionCore, store: StoreSteps, position: int) -> Flow[Message | None]:
    """``history[position]``, from the cached tail when it holds it."""
    with core.lock:
        k = core.watermark
        if k <= position < core.length:
            return core.tail[position - k]
    window = yield from store.history(core.session_id, position, position + 1)
    return window[0] if window else None


def _store_hits(
    core: SessionCore,
    store: StoreSteps,
    query: str | None,
    message_id: str | None,
    k: int,
    stop: int,
) -> Flow[tuple[list[RecallHit], Callable[[int], Message], int]]:
    """Ask the store for the best positions; read the tool groups around them.

    Returns the hits, a lookup of every message their tool groups may need (a message with
    tool calls, or a tool result, brings the history within :data:`GROUP_REACH`), and the
    history's length as read (shorter than this memory knows if another writer cleared the
    session meanwhile: groups then stop at its end).
    """
    sid = core.session_id
    hits: list[RecallHit] = []
    if message_id is not None:
        pos = yield from store.position_of(sid, message_id)
        if pos is not None and pos < core.length:
            window = yield from store.history(sid, pos, pos + 1)
            hits = [RecallHit(window[0], pos, 1.0)] if window else []
    else:
        found = yield from store.search(sid, query or "", k=k, stop=stop)
        hits = [RecallHit(f.message, f.position, round(f.score, 4)) for f in found]
    known = {h.position: h.message for h in hits}
    length = core.length
    for hit in hits:
        msg = hit.message
        if msg.tool_calls or (msg.role == "tool" and msg.tool_call_id):
            lo = max(0, hit.position - GROUP_REACH)
            hi = min(core.length, hit.position + GROUP_REACH + 1)
            window = yield from store.history(sid, lo, hi)
            known.update({lo + i: m for i, m in enumerate(window) if lo + i not in known})
            if len(window) < hi - lo:
                length = min(length, lo + len(window))
    return hits, known.__getitem__, length
