"""``SummemSession`` under the real OpenAI Agents SDK, its model on a mocked Responses endpoint.

The first part adapts the checks of the SDK's own session tests
(``tests/memory/test_session.py`` in openai/openai-agents-python, written for ``SQLiteSession``
with the SDK's test-only ``FakeModel``): here the model is the SDK's real
``OpenAIResponsesModel`` over an ``AsyncOpenAI`` client whose transport answers from a queue,
so every request the SDK makes is checked as sent. Left out: the checks of SQLite internals
(connections, file locks), of thread-per-loop concurrent writes (an ``AsyncMemory`` belongs to
one event loop) and of the SDK's own error propagation.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

agents = pytest.importorskip(
    "agents", reason="the OpenAI Agents SDK (summem[agents]) needs openai>=3"
)

from agents import Agent, RunConfig, Runner, function_tool  # noqa: E402
from agents.memory import Session, SessionSettings  # noqa: E402

from summem import SummarizationReducer  # noqa: E402
from summem.errors import InvalidSummaryError  # noqa: E402
from summem.integrations.agents import SummemSession  # noqa: E402
from summem.stores import AsyncSQLiteStore  # noqa: E402
from tests.fakes.counters import WordCounter, words  # noqa: E402
from tests.fakes.responses import call_item, response, stream_events, text_item  # noqa: E402
from tests.fakes.summarizers import FakeSummarizer, offline_or_none  # noqa: E402
from tests.fakes.transport import Recorder, replies, sse_events  # noqa: E402


@pytest.fixture(autouse=True)
def _no_tracing() -> Iterator[None]:
    agents.set_tracing_disabled(True)  # the SDK would export traces over the network
    yield
    agents.set_tracing_disabled(False)


class Model:
    """The SDK's Responses model over a recorded transport; ``inputs``: what each call sent."""

    def __init__(self, *bodies: Any) -> None:
        self.recorder = Recorder(replies(*bodies))
        self.model = agents.OpenAIResponsesModel("gpt-4.1-mini", self.recorder.async_client())

    @property
    def inputs(self) -> list[Any]:
        return [body["input"] for _, _, body in self.recorder.requests]


def text(reply: str, n: int = 1) -> dict[str, Any]:
    return response([text_item(reply, n)], n=n)


def db(tmp_path: Path) -> AsyncSQLiteStore:
    return AsyncSQLiteStore(str(tmp_path / "sessions.db"))


async def run(agent: Agent[Any], data: Any, streamed: bool, **kwargs: Any) -> Any:
    if not streamed:
        return await Runner.run(agent, data, **kwargs)
    result = Runner.run_streamed(agent, data, **kwargs)
    async for _ in result.stream_events():
        pass
    return result


def reply(text_: str, streamed: bool, n: int = 1) -> Any:
    return sse_events(stream_events([text_item(text_, n)])) if streamed else text(text_, n)


# -- adapted from the SDK's tests/memory/test_session.py ---------------------------------------


def test_it_is_a_session() -> None:
    assert isinstance(SummemSession("s"), Session)


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
async def test_session_memory_basic_functionality(tmp_path: Path, streamed: bool) -> None:
    model = Model(reply("San Francisco", streamed), reply("California", streamed, 2))
    agent = Agent(name="test", model=model.model)
    session = SummemSession("test_session_123", store=db(tmp_path))
    result1 = await run(agent, "What city is the Golden Gate Bridge in?", streamed, session=session)
    assert result1.final_output == "San Francisco"
    result2 = await run(agent, "What state is it in?", streamed, session=session)
    assert result2.final_output == "California"
    last = model.inputs[-1]
    assert [i.get("content") for i in last if i.get("role") == "user"] == [
        "What city is the Golden Gate Bridge in?",
        "What state is it in?",
    ]
    assert last[1]["content"][0]["text"] == "San Francisco"
    await session.close()


async def test_session_memory_disabled() -> None:
    model = Model(text("Hello"), text("I don't remember", 2))
    agent = Agent(name="test", model=model.model)
    await Runner.run(agent, "Hi there")
    await Runner.run(agent, "Do you remember what I said?")
    assert len(model.inputs[-1]) == 1


async def test_session_memory_different_sessions(tmp_path: Path) -> None:
    model = Model(text("I like cats"), text("I like dogs", 2), text("Yes, cats", 3))
    agent = Agent(name="test", model=model.model)
    store = db(tmp_path)
    one = SummemSession("session_1", store=store)
    two = SummemSession("session_2", store=store)
    await Runner.run(agent, "I like cats", session=one)
    await Runner.run(agent, "I like dogs", session=two)
    await Runner.run(agent, "What did I say I like?", session=one)
    sent = json.dumps(model.inputs[-1])
    assert "cats" in sent and "dogs" not in sent
    await store.close()


