"""pydantic-ai habits that rewrite the conversation, through SummemHistory.

Regenerate from an earlier ``message_history``, rewind, an edited message, ``message_history=[]``,
``resume=True``, and a trimming history processor placed before SummemHistory, in real agents
with a FunctionModel recording what it is sent, on every store, with a sync ``Memory`` and an
``AsyncMemory`` (``agent.run``; ``run_sync`` once).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")

from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.integrations.pydantic_ai import SummemHistory
from tests.integrations.branch_harness import Harness, scenario_test

SYSTEM = "You are a support assistant."


class Echo:
    """A FunctionModel body answering ``re: <last prompt> #<call>``; records what it is sent."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        prompt = next(
            p.content
            for m in reversed(messages)
            if isinstance(m, ModelRequest)
            for p in reversed(m.parts)
            if isinstance(p, UserPromptPart)
        )
        return ModelResponse(parts=[TextPart(f"re: {prompt} #{len(self.seen)}")])

    def texts(self, call: int = -1) -> list[str]:
        """What call ``call`` was sent, one text per part (the system prompt left out)."""
        return texts(self.seen[call])


def texts(messages: list[ModelMessage]) -> list[str]:
    out: list[str] = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, (UserPromptPart, TextPart)):
                out.append(str(p.content))
    return out


def no_reduction() -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=100, target_messages=80)


class Chat:
    def __init__(self, h: Harness, *before: Any, **kw: Any) -> None:
        self.h = h
        self.model = Echo()
        self.history = SummemHistory(h.memory, **kw)
        self.agent = Agent(
            FunctionModel(self.model), system_prompt=SYSTEM, capabilities=[*before, self.history]
        )

    async def say(self, text: str, history: list[ModelMessage] | None = None) -> list[ModelMessage]:
        result = await self.agent.run(text, message_history=history)
        return result.all_messages()


# -- conformance: regenerate, time travel, edit, rewind ------------------------------------


@scenario_test(no_reduction)
async def test_regenerate_from_an_earlier_history_branches(h: Harness) -> None:
    chat = Chat(h)
    one = await chat.say("one")
    await chat.say("two", one)
    again = await chat.say("two", one)  # regenerate turn 2 from the same history
    assert chat.model.texts() == ["one", "re: one #1", "two"]  # the old answer is not sent
    assert texts(again) == ["one", "re: one #1", "two", "re: two #3"]
    assert await h.texts() == texts(again)  # nothing duplicated
    assert await h.branch_texts() == [(2, ["two", "re: two #2"])]


@scenario_test(no_reduction)
async def test_time_travel_to_an_earlier_turn(h: Harness) -> None:
    chat = Chat(h)
    one = await chat.say("one")
    two = await chat.say("two", one)
    await chat.say("three", two)
    await chat.say("four", one)  # go back to after turn 1
    assert chat.model.texts() == ["one", "re: one #1", "four"]
    assert await h.texts() == ["one", "re: one #1", "four", "re: four #4"]
    assert await h.branch_texts() == [(2, ["two", "re: two #2", "three", "re: three #3"])]


@scenario_test(no_reduction)
async def test_an_edited_message_branches_at_it(h: Harness) -> None:
    chat = Chat(h)
    two = await chat.say("two", await chat.say("one"))
    first = two[0]
    assert isinstance(first, ModelRequest)
    parts = [
        dataclasses.replace(p, content="one, EDITED") if isinstance(p, UserPromptPart) else p
        for p in first.parts
    ]
    edited = [dataclasses.replace(first, parts=parts), *two[1:]]
    await chat.say("three", edited)
    expected = ["one, EDITED", "re: one #1", "two", "re: two #2", "three"]
    assert chat.model.texts() == expected
    assert await h.texts() == [*expected, "re: three #3"]
    assert await h.branch_texts() == [(0, ["one", "re: one #1", "two", "re: two #2"])]


@scenario_test(no_reduction)
async def test_rewind_drops_the_last_turn(h: Harness) -> None:
    chat = Chat(h)
    two = await chat.say("two", await chat.say("one"))
    await chat.say("three", two[:2])  # the last turn popped
    assert chat.model.texts() == ["one", "re: one #1", "three"]
    assert await h.branch_texts() == [(2, ["two", "re: two #2"])]


def small() -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=7, target_messages=5)


@scenario_test(small)
async def test_regenerate_before_the_summary_never_sends_the_abandoned_turns(h: Harness) -> None:
    chat = Chat(h)
    histories = [await chat.say("turn 0")]
    for i in range(1, 6):
        histories.append(await chat.say(f"turn {i}", histories[-1]))
    assert h.memory.summary is not None and "turn 3" in h.memory.summary.text
    await chat.say("turn 1 again", histories[0])
    sent = " ".join(chat.model.texts())
    assert all(f"turn {i}" not in sent for i in range(2, 6)), sent  # nor in a summary
    assert chat.model.texts()[-1] == "turn 1 again"
    assert await h.texts() == ["turn 0", "re: turn 0 #1", "turn 1 again", "re: turn 1 again #7"]


