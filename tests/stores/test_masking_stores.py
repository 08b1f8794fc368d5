"""Masking through ``Memory`` / ``AsyncMemory`` on every store, sync and async.

The view shows old tool results as stubs (same ids, pairing valid, budget counted on the
stubs); the store keeps the originals; a stub's ``message_id`` recalls the whole result; a
masking-only memory never calls its summarizer; stubs are the same on every later turn and
after the session is opened again.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from summem import AsyncMemory, Memory
from summem.conversation import boundaries
from summem.messages import Message
from summem.reducers.masking import STUB_PREFIX
from summem.reducers.summarization import SummarizationReducer
from tests.fakes.counters import WordCounter
from tests.fakes.memory import check_session
from tests.fakes.summarizers import FakeSummarizer
from tests.reducers.test_masking import tool_turn
from tests.stores.backends import Backend


def masking_reducer(summarizer: FakeSummarizer, **kw: Any) -> SummarizationReducer:
    budget: dict[str, Any] = {"threshold_tokens": 600, "target_tokens": 450}
    budget.update(kw)
    return SummarizationReducer(
        summarizer,
        token_counter=WordCounter(),
        summary_max_tokens=10,
        mask_tool_results_after=2,
        mask_min_tokens=20,
        **budget,
    )


def run_session(backend: Backend, reducer: SummarizationReducer, turns: int) -> dict[str, Any]:
    store = backend.native()

    async def run() -> dict[str, Any]:
        def open_memory() -> Any:
            cls: Any = Memory if backend.mode == "sync" else AsyncMemory
            return cls("s", reducer=reducer, store=store)

        async def call(memory: Any, method: str, *args: Any, **kwargs: Any) -> Any:
            out = getattr(memory, method)(*args, **kwargs)
            return await out if asyncio.iscoroutine(out) else out

        memory = open_memory()
        views: list[list[dict[str, Any]]] = []
        for i in range(turns):
            await call(memory, "extend", tool_turn(i))
            views.append(await call(memory, "messages"))
        view: list[Message] = await call(memory, "view")
        history: list[Message] = await call(memory, "history_messages")
        stub = next(m for m in view if STUB_PREFIX in m.text)
        handle = re.search(r"recall message_id=(\S+)\]", stub.text)
        assert handle is not None
        hits = await call(memory, "recall", id=handle.group(1))
        await call(memory, "close")
        reopened = open_memory()
        again = await call(reopened, "messages")
        await call(reopened, "close")
        return {
            "views": views,
            "view": view,
            "history": history,
            "hits": hits,
            "again": again,
            "size": sum(WordCounter().count_message(m) for m in view),
        }

    out = asyncio.run(run())
    if backend.mode == "sync":
        check_session(store, "s", out["view"])
        store.close()
    return out


def test_masking_only_memory_never_summarizes(backend: Backend) -> None:
    fake = FakeSummarizer()
    out = run_session(backend, masking_reducer(fake, threshold_tokens=900), turns=10)
    assert fake.requests == []  # the masked view stays under the threshold: zero LLM calls
    view, history = out["view"], out["history"]
    assert [m.id for m in view] == [m.id for m in history]
    stubs = [m for m in view if STUB_PREFIX in m.text]
    assert len(stubs) == 8  # every result but the last two groups'
    originals = {m.id: m for m in history}
    for stub in stubs:
        assert stub.tool_call_id == originals[stub.id].tool_call_id
        assert STUB_PREFIX not in originals[stub.id].text  # history is untouched
    recalled = {hit.message.id: hit.message for hit in out["hits"]}  # with its tool group
    assert recalled[stubs[0].id].text == originals[stubs[0].id].text
    assert out["size"] <= 900
    # Stable: a message's rendering never changes once masked; reopening gives the same view.
    final = {d.get("tool_call_id"): d["content"] for d in out["views"][-1] if d["role"] == "tool"}
    for rendered in out["views"]:
        for d in rendered:
            if d["role"] == "tool" and STUB_PREFIX in d["content"]:
                assert d["content"] == final[d["tool_call_id"]]
    assert [dict(d) for d in out["again"]] == [dict(d) for d in out["views"][-1]]


def test_hybrid_memory_summarizes_the_originals(backend: Backend) -> None:
    fake = FakeSummarizer()
    out = run_session(backend, masking_reducer(fake), turns=16)
    assert fake.requests  # past what masking saves, the summarizer runs
    assert all(STUB_PREFIX not in m.text for m in fake.seen)
    assert out["view"][0].is_summary
    assert any(STUB_PREFIX in m.text for m in out["view"])


def test_summarizer_spans_are_packed_by_the_originals_size() -> None:
    fake = FakeSummarizer()
    reducer = masking_reducer(fake, threshold_tokens=700, target_tokens=500)
    memory = Memory("s", reducer=reducer)
    for i in range(30):
        memory.extend(tool_turn(i, n_words=150))
    memory.reduce()
    assert fake.requests
    for request in fake.requests:
        span = list(request.messages)
        assert len(boundaries(span).starts) == 1 or sum(map(reducer.size, span)) <= 700


def test_background_reductions_keep_the_masking() -> None:
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        threshold_tokens=700,
        target_tokens=500,
        soft_threshold_tokens=600,
        summary_max_tokens=10,
        token_counter=WordCounter(),
        mask_tool_results_after=2,
        mask_min_tokens=20,
    )
    with Memory("s", reducer=reducer) as memory:
        for i in range(20):
            memory.extend(tool_turn(i, n_words=150))
            memory.wait()
        view = memory.view()
        assert fake.requests and view[0].is_summary
        tail = view[1:]
        shown = [m.tool_call_id for m in tail if m.role == "tool" and STUB_PREFIX in m.text]
        whole = [m.tool_call_id for m in tail if m.role == "tool" and STUB_PREFIX not in m.text]
        assert whole == ["c18", "c19"] and shown  # the last two groups whole, older ones stubs
        assert memory.size == reducer.head_size(None, view[0]) + sum(map(reducer.size, tail))
        check_session(memory._store, "s", view)
