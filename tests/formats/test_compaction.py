"""Provider compaction items: stored as they came, sent to their provider only, never summarized.

The wire shapes are the documented ones: OpenAI's Responses ``compaction`` item
(``{"type": "compaction", "id", "encrypted_content"}``), and Anthropic's ``compaction`` block
(``{"type": "compaction", "content", ...}``) as litellm keeps it on the assistant turn
(``provider_specific_fields["compaction_blocks"]``).
"""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from summem import AsyncMemory, Memory, SummarizationReducer
from summem.errors import MessageValidationError
from summem.events import MemoryEvent, ProviderItemsLeftOut
from summem.formats.compaction import (
    TWIN_OF,
    compaction_blocks,
    for_provider,
    natural_cut,
    provider_item,
)
from summem.formats.responses import to_items, to_messages
from summem.messages import Message
from summem.summarizers.render import render_transcript
from tests.stores.backends import BACKEND_PARAMS, backend_of

# a real-looking payload: base64 of random-ish bytes, mixed case and digits (what the
# transcript renderer would turn into "[binary data: N characters]")
SECRET = base64.b64encode(bytes((i * 37 + 11) % 256 for i in range(3000))).decode()
COMPACTION = {"type": "compaction", "id": "cmp_001", "encrypted_content": SECRET}
COMPACTION_FULL = {**COMPACTION, "created_by": "resp_abc"}  # a field summem does not know


def turn(n: int) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"question {n}: what is the code for order A{n}?"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": f"Order A{n} has code {1000 + n}."}],
        },
    ]


def big_reducer() -> SummarizationReducer:
    """A budget the test conversations never reach: only a provider item makes a summary."""
    return SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)


def test_a_compaction_item_is_a_provider_item_whose_text_names_it_only() -> None:
    [msg] = to_messages([COMPACTION_FULL])
    assert provider_item(msg) == {"provider": "openai", "kind": "compaction", "id": "cmp_001"}
    assert SECRET not in msg.text and msg.role == "assistant"
    assert to_items([msg]) == [COMPACTION_FULL]
    assert json.dumps(to_items([msg])[0]) == json.dumps(COMPACTION_FULL)  # key order too


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({"type": "compaction", "id": "cmp_1"}, "encrypted_content"),
        ({"type": "compaction", "encrypted_content": ""}, "encrypted_content"),
        ({"type": "compaction", "encrypted_content": "x", "id": 3}, "id"),
    ],
)
def test_a_malformed_compaction_item_is_refused_naming_the_field(
    item: dict[str, Any], field: str
) -> None:
    with pytest.raises(MessageValidationError, match=field) as info:
        to_messages([item])
    assert info.value.field == field
    # a session that keeps whatever it is given (SummemSession) keeps it opaque instead
    [opaque] = to_messages([item], unknown="opaque")
    assert to_items([opaque]) == [item] and provider_item(opaque) is None


def test_the_transcript_never_holds_a_compaction_item() -> None:
    msgs = to_messages([*turn(1), COMPACTION, *turn(2)])
    text = render_transcript(msgs)
    assert "binary data" not in text and SECRET[:40] not in text and "cmp_001" not in text
    assert "A1" in text and "A2" in text


def test_the_twin_is_committed_beside_the_item_and_the_views_follow_their_provider() -> None:
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=big_reducer(), hooks=[events.append])
    memory.add_items([*turn(1), *turn(2)])
    assert memory.summary is None
    memory.add_items([COMPACTION_FULL, *turn(3)])
    # the twin: summem's own summary of exactly the span the item stands for
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    link = twin.summary_info.extra[TWIN_OF]
    history = memory.history_messages()
    assert link == {
        "provider": "openai",
        "kind": "compaction",
        "id": "cmp_001",
        "message_id": history[4].id,
    }
    assert twin.summary_info.covered_ids == tuple(m.id for m in history[:4])
    assert "A1" in twin.text and "A2" in twin.text
    assert "binary data" not in twin.text and SECRET[:40] not in twin.text
    # OpenAI gets the item in place of what it stands for (no summary: the item holds it)
    assert memory.items() == [COMPACTION_FULL, *turn(3)]
    # chat completions cannot carry it: the twin stands in its place
    chat = memory.messages()
    assert chat[0]["content"] == twin.content
    assert [m["content"] for m in chat[1:]] == [
        turn(3)[0]["content"],
        [{"type": "text", "text": "Order A3 has code 1003."}],
    ]
    assert "opaque_item" not in json.dumps(chat)
    left_out = [e for e in events if isinstance(e, ProviderItemsLeftOut)]
    assert len(left_out) == 1
    assert left_out[0].message_ids == (history[4].id,) and left_out[0].providers == ("openai",)
    assert left_out[0].target is None
    memory.messages()
    assert len([e for e in events if isinstance(e, ProviderItemsLeftOut)]) == 1  # once
    # everything is still in the store, the item as it came
    assert len(memory.history()) == 7
    assert json.dumps(to_items(history)[4]) == json.dumps(COMPACTION_FULL)


