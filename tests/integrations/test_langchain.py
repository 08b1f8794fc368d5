"""SummemMiddleware in a real LangChain v1 agent (create_agent) with a fake chat model.

The fake model records every input it is given and answers with scripted AIMessages (a tool
call, then a text answer, for each user turn), so the tests see exactly what the model saw.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="needs the langchain extra (Python 3.11+)")

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.errors import ConfigurationError, MessageValidationError, MissingDependencyError
from summem.integrations.langchain import (
    SummemMiddleware,
    from_langchain,
    to_langchain,
    view_messages,
)

SYSTEM = "You are a support assistant."
PREFIX = "Summary of the earlier conversation"


class RecordingModel(FakeMessagesListChatModel):
    """A fake chat model that records its input; tools are accepted and ignored."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up."""
    return f"order {order_id}: shipped, tracking TR-{order_id}"


def scripted(turns: int) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(turns):
        call = {"name": "lookup_order", "args": {"order_id": f"BW-{i}"}, "id": f"call_{i}"}
        out.append(AIMessage("", tool_calls=[call], id=f"ai-call-{i}"))
        out.append(AIMessage(f"Order BW-{i} has shipped.", id=f"ai-answer-{i}"))
    return out


def reducer(**kw: Any) -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=7, target_messages=5, **kw)


def check_pairs(messages: list[BaseMessage]) -> None:
    """No tool result without its call, no call without all its results (I3)."""
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ToolMessage):
            assert m.tool_call_id in open_calls, f"result {m.tool_call_id} without its call"
            open_calls.discard(m.tool_call_id)
        else:
            assert not open_calls, f"calls {open_calls} split from their results"
            if isinstance(m, AIMessage):
                open_calls |= {c["id"] for c in m.tool_calls if c["id"]}
    assert not open_calls


def run_turns(agent: Any, turns: int) -> list[BaseMessage]:
    config = {"configurable": {"thread_id": "t1"}}
    state: dict[str, Any] = {}
    for i in range(turns):
        state = agent.invoke({"messages": [HumanMessage(f"Where is order BW-{i}?")]}, config)
    return list(state["messages"])


def check_run(model: RecordingModel, memory_history: list[BaseMessage], state: list[Any]) -> None:
    # every input is bounded: the view never passes the threshold (system included)
    assert len(model.seen) == 2 * 6
    assert all(len(seen) <= 7 for seen in model.seen)
    for seen in model.seen:
        assert isinstance(seen[0], SystemMessage) and seen[0].content == SYSTEM
        check_pairs(seen[1:])
    # once reduced, the model sees the summary, then the newest turns exactly as in the state
    last = model.seen[-1]
    assert isinstance(last[1], HumanMessage) and str(last[1].content).startswith(PREFIX)
    assert "BW-0" in str(last[1].content)  # the evicted first turn, in the summary
    assert last[2:] == state[-(len(last) - 1) : -1]  # (the state's last: the answer)
    # the store holds everything the agent said, and gives it back as the same messages
    assert memory_history == state


def test_agent_sees_a_bounded_view_and_the_store_holds_everything() -> None:
    model = RecordingModel(responses=scripted(6), seen=[])
    memory = Memory("user-42", reducer=reducer())
    agent = create_agent(
        model=model,
        tools=[lookup_order],
        system_prompt=SYSTEM,
        middleware=[SummemMiddleware(memory)],
        checkpointer=InMemorySaver(),
    )
    state = run_turns(agent, 6)
    assert len(state) == 6 * 4  # the agent's own state is untouched: it has every message
    history = [to_langchain(m) for m in memory.history_messages()]
    assert memory.system is not None and memory.system.text == SYSTEM  # kept apart, first
    check_run(model, history, state)
    assert memory.summary is not None


