"""SummemHistory in real pydantic-ai agents, with FunctionModel (records what the model sees).

The function model answers each user prompt with a tool call, then the tool's result with a
text answer, so every turn is user / call / result / answer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import sys
from datetime import datetime, timezone
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")

from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ImageUrl,
    InstructionDeltaPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.errors import ConfigurationError, MissingDependencyError
from summem.integrations.pydantic_ai import SummemHistory, from_pydantic_ai, to_pydantic_ai
from summem.messages import Message

SYSTEM = "You are a support assistant."
PREFIX = "Summary of the earlier conversation"


def dump(messages: list[ModelMessage]) -> list[Any]:
    return ModelMessagesTypeAdapter.dump_python(messages, mode="json")  # type: ignore[no-any-return]


class Scripted:
    """A FunctionModel body: a tool call for each prompt, then an answer; records its input."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []
        self.turn = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        last = messages[-1].parts[-1]
        if isinstance(last, UserPromptPart):
            self.turn += 1
            call = ToolCallPart("lookup", {"order_id": f"BW-{self.turn}"}, f"call-{self.turn}")
            return ModelResponse(parts=[call])
        return ModelResponse(parts=[TextPart(f"Order BW-{self.turn} has shipped.")])


def make_agent(script: Scripted, *capabilities: Any, padding: int = 0) -> Agent[None, str]:
    agent = Agent(FunctionModel(script), system_prompt=SYSTEM, capabilities=list(capabilities))

    @agent.tool_plain
    def lookup(order_id: str) -> str:
        filler = " ".join(f"note {i} about the parcel." for i in range(padding))
        return f"order {order_id}: shipped, tracking TR-{order_id}. {filler}"

    return agent


def reducer(**kw: Any) -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=7, target_messages=5, **kw)


def chat_parts(messages: list[ModelMessage]) -> list[Any]:
    """What the model was sent, one entry per chat message (responses whole)."""
    out: list[Any] = []
    for m in messages:
        if isinstance(m, ModelResponse):
            out.append(m)
        else:
            out.extend(m.parts)
    return out


def check_pairs(messages: list[ModelMessage]) -> None:
    open_calls: set[str] = set()
    for item in chat_parts(messages):
        if isinstance(item, ToolReturnPart):
            assert item.tool_call_id in open_calls, f"result {item.tool_call_id} without its call"
            open_calls.discard(item.tool_call_id)
        else:
            assert not open_calls, f"calls {open_calls} split from their results"
            if isinstance(item, ModelResponse):
                open_calls |= {p.tool_call_id for p in item.parts if isinstance(p, ToolCallPart)}
    assert not open_calls


def check_seen(script: Scripted) -> None:
    assert len(script.seen) == 2 * 6
    for seen in script.seen:
        parts = chat_parts(seen)
        # system parts are one system message for summem; the rest count one each
        assert len(parts) <= 7, parts
        assert isinstance(parts[0], SystemPromptPart) and parts[0].content == SYSTEM
        check_pairs(seen)
    last = chat_parts(script.seen[-1])
    assert isinstance(last[1], UserPromptPart) and str(last[1].content).startswith(PREFIX)
    assert "BW-1" in str(last[1].content)  # the evicted first turn, in the summary


def stored(memory: Memory) -> list[ModelMessage]:
    system = [memory.system] if memory.system is not None else []
    return to_pydantic_ai([*system, *memory.history_messages()])


def test_agent_sees_a_bounded_view_and_the_store_holds_everything() -> None:
    script = Scripted()
    memory = Memory("user-42", reducer=reducer())
    agent = make_agent(script, SummemHistory(memory))
    history: list[ModelMessage] = []
    for i in range(6):
        result = agent.run_sync(f"Where is order BW-{i + 1}?", message_history=history)
        history = result.all_messages()
    assert len(history) == 6 * 4  # the run's own history is whole
    check_seen(script)
    assert memory.summary is not None
    assert dump(stored(memory)) == dump(history)  # lossless, through the store


def test_persists_through_sqlite(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'pa.db'}"
    script = Scripted()
    with Memory("user-42", reducer=reducer(), store=url) as memory:
        agent = make_agent(script, SummemHistory(memory))
        history: list[ModelMessage] = []
        for i in range(6):
            history = agent.run_sync(f"order BW-{i + 1}?", message_history=history).all_messages()
    with Memory("user-42", reducer=reducer(), store=url) as again:
        assert dump(stored(again)) == dump(history)


def test_memory_supplies_the_past_without_message_history_by_default() -> None:
    script = Scripted()
    memory = Memory("user-42", reducer=reducer())
    agent = make_agent(script, SummemHistory(memory))  # resume=True: the default
    results = [agent.run_sync(f"Where is order BW-{i + 1}?") for i in range(6)]
    check_seen(script)
    earlier = chat_parts(script.seen[2])  # the second run's first call
    assert any(isinstance(p, ToolReturnPart) and "BW-1" in str(p.content) for p in earlier)
    # each run opens with the system prompt again: summem keeps one system message, so the
    # stored history is every run's messages with the later copies of the prompt left out
    expected: list[ModelMessage] = []
    for k, result in enumerate(results):
        first, *rest = result.all_messages()
        assert isinstance(first, ModelRequest)
        if k:
            kept = [p for p in first.parts if not isinstance(p, SystemPromptPart)]
            first = dataclasses.replace(first, parts=kept)
        expected += [first, *rest]
    assert dump(stored(memory)) == dump(expected)