def test_before_the_twin_lands_the_openai_view_cuts_at_the_item_and_others_keep_the_span() -> None:
    msgs = to_messages([*turn(1), COMPACTION, *turn(2)])
    view, dropped = for_provider(None, None, msgs, "openai")
    assert to_items(view) == [COMPACTION, *turn(2)] and dropped == []
    view, dropped = for_provider(None, None, msgs, None)
    assert [m.id for m in view] == [m.id for m in msgs if m is not msgs[2]]
    assert dropped == [msgs[2]]


def test_a_compaction_item_after_an_unanswered_call_is_no_cut_until_it_is_answered() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "code 7"}
    msgs = to_messages([*turn(1), call, COMPACTION])
    memory = Memory("s", reducer=big_reducer())
    memory.add_items([*turn(1), call, COMPACTION])
    assert natural_cut(msgs) == 3
    assert memory.summary is None  # the call's group would be split: no twin yet
    memory.add_items([output, *turn(2)])
    # answered: the group [call, compaction, output] is whole, the latest item starts no group
    assert memory.summary is None
    assert len(memory.history()) == 7


def test_only_the_latest_item_counts_and_no_summary_ever_reads_an_item() -> None:
    second = {"type": "compaction", "id": "cmp_002", "encrypted_content": SECRET[::-1]}
    memory = Memory(
        "s",
        reducer=SummarizationReducer(threshold_tokens=2_000, target_tokens=1_200),
    )
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    memory.add_items([*turn(3), second, *turn(4)])
    assert memory.items()[:1] == [second]
    for n in range(5, 40):
        memory.add_items(turn(n))
    memory.reduce()
    summaries = memory.summaries()
    assert summaries and memory.summary is not None
    twins = [s for s in summaries if s.summary_info and TWIN_OF in s.summary_info.extra]
    assert [t.summary_info.extra[TWIN_OF]["id"] for t in twins if t.summary_info] == [
        "cmp_001",
        "cmp_002",
    ]
    for s in summaries:
        assert "binary data" not in s.text and SECRET[:40] not in s.text
        assert SECRET[::-1][:40] not in s.text and "compaction item" not in s.text


def test_anthropic_blocks_go_back_to_anthropic_only() -> None:
    block = {"type": "compaction", "content": "User ordered A1 (code 1001).", "signature": "sig"}
    reply = {
        "role": "assistant",
        "content": "Noted.",
        "provider_specific_fields": {"compaction_blocks": [block]},
    }
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=big_reducer(), hooks=[events.append])
    memory.add({"role": "user", "content": "order A1 please"})
    memory.add({"role": "assistant", "content": "Done: code 1001."})
    memory.add({"role": "user", "content": "and now?"})
    memory.add(reply)
    memory.add({"role": "user", "content": "thanks"})
    msg = memory.history_messages()[3]
    assert compaction_blocks(msg) == [block]
    assert provider_item(msg) == {"provider": "anthropic", "kind": "compaction", "id": None}
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["provider"] == "anthropic"
    for_anthropic = memory.messages(provider="anthropic")
    assert for_anthropic[1] == reply
    for_others = memory.messages()
    assert for_others[1] == {"role": "assistant", "content": "Noted."}
    assert [e.target for e in events if isinstance(e, ProviderItemsLeftOut)] == [None]
    assert memory.history()[3] == reply  # stored as it came
    # the summarizer reads the turn's own text, never the block
    assert "User ordered" not in render_transcript([msg])


def test_an_unknown_provider_name_is_refused() -> None:
    from summem.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="provider"):
        Memory("s").messages(provider="gemini")  # type: ignore[arg-type]


async def test_async_memory_follows_the_same_rules() -> None:
    events: list[MemoryEvent] = []
    memory = AsyncMemory("s", reducer=big_reducer(), hooks=[events.append])
    await memory.add_items([*turn(1), COMPACTION, *turn(2)])
    assert await memory.items() == [COMPACTION, *turn(2)]
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_001"
    chat = await memory.messages()
    assert "opaque_item" not in json.dumps(chat)
    assert [type(e).__name__ for e in events].count("ProviderItemsLeftOut") == 1
    await memory.close()


