"""Recall: BM25 over the full history, through Memory and AsyncMemory, and as a tool."""

from __future__ import annotations

import asyncio
import json

import pytest

from summem import AsyncMemory, Memory
from summem.errors import ConfigurationError
from summem.messages import parse_messages
from summem.recall.index import RecallIndex, terms
from tests.fakes.memory import small_reducer
from tests.fakes.messages import call, res, turn, u


def test_terms_keep_identifiers_whole_and_by_part() -> None:
    assert terms("Order BW-58214-K, the refund!") == [
        "order",
        "bw-58214-k",
        "bw",
        "58214",
        "k",
        "refund",
    ]


def test_bm25_ranks_rare_words_first_and_breaks_ties_by_recency() -> None:
    index = RecallIndex()
    index.extend(
        parse_messages(
            [
                {"role": "user", "content": "the parcel is late"},
                {"role": "user", "content": "my parcel BW-1 is late again, parcel parcel"},
                {"role": "assistant", "content": "I will check the parcel"},
                {"role": "user", "content": "the parcel is late"},
            ]
        )
    )
    hits = index.search("BW-1 parcel", k=3)
    assert hits[0].position == 1  # the only one with the rare identifier
    assert [h.position for h in index.search("late", k=3)][:1] == [3]  # same text: newest
    assert index.search("late", k=5, below=2)[0].position in (0, 1)
    assert index.search("nothing here", k=3) == [] and index.search("the", k=3) == []


def test_a_tool_result_comes_with_its_call_and_a_call_with_its_results() -> None:
    index = RecallIndex()
    index.extend(parse_messages([u("hi"), call("c1", "c2"), res("c1", "AX-1"), res("c2", "ok")]))
    assert index.around([2]) == [1, 2, 3] and index.around([1]) == [1, 2, 3]
    assert index.around([0]) == [0]


def filled(memory: Memory) -> None:
    memory.add(u("My order number is BW-58214-K and it arrived damaged."))
    for i in range(12):
        memory.extend(turn(i))
    memory.extend([call("c1"), res("c1", '{"refund_id": "RF-2231", "amount": 89.5}')])
    for i in range(12, 24):
        memory.extend(turn(i))


def test_recall_finds_what_the_view_lost_exactly_as_it_was() -> None:
    memory = Memory("s", reducer=small_reducer())
    filled(memory)
    first = memory.history_messages()[0]
    assert first.id not in {m.id for m in memory.view()}  # summarized away
    (hit,) = memory.recall("BW-58214-K", k=1)
    assert hit.message == first and hit.position == 0 and hit.score > 0
    tool_hits = memory.recall("RF-2231")
    assert [h.message.role for h in tool_hits[:2]] == ["assistant", "tool"]  # the whole group
    assert memory.recall(id=first.id)[0].message == first
    assert memory.recall(id="m_unknown") == []
    # the view's own messages are found only when asked for
    last = memory.history_messages()[-1]
    word = last.text.split()[-1]
    assert all(h.message.id != last.id for h in memory.recall(word, k=50))
    assert any(h.message.id == last.id for h in memory.recall(word, k=50, evicted_only=False))


def test_the_index_follows_the_session_and_is_read_once() -> None:
    memory = Memory("s", reducer=small_reducer())
    filled(memory)
    memory.recall("BW-58214-K")
    reads: list[tuple[int, int | None]] = []
    history = memory.store.history

    def counting(session_id: str, start: int = 0, stop: int | None = None) -> list:  # type: ignore[type-arg]
        reads.append((start, stop))
        return history(session_id, start, stop)

    memory.store.history = counting  # type: ignore[method-assign]
    for i in range(24, 40):
        memory.extend(turn(i))
    memory.recall("BW-58214-K")
    assert reads and all(start >= 50 for start, _ in reads)  # only what was added since
    memory.store.history = history  # type: ignore[method-assign]
    memory.clear()
    assert memory.recall("BW-58214-K") == []  # cleared: the index starts again
    memory.add(u("A new start with order ZZ-1."))
    assert memory.recall("ZZ-1", evicted_only=False)[0].message.text.startswith("A new start")


def test_results_stop_before_the_token_cap_but_the_first_is_whole() -> None:
    memory = Memory("s", reducer=small_reducer())
    filled(memory)
    many = memory.recall("result", k=20)
    capped = memory.recall("result", k=20, max_tokens=20)
    assert len(many) >= 10 and 0 < len(capped) < len(many) and capped == many[: len(capped)]
    assert len(memory.recall("result", k=20, max_tokens=1)) >= 2  # the first group, whole


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"query": "a", "id": "b"},
        {"query": "  "},
        {"query": "a", "k": 0},
        {"query": "a", "max_tokens": -1},
    ],
)
def test_bad_arguments_name_the_problem(kwargs: dict) -> None:  # type: ignore[type-arg]
    memory = Memory("s")
    query = kwargs.pop("query", None)
    with pytest.raises(ConfigurationError, match="recall"):
        memory.recall(query, **kwargs)


