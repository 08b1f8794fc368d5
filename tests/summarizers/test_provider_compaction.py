"""Delegated compaction: OpenAI's ``POST /responses/compact`` through a reduction, with a twin.

The real openai SDK over a mocked transport (:class:`tests.fakes.transport.Recorder`); the
compact response is the documented ``response.compaction`` object: the user messages, then one
``compaction`` item, and the pass's usage.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.errors import ConfigurationError, SummarizationError
from summem.events import MemoryEvent, ReductionCommitted
from summem.formats.compaction import PROVIDER_SUMMARY
from summem.formats.responses import to_messages
from summem.observe.cost import cost_usd
from summem.summarizers import OpenAICompaction
from summem.summarizers.base import SummaryOutput
from summem.tokens.base import count_messages
from tests.fakes.transport import Recorder

MODEL = "gpt-4.1"
USAGE = {
    "input_tokens": 900,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 120,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 1020,
}


def secret(n: int) -> str:
    return base64.b64encode(bytes((i * 31 + n) % 256 for i in range(1500))).decode()


def compacted(n: int, users: list[dict[str, Any]]) -> dict[str, Any]:
    item = {"type": "compaction", "id": f"cmp_{n}", "encrypted_content": secret(n)}
    return {
        "id": f"resp_c{n}",
        "object": "response.compaction",
        "created_at": 1700000000,
        "output": [*users, item],
        "usage": USAGE,
    }


def users_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """What OpenAI returns: the user messages of the input, as messages."""
    return [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": i["content"]}],
        }
        for i in body["input"]
        if i.get("role") == "user" and isinstance(i.get("content"), str)
    ]


class Compactor:
    """Answers ``/responses/compact`` as OpenAI does; ``fail`` answers a 500 instead."""

    def __init__(self, fail: bool = False) -> None:
        self.n = 0
        self.fail = fail

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        assert path == "/v1/responses/compact"
        if self.fail:
            return 500, {"error": {"message": "overloaded", "type": "server_error"}}, {}
        self.n += 1
        return 200, compacted(self.n, users_of(body)), {}


def reducer(summarizer: Any) -> SummarizationReducer:
    return SummarizationReducer(summarizer, threshold_messages=8, target_messages=4)


def talk(memory: Memory, turns: range) -> None:
    for n in turns:
        memory.add({"role": "user", "content": f"Order A{n}: what is its code?"})
        memory.add({"role": "assistant", "content": f"Order A{n} has code {1000 + n}."})


def test_a_reduction_commits_the_providers_item_with_its_twin_and_counts_its_usage() -> None:
    rec = Recorder(Compactor())
    events: list[MemoryEvent] = []
    memory = Memory(
        "s", reducer=reducer(OpenAICompaction(rec.client(), model=MODEL)), hooks=[events.append]
    )
    talk(memory, range(5))
    assert len(rec.requests) == 1
    method, path, body = rec.requests[0]
    assert (method, path, body["model"]) == ("POST", "/v1/responses/compact", MODEL)
    evicted = memory.summary.summary_info.covered_ids  # type: ignore[union-attr]
    history = memory.history()
    # the span as Responses input, exactly the messages the summary covers
    assert [i["content"] for i in body["input"]] == [m["content"] for m in history[: len(evicted)]]
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert held["id"] == "cmp_1" and held["item"]["encrypted_content"] == secret(1)
    assert held["usage"] == {"input_tokens": 900, "output_tokens": 120}
    # the twin: summem's own readable summary of the same span
    assert "A0" in summary.text and "1000" in summary.text and "binary" not in summary.text
    # OpenAI gets what it returned, in the summary's place; everyone else gets the twin
    items = memory.items()
    assert items[: len(held["window"]) + 1] == [*held["window"], held["item"]]
    assert memory.messages()[0]["content"] == summary.content
    assert "encrypted_content" not in json.dumps(memory.messages())
    # usage and cost through the same accounting as any summary
    [committed] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert committed.calls == 1 and committed.input_tokens == 900
    assert committed.output_tokens == 120
    assert committed.cost_usd == pytest.approx(cost_usd(MODEL, 900, 120))
    assert committed.cost_usd > 0
    assert memory.usage["summarizer_cost_usd"] == pytest.approx(committed.cost_usd)


def test_the_next_compaction_starts_from_the_previous_item() -> None:
    rec = Recorder(Compactor())
    memory = Memory("s", reducer=reducer(OpenAICompaction(rec.client(), model=MODEL)))
    talk(memory, range(9))
    assert len(rec.requests) >= 2
    second = rec.requests[1][2]["input"]
    first_item = {"type": "compaction", "id": "cmp_1", "encrypted_content": secret(1)}
    at = second.index(first_item)
    assert all(i.get("role") == "user" for i in second[:at])  # the window OpenAI returned
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert summary.summary_info.extra[PROVIDER_SUMMARY]["id"] == f"cmp_{len(rec.requests)}"
    assert len(memory.history()) == 18


def test_when_the_provider_fails_the_twin_alone_is_committed() -> None:
    rec = Recorder(Compactor(fail=True))
    memory = Memory("s", reducer=reducer(OpenAICompaction(rec.client(), model=MODEL)))
    talk(memory, range(5))
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert held["provider"] == "openai"
    assert held["failed"].startswith("LLMTransientError") and "overloaded" in held["failed"]
    assert "item" not in held
    assert memory.items()[0] == {"type": "message", "role": "user", "content": summary.content}


def test_a_compact_answer_without_an_item_falls_back_to_the_twin() -> None:
    def no_item(method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        return 200, {**compacted(1, []), "output": users_of(body)}, {}

    events: list[MemoryEvent] = []
    memory = Memory(
        "s",
        reducer=reducer(OpenAICompaction(Recorder(no_item).client(), model=MODEL)),
        hooks=[events.append],
    )
    talk(memory, range(5))
    assert memory.summary is not None and memory.summary.summary_info is not None
    assert "compaction item" in memory.summary.summary_info.extra[PROVIDER_SUMMARY]["failed"]
    # OpenAI answered (and billed) the pass: its call and usage are counted all the same
    [committed] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert (committed.calls, committed.input_tokens, committed.output_tokens) == (1, 900, 120)
    assert committed.cost_usd == pytest.approx(cost_usd(MODEL, 900, 120)) and committed.cost_usd


def test_a_delegated_summary_survives_export_and_import() -> None:
    rec = Recorder(Compactor())
    memory = Memory("s", reducer=reducer(OpenAICompaction(rec.client(), model=MODEL)))
    talk(memory, range(5))
    data = json.loads(json.dumps(memory.to_dict()))
    copy = Memory.from_dict({**data, "session_id": "copy"})
    assert json.dumps(copy.items()) == json.dumps(memory.items())
    assert copy.messages() == memory.messages()


async def test_async_memory_with_an_async_client() -> None:
    rec = Recorder(Compactor())
    memory = AsyncMemory("s", reducer=reducer(OpenAICompaction(rec.async_client(), model=MODEL)))
    for n in range(5):
        await memory.add({"role": "user", "content": f"Order A{n}?"})
        await memory.add({"role": "assistant", "content": f"Code {1000 + n}."})
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert summary.summary_info.extra[PROVIDER_SUMMARY]["id"] == "cmp_1"
    assert (await memory.items())[len(summary.summary_info.extra[PROVIDER_SUMMARY]["window"])][
        "type"
    ] == "compaction"
    await memory.close()


def test_an_async_client_under_a_sync_memory_is_refused_clearly() -> None:
    rec = Recorder(Compactor())
    memory = Memory("s", reducer=reducer(OpenAICompaction(rec.async_client(), model=MODEL)))
    with pytest.raises(SummarizationError, match="AsyncOpenAI"):
        talk(memory, range(5))
    assert len(memory.history()) == 9  # stored before the reduction failed; nothing lost
    assert memory.summary is None


@pytest.mark.parametrize(
    ("client", "model", "match"),
    [(object(), MODEL, "responses.compact"), (None, "", "model")],
)
def test_bad_arguments_are_refused(client: Any, model: str, match: str) -> None:
    client = client if client is not None else Recorder(Compactor()).client()
    with pytest.raises(ConfigurationError, match=match):
        OpenAICompaction(client, model=model)


def test_from_wrap_openai_the_next_responses_call_starts_with_the_window_and_item() -> None:
    from summem import wrap_openai
    from tests.fakes.responses import response, text_item

    compactor = Compactor()
    n = [0]

    def server(method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        if path.endswith("/compact"):
            return compactor(method, path, body)
        n[0] += 1
        return 200, response([text_item(f"Code {1000 + n[0]}.", n[0])], n=n[0]), {}

    rec = Recorder(server)
    client = rec.client()
    memory = Memory("s", reducer=reducer(OpenAICompaction(client, model=MODEL)))
    wrapped = wrap_openai(client, memory)
    for i in range(6):
        wrapped.responses.create(model=MODEL, input=f"Order A{i}?", store=False)
    assert compactor.n >= 1
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    last = [b for _, p, b in rec.requests if p == "/v1/responses"][-1]["input"]
    assert last[: len(held["window"]) + 1] == [*held["window"], held["item"]]


async def test_under_summem_session_get_items_starts_with_the_window_and_item() -> None:
    from summem.integrations.agents import SummemSession

    rec = Recorder(Compactor())
    session = SummemSession("s", reducer=reducer(OpenAICompaction(rec.async_client(), model=MODEL)))
    for i in range(5):
        await session.add_items([{"role": "user", "content": f"Order A{i}?"}])
        await session.add_items(
            [{"type": "message", "role": "assistant", "content": f"Code {1000 + i}."}]
        )
    summary = session.memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    items = await session.get_items()
    assert items[: len(held["window"]) + 1] == [*held["window"], held["item"]]
    await session.close()


# -- the budget: a delegated summary counts at the most any view sends for it ------------------


class Brief:
    """A twin much smaller than OpenAI's window (the window carries every user message)."""

    name = "brief"

    def summarize(self, request: Any) -> SummaryOutput:
        return SummaryOutput(text="Orders were discussed.", summarizer=self.name)