def test_async_run_with_async_memory() -> None:
    script = Scripted()

    async def main() -> tuple[list[Any], list[ModelMessage]]:
        memory = AsyncMemory("user-42", reducer=reducer())
        agent = make_agent(script, SummemHistory(memory))
        history: list[ModelMessage] = []
        for i in range(6):
            result = await agent.run(f"Where is order BW-{i + 1}?", message_history=history)
            history = result.all_messages()
        system = memory.system
        assert system is not None
        back = to_pydantic_ai([system, *await memory.history_messages()])
        await memory.close()
        return dump(back), history

    back, history = asyncio.run(main())
    check_seen(script)
    assert back == dump(history)


def test_async_run_with_sync_memory() -> None:
    script = Scripted()
    memory = Memory("user-42", reducer=reducer())
    agent = make_agent(script, SummemHistory(memory))

    async def main() -> list[ModelMessage]:
        history: list[ModelMessage] = []
        for i in range(6):
            result = await agent.run(f"Where is order BW-{i + 1}?", message_history=history)
            history = result.all_messages()
        return history

    history = asyncio.run(main())
    check_seen(script)
    assert dump(stored(memory)) == dump(history)


def test_as_a_history_processor() -> None:
    script = Scripted()
    memory = Memory("user-42", reducer=reducer())
    history_capability = SummemHistory(memory)
    agent = make_agent(script, ProcessHistory(history_capability.processor()))
    history: list[ModelMessage] = []
    for i in range(6):
        history = agent.run_sync(f"order BW-{i + 1}?", message_history=history).all_messages()
    check_seen(script)
    # pydantic-ai keeps the processed view as the run's history: bounded, summary marked
    assert len(chat_parts(history)) <= 7 + 1
    # every message but the last answer (it comes back with the next request) is stored
    assert len(memory.history_messages()) == 6 * 4 - 1


def test_test_model_tool_call_round_trip() -> None:
    memory = Memory("user-42", reducer=reducer())
    agent = Agent(TestModel(), capabilities=[SummemHistory(memory)])

    @agent.tool_plain
    def lookup(order_id: str) -> str:
        return f"shipped {order_id}"

    result = agent.run_sync("Where is my order?")
    assert dump(stored(memory)) == dump(result.all_messages())
    roles = [m.role for m in memory.history_messages()]
    assert roles == ["user", "assistant", "tool", "assistant"]


def test_masked_tool_results_keep_their_tool_name() -> None:
    memory = Memory(
        "user-42",
        reducer=SummarizationReducer(
            threshold_messages=50, target_messages=40, mask_tool_results_after=1, mask_min_tokens=1
        ),
    )
    script = Scripted()
    agent = make_agent(script, SummemHistory(memory), padding=40)
    history: list[ModelMessage] = []
    for i in range(3):
        history = agent.run_sync(f"order BW-{i + 1}?", message_history=history).all_messages()
    first = chat_parts(script.seen[-1])
    returns = [p for p in first if isinstance(p, ToolReturnPart)]
    assert returns[0].tool_name == "lookup" and "recall" in str(returns[0].content)  # a stub
    assert "recall" not in str(returns[-1].content)
    assert dump(stored(memory)) == dump(history)  # the store keeps the originals


def test_capability_needs_a_memory() -> None:
    with pytest.raises(ConfigurationError, match="needs a summem Memory"):
        SummemHistory("user-42")  # type: ignore[arg-type]
    assert SummemHistory.get_serialization_name() is None


def test_messages_from_elsewhere_convert_by_role() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    view = [
        Message.from_openai({"role": "system", "content": "s"}),
        Message.from_openai({"role": "user", "content": "u"}),
        Message.from_openai({"role": "assistant", "content": "thinking", "tool_calls": [call]}),
        Message.from_openai({"role": "tool", "tool_call_id": "c1", "content": "r"}),
    ]
    out = to_pydantic_ai(view)
    assert isinstance(out[0], ModelRequest)
    assert [type(p) for p in out[0].parts] == [SystemPromptPart, UserPromptPart]
    response = out[1]
    assert isinstance(response, ModelResponse)
    assert response.parts[0] == TextPart("thinking")
    assert isinstance(response.parts[1], ToolCallPart) and response.parts[1].args_as_dict() == {
        "a": 1
    }
    assert isinstance(out[2], ModelRequest)
    tool_return = out[2].parts[0]
    assert isinstance(tool_return, ToolReturnPart) and tool_return.tool_name == "f"


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_ai.capabilities", None)
    monkeypatch.delitem(sys.modules, "summem.integrations.pydantic_ai")
    with pytest.raises(MissingDependencyError, match=r"pip install 'summem\[pydantic-ai\]'"):
        importlib.import_module("summem.integrations.pydantic_ai")
    monkeypatch.undo()
    importlib.import_module("summem.integrations.pydantic_ai")


