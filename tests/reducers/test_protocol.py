"""A reducer of the user's own, written against the ``Reducer`` protocol, runs through Memory."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from summem import AsyncMemory, Memory
from summem.conversation import boundaries
from summem.errors import ConfigurationError, ReductionError, StoreError
from summem.messages import Message
from summem.reducers.base import Reducer, SummarizingReducer
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from tests.fakes.memory import check_session
from tests.fakes.messages import a, call, res, sys, u


class LastUserTurns:
    """Keeps the last ``turns`` user turns in the view (no summary): not a summem class."""

    unit = "user turns"

    def __init__(self, turns: int) -> None:
        self.threshold = turns
        self.target = turns

    def size(self, message: Message) -> int:
        return 1 if message.role == "user" else 0

    def head_size(self, system: Message | None, summary: Message | None) -> int:
        return 0

    def plan_cut(
        self, system: Message | None, tail: Sequence[Message], sizes: Sequence[int]
    ) -> int:
        starts = set(boundaries(tail).starts)
        users = [i for i, m in enumerate(tail) if m.role == "user" and i in starts]
        if len(users) <= self.target:
            return 0
        return users[-self.target]


def conversation(n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [sys()]
    for i in range(n):
        out += [u(f"question {i}"), call(f"c{i}"), res(f"c{i}", f"result {i}"), a(f"answer {i}")]
    return out


def test_the_custom_reducer_satisfies_the_protocol_and_not_the_summarizing_one() -> None:
    assert isinstance(LastUserTurns(2), Reducer)
    assert not isinstance(LastUserTurns(2), SummarizingReducer)
    assert isinstance(SummarizationReducer(threshold_tokens=1000), SummarizingReducer)
    assert not isinstance(TruncationReducer(threshold_tokens=100), SummarizingReducer)


def test_a_custom_reducer_works_through_memory() -> None:
    memory = Memory("custom", reducer=LastUserTurns(3))
    for message in conversation(10):
        memory.add(message)
    view = memory.messages()
    assert [m["content"] for m in view if m["role"] == "user"] == [
        "question 7",
        "question 8",
        "question 9",
    ]
    assert view[0]["role"] == "system" and memory.summary is None
    assert len(memory.history_messages()) == 40  # nothing lost
    check_session(memory.store, "custom", memory.view())
    with pytest.raises(ReductionError, match="summarizing reducer"):
        memory.recompute()


async def test_a_custom_reducer_works_through_async_memory() -> None:
    memory = AsyncMemory("custom", reducer=LastUserTurns(2))
    for message in conversation(6):
        await memory.add(message)
    view = await memory.messages()
    assert [m["content"] for m in view if m["role"] == "user"] == ["question 4", "question 5"]
    assert len(await memory.history_messages()) == 24
    await memory.close()


def test_a_custom_reducer_is_recorded_and_must_be_passed_again_to_resume() -> None:
    memory = Memory("custom", reducer=LastUserTurns(2))
    memory.extend(conversation(4))
    data = memory.to_dict()
    assert data["config"]["reducer"]["type"] == "custom"
    assert data["config"]["reducer"]["class"].endswith("LastUserTurns")
    with pytest.raises(StoreError, match="pass reducer="):
        Memory.from_dict(data)
    resumed = Memory.from_dict(data, reducer=LastUserTurns(2))
    assert resumed.messages() == memory.messages()


def test_an_object_that_is_not_a_reducer_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="must implement"):
        Memory("x", reducer=object())  # type: ignore[arg-type]