# -- message_history=[] and resume -----------------------------------------------------------


@scenario_test(no_reduction)
async def test_an_empty_history_starts_a_new_conversation_with_resume_false(h: Harness) -> None:
    chat = Chat(h, resume=False)
    await chat.say("two", await chat.say("one"))
    await chat.say("fresh", [])
    assert chat.model.texts() == ["fresh"]  # as pydantic-ai: nothing from before
    assert isinstance(chat.model.seen[-1][0].parts[0], SystemPromptPart)
    assert await h.texts() == ["fresh", "re: fresh #3"]
    assert await h.branch_texts() == [(0, ["one", "re: one #1", "two", "re: two #2"])]
    await chat.say("again")  # no history (None) is the same to pydantic-ai
    assert chat.model.texts() == ["again"]
    assert [b.at for b in await h.branches()] == [0, 0]


@scenario_test(no_reduction)
async def test_by_default_the_memory_supplies_the_past(h: Harness) -> None:
    """``resume=True`` is the default (#28 review): pydantic-ai passes ``[]`` for no history
    and for ``message_history=[]``, and a memory's users wrap an agent so it remembers."""
    chat = Chat(h)
    await chat.say("one")
    await chat.say("two", [])
    assert chat.model.texts() == ["one", "re: one #1", "two"]
    assert await h.texts() == ["one", "re: one #1", "two", "re: two #2"]
    three = await chat.say("three")
    assert chat.model.texts() == ["one", "re: one #1", "two", "re: two #2", "three"]
    assert await h.branches() == []
    await chat.say("again", three[:1])  # a history given is read as always: it branches
    assert chat.model.texts() == ["three", "again"]  # (the history given starts at "three")
    assert await h.branch_texts() == [(5, ["re: three #3"])]


@scenario_test(no_reduction)
async def test_branch_0_starts_a_new_conversation_under_the_default(h: Harness) -> None:
    chat = Chat(h)
    await chat.say("one")
    if isinstance(h.memory, AsyncMemory):
        await h.memory.branch(0)
    else:
        await asyncio.to_thread(h.memory.branch, 0)
    await chat.say("fresh")
    assert chat.model.texts() == ["fresh"]
    assert await h.texts() == ["fresh", "re: fresh #2"]
    assert await h.branch_texts() == [(0, ["one", "re: one #1"])]


# -- a trimming processor before SummemHistory ----------------------------------------------


def keep_last(n: int) -> Any:
    def trim(messages: list[ModelMessage]) -> list[ModelMessage]:
        return messages[-n:]

    return trim


@scenario_test(no_reduction)
async def test_a_trimming_processor_before_it_limits_what_the_model_sees(h: Harness) -> None:
    chat = Chat(h, ProcessHistory(keep_last(3)))
    history: list[ModelMessage] = []
    for i in range(5):
        history = await chat.say(f"turn {i}", history)
        assert len(texts(chat.model.seen[-1])) <= 3  # what the processor left, no more
    assert chat.model.texts() == ["turn 3", "re: turn 3 #4", "turn 4"]
    assert isinstance(chat.model.seen[-1][0].parts[0], SystemPromptPart)  # summem's system
    stored = await h.texts()
    assert stored == [t for i in range(5) for t in (f"turn {i}", f"re: turn {i} #{i + 1}")]
    assert await h.branches() == []  # a trim is not an edit: the store keeps everything


def test_run_sync_regenerate_with_a_sync_memory() -> None:
    memory = Memory("user-42", reducer=no_reduction())
    model = Echo()
    agent = Agent(FunctionModel(model), capabilities=[SummemHistory(memory)])
    one = agent.run_sync("one").all_messages()
    agent.run_sync("two", message_history=one)
    agent.run_sync("two", message_history=one)
    assert [m["content"] for m in memory.history()] == ["one", "re: one #1", "two", "re: two #3"]
    assert [b.at for b in memory.branches()] == [2]


def test_processor_form_regenerate_from_the_view_it_left() -> None:
    memory = Memory(
        "user-42", reducer=SummarizationReducer(threshold_messages=5, target_messages=3)
    )
    model = Echo()
    agent = Agent(
        FunctionModel(model), capabilities=[ProcessHistory(SummemHistory(memory).processor())]
    )
    histories = [agent.run_sync("turn 0").all_messages()]
    for i in range(1, 5):
        histories.append(agent.run_sync(f"turn {i}", message_history=histories[-1]).all_messages())
    # pydantic-ai keeps the view as the run's history: a window onto the recorded one
    agent.run_sync("turn 4 again", message_history=histories[3])
    assert model.texts()[-1] == "turn 4 again"
    assert "turn 4" not in " ".join(model.texts()[:-1])
    texts_ = [m["content"] for m in memory.history()]
    assert texts_[:8] == [t for i in range(4) for t in (f"turn {i}", f"re: turn {i} #{i + 1}")]
    assert texts_[8:] == ["turn 4 again"]  # its answer comes back with the next request
    # the old "turn 4" abandoned (its answer was never brought back, so never recorded)
    assert [(b.at, b.length) for b in memory.branches()] == [(8, 1)]
