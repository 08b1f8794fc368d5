"""Delegated compaction on Anthropic: on-demand compaction through the real ``litellm.completion``.

Mocked at api.anthropic.com (respx): the request carries ``compaction: {"type": "summarize"}``
and the ``compact-2026-09-04`` beta; the reply is one ``compaction`` block with
``stop_reason: "compaction"``. The block stands for exactly the messages sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
import respx

from summem import Memory, SummarizationReducer, wrap_completion
from summem.events import MemoryEvent, ReductionCommitted
from summem.formats.compaction import PROVIDER_SUMMARY
from summem.messages import parse_messages
from summem.observe.cost import cost_usd
from summem.summarizers import AnthropicCompaction
from summem.summarizers.base import SummaryOutput
from summem.tokens.base import count_messages
from tests.fakes.replies import ANTHROPIC_URL, OPENAI_URL, anthropic_message, openai_completion
from tests.provider_rules import check_anthropic

CLAUDE = "anthropic/claude-sonnet-4-5"
BLOCK_TEXT = "The user asked about orders A0 to A3; their codes are 1000 to 1003."


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def compacted(content: str = BLOCK_TEXT) -> dict[str, Any]:
    body: dict[str, Any] = anthropic_message(None, stop_reason="compaction")
    body["content"] = [{"type": "compaction", "content": content, "signature": "sig_c1"}]
    body["usage"] = {"input_tokens": 700, "output_tokens": 90}
    return body


def talk(memory: Memory, turns: range) -> None:
    for n in turns:
        memory.add({"role": "user", "content": f"Order A{n}: what is its code?"})
        memory.add({"role": "assistant", "content": f"Order A{n} has code {1000 + n}."})


class Claude:
    """Answers compaction requests with ``compacted()`` (or ``block``), others with text."""

    def __init__(self, block: str = BLOCK_TEXT) -> None:
        self.block = block
        self.bodies: list[tuple[str, dict[str, Any], httpx.Headers]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        kind = "compact" if "compaction" in body else "chat"
        self.bodies.append((kind, body, request.headers))
        if kind == "compact":
            return httpx.Response(200, json=compacted(self.block))
        return httpx.Response(200, json=anthropic_message("Noted."))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [b for k, b, _ in self.bodies if k == kind]


def reducer(**kwargs: Any) -> SummarizationReducer:
    return SummarizationReducer(
        AnthropicCompaction(CLAUDE), threshold_messages=8, target_messages=4, **kwargs
    )


def test_claude_compacts_the_span_and_the_twin_stands_beside_it() -> None:
    claude = Claude()
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=reducer(), hooks=[events.append])
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        talk(memory, range(5))
    [(_, body, headers)] = claude.bodies
    assert body["compaction"] == {"type": "summarize"}
    assert "compact-2026-09-04" in headers.get("anthropic-beta", "")
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    covered = summary.summary_info.covered_ids
    sent = list(body["messages"])
    assert len(sent) == len(covered)  # exactly the span (it opens with a user turn)
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert held["block"] == {"type": "compaction", "content": BLOCK_TEXT, "signature": "sig_c1"}
    assert "A0" in summary.text and BLOCK_TEXT not in summary.text  # the twin is summem's own
    [committed] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert (committed.input_tokens, committed.output_tokens) == (700, 90)
    assert committed.cost_usd == pytest.approx(cost_usd(CLAUDE, 700, 90)) and committed.cost_usd
    # the block goes back to Claude only, right after the summary
    for_claude = memory.messages(provider="anthropic")
    assert for_claude[0]["content"] == summary.content
    assert for_claude[1]["provider_specific_fields"]["compaction_blocks"] == [held["block"]]
    assert "compaction" not in json.dumps(memory.messages())
    assert "compaction" not in json.dumps(memory.items())


def test_the_block_reaches_claude_through_the_wrapper_and_never_another_provider() -> None:
    claude = Claude()
    memory = Memory("s", reducer=reducer())
    import litellm

    completion = wrap_completion(litellm.completion, memory)
    gpt: list[dict[str, Any]] = []

    def openai(request: httpx.Request) -> httpx.Response:
        gpt.append(json.loads(request.content))
        return httpx.Response(200, json=openai_completion("From GPT."))

    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        router.post(OPENAI_URL).mock(side_effect=openai)
        for n in range(5):
            completion(model=CLAUDE, messages=[{"role": "user", "content": f"Order A{n}?"}])
        assert claude.of("compact"), "a reduction ran"
        completion(model=CLAUDE, messages=[{"role": "user", "content": "And now?"}])
        completion(model="gpt-4.1-mini", messages=[{"role": "user", "content": "Switch."}])
    last_claude = claude.of("chat")[-1]
    assert check_anthropic(last_claude) == []
    kinds = [
        [part.get("type") for part in m["content"]] if isinstance(m["content"], list) else "text"
        for m in last_claude["messages"]
    ]
    assert kinds[1][0] == "compaction"  # the summary's user turn, then the block's turn
    assert "compaction" not in json.dumps(gpt[-1]) and "provider_specific" not in json.dumps(gpt)


def test_an_empty_block_is_a_no_op_and_the_twin_is_committed_alone() -> None:
    claude = Claude(block="")
    memory = Memory("s", reducer=reducer())
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        talk(memory, range(5))
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert "empty" in held["failed"] and "block" not in held
    assert memory.messages(provider="anthropic")[0]["content"] == summary.content
    assert "compaction" not in json.dumps(memory.messages(provider="anthropic"))


def test_in_the_background_the_block_replaces_exactly_what_was_sent() -> None:
    arrived = threading.Event()
    release = threading.Event()
    claude = Claude()

    def slow(request: httpx.Request) -> httpx.Response:
        arrived.set()
        assert release.wait(30)
        return claude(request)

    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            AnthropicCompaction(CLAUDE),
            threshold_messages=12,
            soft_threshold_messages=8,
            target_messages=4,
        ),
        background=True,
    )
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=slow)
        talk(memory, range(5))  # past the soft threshold: the compaction starts, off the turn
        assert arrived.wait(30)
        talk(memory, range(5, 7))  # turns keep arriving while Claude compacts
        release.set()
        memory.wait()
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    [(_, body, _)] = claude.bodies
    covered = summary.summary_info.covered_ids
    assert len(body["messages"]) == len(covered)
    history = memory.history_messages()
    assert [m.id for m in history[: len(covered)]] == list(covered)
    view = memory.view()
    # the turns that arrived meanwhile are untouched, after the summary
    assert [m.text for m in view[-4:]] == [m.text for m in history[-4:]]
    assert len(history) == 14
    memory.close()


def test_an_empty_block_still_counts_the_call_claude_billed() -> None:
    """Claude read the whole span to answer its no-op: the call and its usage are spent and
    counted (events, ``memory.usage``, spend limits), though only the twin is committed."""
    claude = Claude(block="")
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=reducer(), hooks=[events.append])
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        talk(memory, range(5))
    [committed] = [e for e in events if isinstance(e, ReductionCommitted)]
    assert (committed.input_tokens, committed.output_tokens) == (700, 90)
    assert committed.cost_usd == pytest.approx(cost_usd(CLAUDE, 700, 90)) and committed.cost_usd
    assert memory.usage["summarizer_cost_usd"] == pytest.approx(committed.cost_usd)


# -- the budget: Claude's view sends the twin and the block's turn ----------------------------


def json_chars(messages: Sequence[dict[str, Any]]) -> int:
    """A counter that sees everything a message carries: its JSON, four characters a token."""
    return -(-len(json.dumps(list(messages), sort_keys=True)) // 4)


class Brief:
    """A twin much smaller than Claude's block."""

    name = "brief"

    def summarize(self, request: Any) -> SummaryOutput:
        return SummaryOutput(text="Orders were discussed.", summarizer=self.name)