def test_persists_through_sqlite_with_the_langchain_fields(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'lc.db'}"
    model = RecordingModel(responses=scripted(6), seen=[])
    with Memory("user-42", reducer=reducer(), store=url) as memory:
        agent = create_agent(
            model,
            tools=[lookup_order],
            system_prompt=SYSTEM,
            middleware=[SummemMiddleware(memory)],
            checkpointer=InMemorySaver(),
        )
        state = run_turns(agent, 6)
    with Memory("user-42", reducer=reducer(), store=url) as again:
        history = [to_langchain(m) for m in again.history_messages()]
    assert history == state  # ids, tool calls, names, artifacts and status survive the store
    assert any(isinstance(m, ToolMessage) and m.name == "lookup_order" for m in history)


def test_async_agent_with_async_memory() -> None:
    model = RecordingModel(responses=scripted(6), seen=[])

    async def main() -> tuple[list[BaseMessage], list[Any]]:
        memory = AsyncMemory("user-42", reducer=reducer())
        agent = create_agent(
            model,
            tools=[lookup_order],
            system_prompt=SYSTEM,
            middleware=[SummemMiddleware(memory)],
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": "t1"}}
        state: dict[str, Any] = {}
        for i in range(6):
            ask: Any = {"messages": [HumanMessage(f"Where is order BW-{i}?")]}
            state = await agent.ainvoke(ask, config)
        history = [to_langchain(m) for m in await memory.history_messages()]
        await memory.close()
        return history, list(state["messages"])

    history, state = asyncio.run(main())
    check_run(model, history, state)


def test_async_agent_with_sync_memory() -> None:
    model = RecordingModel(responses=scripted(6), seen=[])
    memory = Memory("user-42", reducer=reducer())
    agent = create_agent(
        model,
        tools=[lookup_order],
        system_prompt=SYSTEM,
        middleware=[SummemMiddleware(memory)],
        checkpointer=InMemorySaver(),
    )

    async def main() -> list[Any]:
        config: Any = {"configurable": {"thread_id": "t1"}}
        state: dict[str, Any] = {}
        for i in range(6):
            ask: Any = {"messages": [HumanMessage(f"Where is order BW-{i}?")]}
            state = await agent.ainvoke(ask, config)
        return list(state["messages"])

    state = asyncio.run(main())
    check_run(model, [to_langchain(m) for m in memory.history_messages()], state)


def test_whole_conversation_passed_each_time_without_a_checkpointer() -> None:
    model = RecordingModel(responses=scripted(4), seen=[])
    memory = Memory("user-42", reducer=reducer())
    agent = create_agent(model, tools=[lookup_order], middleware=[SummemMiddleware(memory)])
    messages: list[Any] = []
    for i in range(4):
        messages = agent.invoke({"messages": [*messages, HumanMessage(f"order BW-{i}?")]})[
            "messages"
        ]
    # no system prompt: the view is the summary and the recent turns; nothing recorded twice
    assert [to_langchain(m) for m in memory.history_messages()] == messages
    assert all(len(seen) <= 7 for seen in model.seen)
    assert str(model.seen[-1][0].content).startswith(PREFIX)


def test_sync_call_with_an_async_memory_is_refused() -> None:
    model = RecordingModel(responses=scripted(1), seen=[])
    memory = AsyncMemory("user-42")
    agent = create_agent(model, tools=[lookup_order], middleware=[SummemMiddleware(memory)])
    with pytest.raises(ConfigurationError, match="ainvoke"):
        agent.invoke({"messages": [HumanMessage("hi")]})
    asyncio.run(memory.close())


def test_middleware_needs_a_memory() -> None:
    with pytest.raises(ConfigurationError, match="needs a summem Memory"):
        SummemMiddleware("user-42")  # type: ignore[arg-type]


# -- the summary's placement ---------------------------------------------------------------


def _reduced_view(**kw: Any) -> list[Any]:
    memory = Memory(
        "s", reducer=SummarizationReducer(threshold_messages=5, target_messages=3, **kw)
    )
    memory.add({"role": "system", "content": SYSTEM})
    for i in range(6):
        memory.add({"role": "user", "content": f"question {i} about BW-{i}"})
        memory.add({"role": "assistant", "content": f"answer {i}"})
    return memory.view()


def test_placement_after_system() -> None:
    system, messages = view_messages(_reduced_view(), "after_system")
    assert system is not None and system.content == SYSTEM
    assert isinstance(messages[0], HumanMessage) and messages[0].text.startswith(PREFIX)


def test_placement_system_suffix() -> None:
    system, messages = view_messages(_reduced_view(), "system_suffix")
    assert system is not None and system.text.startswith(SYSTEM + "\n\n" + PREFIX)
    assert not any(m.text.startswith(PREFIX) for m in messages)


def test_placement_system_suffix_with_list_content_and_without_system() -> None:
    view = _reduced_view()
    as_list = from_langchain(SystemMessage([{"type": "text", "text": SYSTEM}]))
    system, _ = view_messages([as_list, *view[1:]], "system_suffix")
    assert system is not None and system.content[-1]["text"].startswith("\n\n" + PREFIX)  # type: ignore[index]
    system, _ = view_messages(view[1:], "system_suffix")
    assert system is not None and system.text.startswith(PREFIX)


def test_placement_first_user() -> None:
    system, summary, *tail = _reduced_view()
    starts_with_user = tail[tail.index(next(m for m in tail if m.role == "user")) :]
    _, messages = view_messages([system, summary, *starts_with_user], "first_user")
    assert isinstance(messages[0], HumanMessage) and messages[0].id == starts_with_user[0].id
    assert messages[0].text.startswith(PREFIX) and messages[0].text.endswith(
        "question 5 about BW-5"
    )
    starts_with_answer = tail[tail.index(next(m for m in tail if m.role == "assistant")) :]
    _, messages = view_messages([system, summary, *starts_with_answer], "first_user")
    assert isinstance(messages[0], HumanMessage) and messages[0].text == summary.text
    listed = [system, summary, from_langchain(HumanMessage([{"type": "text", "text": "q"}]))]
    _, messages = view_messages(listed, "first_user")
    assert messages[0].content[0]["text"].startswith(PREFIX)  # type: ignore[index]
    assert messages[0].content[1] == {"type": "text", "text": "q"}


def test_reducer_placement_reaches_the_model() -> None:
    model = RecordingModel(responses=scripted(6), seen=[])
    memory = Memory("user-42", reducer=reducer(summary_placement="system_suffix"))
    agent = create_agent(
        model,
        tools=[lookup_order],
        system_prompt=SYSTEM,
        middleware=[SummemMiddleware(memory)],
        checkpointer=InMemorySaver(),
    )
    run_turns(agent, 6)
    last = model.seen[-1]
    assert isinstance(last[0], SystemMessage) and PREFIX in last[0].text
    assert sum(isinstance(m, SystemMessage) for m in last) == 1


# -- lossless conversion -------------------------------------------------------------------

_text = st.text(max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_kwargs = st.dictionaries(st.sampled_from(["a", "refusal", "x-extra"]), _json, max_size=2)
_content = st.one_of(
    _text,
    st.lists(
        st.one_of(
            _text,
            st.fixed_dictionaries({"type": st.just("text"), "text": _text}),
            st.fixed_dictionaries(
                {"type": st.just("image_url"), "image_url": st.fixed_dictionaries({"url": _text})}
            ),
            st.fixed_dictionaries({"type": st.just("reasoning"), "reasoning": _text}),
        ),
        max_size=3,
    ),
)
_ids = st.none() | st.text(min_size=1, max_size=8)
_common = {
    "content": _content,
    "id": _ids,
    "name": st.none() | st.text(min_size=1, max_size=8),
    "additional_kwargs": _kwargs,
    "response_metadata": _kwargs,
}
_calls = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.text(min_size=1, max_size=8),
            "args": st.dictionaries(_text, _json, max_size=3),
            "id": st.text(min_size=1, max_size=8),
            "type": st.just("tool_call"),
        }
    ),
    max_size=3,
    unique_by=lambda c: str(c["id"]),
)
_usage = st.none() | st.fixed_dictionaries(
    {
        "input_tokens": st.integers(0, 99),
        "output_tokens": st.integers(0, 99),
        "total_tokens": st.integers(0, 200),
    }
)
_invalid = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("invalid_tool_call"),
            "id": _ids,
            "name": st.none() | _text,
            "args": st.none() | _text,
            "error": st.none() | _text,
        }
    ),
    max_size=2,
)
lc_messages = st.one_of(
    st.builds(SystemMessage, **_common),
    st.builds(HumanMessage, **_common),
    st.builds(
        AIMessage, **_common, tool_calls=_calls, invalid_tool_calls=_invalid, usage_metadata=_usage
    ),
    st.builds(
        ToolMessage,
        **_common,
        tool_call_id=st.text(min_size=1, max_size=8),
        artifact=_json,
        status=st.sampled_from(["success", "error"]),
    ),
    st.builds(ChatMessage, **_common, role=st.sampled_from(["developer", "user", "assistant"])),
)


