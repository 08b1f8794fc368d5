"""An Anthropic compaction block's summary is text the model reads: every counter counts it."""

from __future__ import annotations

import pytest

from summem.messages import Message
from summem.tokens.base import ApproxCounter, TokenCounter
from summem.tokens.openai import TiktokenCounter

SUMMARY = " ".join(
    f"The user asked about order A{i} and its refund code {1000 + i}." for i in range(40)
)


def _turn(blocks: list[dict[str, object]]) -> Message:
    return Message.from_openai(
        {
            "role": "assistant",
            "content": "Done.",
            "provider_specific_fields": {"compaction_blocks": blocks},
        }
    )


@pytest.mark.parametrize(
    "counter", [ApproxCounter(), TiktokenCounter("gpt-4o")], ids=["approx", "tiktoken"]
)
def test_a_compaction_blocks_summary_counts_like_the_text_it_is(counter: TokenCounter) -> None:
    plain = counter.count_message(Message.from_openai({"role": "assistant", "content": "Done."}))
    carrying = counter.count_message(_turn([{"type": "compaction", "content": SUMMARY}]))
    assert carrying - plain == counter.count_text(SUMMARY) > 300
    # an empty block (Anthropic's no-op) and other provider fields add nothing
    assert counter.count_message(_turn([{"type": "compaction", "content": ""}])) == plain
    other = Message.from_openai(
        {"role": "assistant", "content": "Done.", "provider_specific_fields": {"x": SUMMARY}}
    )
    assert counter.count_message(other) == plain
