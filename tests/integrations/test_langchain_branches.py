"""LangChain/LangGraph habits that rewrite the conversation, through SummemMiddleware.

Time travel to a checkpoint, regenerate, ``update_state`` editing a message, ``RemoveMessage``
(rewind, a removal in the middle, a removal at the front), ``trim_state``, and LangChain's own
SummarizationMiddleware, in a real ``create_agent`` graph with an in-memory checkpointer and a
scripted chat model, on every store, with a sync ``Memory`` (``invoke``) and an ``AsyncMemory``
(``ainvoke``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="needs the langchain extra (Python 3.11+)")

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from summem import Memory, SummarizationReducer
from summem.errors import ConfigurationError
from summem.integrations.langchain import SummemMiddleware, pre_model_hook, to_langchain
from tests.integrations.branch_harness import Harness, scenario_test

SYSTEM = "You are a support assistant."
CONFIG: Any = {"configurable": {"thread_id": "t1"}}


class EchoModel(BaseChatModel):
    """Answers ``re: <last human text> #<call number>``; records every input it is given."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "echo"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        last = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        reply = AIMessage(f"re: {last.text} #{len(self.seen)}")
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def texts(messages: list[Any]) -> list[str]:
    return [m.text for m in messages]


def seen_texts(model: EchoModel, call: int = -1) -> list[str]:
    """What the model was sent on ``call`` (the system message left out)."""
    return [m.text for m in model.seen[call] if m.type != "system"]


def remove(messages: list[BaseMessage]) -> list[RemoveMessage]:
    return [RemoveMessage(id=str(m.id)) for m in messages]


def no_reduction() -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=100, target_messages=80)


class Chat:
    """An agent with a checkpointer, driven as the memory's mode needs."""

    def __init__(self, h: Harness, *, trim_state: bool = False, **kw: Any) -> None:
        self.h = h
        self.model = EchoModel()
        self.agent = create_agent(
            self.model,
            system_prompt=SYSTEM,
            middleware=[SummemMiddleware(h.memory, trim_state=trim_state), *kw.get("more", [])],
            checkpointer=InMemorySaver(),
        )

    async def invoke(self, value: Any, config: Any = CONFIG) -> list[BaseMessage]:
        if self.h.is_async:
            state = await self.agent.ainvoke(value, config)
        else:
            state = await asyncio.to_thread(self.agent.invoke, value, config)
        return list(state["messages"])

    async def say(self, text: str, config: Any = CONFIG) -> list[BaseMessage]:
        return await self.invoke({"messages": [HumanMessage(text)]}, config)

    def before_model(self, human: str) -> Any:
        """The checkpoint about to call the model on the human message ``human``."""
        for snapshot in self.agent.get_state_history(CONFIG):
            messages = snapshot.values.get("messages") or []
            if snapshot.next == ("model",) and messages and messages[-1].text == human:
                return snapshot.config
        raise AssertionError(f"no checkpoint before the model call on {human!r}")

    async def update(self, messages: list[Any]) -> None:
        if self.h.is_async:
            await self.agent.aupdate_state(CONFIG, {"messages": messages})
        else:
            await asyncio.to_thread(self.agent.update_state, CONFIG, {"messages": messages})


# -- conformance: time travel, regenerate, edit, rewind ------------------------------------


@scenario_test(no_reduction)
async def test_time_travel_to_an_earlier_checkpoint_branches_there(h: Harness) -> None:
    chat = Chat(h)
    for text in ("one", "two", "three"):
        await chat.say(text)
    state = await chat.invoke(None, chat.before_model("two"))  # replay from turn 2
    assert texts(state) == ["one", "re: one #1", "two", "re: two #4"]
    assert seen_texts(chat.model) == ["one", "re: one #1", "two"]  # turn 3 is not sent
    assert await h.texts() == texts(state)  # nothing recorded twice
    assert await h.branch_texts() == [(3, ["re: two #2", "three", "re: three #3"])]


@scenario_test(no_reduction)
async def test_regenerate_the_last_answer(h: Harness) -> None:
    chat = Chat(h)
    await chat.say("one")
    await chat.say("two")
    state = await chat.invoke(None, chat.before_model("two"))
    assert texts(state)[-1] == "re: two #3"
    assert seen_texts(chat.model) == ["one", "re: one #1", "two"]
    assert await h.texts() == ["one", "re: one #1", "two", "re: two #3"]
    assert await h.branch_texts() == [(3, ["re: two #2"])]
    await chat.say("three")  # and the conversation goes on from the new answer
    assert seen_texts(chat.model) == ["one", "re: one #1", "two", "re: two #3", "three"]