@settings(deadline=None)
@given(lc_messages)
def test_round_trip_is_lossless(message: BaseMessage) -> None:
    back = to_langchain(from_langchain(message))
    assert type(back) is type(message)
    assert back == message
    assert back.model_dump() == message.model_dump()


def test_messages_from_elsewhere_get_their_role_type_and_summem_id() -> None:
    from summem.messages import Message

    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{bad"}}
    listed = {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "[1]"}}
    msgs = [
        Message.from_openai({"role": "developer", "content": "d"}),
        Message.from_openai({"role": "user", "content": "u"}),
        Message.from_openai({"role": "assistant", "content": None, "tool_calls": [call, listed]}),
        Message.from_openai({"role": "tool", "tool_call_id": "c1", "content": "r"}),
    ]
    out = [to_langchain(m) for m in msgs]
    assert isinstance(out[0], ChatMessage) and out[0].role == "developer"
    assert isinstance(out[1], HumanMessage) and out[1].id == msgs[1].id
    assert isinstance(out[2], AIMessage) and out[2].content == "" and not out[2].tool_calls
    assert out[2].invalid_tool_calls[0]["args"] == "{bad"
    assert out[2].invalid_tool_calls[1]["error"] == "arguments are not a JSON object"
    assert isinstance(out[3], ToolMessage) and out[3].tool_call_id == "c1"