class Windowed:
    """Answers ``/responses/compact`` with every user message of the input, then an item."""

    def __init__(self, item_chars: int) -> None:
        self.item_chars = item_chars
        self.n = 0

    def __call__(self, method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        assert path == "/v1/responses/compact"
        self.n += 1
        users = [
            i
            if i.get("type") == "message"
            else {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": i["content"]}],
            }
            for i in body["input"]
            if i.get("role") == "user"
        ]
        secret = (f"gAAAA{self.n}" + "Zk9x" * self.item_chars)[: self.item_chars]
        item = {"type": "compaction", "id": f"cmp_{self.n}", "encrypted_content": secret}
        return 200, {**compacted(self.n, []), "output": [*users, item]}, {}


def token_reducer(client: Any) -> SummarizationReducer:
    return SummarizationReducer(
        OpenAICompaction(client, model=MODEL, twin=Brief()),
        threshold_tokens=3000,
        target_tokens=2000,
        summary_max_tokens=600,
    )


def items_size(memory: Memory) -> int:
    """What ``items()`` sends, counted with the memory's own counter (as a history counts it)."""
    counter = memory.reducer.token_counter  # type: ignore[attr-defined]
    return count_messages(counter, to_messages(memory.items()))


def chat(memory: Memory, turns: range) -> list[int]:
    """Short questions, long answers; what items() sends after each turn."""
    sizes = []
    for n in turns:
        memory.add({"role": "user", "content": f"Order A{n}: what is its code?"})
        memory.add(
            {
                "role": "assistant",
                "content": f"Order A{n} has code {1000 + n}. "
                + " ".join(
                    f"Line {k} of order A{n} ships from depot {k * 7 + n}." for k in range(8)
                ),
            }
        )
        sizes.append(items_size(memory))
    return sizes


def test_items_stay_within_the_threshold_when_openais_window_is_larger_than_the_twin() -> None:
    rec = Recorder(Windowed(item_chars=200))
    memory = Memory("s", reducer=token_reducer(rec.client()))
    sizes = chat(memory, range(30))  # one compaction, then the view grows back
    assert len(rec.requests) == 1 and max(sizes) <= 3000, sizes
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    sent = [*held["window"], held["item"]]
    assert memory.items()[: len(sent)] == sent  # OpenAI's window is what items() sends...
    counter = memory.reducer.token_counter  # type: ignore[attr-defined]
    twin = memory.reducer.size(summary)
    assert count_messages(counter, to_messages(sent)) > 10 * twin  # ...much larger than the twin
    seen = (memory.size, items_size(memory))
    sizes = chat(memory, range(30, 60))  # the next reductions start from it
    assert len(rec.requests) > 1 and max(sizes) <= 3000, sizes
    assert seen[0] >= seen[1]  # it was counted at no less than its own size


def test_a_window_larger_than_the_summarys_room_falls_back_to_the_twin() -> None:
    rec = Recorder(Windowed(item_chars=6000))  # the item alone is past the summary's room
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=token_reducer(rec.client()), hooks=[events.append])
    sizes = chat(memory, range(40))
    assert rec.requests and max(sizes) <= 3000, sizes
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert held["provider"] == "openai" and "item" not in held
    assert "compacted window" in held["failed"] and "twin" in held["failed"]
    assert memory.items()[0] == {"type": "message", "role": "user", "content": summary.content}
    # OpenAI answered and billed the pass: it is counted all the same
    committed = [e for e in events if isinstance(e, ReductionCommitted)]
    assert committed and all(e.calls == 1 and e.input_tokens == 900 for e in committed)