async def test_list_input_is_appended_to_history() -> None:
    model = Model(text("This should run"))
    session = SummemSession("appends")
    history = [
        {"role": "user", "content": "Earlier message"},
        {"role": "assistant", "content": "Saved reply"},
    ]
    await session.add_items(history)
    new: list[Any] = [{"role": "user", "content": "Test message"}]
    await Runner.run(Agent(name="test", model=model.model), new, session=session)
    assert model.inputs[-1] == history + new


async def test_session_input_callback() -> None:
    model = Model(text("I'm gpt-4o"))
    session = SummemSession("callback")
    history = [
        {"role": "user", "content": "Hello there."},
        {"role": "assistant", "content": "Hi, I'm here to assist you."},
    ]
    await session.add_items(history)

    def users_only(old: list[Any], new: list[Any]) -> list[Any]:
        return [i for i in old if i["role"] == "user"] + new

    new: list[Any] = [{"role": "user", "content": "What your name?"}]
    await Runner.run(
        Agent(name="test", model=model.model),
        new,
        session=session,
        run_config=RunConfig(session_input_callback=users_only),
    )
    assert model.inputs[-1] == [history[0], new[0]]


async def test_session_settings() -> None:
    default = SummemSession("s").session_settings  # as the SDK's own sessions
    assert isinstance(default, SessionSettings) and default.limit is None
    session = SummemSession("s", session_settings=SessionSettings(limit=3))
    assert session.session_settings.limit == 3
    await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(5)])
    assert [i["content"] for i in await session.get_items()] == [f"Message {i}" for i in (2, 3, 4)]
    assert [i["content"] for i in await session.get_items(limit=2)] == ["Message 3", "Message 4"]
    as_dict = SummemSession("s2", session_settings={"limit": 1})
    assert isinstance(as_dict.session_settings, SessionSettings)  # the runner calls resolve()
    assert as_dict.session_settings.resolve({"limit": 4}).limit == 4
    await as_dict.add_items([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    assert await as_dict.get_items() == [{"role": "user", "content": "b"}]
    with pytest.raises(TypeError):
        SummemSession("s3", session_settings={"limit": 1, "nope": 2})


async def test_runner_session_settings_override() -> None:
    model = Model(text("Got it"))
    session = SummemSession("override", session_settings=SessionSettings(limit=100))
    await session.add_items([{"role": "user", "content": f"Turn {i}"} for i in range(10)])
    await Runner.run(
        Agent(name="test", model=model.model),
        "New question",
        session=session,
        run_config=RunConfig(session_settings=SessionSettings(limit=2)),
    )
    history = [i for i in model.inputs[-1] if i.get("content") != "New question"]
    assert [i["content"] for i in history] == ["Turn 8", "Turn 9"]


# -- summem's own: a tool call end to end, and a long session ----------------------------------


@function_tool  # type: ignore[untyped-decorator,unused-ignore]  # untyped without the SDK
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def small_session(session_id: str = "user-42") -> SummemSession:
    reducer = SummarizationReducer(
        FakeSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=120,
        target_tokens=80,
        summary_max_tokens=5,
    )
    return SummemSession(session_id, reducer=reducer)


async def test_a_tool_call_end_to_end() -> None:
    call = call_item("call_1", "get_weather", '{"city": "Paris"}')
    model = Model(response([call]), text("It is sunny in Paris.", 2))
    agent = Agent(name="weather", model=model.model, tools=[get_weather])
    session = small_session()
    result = await Runner.run(agent, "Weather in Paris?", session=session)
    assert result.final_output == "It is sunny in Paris."
    first, second = model.inputs
    assert first == [{"role": "user", "content": "Weather in Paris?"}]
    assert second[0] == first[0]
    sent_call = next(i for i in second if i.get("type") == "function_call")
    output = next(i for i in second if i.get("type") == "function_call_output")
    assert sent_call["call_id"] == output["call_id"] == "call_1"
    assert sent_call["arguments"] == '{"city": "Paris"}'
    assert output["output"] == "Sunny in Paris"
    kinds = [i.get("type", "message") for i in await session.get_items()]
    assert kinds == ["message", "function_call", "function_call_output", "message"]


async def test_a_long_session_is_bounded_and_summarized() -> None:
    bodies: list[Any] = []
    for n in range(10):
        bodies.append(response([call_item(f"call_{n}", "get_weather", '{"city": "Oslo"}')], n=n))
        bodies.append(text(words(12, f"a{n}_"), n))
    model = Model(*bodies)
    agent = Agent(name="weather", model=model.model, tools=[get_weather])
    session = small_session()
    for n in range(10):
        await Runner.run(agent, words(12, f"u{n}_"), session=session)
    summary = session.memory.summary
    assert summary is not None
    last = model.inputs[-1]
    assert last[0] == {"type": "message", "role": "user", "content": summary.content}
    assert len(last) < 10 * 4  # bounded: far fewer items than the session holds
    history = await session.memory.history()
    assert len(history) == 10 * 4  # nothing lost: user, call, output, reply per run
    # I3 on what the model got: every output's call is there, every call has its output
    calls = {i["call_id"] for i in last if i.get("type") == "function_call"}
    outputs = {i["call_id"] for i in last if i.get("type") == "function_call_output"}
    assert calls == outputs


async def test_a_failed_reduction_does_not_fail_the_run_nor_duplicate_its_items() -> None:
    # Seen live (SmolLM2 summarizing over llama.cpp): the summary came back over its budget,
    # add_items raised InvalidSummaryError after storing the input, so Runner.run failed before
    # calling the model and a retry of the run would have stored the input twice.
    reducer = SummarizationReducer(
        FakeSummarizer(fail_with=InvalidSummaryError("returned 152 tokens; max 100")),
        token_counter=WordCounter(),
        threshold_tokens=40,
        target_tokens=20,
        summary_max_tokens=5,
    )
    session = SummemSession("user-42", reducer=reducer)
    model = Model(*(text(words(12, f"a{n}_"), n) for n in range(4)))
    agent = Agent(name="chat", model=model.model)
    for n in range(4):
        result = await Runner.run(agent, words(12, f"u{n}_"), session=session)
        assert result.final_output == words(12, f"a{n}_")
    assert isinstance(session.memory.last_error, InvalidSummaryError)
    history = await session.memory.history()
    assert [m["content"] for m in history if m["role"] == "user"] == [
        words(12, f"u{n}_") for n in range(4)
    ]  # each input once, in order, each run answered
    assert len(history) == 8
    assert offline_or_none(session.memory.summary)  # the failed summarizer's: never committed


async def test_developer_items_in_the_input_keep_their_place_across_turns() -> None:
    model = Model(text("Hi", 1), text("Short answer", 2), text("Free plan", 3))
    agent = Agent(name="test", model=model.model)
    session = SummemSession("plans")
    turn1: list[Any] = [
        {"role": "developer", "content": "plan: free"},
        {"role": "user", "content": "hi"},
    ]
    turn2: list[Any] = [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": "why?"},
    ]
    await Runner.run(agent, turn1, session=session)
    await Runner.run(agent, turn2, session=session)
    await Runner.run(agent, "which plan am I on?", session=session)
    sent = model.inputs[-1]
    said = [(i.get("role"), i.get("content")) for i in sent if isinstance(i.get("content"), str)]
    assert said == [
        ("developer", "plan: free"),
        ("user", "hi"),
        ("developer", "be brief"),
        ("user", "why?"),
        ("user", "which plan am I on?"),
    ]
    roles = [i.get("role") for i in sent]
    assert roles.index("developer") == 0 and roles.count("developer") == 2
    assert [i for i in sent if i.get("role") == "assistant"] != []  # the replies are there too


def test_run_sync_from_two_threads_with_a_reduction_parked_on_one(tmp_path: Path) -> None:
    """``Runner.run_sync`` keeps each thread's loop open and idle between runs."""
    import asyncio
    import threading

    from tests.integrations.test_agents_items import in_thread, parked_session, resume_and_close

    session, summarizer = parked_session(tmp_path)
    long = "word " * 40
    first = Model(*(text(f"reply {i} " + long, i + 1) for i in range(4)))
    second = Model(text("done", 9))

    parked: list[asyncio.AbstractEventLoop] = []

    def thread_a() -> None:
        agent = Agent(name="a", model=first.model)
        for i in range(4):
            Runner.run_sync(agent, f"question {i} " + long, session=session)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop_policy().get_event_loop()  # run_sync's, left open
        loop.run_until_complete(asyncio.to_thread(summarizer.asked.wait))  # parked there now
        parked.append(loop)

    worker = threading.Thread(target=thread_a)
    worker.start()
    worker.join()
    assert session.memory._reducing.locked()
    big: list[Any] = [{"role": "user", "content": f"more {i} " + long} for i in range(6)]

    def thread_b() -> None:  # past the hard limit: it must not wait for the parked reduction
        Runner.run_sync(Agent(name="b", model=second.model), big, session=session)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            parked.append(asyncio.get_event_loop_policy().get_event_loop())

    in_thread(thread_b)
    assert second.inputs  # thread B's run went through
    in_thread(lambda: asyncio.run(session.close()))
    for loop in parked:
        resume_and_close(loop)
