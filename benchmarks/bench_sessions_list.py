"""``summem sessions list`` on many sessions: the index against loading every session whole.

Run from the repository root::

    python benchmarks/bench_sessions_list.py                       # 100k sessions, SQLite
    python benchmarks/bench_sessions_list.py --sessions 20000 --stores sqlite,postgres,redis

Each store (as in bench_stores.py: a temporary SQLite file, a throwaway PostgreSQL schema or
Redis key prefix) is filled with ``--sessions`` sessions of ``--messages`` messages each, the
older half covered by a summary, each written whole by ``create``. Then, in seconds:

- ``page``: the rows ``sessions list --limit 100`` shows (``session_infos(limit=100)``), and a
  page from the middle (``after=`` the middle id);
- ``all``: every session's row through :func:`summem.cli.sessions.session_rows` (the index);
- ``old``: the same rows the old way, loading each session and its summary log (a store
  without ``session_infos``); timed over ``--old-sessions`` sessions (default: all) and
  scaled to all of them when fewer.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_stores import open_spec, place, problem
from summem.cli.sessions import session_rows
from summem.messages import SummaryInfo, assistant, user
from summem.stores.base import Store


class _Plain:
    """The store without ``session_infos``: what ``sessions list`` did before (loads)."""

    def __init__(self, inner: Store, limit: int | None) -> None:
        self._inner, self._limit = inner, limit

    def list_sessions(self) -> list[str]:
        return self._inner.list_sessions()[: self._limit]

    def __getattr__(self, name: str) -> Any:
        if name == "session_infos":
            raise AttributeError(name)
        return getattr(self._inner, name)


def fill(store: Store, sessions: int, messages: int) -> float:
    start = time.perf_counter()
    k = messages // 2
    for i in range(sessions):
        sid = f"user-{i:07d}"
        history = [
            user(f"{sid} message {j}: the order #{i * 7 + j} ships on Monday")
            for j in range(messages)
        ]
        summary = assistant(f"Earlier: {k} messages about orders.").as_summary(
            SummaryInfo(watermark=k, summarizer="bench")
        )
        store.create(sid, history=history, summary=summary, watermark=k)
    return time.perf_counter() - start


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def run(kind: str, sessions: int, messages: int, old_sessions: int | None) -> None:
    why = problem(kind)
    if why is not None:
        print(f"{kind}: skipped ({why})", flush=True)
        return
    with place(kind) as spec:
        store = open_spec(spec)
        try:
            filled = fill(store, sessions, messages)
            print(f"{kind}: filled {sessions} sessions x {messages} messages in {filled:.1f} s")
            first, page = timed(lambda: store.session_infos(limit=100))  # type: ignore[attr-defined]
            middle = f"user-{sessions // 2:07d}"
            mid, _ = timed(lambda: store.session_infos(limit=100, after=middle))  # type: ignore[attr-defined]
            assert len(page) == min(100, sessions)
            index, rows = timed(lambda: session_rows(store))
            assert len(rows) == sessions
            n_old = sessions if old_sessions is None else min(old_sessions, sessions)
            plain: Any = _Plain(store, n_old)
            old, old_rows = timed(lambda: session_rows(plain))
            assert old_rows == rows[:n_old], "the two ways disagree"
            scaled = old * sessions / max(n_old, 1)
            note = "" if n_old == sessions else f" (timed on {n_old}, scaled)"
            print(
                f"{kind}: page of 100 {first:.4f} s, middle page {mid:.4f} s; "
                f"all {sessions} rows: index {index:.2f} s, old way {scaled:.2f} s{note}",
                flush=True,
            )
        finally:
            store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=6, help="messages per session")
    parser.add_argument("--stores", default="sqlite", help="sqlite,postgres,redis,memory")
    parser.add_argument("--old-sessions", type=int, default=None, help="time the old way on N")
    args = parser.parse_args(argv)
    for kind in args.stores.split(","):
        run(kind.strip(), args.sessions, args.messages, args.old_sessions)


if __name__ == "__main__":
    main()