@scenario_test(no_reduction)
async def test_update_state_editing_an_earlier_message_branches_at_it(h: Harness) -> None:
    chat = Chat(h)
    await chat.say("one")
    state = await chat.say("two")
    await chat.update([HumanMessage("two, EDITED", id=state[2].id)])  # same id: replaced
    await chat.say("three")
    assert seen_texts(chat.model) == ["one", "re: one #1", "two, EDITED", "re: two #2", "three"]
    assert await h.texts() == [
        "one", "re: one #1", "two, EDITED", "re: two #2", "three", "re: three #3",
    ]  # fmt: skip
    assert await h.branch_texts() == [(2, ["two", "re: two #2"])]


@scenario_test(no_reduction)
async def test_rewind_with_remove_message(h: Harness) -> None:
    chat = Chat(h)
    await chat.say("one")
    state = await chat.say("two")
    await chat.update(remove(state[2:]))  # pop the last turn
    await chat.say("three")
    assert seen_texts(chat.model) == ["one", "re: one #1", "three"]
    assert await h.texts() == ["one", "re: one #1", "three", "re: three #3"]
    assert await h.branch_texts() == [(2, ["two", "re: two #2"])]


@scenario_test(no_reduction)
async def test_remove_message_in_the_middle_branches_there(h: Harness) -> None:
    chat = Chat(h)
    for text in ("one", "two", "three"):
        state = await chat.say(text)
    await chat.update(remove(state[2:4]))  # turn 2
    await chat.say("four")
    expected = ["one", "re: one #1", "three", "re: three #3", "four"]
    assert seen_texts(chat.model) == expected  # the removed turn does not reach the model
    assert await h.texts() == [*expected, "re: four #4"]  # the rest re-recorded after it
    assert await h.branch_texts() == [(2, ["two", "re: two #2", "three", "re: three #3"])]


@scenario_test(no_reduction)
async def test_remove_message_at_the_front_is_a_window_not_a_branch(h: Harness) -> None:
    chat = Chat(h)
    for text in ("one", "two"):
        state = await chat.say(text)
    await chat.update(remove(state[:2]))  # turn 1
    await chat.say("three")
    assert seen_texts(chat.model) == ["two", "re: two #2", "three"]
    assert await h.texts() == ["one", "re: one #1", "two", "re: two #2", "three", "re: three #3"]
    assert await h.branches() == []


# -- trim_state: the graph state stays bounded -----------------------------------------------


def small() -> SummarizationReducer:
    return SummarizationReducer(threshold_messages=7, target_messages=5)


@scenario_test(reducer=small)
async def test_trim_state_keeps_the_state_bounded_and_the_model_input_unchanged(
    h: Harness,
) -> None:
    trimmed = Chat(h, trim_state=True)
    reference_memory = Memory("reference", reducer=small())
    reference = Chat(Harness(h.backend, "sync", reference_memory))
    for i in range(8):
        state = await trimmed.say(f"turn {i}")
        await reference.say(f"turn {i}")
        assert len(state) <= 7  # bounded: the view's tail, never more
    assert [texts(s) for s in trimmed.model.seen] == [texts(s) for s in reference.model.seen]
    assert str(trimmed.model.seen[-1][1].content).startswith("Summary of the earlier")
    history = await h.history()
    assert len(history) == 16 and await h.branches() == []  # the store holds every message
    assert [to_langchain(m) for m in history[-len(state) :]] == state


@scenario_test(reducer=small)
async def test_time_travel_with_a_trimmed_state_branches_at_the_right_place(h: Harness) -> None:
    chat = Chat(h, trim_state=True)
    for i in range(6):
        await chat.say(f"turn {i}")
    await chat.invoke(None, chat.before_model("turn 4"))
    history = await h.texts()
    assert history == [t for i in range(4) for t in (f"turn {i}", f"re: turn {i} #{i + 1}")] + [
        "turn 4",
        "re: turn 4 #7",
    ]
    assert await h.branch_texts() == [(9, ["re: turn 4 #5", "turn 5", "re: turn 5 #6"])]


