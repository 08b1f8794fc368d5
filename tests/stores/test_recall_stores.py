"""Recall on every store, sync and async: the store's own index (SQLite FTS5, PostgreSQL
``tsvector``) or the in-process one (memory, Redis); the same answers either way.

Ranking need not be identical between the engines (FTS5's and PostgreSQL's statistics are
shared by every session of the file or schema), but it must be sane: the message with the rare
word first, ``evicted_only`` honoured, and never another session's rows.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, Memory
from summem.messages import parse_messages, user
from summem.stores.base import AsyncSearchableStore, SearchableStore, Store
from tests.fakes.memory import small_reducer
from tests.fakes.messages import a, call, res, turn, u
from tests.stores.backends import SEARCHABLE_PARAMS, Backend
from tests.stores.conftest import _backend

SYNTAX = [
    '"',
    '"unbalanced',
    "*",
    "parcel*",
    "NEAR(parcel late)",
    "NEAR",
    "-parcel",
    "parcel -late",
    "sess : s1",
    'sess : "s1"',
    "terms:parcel",
    "{sess terms}: parcel",
    "AND OR NOT",
    "parcel AND",
    "( parcel",
    "^parcel",
    "parcel + late",
    "'; DROP TABLE messages; --",
    "a & b | !c <-> d",
    "\\",
    "\x00",
    "élan ñ 東京",
]


def run_memory(backend: Backend, script: Callable[[Any], Any]) -> Any:
    """Run ``script(call)`` against a Memory (or AsyncMemory) factory on ``backend``.

    ``call(memory, method, *args)`` runs the method and awaits it when async; ``script`` gets
    ``(new_memory, call)`` where ``new_memory(session_id)`` opens one on the shared store.
    """
    store = backend.native()

    async def run() -> Any:
        opened: list[Any] = []

        def new_memory(session_id: str) -> Any:
            cls: Any = Memory if backend.mode == "sync" else AsyncMemory
            memory = cls(session_id, reducer=small_reducer(), store=store)
            opened.append(memory)
            return memory

        async def call(memory: Any, method: str, *args: Any, **kwargs: Any) -> Any:
            out = getattr(memory, method)(*args, **kwargs)
            return await out if asyncio.iscoroutine(out) else out

        try:
            return await script((new_memory, call))
        finally:
            for memory in opened:
                await call(memory, "close")

    try:
        return asyncio.run(run())
    finally:
        if backend.mode == "sync":
            store.close()


def test_recall_finds_an_identifier_on_every_store(backend: Backend) -> None:
    async def script(tools: Any) -> Any:
        new_memory, call = tools
        memory = new_memory("s")
        await call(memory, "add", u("My order number is BW-58214-K."))
        for i in range(20):
            await call(memory, "extend", turn(i))
        return await call(memory, "recall", "BW-58214-K")

    hits = run_memory(backend, script)
    assert hits and hits[0].position == 0 and "BW-58214-K" in hits[0].message.text


def test_the_rare_word_comes_first_and_evicted_only_is_honoured(backend: Backend) -> None:
    async def script(tools: Any) -> Any:
        new_memory, call = tools
        memory = new_memory("s")
        for i in range(12):
            await call(memory, "add", u(f"parcel update {i}: the parcel is on its way"))
            if i == 5:
                await call(memory, "add", u("parcel zeppelin arrived at the depot"))
        for i in range(12):
            await call(memory, "extend", turn(i))
        await call(memory, "add", u("the parcel tail marker quokka"))
        watermark = memory.summary.summary_info.watermark
        first = await call(memory, "recall", "parcel zeppelin", k=3, evicted_only=False)
        evicted = await call(memory, "recall", "quokka")
        everything = await call(memory, "recall", "quokka", evicted_only=False)
        some = await call(memory, "recall", "parcel", k=50, max_tokens=100_000)
        return watermark, first, evicted, everything, some

    watermark, first, evicted, everything, some = run_memory(backend, script)
    assert watermark > 13  # the parcel messages are all evicted
    assert first[0].position == 6 and "zeppelin" in first[0].message.text
    assert [h.score for h in first] == sorted((h.score for h in first), reverse=True)
    assert evicted == []  # the tail is in view: not searched by default
    assert [h.message.text for h in everything] == ["the parcel tail marker quokka"]
    assert len(some) == 13 and all(h.position < watermark for h in some)


def test_recall_never_returns_another_sessions_messages(backend: Backend) -> None:
    async def script(tools: Any) -> Any:
        new_memory, call = tools
        one, two = new_memory("s1"), new_memory("s2")
        await call(one, "add", u("the secret launch code is walrus-xq"))
        await call(two, "add", u("nothing to see here"))
        for i in range(8):
            await call(one, "extend", turn(i))
            await call(two, "extend", turn(i))
        mine = await call(one, "recall", "walrus-xq launch", evicted_only=False)
        theirs = await call(two, "recall", "walrus-xq launch secret", evicted_only=False)
        crafted = [
            await call(two, "recall", q, evicted_only=False)
            for q in ('sess : "s1"', "s1", "walrus*", '"walrus-xq"')
        ]
        by_id = await call(two, "recall", id=mine[0].message.id)
        return mine, theirs, crafted, by_id

    mine, theirs, crafted, by_id = run_memory(backend, script)
    assert mine and "walrus-xq" in mine[0].message.text
    assert theirs == [] and by_id == []
    assert all("walrus" not in h.message.text for hits in crafted for h in hits)


def test_search_syntax_in_a_query_is_plain_text(backend: Backend) -> None:
    async def script(tools: Any) -> Any:
        new_memory, call = tools
        memory = new_memory("s")
        await call(memory, "add", u("my parcel is late: tracking NEAR-9 (sess:terms) -x"))
        await call(memory, "add", u("a late reply"))
        return [await call(memory, "recall", q, evicted_only=False) for q in SYNTAX]

    results = run_memory(backend, script)
    found = dict(zip(SYNTAX, results, strict=True))
    assert found['"'] == [] and found["*"] == [] and found["AND OR NOT"] == []
    for query in ("parcel*", "NEAR(parcel late)", "-parcel", "( parcel", "^parcel"):
        assert found[query][0].position == 0, query  # the word, not the operator, is searched
    assert found["NEAR"][0].position == 0  # "near-9" holds "near"


def test_recall_by_id_and_tool_groups_on_every_store(backend: Backend) -> None:
    async def script(tools: Any) -> Any:
        new_memory, call = tools
        memory = new_memory("s")
        await call(memory, "add", u("look it up"))
        await call(memory, "extend", [call_("c1", "c2"), res("c1", "first"), res("c2", "ibis")])
        await call(memory, "add", a("done"))
        for i in range(10):
            await call(memory, "extend", turn(i))
        group = await call(memory, "recall", "ibis")
        history = await call(memory, "history_messages")
        by_id = await call(memory, "recall", id=history[3].id)
        missing = await call(memory, "recall", id="no-such-id")
        return group, by_id, missing

    group, by_id, missing = run_memory(backend, script)
    assert [h.position for h in group] == [1, 2, 3]  # the result, with its call and sibling
    assert group[2].message.text == "ibis" and group[2].score >= group[0].score
    assert [h.position for h in by_id] == [1, 2, 3] and by_id[2].score == 1.0
    assert missing == []


def call_(*ids: str) -> dict[str, Any]:
    return call(*ids)


# -- the stores' own search (SQLite, PostgreSQL) ---------------------------------------------


@pytest.fixture(params=SEARCHABLE_PARAMS)
def searchable(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from _backend(request, tmp_path)


def test_which_stores_search_themselves(backend: Backend) -> None:
    raw = backend.native()
    is_searchable = isinstance(raw, SearchableStore | AsyncSearchableStore)
    assert is_searchable == backend.registered.searchable
    if backend.mode == "sync":
        raw.close()


def test_the_index_follows_every_write(searchable: Backend) -> None:
    store: Store = searchable.make()
    s: Any = store
    store.append("s", [user("the heron flies"), user("a plain line")])
    store.append("s", [user("the heron flies")])  # a new message (new id): indexed too
    assert [h.position for h in s.search("s", "heron", k=5)] == [2, 0]  # ties: most recent
    assert [h.position for h in s.search("s", "heron", k=1)] == [2]
    assert [h.position for h in s.search("s", "heron", k=5, stop=2)] == [0]
    assert s.search("s", "heron", k=5, stop=0) == [] and s.search("s", "heron", k=0) == []
    assert s.search("s", "the", k=5) == []  # stopwords only: no words to search
    assert s.search("nobody", "heron", k=5) == [] and s.position_of("nobody", "x") is None
    first = store.history("s", 0, 1)[0]
    assert s.position_of("s", first.id) == 0 and s.position_of("s", "missing") is None
    store.clear("s")
    assert s.search("s", "heron", k=5) == []
    store.append("s", [user("a heron again")])
    assert [h.message.text for h in s.search("s", "heron", k=5)] == ["a heron again"]
    store.delete("s")
    assert s.search("s", "heron", k=5) == []
    imported = parse_messages([u("imported heron"), u("other")])
    store.create("t", history=imported, watermark=0)
    hits = s.search("t", "heron", k=5)
    assert [(h.position, h.message.id) for h in hits] == [(0, imported[0].id)]
    assert hits[0].score > 0


def test_searches_and_appends_at_once_index_everything_once(searchable: Backend) -> None:
    stores: list[Any] = [searchable.make() for _ in range(4)]
    errors: list[BaseException] = []

    def writer(w: int) -> None:
        try:
            for i in range(30):
                stores[w].append("s", [user(f"word{w}x{i} shared")])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def searcher(r: int) -> None:
        try:
            for _ in range(15):
                stores[r].search("s", "shared", k=3)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in (0, 1)]
    threads += [threading.Thread(target=searcher, args=(r,)) for r in (2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    s = stores[0]
    for w in (0, 1):
        for i in range(30):
            hits = s.search("s", f"word{w}x{i}", k=5)
            assert [h.message.text for h in hits] == [f"word{w}x{i} shared"]
    assert len(s.search("s", "shared", k=100)) == 60  # each message indexed exactly once


def test_a_store_without_search_is_never_asked_to_search() -> None:
    from summem.session.steps import AsyncStoreSteps, SyncStoreSteps
    from summem.stores import AsyncInMemoryStore, InMemoryStore

    for steps in (SyncStoreSteps(InMemoryStore()), AsyncStoreSteps(AsyncInMemoryStore())):
        assert steps.searchable is False
        with pytest.raises(TypeError, match="no search of its own"):
            steps.search("s", "x", k=1, stop=None)
        with pytest.raises(TypeError, match="no search of its own"):
            steps.position_of("s", "m")


def test_a_session_cleared_elsewhere_during_recall_gives_what_is_there(
    searchable: Backend,
) -> None:
    store: Any = searchable.native()
    other = searchable.make()

    async def run() -> Any:
        cls: Any = Memory if searchable.mode == "sync" else AsyncMemory
        memory = cls("s", reducer=small_reducer(), store=store)
        for i in range(6):
            out = memory.extend(turn(i))
            if asyncio.iscoroutine(out):
                await out
        other.clear("s")  # another process: this memory still thinks 24 messages are there
        pending = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "z1", "type": "function", "function": {"name": "zebra", "arguments": "{}"}}
            ],
        }
        other.append("s", parse_messages([pending]))  # a call whose result never came
        other.append("s", parse_messages([u("about the zebra call")]))
        hits = memory.recall("zebra", evicted_only=False)
        hits = await hits if asyncio.iscoroutine(hits) else hits
        out = memory.close()
        if asyncio.iscoroutine(out):
            await out
        return hits

    hits = asyncio.run(run())
    assert sorted(h.position for h in hits) == [0, 1]
    if searchable.mode == "sync":
        store.close()