# -- lossless conversion -------------------------------------------------------------------

_now = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(timezone.utc)
)
_text = st.text(max_size=10)
_ids = st.text(alphabet="abc123", min_size=1, max_size=6)
_args = st.one_of(
    st.none(), st.dictionaries(_text, st.integers() | _text, max_size=2), st.just('{"x": 1}')
)
_user_content = st.one_of(
    _text, st.lists(_text | st.builds(ImageUrl, url=st.just("https://x.test/a.png")), max_size=3)
)
_request_part: st.SearchStrategy[Any] = st.one_of(
    st.builds(SystemPromptPart, content=_text, timestamp=_now),
    st.builds(UserPromptPart, content=_user_content, timestamp=_now),
    st.builds(
        ToolReturnPart,
        tool_name=_text,
        content=_text | st.dictionaries(_text, st.integers(), max_size=2),
        tool_call_id=_ids,
        timestamp=_now,
    ),
    st.builds(
        InstructionDeltaPart, id=st.sampled_from(["agent", "agent:x"]), content=st.none() | _text
    ),
)
_response_part: st.SearchStrategy[Any] = st.one_of(
    st.builds(TextPart, content=_text),
    st.builds(ToolCallPart, tool_name=_text, args=_args, tool_call_id=_ids),
    st.builds(ThinkingPart, content=_text, signature=st.none() | _text),
)
_message = st.one_of(
    st.builds(
        ModelRequest,
        parts=st.lists(_request_part, min_size=1, max_size=4),
        timestamp=st.none() | _now,
        instructions=st.none() | _text,
    ),
    st.builds(
        ModelResponse,
        parts=st.lists(  # summem requires a response's call ids to differ
            _response_part,
            max_size=3,
            unique_by=lambda p: p.tool_call_id if isinstance(p, ToolCallPart) else id(p),
        ),
        timestamp=_now,
        model_name=st.none() | _text,
    ),
)


@settings(deadline=None)
@given(st.lists(_message, max_size=5))
# two system parts in a row: one system message in summem, two parts again on the way back
@example([ModelRequest(parts=[SystemPromptPart("a"), SystemPromptPart("b")])])
def test_round_trip_is_lossless(messages: list[ModelMessage]) -> None:
    assert dump(to_pydantic_ai(from_pydantic_ai(messages))) == dump(messages)


def test_every_request_part_kind_converts_and_comes_back() -> None:
    from pydantic_ai._warnings import PydanticAIDeprecationWarning
    from pydantic_ai.messages import (
        BinaryContent,
        CompactionPart,
        RetryFeedbackPart,
        RetryInfo,
        RetryPromptPart,
        SpeechPart,
    )

    with pytest.warns(PydanticAIDeprecationWarning):
        retries = [
            RetryPromptPart("bad args", tool_name="lookup", tool_call_id="c1"),
            RetryPromptPart("try again"),
        ]
    feedback = RetryFeedbackPart("not valid", retry=RetryInfo(cause="validation_error"))
    request = ModelRequest(
        parts=[
            UserPromptPart(["look:", BinaryContent(b"\x89PNG", media_type="image/png")]),
            *retries,
            feedback,
            SpeechPart(speaker="user", transcript=None),
            CompactionPart(content="earlier: order BW-1"),
        ]
    )
    calls = ModelResponse(parts=[ToolCallPart("lookup", {"order_id": "1"}, "c1")])
    messages: list[ModelMessage] = [calls, request]
    summem_messages = from_pydantic_ai(messages)
    assert [m.role for m in summem_messages] == [
        "assistant",
        "user",
        "tool",
        "user",
        "user",
        "user",
        "user",
    ]
    assert summem_messages[1].content == [
        {"type": "text", "text": "look:"},
        {"type": "text", "text": "[binary]"},
    ]
    assert summem_messages[5].text == "[speech]"
    assert summem_messages[6].text == "earlier: order BW-1"
    # pydantic-ai's own serialisation turns the deprecated RetryPromptPart into its successors
    reloaded = ModelMessagesTypeAdapter.validate_python(dump(messages))
    assert dump(to_pydantic_ai(summem_messages)) == dump(reloaded)


def test_streamed_run_is_recorded_whole() -> None:
    memory = Memory("user-42", reducer=reducer())
    agent = Agent(TestModel(), capabilities=[SummemHistory(memory)])

    async def main() -> list[ModelMessage]:
        async with agent.run_stream("hello there") as run:
            await run.get_output()
        return run.all_messages()

    history = asyncio.run(main())
    assert dump(stored(memory)) == dump(history)
    assert [m.role for m in memory.history_messages()] == ["user", "assistant"]
