"""An OpenAI compaction item counts by its payload's size, not its base64 as text.

OpenAI does not document what an item bills; the estimate is its decoded bytes at four a
token (:func:`summem.tokens.provider.encrypted_tokens`). Random base64 counted as text is
about 1.5 characters a token under ``o200k_base``: several times more.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from summem import Memory, SummarizationReducer
from summem.formats.compaction import openai_compaction_message
from summem.formats.responses import to_messages
from summem.messages import Message
from summem.tokens.base import ApproxCounter, TokenCounter, count_messages
from summem.tokens.openai import TiktokenCounter
from summem.tokens.provider import encrypted_tokens

COUNTERS = pytest.mark.parametrize(
    "counter", [ApproxCounter(), TiktokenCounter("gpt-4o")], ids=["approx", "tiktoken"]
)


def payload(n: int, seed: int = 7) -> str:
    return base64.b64encode(bytes((i * 131 + seed) % 256 for i in range(n))).decode()


def item(n: int, seed: int = 7) -> dict[str, Any]:
    return {"type": "compaction", "id": f"cmp_{seed}", "encrypted_content": payload(n, seed)}


def test_the_estimate_is_the_decoded_bytes_at_four_a_token() -> None:
    assert encrypted_tokens(payload(3000)) == 750
    assert encrypted_tokens(payload(3001)) == 751  # padding is not payload
    assert encrypted_tokens("") == 0


@COUNTERS
def test_a_compaction_item_counts_its_payload_by_size(counter: TokenCounter) -> None:
    message = openai_compaction_message(item(3000))
    as_text = counter.count_text(json.dumps(item(3000)))
    size = counter.count_message(message)
    assert 750 <= size <= 750 + 60  # the payload, then its id, type and the label
    assert size < as_text


@COUNTERS
def test_a_window_counts_as_text_and_its_item_by_size(counter: TokenCounter) -> None:
    window = [{"role": "user", "content": "My order is A17, code 4411. " * 30}]
    alone = counter.count_message(openai_compaction_message(item(3000)))
    both = counter.count_message(openai_compaction_message(item(3000), window))
    assert both - alone >= counter.count_text(window[0]["content"])


@COUNTERS
def test_any_other_opaque_item_counts_as_its_json(counter: TokenCounter) -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "encrypted_content": payload(3000)}
    label = "[reasoning]"
    message = Message.from_openai(
        {"role": "assistant", "content": label, "opaque_item": json.dumps(reasoning)}
    )
    plain = counter.count_message(Message.from_openai({"role": "assistant", "content": label}))
    assert counter.count_message(message) == plain + counter.count_text(json.dumps(reasoning))


def test_an_item_whose_json_is_past_the_budget_stays_in_a_view_within_it() -> None:
    """Counted as text, this item alone was past the threshold and was folded into a summary
    at once; by its payload it fits, stays where OpenAI reads it, and the view is in budget."""
    reducer = SummarizationReducer(threshold_tokens=3000, target_tokens=2000)
    memory = Memory("sized", reducer=reducer)
    big = item(6000)
    counter = reducer.token_counter
    assert counter.count_text(json.dumps(big)) > reducer.threshold
    memory.add_items([{"role": "user", "content": "My order is A17, code 4411."}, big])
    for n in range(10):
        memory.add_items([{"role": "user", "content": f"And order A{n}?"}])
        sent = memory.items()
        assert sent[0] == big
        assert count_messages(counter, to_messages(sent)) <= reducer.threshold
    assert memory.size <= reducer.threshold
