"""Writers racing a rewrite on one session, importable by spawned processes.

Appenders append numbered messages; a brancher forks the session again and again
(``Store.rewrite`` at a random ``keep``, with new messages), and now and then commits a summary.
Each reports what the store acknowledged, so the test can check that every acknowledged
message is in the history or in exactly one branch, never lost and never twice.
"""

from __future__ import annotations

import os
import random
from typing import Any

from summem.errors import ConflictError
from summem.messages import SummaryInfo, assistant, user
from tests.stores._workers import open_spec
from tests.stores.helpers import BranchStore, branching


def append_worker(
    store: BranchStore, sid: str, tag: str, n: int, seed: int, barrier: Any = None
) -> dict[str, Any]:
    """Append ``n`` messages ``tag:i`` in batches of 1 to 3; report the acknowledged ones."""
    rng = random.Random(seed)
    if barrier is not None:
        barrier.wait(timeout=30)
    acked: list[str] = []
    i = 0
    while i < n:
        size = min(rng.randint(1, 3), n - i)
        texts = [f"{tag}:{j}" for j in range(i, i + size)]
        store.append(sid, [user(t) for t in texts])
        acked.extend(texts)
        i += size
    return {"tag": tag, "acked": acked}


def branch_worker(
    store: BranchStore, sid: str, tag: str, n: int, seed: int, barrier: Any = None
) -> dict[str, Any]:
    """Make ``n`` rewrites (and some commits) of ``sid``; report what was acknowledged."""
    rng = random.Random(seed)
    if barrier is not None:
        barrier.wait(timeout=30)
    acked: list[str] = []
    branches: list[str] = []
    conflicts = commits = 0
    while len(branches) < n:
        st = store.load(sid)
        if rng.random() < 0.25 and st.length > st.watermark:
            target = rng.randint(st.watermark, st.length)
            summary = assistant(f"{tag} summary {len(branches)}").as_summary(
                SummaryInfo(watermark=target)
            )
            try:
                store.commit(
                    sid,
                    summary=summary,
                    watermark=target,
                    expected_version=st.version,
                    expected_epoch=st.epoch,
                )
                commits += 1
            except ConflictError:
                conflicts += 1
            continue
        keep = max(0, st.length - rng.randint(0, 4)) if rng.random() < 0.8 else 0
        keep = rng.randint(0, st.length) if rng.random() < 0.2 else keep
        texts = [f"{tag}:{len(branches)}.{k}" for k in range(rng.randint(0, 2))]
        branch_id = f"{tag}-{len(branches)}"
        try:
            store.rewrite(
                sid,
                keep=keep,
                messages=[user(t) for t in texts],
                expected_version=st.version,
                expected_epoch=st.epoch,
                branch_id=branch_id,
                expected_length=st.length if rng.random() < 0.3 else None,
            )
        except ConflictError:
            conflicts += 1
            continue
        acked.extend(texts)
        branches.append(branch_id)
    return {
        "tag": tag,
        "acked": acked,
        "branches": branches,
        "conflicts": conflicts,
        "commits": commits,
    }


WORKERS = {"append": append_worker, "branch": branch_worker}


def process_main(
    role: str,
    spec: tuple[str, ...],
    sid: str,
    tag: str,
    n: int,
    seed: int,
    barrier: Any,
    queue: Any,
) -> None:
    """Entry point of a spawned worker (``role``: append or branch); reports on ``queue``."""
    try:
        store = branching(open_spec(spec))
    except BaseException as exc:
        barrier.abort()
        queue.put({"tag": tag, "error": f"{type(exc).__name__}: {exc}", "pid": os.getpid()})
        raise
    try:
        queue.put(WORKERS[role](store, sid, tag, n, seed, barrier))
    except BaseException as exc:
        queue.put({"tag": tag, "error": f"{type(exc).__name__}: {exc}", "pid": os.getpid()})
        raise
    finally:
        store.close()
