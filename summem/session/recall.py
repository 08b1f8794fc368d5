"""The recall flow: bring the session's index up to date, then search it (sync and async)."""

from __future__ import annotations

from summem._flow import Flow
from summem.recall.index import RecallHit, RecallIndex
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

    The index is extended with what was appended since it was last used (read from the store
    in windows); a new epoch (the session was cleared or replaced) rebuilds it. Results come
    best first, each with the rest of its tool group (a call with its results), and stop before
    ``max_tokens`` would be passed; the first result is always given whole.
    """
    if core.stale:
        yield from reload_flow(core, store)
    if index.epoch != core.epoch or index.length > core.length:
        index.reset(core.epoch)
    for lo in range(index.length, core.length, READ_WINDOW):
        window = yield from store.history(core.session_id, lo, min(core.length, lo + READ_WINDOW))
        index.extend(window)
    if message_id is not None:
        pos = index.position_of(message_id)
        hits = [] if pos is None else [RecallHit(index.messages[pos], pos, 1.0)]
    else:
        below = core.watermark if evicted_only else None
        hits = index.search(query or "", k=k, below=below)
    out: list[RecallHit] = []
    seen: set[int] = set()
    used = 0
    for hit in hits:
        group = [p for p in index.around([hit.position]) if p not in seen]
        cost = sum(counter.count_message(index.messages[p]) for p in group)
        if out and used + cost > max_tokens:
            break
        used += cost
        seen.update(group)
        out += [
            hit if p == hit.position else RecallHit(index.messages[p], p, hit.score) for p in group
        ]
    return out