def test_the_tool_answers_in_json_and_never_raises() -> None:
    memory = Memory("s", reducer=small_reducer())
    filled(memory)
    tool = memory.recall_tool(k=2)
    schema = tool.schema
    assert schema["function"]["name"] == "recall_conversation"
    assert set(schema["function"]["parameters"]["properties"]) == {"query", "message_id"}
    found = json.loads(tool('{"query": "BW-58214-K"}'))["results"]
    assert found[0]["content"].startswith("My order number is BW-58214-K")
    assert found[0]["position"] == 0 and found[0]["id"].startswith("m_")
    assert json.loads(tool({"query": "unknownword"}))["results"] == []
    for bad in ("{", "[1]", '{"query": 3}', "{}", '{"message_id": 7}'):
        assert "error" in json.loads(tool(bad)), bad


def test_async_memory_recalls_the_same() -> None:
    async def run() -> None:
        memory = AsyncMemory("s", reducer=small_reducer())
        await memory.add(u("My order number is BW-58214-K and it arrived damaged."))
        for i in range(12):
            await memory.extend(turn(i))
        (hit,) = await memory.recall("BW-58214-K", k=1)
        assert hit.position == 0
        tool = memory.recall_tool()
        assert (
            json.loads(await tool.acall('{"query": "BW-58214-K"}'))["results"][0]["position"] == 0
        )
        assert "error" in json.loads(await tool.acall("{}"))
        await memory.close()

    asyncio.run(run())


# -- what was dropped ---------------------------------------------------------------------


def test_each_reduction_records_what_no_summary_line_comes_from() -> None:
    from summem.recall import RecallTool
    from summem.reducers.summarization import RECALL_NOTE
    from summem.summarizers.extractive import ExtractiveSummarizer

    memory = Memory("s", reducer=small_reducer(ExtractiveSummarizer()))
    assert memory.uncovered_ids is None  # no summary yet
    filled(memory)
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    info = summary.summary_info
    uncovered = memory.uncovered_ids
    assert uncovered is not None and set(uncovered) <= set(info.covered_ids)
    cited = {i for e in info.extra["provenance"] for i in e["ids"]}
    assert set(uncovered) == set(info.covered_ids) - cited
    assert uncovered, "a 10-token summary of a long span drops something"
    dropped = memory.recall(id=uncovered[0])
    assert dropped and dropped[0].message.id == uncovered[0]  # dropped, yet within reach
    assert RecallTool.name in RECALL_NOTE


def test_the_recall_note_ends_the_summary_and_is_never_summarized_again() -> None:
    from summem import SummarizationReducer
    from summem.errors import ConfigurationError
    from summem.reducers.summarization import RECALL_NOTE
    from summem.summarizers.extractive import ExtractiveSummarizer
    from tests.fakes.counters import WordCounter

    def reducer(summary_max_tokens: int) -> SummarizationReducer:
        return SummarizationReducer(
            ExtractiveSummarizer(),
            token_counter=WordCounter(),
            threshold_tokens=100,
            target_tokens=60,
            summary_max_tokens=summary_max_tokens,
            recall_note=True,
        )

    with pytest.raises(ConfigurationError, match="recall_note"):
        reducer(20)  # the note alone would take most of it
    memory = Memory("s", reducer=reducer(40))
    filled(memory)
    text = memory.summary.text if memory.summary else ""
    assert text.endswith(RECALL_NOTE) and text.count(RECALL_NOTE) == 1  # after several rounds
    assert memory.size <= 100


def test_an_llm_summary_records_no_uncovered_ids() -> None:
    from tests.fakes.summarizers import FakeSummarizer

    memory = Memory("s", reducer=small_reducer(FakeSummarizer(reply="short")))
    filled(memory)
    assert memory.summary is not None and memory.uncovered_ids is None


def test_sessions_show_says_how_many_messages_no_line_cites() -> None:
    from summem.cli.render import dropped_line
    from summem.messages import SummaryInfo, assistant

    info = SummaryInfo(covered_ids=("a", "b", "c"), watermark=3, extra={"uncovered_ids": ["b"]})
    line = dropped_line(assistant("s").as_summary(info))
    assert line == "1 of the 3 new messages cited by no line (recall finds them)"
    plain = assistant("s").as_summary(SummaryInfo(covered_ids=("a",), watermark=1))
    assert dropped_line(plain) is None


def test_the_tool_never_hands_the_model_more_than_its_budget() -> None:
    memory = Memory("s", reducer=small_reducer())
    huge = "BW-58214-K " + "x" * 2_000_000
    memory.add(u(huge))
    for i in range(12):
        memory.extend(turn(i))
    reply = memory.recall_tool(max_tokens=500)('{"query": "BW-58214-K"}')
    assert len(reply) < 500 * 4 + 1000
    content = json.loads(reply)["results"][0]["content"]
    assert content.startswith("BW-58214-K") and "clipped: " in content
    assert memory.recall("BW-58214-K")[0].message.text == huge  # recall() itself is exact


def test_the_recall_package_imports_its_modules_only_on_first_use() -> None:
    """A package importing its own submodules while a memory imports one of them lazily in
    another thread can deadlock Python's import locks (a first recall() beside a first
    recall_tool())."""
    import subprocess
    import sys

    code = (
        "import sys, summem.recall as r; "
        "assert 'summem.recall.index' not in sys.modules; "
        "assert 'summem.recall.tool' not in sys.modules; "
        "assert r.RecallTool.__module__ == 'summem.recall.tool'; "
        "assert r.RecallHit.__module__ == 'summem.recall.index'; "
        "assert r.RECALL_TOOL_NAME"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
