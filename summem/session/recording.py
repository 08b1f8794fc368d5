"""``record()``'s flow: what a list passed again adds, or where it branches.

The decision is :func:`~summem.session.recorded.read_list`'s (pure); this flow gives it what is
recorded (the cached view's tail, or the whole history's fingerprints in the memory's
:class:`~summem.session.recorded.RecordedIndex`, read once when a list may reach back before
the tail), then appends (:func:`~summem.session.flows.extend_flow`) or branches
(:func:`~summem.session.branching.branch_flow`), keeping the index up to date either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from summem._flow import Flow
from summem.messages import Message
from summem.session.branching import branch_flow, index_current
from summem.session.core import SessionCore
from summem.session.flows import READ_WINDOW, extend_flow, reload_flow
from summem.session.recorded import Mode, Recorded, RecordedIndex, fingerprint, read_list
from summem.session.steps import StoreSteps

__all__ = ["record_flow"]


def record_flow(
    core: SessionCore,
    store: StoreSteps,
    index: RecordedIndex,
    items: Sequence[Any],
    *,
    mode: Mode,
) -> Flow[list[Message]]:
    """Record what ``items`` adds, or branch where it differs (see ``Memory.record``).

    The tail of the cached view answers most calls; the whole history is read into ``index``
    only when the list may reach back before the tail, once, and then kept up to date.
    """
    if core.stale:
        yield from reload_flow(core, store)
    prefix = core.summary_prefix
    reading = read_list(items, _recorded(core, index), mode=mode, summary_prefix=prefix)
    if reading.need_history:
        yield from _read_index(core, store, index)
        reading = read_list(items, _recorded(core, index), mode=mode, summary_prefix=prefix)
    if reading.full_list is not None:
        index.full_habit = reading.full_list
    if reading.at is not None:
        return (yield from branch_flow(core, store, index, reading.at, reading.new))
    if not reading.new:
        return []
    current = index_current(core, index)
    accepted = yield from extend_flow(core, store, reading.new, single=False)
    if current:
        appended = [m for m in accepted if not m.is_system]
        index.extend(appended)
        if not index_current(core, index):
            index.complete = False  # another writer appended too: read again when needed
    return accepted


def _recorded(core: SessionCore, index: RecordedIndex) -> Recorded:
    with core.lock:  # one snapshot: a background reduction may commit meanwhile
        k, summary, tail = core.watermark, core.summary, core.view_tail()
        whole = index_current(core, index)
    context: dict[str, Any] = {
        "watermark": k,
        "summary": fingerprint(summary) if summary is not None else None,
        "full_habit": index.full_habit,
    }
    if whole:
        return Recorded(index.fps, index.positions, 0, replies=index.replies, **context)
    return Recorded.of_tail(tail, k, **context)


def _read_index(core: SessionCore, store: StoreSteps, index: RecordedIndex) -> Flow[None]:
    """Read the fingerprints of the whole history into ``index``."""
    index.reset(core.epoch)
    stop = core.length
    for lo in range(0, stop, READ_WINDOW):
        window = yield from store.history(core.session_id, lo, min(stop, lo + READ_WINDOW))
        index.extend(window)
    index.complete = len(index.fps) == stop