@pytest.mark.parametrize("kind_mode", BACKEND_PARAMS)
def test_items_survive_every_store_reopen_and_export_byte_for_byte(
    kind_mode: tuple[str, str], tmp_path: Path
) -> None:
    with backend_of(kind_mode, tmp_path) as backend:
        memory = Memory("s", reducer=big_reducer(), store=backend.make())
        memory.add_items([*turn(1), COMPACTION_FULL, *turn(2)])
        sent = json.dumps(memory.items())
        twin = memory.summary
        assert twin is not None
        reopened = Memory("s", reducer=big_reducer(), store=backend.make())
        assert json.dumps(reopened.items()) == sent
        stored = reopened.history_messages()
        assert json.dumps(to_items(stored)[2]) == json.dumps(COMPACTION_FULL)
        again = reopened.summary
        assert again is not None and again.summary_info is not None
        assert again.summary_info.extra[TWIN_OF]["id"] == "cmp_001"
        data = json.loads(json.dumps(reopened.to_dict()))
        imported = Memory.from_dict({**data, "session_id": "copy"}, store=backend.make())
        assert json.dumps(imported.items()) == sent
        copied = imported.summary
        assert copied is not None and copied.summary_info is not None
        assert copied.text == twin.text
        assert copied.summary_info.extra[TWIN_OF]["id"] == "cmp_001"
        assert json.dumps(to_items(imported.history_messages())[2]) == json.dumps(COMPACTION_FULL)
        for m in (memory, reopened, imported):
            m.close()


def test_provider_item_reads_a_plain_message_as_none() -> None:
    assert provider_item(Message.from_openai({"role": "user", "content": "hi"})) is None


def test_the_twin_is_written_in_the_background_when_the_memory_reduces_there() -> None:
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            threshold_tokens=100_000, soft_threshold_tokens=80_000, target_tokens=50_000
        ),
        background=True,
    )
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    memory.wait()
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_001"
    assert memory.items() == [COMPACTION, *turn(2)]
    memory.close()


def test_a_view_for_anthropic_leaves_an_openai_item_out() -> None:
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=big_reducer(), hooks=[events.append])
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    for_claude = memory.messages(provider="anthropic")
    assert "opaque_item" not in json.dumps(for_claude) and "compaction" not in json.dumps(
        for_claude
    )
    [event] = [e for e in events if isinstance(e, ProviderItemsLeftOut)]
    assert event.target == "anthropic" and event.providers == ("openai",)


def test_an_opaque_item_is_not_summarized_either() -> None:
    encrypted = {"payload": SECRET, "session_id": "x"}  # as the SDK's EncryptedSession writes
    msgs = to_messages([*turn(1), encrypted, *turn(2)], unknown="opaque")
    text = render_transcript(msgs)
    assert "kept as it came" not in text and "binary data" not in text and "A2" in text


@pytest.mark.parametrize(("hard_limit", "twinned"), [(10, True), (5, False)])
def test_a_view_that_would_stay_past_its_ceiling_folds_the_item_in(
    hard_limit: int, twinned: bool
) -> None:
    users = [{"role": "user", "content": f"note {n}: code {1000 + n}"} for n in range(9)]
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            threshold_messages=4, target_messages=3, hard_limit_messages=hard_limit
        ),
    )
    memory.add_items([*users[:5], COMPACTION, *users[5:]])
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    assert (TWIN_OF in summary.summary_info.extra) is twinned
    assert "binary data" not in summary.text and SECRET[:40] not in summary.text
    if not twinned:  # the item went into the summary: the view fits its ceiling
        assert len(memory.view()) <= hard_limit
    assert len(memory.history()) == 10


@pytest.mark.parametrize("empty", ["", None])
def test_an_empty_anthropic_block_added_directly_is_a_no_op_not_a_twin(empty: str | None) -> None:
    """Anthropic's failed compaction (a block with empty ``content``) stands for nothing: a
    reply carrying only such a block, added with ``add`` rather than through the wrapper
    (which drops it), forces no reduction under the threshold, and is no natural cut."""
    reply = {
        "role": "assistant",
        "content": "Noted.",
        "provider_specific_fields": {
            "compaction_blocks": [{"type": "compaction", "content": empty}]
        },
    }
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=big_reducer(), hooks=[events.append])
    memory.extend(
        [{"role": "user", "content": "order A1 please"}, {"role": "assistant", "content": "ok"}]
    )
    memory.add(reply)
    memory.add({"role": "user", "content": "thanks"})
    assert memory.summary is None and not events
    assert natural_cut(memory.history_messages()) == 0
    assert memory.history()[2] == reply  # stored as it came