@scenario_test(reducer=small)
async def test_going_back_before_the_summary_never_sends_the_abandoned_turns(h: Harness) -> None:
    chat = Chat(h, trim_state=True)
    for i in range(6):
        await chat.say(f"turn {i}")
    assert h.memory.summary is not None and "turn 3" in h.memory.summary.text
    await chat.invoke(None, chat.before_model("turn 1"))
    sent = " ".join(str(m.content) for m in chat.model.seen[-1])
    assert all(f"turn {i}" not in sent for i in range(2, 6)), sent  # nor in a summary
    assert seen_texts(chat.model)[-1] == "turn 1"
    assert await h.texts() == ["turn 0", "re: turn 0 #1", "turn 1", "re: turn 1 #7"]


def test_ainvoke_with_a_sync_memory_branches_and_trims() -> None:
    memory = Memory("user-42", reducer=small())
    model = EchoModel()
    agent = create_agent(
        model, middleware=[SummemMiddleware(memory, trim_state=True)], checkpointer=InMemorySaver()
    )

    async def main() -> list[BaseMessage]:
        for i in range(6):
            state = await agent.ainvoke({"messages": [HumanMessage(f"turn {i}")]}, CONFIG)
        assert len(state["messages"]) < 12
        pasts = [
            s.config
            async for s in agent.aget_state_history(CONFIG)
            if s.next == ("model",) and s.values["messages"][-1].text == "turn 4"
        ]
        past = pasts[0]
        return list((await agent.ainvoke(None, past))["messages"])

    state = asyncio.run(main())
    assert [m.text for m in memory.history_messages()][-2:] == ["turn 4", "re: turn 4 #7"]
    assert [(b.at, b.length) for b in memory.branches()] == [(9, 3)]
    assert [to_langchain(m) for m in memory.history_messages()[-len(state) :]] == state


@pytest.mark.parametrize("how", ["middleware", "pre_model_hook"])
def test_only_the_new_message_without_a_checkpointer_is_appended(how: str) -> None:
    """A state matching nothing stored (#28 review) is new messages: the memory supplies the
    past, as it did before branches; nothing is abandoned."""
    memory = Memory("user-42", reducer=no_reduction())
    model = EchoModel()
    if how == "middleware":
        agent: Any = create_agent(model, middleware=[SummemMiddleware(memory)])
    else:
        from langgraph.prebuilt import create_react_agent
        from langgraph.warnings import LangGraphDeprecatedSinceV10

        with pytest.warns(LangGraphDeprecatedSinceV10):
            agent = create_react_agent(model, [], pre_model_hook=pre_model_hook(memory))
    agent.invoke({"messages": [HumanMessage("my name is Ann")]})
    agent.invoke({"messages": [HumanMessage("what is my name?")]})
    # (the hook records a reply when the next call brings it back: never, without a state)
    replied = ["re: my name is Ann #1"] if how == "middleware" else []
    assert [m.text for m in model.seen[-1]] == ["my name is Ann", *replied, "what is my name?"]
    assert memory.branches() == []
    if how == "middleware":
        assert [m["content"] for m in memory.history()] == [
            "my name is Ann",
            "re: my name is Ann #1",
            "what is my name?",
            "re: what is my name? #2",
        ]


@pytest.mark.parametrize("how", ["middleware", "pre_model_hook"])
async def test_a_second_thread_id_is_refused_naming_both(how: str) -> None:
    memory = Memory("user-42", reducer=no_reduction())
    model = EchoModel()
    if how == "middleware":
        agent: Any = create_agent(
            model, middleware=[SummemMiddleware(memory)], checkpointer=InMemorySaver()
        )
    else:
        from langgraph.prebuilt import create_react_agent
        from langgraph.warnings import LangGraphDeprecatedSinceV10

        with pytest.warns(LangGraphDeprecatedSinceV10):
            agent = create_react_agent(
                model, [], pre_model_hook=pre_model_hook(memory), checkpointer=InMemorySaver()
            )
    a, b = {"configurable": {"thread_id": "a"}}, {"configurable": {"thread_id": "b"}}
    agent.invoke({"messages": [HumanMessage("a1")]}, a)
    before = memory.history()
    for call in (
        lambda: agent.invoke({"messages": [HumanMessage("b1")]}, b),
        lambda: asyncio.run(agent.ainvoke({"messages": [HumanMessage("b1")]}, b)),
    ):
        with pytest.raises(ConfigurationError) as info:
            await asyncio.to_thread(call)
        assert "'a'" in str(info.value) and "'b'" in str(info.value)
        assert "one memory" in str(info.value) and "per thread" in str(info.value)
    assert memory.history() == before and memory.branches() == []
    agent.invoke({"messages": [HumanMessage("a2")]}, a)  # its own thread goes on
    assert [m["content"] for m in memory.history()][:3] == ["a1", "re: a1 #1", "a2"]