def test_unconvertible_messages_are_refused_clearly() -> None:
    with pytest.raises(MessageValidationError, match="FunctionMessage has no chat-completions"):
        from_langchain(FunctionMessage(content="x", name="f"))
    with pytest.raises(MessageValidationError, match="ChatMessage"):
        from_langchain(ChatMessage(role="critic", content="x"))
    no_id = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": None}])
    with pytest.raises(MessageValidationError, match="has no id"):
        from_langchain(no_id)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain.agents.middleware", None)
    monkeypatch.delitem(sys.modules, "summem.integrations.langchain")
    with pytest.raises(MissingDependencyError, match=r"pip install 'summem\[langchain\]'"):
        importlib.import_module("summem.integrations.langchain")
    monkeypatch.undo()
    importlib.import_module("summem.integrations.langchain")


class Cached(AgentMiddleware):
    """Answers without calling the model (a cache hit), as a bare AIMessage."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return AIMessage("From the cache: BW-1 has shipped.", id="cached-1")


def test_a_bare_ai_message_from_inner_middleware_is_recorded() -> None:
    model = RecordingModel(responses=scripted(1), seen=[])
    memory = Memory("user-42")
    agent = create_agent(model, middleware=[SummemMiddleware(memory), Cached()])
    state = agent.invoke({"messages": [HumanMessage("Where is BW-1?")]})
    assert model.seen == []
    assert [to_langchain(m) for m in memory.history_messages()] == state["messages"]
    assert memory.history()[-1]["content"] == "From the cache: BW-1 has shipped."


def test_masked_tool_results_reach_the_model_as_stubs() -> None:
    model = RecordingModel(responses=scripted(3), seen=[])
    masking = SummarizationReducer(
        threshold_messages=50, target_messages=40, mask_tool_results_after=1, mask_min_tokens=1
    )
    memory = Memory("user-42", reducer=masking)

    @tool
    def lookup_order(order_id: str) -> str:
        """Look an order up."""
        return f"order {order_id}: shipped. " + " ".join(f"note {i}." for i in range(60))

    agent = create_agent(
        model,
        tools=[lookup_order],
        middleware=[SummemMiddleware(memory)],
        checkpointer=InMemorySaver(),
    )
    state = run_turns(agent, 3)
    results = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert "recall" in results[0].text and results[0].tool_call_id == "call_0"
    assert "recall" not in results[-1].text
    assert [to_langchain(m) for m in memory.history_messages()] == state  # originals kept


# -- LangGraph's create_react_agent with a pre_model_hook ---------------------------------


def _react_agent(model: Any, hook: Any) -> Any:
    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    with pytest.warns(LangGraphDeprecatedSinceV10):
        return create_react_agent(
            model, [lookup_order], prompt=SYSTEM, pre_model_hook=hook, checkpointer=InMemorySaver()
        )


def check_react(model: RecordingModel, history: list[BaseMessage], state: list[Any]) -> None:
    assert len(model.seen) == 2 * 6
    for seen in model.seen:
        assert isinstance(seen[0], SystemMessage) and seen[0].content == SYSTEM
        assert len(seen) <= 1 + 7  # the prompt, then the view (no system message of its own)
        check_pairs(seen[1:])
    assert str(model.seen[-1][1].content).startswith(PREFIX)
    assert history == state[:-1]  # the last answer comes back with the next call


def test_react_agent_pre_model_hook() -> None:
    from summem.integrations.langchain import pre_model_hook

    model = RecordingModel(responses=scripted(6), seen=[])
    memory = Memory("user-42", reducer=reducer())
    state = run_turns(_react_agent(model, pre_model_hook(memory)), 6)
    check_react(model, [to_langchain(m) for m in memory.history_messages()], state)


def test_react_agent_pre_model_hook_async() -> None:
    from summem.integrations.langchain import pre_model_hook

    async def main(memory: Any) -> tuple[RecordingModel, list[Any]]:
        model = RecordingModel(responses=scripted(6), seen=[])
        agent = _react_agent(model, pre_model_hook(memory))
        config: Any = {"configurable": {"thread_id": "t1"}}
        state: dict[str, Any] = {}
        for i in range(6):
            ask: Any = {"messages": [HumanMessage(f"Where is order BW-{i}?")]}
            state = await agent.ainvoke(ask, config)
        return model, list(state["messages"])

    async_memory = AsyncMemory("user-42", reducer=reducer())
    model, state = asyncio.run(main(async_memory))
    history = asyncio.run(async_memory.history_messages())
    check_react(model, [to_langchain(m) for m in history], state)
    sync_memory = Memory("user-43", reducer=reducer())
    model, state = asyncio.run(main(sync_memory))
    check_react(model, [to_langchain(m) for m in sync_memory.history_messages()], state)


def test_react_agent_pre_model_hook_refuses_async_memory_when_sync() -> None:
    from summem.integrations.langchain import pre_model_hook

    hook = pre_model_hook(AsyncMemory("user-42"))
    with pytest.raises(ConfigurationError, match="ainvoke"):
        hook.invoke({"messages": [HumanMessage("hi")]})


def test_pre_model_hook_reads_a_state_object() -> None:
    from types import SimpleNamespace

    from summem.integrations.langchain import pre_model_hook

    memory = Memory("user-42")
    out = pre_model_hook(memory).invoke(SimpleNamespace(messages=[HumanMessage("hi", id="h1")]))
    assert out == {"llm_input_messages": [HumanMessage("hi", id="h1")]}
