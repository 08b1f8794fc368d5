"""Concurrent writers for the store tests, importable by spawned processes.

A writer appends numbered messages to one session and, every few messages, plans and commits a
reduction the way ``Memory`` will: load, pick a watermark, commit with the (epoch, version) it
read. Losing the compare-and-set is expected; anything else is a failure.
"""

from __future__ import annotations

import os
from typing import Any

from summem.errors import ConflictError
from summem.messages import SummaryInfo, assistant, user
from summem.stores.base import Store


def open_spec(spec: tuple[str, ...]) -> Store:
    """A sync store from a picklable description (``Kind.spec``): ("sqlite", path),
    ("redis", url, prefix), ("postgres", url, schema)..."""
    from tests.stores.backends import KINDS

    return KINDS[spec[0]].open(*spec[1:])


def write(store: Store, session_id: str, tag: str, n: int, barrier: Any = None) -> dict[str, Any]:
    """Append ``n`` messages ``tag:i`` (batches of 1 or 2) and try a commit every 5 turns."""
    if barrier is not None:
        barrier.wait(timeout=30)
    observed: list[int] = []
    commits = conflicts = 0
    i = 0
    while i < n:
        size = 2 if i % 3 == 0 and i + 1 < n else 1
        store.append(session_id, [user(f"{tag}:{j}") for j in range(i, i + size)])
        i += size
        if i % 5 < size:
            state = store.load(session_id)
            observed.append(state.watermark)
            target = max(state.watermark, state.length - 3)
            summary = assistant(f"summary by {tag} up to {target}").as_summary(
                SummaryInfo(
                    watermark=target,
                    summarizer="test",
                    previous_summary_id=state.summary.id if state.summary else None,
                )
            )
            try:
                store.commit(
                    session_id,
                    summary=summary,
                    watermark=target,
                    expected_version=state.version,
                    expected_epoch=state.epoch,
                )
                commits += 1
            except ConflictError:
                conflicts += 1
    observed.append(store.load(session_id).watermark)
    return {"tag": tag, "observed": observed, "commits": commits, "conflicts": conflicts}


def process_main(
    spec: tuple[str, ...], session_id: str, tag: str, n: int, barrier: Any, queue: Any
) -> None:
    """Entry point of a spawned writer process; puts its report (or error) on ``queue``."""
    try:
        store = open_spec(spec)
    except BaseException as exc:
        barrier.abort()  # do not leave the other writer waiting for this one
        queue.put({"tag": tag, "error": f"{type(exc).__name__}: {exc}", "pid": os.getpid()})
        raise
    try:
        queue.put(write(store, session_id, tag, n, barrier))
    except BaseException as exc:
        queue.put({"tag": tag, "error": f"{type(exc).__name__}: {exc}", "pid": os.getpid()})
        raise
    finally:
        store.close()


def create_main(spec: tuple[str, ...], session_id: str, tag: str, barrier: Any, queue: Any) -> None:
    """Entry point of a spawned creator: create ``session_id`` whole and report the outcome."""
    history = [user(f"{tag}:{i}") for i in range(300)]
    summary = assistant(f"summary by {tag}").as_summary(SummaryInfo(watermark=100))
    store = open_spec(spec)
    try:
        barrier.wait(timeout=30)
        store.create(session_id, history=history, summary=summary, watermark=100)
        outcome = "won"
    except BaseException as exc:
        outcome = type(exc).__name__
    finally:
        store.close()
    queue.put({"tag": tag, "outcome": outcome})