def test_trim_state_is_off_by_default() -> None:
    """By default the state is left whole (every message, as invoked); ``trim_state=True``
    on the same conversation shrinks it."""
    states = {}
    for trim in (False, True):
        memory = Memory("user-42", reducer=small())
        middleware = SummemMiddleware(memory, trim_state=True) if trim else SummemMiddleware(memory)
        agent = create_agent(EchoModel(), middleware=[middleware], checkpointer=InMemorySaver())
        for i in range(6):
            state = agent.invoke({"messages": [HumanMessage(f"turn {i}")]}, CONFIG)
        assert memory.summary is not None
        states[trim] = texts(state["messages"])
    assert states[False] == [t for i in range(6) for t in (f"turn {i}", f"re: turn {i} #{i + 1}")]
    assert len(states[True]) < 12 and states[True] == states[False][-len(states[True]) :]


def test_trim_state_needs_the_default_mode() -> None:
    with pytest.raises(ConfigurationError, match="trim_state"):
        SummemMiddleware(Memory("user-42"), trim_state=True, mode="auto")


# -- LangChain's own SummarizationMiddleware -----------------------------------------------


def test_with_langchain_summarization_middleware_raises_once_it_summarized() -> None:
    memory = Memory("user-42", reducer=no_reduction())
    summarizer = EchoModel()
    langchain_summary = SummarizationMiddleware(
        summarizer, trigger=("messages", 5), keep=("messages", 2)
    )
    model = EchoModel()
    agent = create_agent(
        model,
        middleware=[langchain_summary, SummemMiddleware(memory)],
        checkpointer=InMemorySaver(),
    )
    agent.invoke({"messages": [HumanMessage("one")]}, CONFIG)
    agent.invoke({"messages": [HumanMessage("two")]}, CONFIG)
    with pytest.raises(ConfigurationError, match="SummarizationMiddleware"):
        agent.invoke({"messages": [HumanMessage("three")]}, CONFIG)
    assert memory.history() == [  # nothing duplicated
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "re: one #1"},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "re: two #2"},
    ]


# -- LangGraph's create_react_agent (pre_model_hook) -----------------------------------------


def test_pre_model_hook_time_travel_branches() -> None:
    from langgraph.prebuilt import create_react_agent
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    memory = Memory("user-42", reducer=no_reduction())
    model = EchoModel()
    with pytest.warns(LangGraphDeprecatedSinceV10):
        agent = create_react_agent(
            model, [], pre_model_hook=pre_model_hook(memory), checkpointer=InMemorySaver()
        )
    for text in ("one", "two", "three"):
        agent.invoke({"messages": [HumanMessage(text)]}, CONFIG)
    past = next(
        s.config
        for s in agent.get_state_history(CONFIG)
        if s.next == ("pre_model_hook",) and s.values["messages"][-1].text == "two"
    )
    agent.invoke(None, past)
    assert [m.text for m in model.seen[-1]] == ["one", "re: one #1", "two"]
    assert [m["content"] for m in memory.history()] == ["one", "re: one #1", "two"]
    assert [b.at for b in memory.branches()] == [3]


def test_mode_auto_takes_recorded_model_replies_as_proof_of_an_edit() -> None:
    """With ``mode="auto"`` the middleware's recorded replies are the model's (``MODEL_REPLY``):
    a state resending them with an earlier message edited branches there, nothing twice."""
    memory = Memory("user-42", reducer=no_reduction())
    agent = create_agent(
        EchoModel(),
        middleware=[SummemMiddleware(memory, mode="auto")],
        checkpointer=InMemorySaver(),
    )
    agent.invoke({"messages": [HumanMessage("one")]}, CONFIG)
    state = agent.invoke({"messages": [HumanMessage("two")]}, CONFIG)["messages"]
    edited = HumanMessage("two, edited", id=state[2].id)
    agent.update_state(CONFIG, {"messages": [edited]})
    agent.invoke({"messages": [HumanMessage("three")]}, CONFIG)
    assert [m["content"] for m in memory.history()] == [
        "one",
        "re: one #1",
        "two, edited",
        "re: two #2",
        "three",
        "re: three #3",
    ]
    assert [(b.at, b.length) for b in memory.branches()] == [(2, 2)]
