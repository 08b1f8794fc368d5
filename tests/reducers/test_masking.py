"""Tool-result masking: which results become stubs, what a stub says, and that it is stable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from summem.conversation import boundaries
from summem.errors import ConfigurationError
from summem.messages import Message, parse_messages
from summem.reducers.masking import STUB_PREFIX, ToolMasking, mask_messages
from summem.reducers.records import reducer_from_record
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from tests.fakes.counters import WordCounter, words
from tests.fakes.summarizers import FakeSummarizer

COUNT = WordCounter().count_message


def tool_turn(i: int, name: str = "lookup_order", n_words: int = 60) -> list[dict[str, Any]]:
    """A user question, one call and a large JSON result, and the assistant's answer."""
    result = {"order_id": f"BW-{i}", "status": "shipped", "notes": words(n_words, "n")}
    return [
        {"role": "user", "content": f"where is order BW-{i}?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps({"order_id": f"BW-{i}"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)},
        {"role": "assistant", "content": f"order BW-{i} has shipped"},
    ]


def history(n: int, **kw: Any) -> list[Message]:
    return parse_messages([m for i in range(n) for m in tool_turn(i, **kw)])


def masked_ids(view: list[Message]) -> list[str]:
    return [m.tool_call_id or "" for m in view if m.role == "tool" and STUB_PREFIX in m.text]


def test_results_older_than_the_last_groups_become_stubs() -> None:
    msgs = history(5)
    view = mask_messages(msgs, ToolMasking(after=2, min_tokens=10), COUNT)
    assert masked_ids(view) == ["c0", "c1", "c2"]
    assert [m.id for m in view] == [m.id for m in msgs]  # ids kept: caches and provenance
    stub, original = view[2], msgs[2]
    assert stub.role == "tool" and stub.tool_call_id == "c0"
    assert stub.text.startswith(STUB_PREFIX + "lookup_order(order_id=BW-0) -> ")
    assert "status=shipped" in stub.text
    assert stub.text.endswith(f"full result: recall message_id={original.id}]")
    assert COUNT(stub) < COUNT(original)
    assert msgs[2].text == original.text  # the input is not changed
    assert boundaries(view).orphans == ()


def test_small_results_and_exempt_tools_stay_whole() -> None:
    msgs = history(4, n_words=3)
    assert masked_ids(mask_messages(msgs, ToolMasking(after=0, min_tokens=50), COUNT)) == []
    big = history(4, name="read_policy")
    masking = ToolMasking(after=0, min_tokens=10, exempt=frozenset({"read_policy"}))
    assert masked_ids(mask_messages(big, masking, COUNT)) == []


def test_a_pending_call_and_its_arrived_results_are_never_masked() -> None:
    msgs = parse_messages(
        [
            *tool_turn(0),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "p1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "p2", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "p1", "content": words(80, "r")},
        ]
    )
    view = mask_messages(msgs, ToolMasking(after=0, min_tokens=10), COUNT)
    assert masked_ids(view) == ["c0"]


def test_masking_is_idempotent_and_stable_across_turns() -> None:
    msgs = history(8)
    masking = ToolMasking(after=2, min_tokens=10)
    seen: dict[str, str] = {}
    for n in range(1, len(msgs) + 1):
        view = mask_messages(msgs[:n], masking, COUNT)
        assert mask_messages(view, masking, COUNT) == view  # a masked view is a fixed point
        for m in view:
            if m.id in seen:  # once masked, masked the same way on every later turn
                assert m.text == seen[m.id]
            if STUB_PREFIX in m.text:
                seen[m.id] = m.text
    assert len(seen) == 6


def test_plain_text_results_keep_their_text_clipped() -> None:
    msgs = parse_messages(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "x"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c", "content": words(400, "w")},
        ]
    )
    stub = mask_messages(msgs, ToolMasking(after=0, min_tokens=10), COUNT)[1]
    assert stub.text.startswith(STUB_PREFIX + "f() -> w0 w1") and len(stub.text) < 500


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"after": -1}, "mask_tool_results_after"),
        ({"min_tokens": -5}, "mask_min_tokens"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        ToolMasking(**kwargs)


def test_truncation_with_masking_fits_without_evicting() -> None:
    msgs = history(6)
    plain = TruncationReducer(threshold_tokens=400, target_tokens=300, token_counter=WordCounter())
    assert plain.reduce(msgs).reduced
    reducer = TruncationReducer(
        threshold_tokens=400,
        target_tokens=300,
        token_counter=WordCounter(),
        mask_tool_results_after=2,
        mask_min_tokens=10,
    )
    result = reducer.reduce(msgs)
    assert not result.reduced and result.size_after <= 400
    assert masked_ids(result.view) == ["c0", "c1", "c2", "c3"]
    assert result.size_after == sum(COUNT(m) for m in result.view)


def test_hybrid_masks_first_and_summarizes_the_originals() -> None:
    msgs = history(12)
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        threshold_tokens=300,
        target_tokens=200,
        summary_max_tokens=10,
        token_counter=WordCounter(),
        mask_tool_results_after=2,
        mask_min_tokens=10,
    )
    result = reducer.reduce(msgs)
    assert result.reduced and result.size_after <= 200
    assert all(STUB_PREFIX not in m.text for m in fake.seen)  # the summarizer reads originals
    assert [m.id for m in fake.seen] == [m.id for m in msgs[: len(result.evicted)]]


def test_masking_only_needs_no_summarizer_call() -> None:
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        threshold_tokens=400,
        target_tokens=300,
        summary_max_tokens=10,
        token_counter=WordCounter(),
        mask_tool_results_after=2,
        mask_min_tokens=10,
    )
    result = reducer.reduce(history(6))
    assert not result.reduced and fake.seen == [] and result.summarizer_calls == 0


def test_masking_settings_survive_the_record() -> None:
    reducer = SummarizationReducer(
        threshold_tokens=4000, mask_tool_results_after=1, mask_exempt_tools=("a", "b")
    )
    rebuilt: Any = reducer_from_record(reducer.record())
    assert rebuilt.masking == reducer.masking == ToolMasking(1, 200, frozenset({"a", "b"}))
    truncation: Any = reducer_from_record(
        TruncationReducer(threshold_messages=9, mask_tool_results_after=0).record()
    )
    assert truncation.masking == ToolMasking(0)