def test_a_chat_view_for_openai_never_carries_an_openai_compaction_item() -> None:
    """``messages(provider="openai")`` is a chat-completions view: chat completions has no
    compaction item (only Responses input, ``items()``, does), so the item is left out there
    as for any chat view, neither its label nor its encrypted JSON sent."""
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=big_reducer(), hooks=[events.append])
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    for_openai_chat = memory.messages(provider="openai")
    sent = json.dumps(for_openai_chat)
    assert SECRET[:40] not in sent and "opaque_item" not in sent
    assert "compaction item" not in sent
    assert for_openai_chat == memory.messages()
    left_out = [e for e in events if isinstance(e, ProviderItemsLeftOut)]
    assert left_out and left_out[0].providers == ("openai",)
    assert memory.items()[0] == COMPACTION  # Responses input still carries it


@pytest.mark.parametrize("max_tokens", [None, 300])
def test_the_recall_tool_gives_a_provider_item_as_its_label_never_its_payload(
    max_tokens: int | None,
) -> None:
    """Fetched by id (or found beside a match), an OpenAI compaction item is its label only:
    neither its encrypted JSON nor a "[binary data]" placeholder of it reaches the model; a
    reply carrying Anthropic blocks is its own text and calls, without the blocks."""
    from summem.recall.tool import hits_json

    block = {"type": "compaction", "content": "Claude's compacted notes.", "signature": "sig"}
    memory = Memory("s", reducer=big_reducer())
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    memory.add({"role": "user", "content": "giraffe?"})
    memory.add(
        {
            "role": "assistant",
            "content": "giraffe found",
            "provider_specific_fields": {"compaction_blocks": [block]},
        }
    )
    item_id = memory.history_messages()[2].id
    for hits in (
        memory.recall(id=item_id, evicted_only=False),
        memory.recall("giraffe", evicted_only=False),
    ):
        assert hits
        reply = hits_json(hits, max_tokens=max_tokens)
        assert SECRET[:40] not in reply and "binary data" not in reply
        assert "opaque_item" not in reply and "compaction_blocks" not in reply
        assert "notes" not in reply
    [hit] = memory.recall(id=item_id, evicted_only=False)
    assert hit.message.meta["provider_item"]["id"] == "cmp_001"  # the hit itself is whole


def test_while_reductions_are_paused_a_twin_is_still_linked_and_no_limit_is_claimed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The loop breaker paused automatic reductions: a provider item's twin is then written
    offline (the extractive summarizer, no model call), still linked to its item, and the
    log does not say the view is past its hard limit when it is far under it."""
    import logging

    from summem.reducers import ReductionsPaused

    memory = Memory("s", reducer=big_reducer())
    memory.add({"role": "user", "content": "order A1 please"})
    memory._core.paused = ReductionsPaused("ineffective", "as the breaker found it", 3)
    with caplog.at_level(logging.DEBUG, logger="summem"):
        memory.add_items([turn(1)[1], COMPACTION, *turn(2)])
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.summarizer == "extractive"
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_001"
    assert "past its hard limit" not in caplog.text
    assert memory.items()[0] == COMPACTION


def test_a_provider_compacting_every_turn_gets_a_twin_per_reductions_worth() -> None:
    """One item per turn: the first is twinned at once, each next twin only once the
    conversation since the last one holds a reduction's worth (threshold less target);
    every item is still kept, and sent."""
    reducer = SummarizationReducer(threshold_tokens=60_000, target_tokens=59_400)
    step = reducer.threshold - reducer.target
    memory = Memory("every-turn", reducer=reducer)
    per_turn = sum(reducer.size(m) for m in to_messages(turn(0)))
    turns = 60
    for n in range(turns):
        item = {"type": "compaction", "id": f"cmp_{n}", "encrypted_content": SECRET[: 400 + n]}
        memory.add_items([*turn(n), item])
    twins = [
        s.summary_info.extra[TWIN_OF]["id"]
        for s in memory.summaries()
        if s.summary_info is not None and TWIN_OF in s.summary_info.extra
    ]
    assert twins[0] == "cmp_0"
    assert 2 <= len(twins) <= 1 + turns * per_turn // step < turns // 3
    ids = [int(t.split("_")[1]) for t in twins]
    for before, after in itertools.pairwise(ids):
        assert (after - before) * per_turn >= step  # each twin stands for a reduction's worth
    # every item is kept; OpenAI is sent the latest, the chat view the turns since the twin
    assert len(memory.history()) == turns * 3
    assert memory.items()[0]["id"] == f"cmp_{turns - 1}"
    chat = json.dumps(memory.messages())
    assert f"question {ids[-1] + 1}:" in chat and f"question {turns - 1}:" in chat
    assert "encrypted_content" not in chat