def token_reducer() -> SummarizationReducer:
    return SummarizationReducer(
        AnthropicCompaction(CLAUDE, twin=Brief()),
        threshold_tokens=3000,
        target_tokens=2000,
        summary_max_tokens=600,
        token_counter=json_chars,
    )


def claude_view_size(memory: Memory) -> int:
    """What Claude's view sends, counted with the memory's own counter."""
    counter = memory.reducer.token_counter  # type: ignore[attr-defined]
    return count_messages(counter, parse_messages(memory.messages(provider="anthropic")))


def chat(memory: Memory, turns: range) -> list[int]:
    """Short questions, long answers; what Claude's view sends after each turn."""
    sizes = []
    for n in turns:
        memory.add({"role": "user", "content": f"Order A{n}: what is its code?"})
        memory.add(
            {
                "role": "assistant",
                "content": f"Order A{n} has code {1000 + n}. "
                + " ".join(
                    f"Line {k} of order A{n} ships from depot {k * 7 + n}." for k in range(8)
                ),
            }
        )
        sizes.append(claude_view_size(memory))
    return sizes


def test_claudes_view_stays_within_the_threshold_when_the_block_is_larger_than_the_twin() -> None:
    claude = Claude(block=" ".join(f"Order A{n} has code {1000 + n}." for n in range(60)))
    memory = Memory("s", reducer=token_reducer())
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        sizes = chat(memory, range(40))
    assert len(claude.of("compact")) > 1 and max(sizes) <= 3000, sizes
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    view = memory.messages(provider="anthropic")
    assert view[1]["provider_specific_fields"]["compaction_blocks"] == [held["block"]]
    counter = memory.reducer.token_counter  # type: ignore[attr-defined]
    turn = counter.count_message(parse_messages([view[1]])[0])
    assert turn > 10 * memory.reducer.size(summary)  # the block's turn dwarfs the twin
    assert memory.size >= claude_view_size(memory)  # counted at no less than it sends


def test_a_block_larger_than_the_summarys_room_falls_back_to_the_twin() -> None:
    huge = " ".join(f"Order A{n} has code {1000 + n}, shipped from depot {n}." for n in range(200))
    claude = Claude(block=huge)  # the block's turn alone is past the summary's room
    events: list[MemoryEvent] = []
    memory = Memory("s", reducer=token_reducer(), hooks=[events.append])
    with respx.mock(assert_all_mocked=True) as router:
        router.post(ANTHROPIC_URL).mock(side_effect=claude)
        sizes = chat(memory, range(40))
    assert claude.of("compact") and max(sizes) <= 3000, sizes
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    held = summary.summary_info.extra[PROVIDER_SUMMARY]
    assert held["provider"] == "anthropic" and "block" not in held
    assert "compaction block" in held["failed"] and "twin" in held["failed"]
    view = memory.messages(provider="anthropic")
    assert view[0]["content"] == summary.content and "compaction" not in json.dumps(view)
    # Claude answered and billed the pass: it is counted all the same
    committed = [e for e in events if isinstance(e, ReductionCommitted)]
    assert committed and all(e.input_tokens == 700 and e.output_tokens == 90 for e in committed)
