"""A seeded, randomised workload of ``SummemSession`` calls racing on one session id.

Several threads, each running its own event loop, each loop driving several ``SummemSession``
objects (each with its own memory and its own store connection) on one session id: ``add_items``
of unique items, ``pop_item``, ``clear_session`` and ``get_items``, a share of them cancelled
at a random point (``task.cancel()`` after a random number of loop turns). What each call was
acknowledged with is returned, for :func:`check` to hold against what the store ends up with.

Run as a script (``python -m tests.integrations.agents_workload URL SEED OPS TAG``) it prints
its result as JSON, so several processes can run it on one store.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from summem import AsyncMemory
from summem.integrations.agents import SummemSession

SESSION = "raced"


@dataclass
class Outcome:
    """What the callers were told."""

    added: list[str] = field(default_factory=list)  # acknowledged adds (item contents)
    unknown: list[str] = field(default_factory=list)  # adds cancelled: landed or not
    popped: list[str] = field(default_factory=list)  # contents pop_item returned
    cancelled: int = 0
    operations: int = 0
    errors: list[str] = field(default_factory=list)

    def merge(self, other: Outcome) -> None:
        self.added += other.added
        self.unknown += other.unknown
        self.popped += other.popped
        self.cancelled += other.cancelled
        self.operations += other.operations
        self.errors += other.errors


async def _one(session: SummemSession, rng: random.Random, tag: str, n: int, out: Outcome) -> None:
    roll = rng.random()
    content = f"{tag}-{n}"
    call: Awaitable[Any]
    if roll < 0.55:
        kind, call = "add", session.add_items([{"role": "user", "content": content}])
    elif roll < 0.75:
        kind, call = "pop", session.pop_item()
    elif roll < 0.80:
        kind, call = "clear", session.clear_session()
    else:
        kind, call = "get", session.get_items()
    task: asyncio.Future[Any] = asyncio.ensure_future(call)
    if rng.random() < 0.25:  # cancelled after a random number of loop turns
        for _ in range(rng.randrange(0, 12)):
            await asyncio.sleep(0)
        task.cancel()
    out.operations += 1
    try:
        result = await task
    except asyncio.CancelledError:
        out.cancelled += 1
        if kind == "add":
            out.unknown.append(content)
        return
    except Exception as exc:  # reported: the check fails on any
        out.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
        return
    if kind == "add":
        out.added.append(content)
    elif kind == "pop" and result is not None:
        out.popped.append(str(result["content"]))


async def _loop_body(
    url: str, seed: int, ops: int, tag: str, sessions: int
) -> tuple[Outcome, list[SummemSession]]:
    rng = random.Random(seed)
    out = Outcome()
    objects = [SummemSession(SESSION, store=_store(url)) for _ in range(sessions)]

    async def driver(i: int) -> None:
        own = random.Random(rng.random())
        for n in range(ops):
            await _one(objects[i], own, f"{tag}.{i}", n, out)

    await asyncio.gather(*(driver(i) for i in range(sessions)))
    return out, objects


def run(
    url: str, seed: int, ops: int, tag: str, *, threads: int = 2, sessions: int = 2
) -> tuple[Outcome, list[SummemSession]]:
    """``threads`` threads, each with its own event loop and ``sessions`` session objects.

    Returns what the callers were told and the session objects, still open (see
    :func:`views_are_fresh`).
    """
    results: list[tuple[Outcome, list[SummemSession]]] = []
    failures: list[BaseException] = []

    def thread(i: int) -> None:
        try:
            results.append(
                asyncio.run(_loop_body(url, seed * 100 + i, ops, f"{tag}.{i}", sessions))
            )
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    workers = [threading.Thread(target=thread, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if failures:
        raise failures[0]
    total = Outcome()
    objects: list[SummemSession] = []
    for outcome, made in results:
        total.merge(outcome)
        objects += made
    return total, objects


def _store(url: str) -> Any:
    """A URL the memory opens (and closes) itself; PostgreSQL and Redis as sync stores.

    A sync store serves any event loop (an async client belongs to the loop that made it).
    For Redis, ``#prefix`` after the URL is the key prefix.
    """
    if url.startswith("postgresql"):
        from summem.stores import open_store

        return open_store(url)
    if url.startswith("redis"):
        from summem.stores import RedisStore

        address, _, prefix = url.partition("#")
        return RedisStore(address, prefix=prefix or "summem")
    return url


async def _close(session: SummemSession) -> None:
    owned = session.memory._owns_store
    await session.close()
    if not owned:
        await session.memory.store.close()


async def views_are_fresh(url: str, objects: list[SummemSession]) -> list[str]:
    """Once every writer has stopped: each object's view is the store's; then closes them."""
    fresh = SummemSession(SESSION, store=_store(url))
    expected = await fresh.get_items()
    await _close(fresh)
    stale = []
    for i, session in enumerate(objects):
        if await session.get_items() != expected:
            stale.append(f"session object {i}: a stale view after the run")
        await _close(session)
    return stale


async def stored(url: str) -> tuple[list[str], list[list[str]]]:
    """The history's contents and each branch's, as the store holds them."""
    memory = AsyncMemory(SESSION, store=_store(url))
    try:
        history = [str(m["content"]) for m in await memory.history()]
        branches = [
            [str(m["content"]) for m in await memory.branch_messages(b.id)]
            for b in await memory.branches()
        ]
    finally:
        owned = memory._owns_store
        await memory.close()
        if not owned:
            await memory.store.close()
    return history, branches


def check(outcome: Outcome, history: list[str], branches: list[list[str]]) -> None:
    """Every acknowledged add is in the history or in exactly one branch; nothing twice."""
    assert outcome.errors == [], outcome.errors[:5]
    everywhere = history + [c for b in branches for c in b]
    counts: dict[str, int] = {}
    for content in everywhere:
        counts[content] = counts.get(content, 0) + 1
    duplicated = sorted(c for c, k in counts.items() if k > 1)
    assert duplicated == [], f"duplicated: {duplicated[:10]}"
    lost = sorted(set(outcome.added) - set(counts))
    assert lost == [], f"acknowledged, then lost: {lost[:10]}"
    known = set(outcome.added) | set(outcome.unknown)
    strangers = sorted(set(counts) - known)
    assert strangers == [], f"never added: {strangers[:10]}"
    in_branches = {c for b in branches for c in b}
    assert set(outcome.popped) <= in_branches, "a popped item is not kept in a branch"
    assert len(outcome.popped) == len(set(outcome.popped)), "an item was popped twice"


if __name__ == "__main__":
    url, seed, ops, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    result, made = run(url, seed, ops, tag)

    async def close_all() -> None:
        for session in made:
            await _close(session)

    asyncio.run(close_all())
    print(json.dumps(result.__dict__))
