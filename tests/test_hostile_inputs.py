"""Input a model (or a caller) controls gives a summem error naming what is wrong, never a raw one.

Deeply nested JSON, integers too long for ``str()``, non-JSON values and missing pairing keys
are checked where they enter (``add``/``extend``, Responses items, the Agents SDK session's
``add_items``, the recall tool's arguments, transcript files), by the same rules
(``summem._message_checks``). A model's bad tool arguments come back to it as a tool result
saying what is wrong.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import respx

from summem import Memory, SummarizationReducer
from summem.errors import MessageValidationError
from summem.formats.responses import to_messages
from summem.integrations._shared import load_arguments
from summem.integrations.agents import SummemSession
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.wrappers import wrap_openai
from tests.fakes.counters import WordCounter
from tests.fakes.replies import OPENAI_URL, openai_completion

BOMB = "[" * 200_000  # the parser's recursion, not a syntax error, is what fails first
HUGE = 10**5000
HUGE_TEXT = "9" * 5000


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def call(arguments: str, call_id: str = "c1", name: str = "lookup") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


# -- Responses items ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "field", "reason"),
    [
        ({"role": "user", "content": "x", "x_deep": nested(5000)}, "x_deep.a.a", "deeper"),
        (
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": nested(5000)},
            "arguments.a",
            "deeper",
        ),
        (
            {"type": "function_call_output", "call_id": "c", "output": {"n": HUGE}},
            "output.n",
            "640",
        ),
        ({"type": "message", "role": "user", "content": "x", "x_n": HUGE}, "x_n", "640"),
        ({"type": "function_call_output", "call_id": "c", "output": b"raw"}, "output", "bytes"),
    ],
)
def test_hostile_responses_items_are_refused_by_name(
    item: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(MessageValidationError, match=reason) as caught:
        to_messages([{"role": "user", "content": "first"}, item])
    assert caught.value.index == 1
    assert caught.value.field is not None and caught.value.field.startswith(field)


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"type": "function_call", "name": "f", "arguments": "{}"}, "call_id"),
        ({"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"}, "call_id"),
        ({"type": "function_call_output", "output": "42"}, "call_id"),
        (
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": {"q": 1}},
            "arguments",
        ),
        ({"type": "function_call", "call_id": "c", "name": "f"}, "arguments"),
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "name"),
        ({"type": "function_call_output", "call_id": "c", "output": 42}, "output"),
        ({"type": "function_call_output", "call_id": "c"}, "output"),
        ({"type": "custom_tool_call", "call_id": "c", "name": "f", "input": {"q": 1}}, "input"),
        ({"type": "custom_tool_call_output", "output": "42"}, "call_id"),
        ({"type": "computer_call", "id": "cu_1", "action": {"type": "screenshot"}}, "call_id"),
        ({"type": "message", "role": "user", "content": [{"type": "input_text"}]}, "content[0]"),
    ],
)
def test_malformed_call_items_are_refused_at_add_and_nothing_is_stored(
    item: dict[str, Any], field: str
) -> None:
    memory = Memory("s")
    with pytest.raises(MessageValidationError) as caught:
        memory.add_items([{"role": "user", "content": "hi"}, item])
    assert (caught.value.index, caught.value.field) == (1, field)
    assert memory.items() == []  # validated whole: nothing was stored


def test_well_formed_call_items_are_still_accepted() -> None:
    memory = Memory("s")
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": ""},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [{"type": "input_text", "text": "ok"}],
        },
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},  # hosted: no call_id
    ]
    memory.add_items(items)
    assert memory.items() == items


@pytest.mark.parametrize("items", [None, 5, object(), {"role": "user", "content": "x"}])
def test_add_items_of_no_list_names_what_it_got(items: Any) -> None:
    memory = Memory("s")
    with pytest.raises(MessageValidationError, match="expected a list of items"):
        memory.add_items(items)


def test_the_agents_session_refuses_hostile_items_with_a_summem_error() -> None:
    async def run() -> None:
        session = SummemSession("s")
        with pytest.raises(MessageValidationError, match="expected a list of items"):
            await session.add_items(None)  # type: ignore[arg-type]
        with pytest.raises(MessageValidationError, match="deeper"):
            await session.add_items([{"role": "user", "content": "x", "x": nested(5000)}])
        with pytest.raises(MessageValidationError, match="640"):
            await session.add_items([{"role": "user", "content": "x", "x": HUGE}])
        assert await session.get_items() == []
        # one the API would refuse is kept opaque, as the SDK's own sessions keep it
        odd = {"type": "function_call", "name": "f", "arguments": "{}"}
        await session.add_items([odd])
        assert await session.get_items() == [odd]

    asyncio.run(run())


# -- chat messages ---------------------------------------------------------------------------


@pytest.mark.parametrize("messages", [None, 5, object()])
def test_extend_and_record_of_no_list_name_what_they_got(messages: Any) -> None:
    memory = Memory("s")
    for method in (memory.extend, memory.record):
        with pytest.raises(MessageValidationError):
            method(messages)


# -- the recall tool: the model's arguments --------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (BOMB, "deeper"),
        (json.dumps(nested(200)), "deeper"),
        ('{"query": ' + HUGE_TEXT + "}", "640"),
        ('{"query": NaN}', "NaN"),
    ],
)
def test_the_recall_tool_answers_hostile_arguments_with_an_error(
    arguments: str, reason: str
) -> None:
    memory = Memory("s")
    memory.add({"role": "user", "content": "My order is BW-58214-K."})
    tool = memory.recall_tool()
    answer = json.loads(tool(arguments))
    assert reason in answer["error"]
    answer = json.loads(asyncio.run(tool.acall(arguments)))
    assert reason in answer["error"]


def test_hostile_recall_arguments_reach_the_model_not_the_application() -> None:
    bomb_call = {
        "id": "call_r1",
        "type": "function",
        "function": {"name": "recall_conversation", "arguments": BOMB},
    }
    replies = iter(
        [openai_completion(None, tool_calls=[bomb_call]), openai_completion("Sorry, I could not.")]
    )
    with respx.mock:
        route = respx.post(OPENAI_URL).mock(
            side_effect=lambda request: httpx.Response(200, json=next(replies))
        )
        memory = Memory("s")
        client: Any = wrap_openai(openai.OpenAI(api_key="sk-test"), memory, recall=True)
        response = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "What was my order?"}]
        )
    assert response.choices[0].message.content == "Sorry, I could not."
    sent = json.loads(route.calls[1].request.content)["messages"][-1]
    assert sent["role"] == "tool" and "deeper" in json.loads(sent["content"])["error"]


# -- what summem renders and recalls from history -------------------------------------------


def test_deep_tool_arguments_and_results_in_history_are_summarized_and_recalled() -> None:
    reducer = SummarizationReducer(
        ExtractiveSummarizer(),
        threshold_tokens=120,
        target_tokens=60,
        summary_max_tokens=40,
        token_counter=WordCounter(),
    )
    memory = Memory("s", reducer=reducer)
    memory.add({"role": "user", "content": "look it up please"})
    memory.add(call(BOMB))
    memory.add({"role": "tool", "tool_call_id": "c1", "content": BOMB})
    for i in range(20):
        memory.add({"role": "user", "content": f"more words about the weather number {i}"})
    assert memory.last_error is None
    assert memory.summary is not None
    assert memory.recall("lookup")  # rendering the deep call works


def test_langchain_arguments_that_are_too_deep_become_an_invalid_call() -> None:
    args, error = load_arguments(BOMB)
    assert args is None and error is not None and "deeper" in error
    args, error = load_arguments('{"n": ' + HUGE_TEXT + "}")
    assert args is None and error is not None and "640" in error


# -- transcript files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (BOMB, "deeper"),
        ('[{"role": "user", "content": "x", "n": ' + HUGE_TEXT + "}]", "640"),
        ('{"role": "user", "content": "a"}\n{"role": "user", "content": ' + BOMB + "}\n", "deeper"),
    ],
)
def test_a_hostile_transcript_file_is_a_usage_error(tmp_path: Path, text: str, reason: str) -> None:
    from summem.cli.common import CliError
    from summem.cli.transcript import read_transcript

    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CliError, match=reason):
        read_transcript(path)


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        ({"role": "user", "content": [{"type": "text", "text": "x", "d": nested(5000)}]}, "deeper"),
        ({"role": "user", "content": [{"type": "text", "text": "x", "n": HUGE}]}, "640"),
        (None, "expected a mapping"),
        (5, "expected a mapping"),
    ],
)
def test_record_checks_the_list_before_comparing_it_with_history(item: Any, reason: str) -> None:
    memory = Memory("s")
    memory.add({"role": "user", "content": "hi"})
    for passed, index in (([item], 0), ([{"role": "user", "content": "hi"}, item], 1)):
        with pytest.raises(MessageValidationError, match=reason) as caught:
            memory.record(passed)
        assert caught.value.index == index  # the position in the list passed
    assert memory.history() == [{"role": "user", "content": "hi"}]
