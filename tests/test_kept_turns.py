"""The turns a reduction keeps reach the summarizer as read-only context (``kept``)."""

from __future__ import annotations

import asyncio
import copy
import pickle
import threading
from dataclasses import dataclass, field

import pytest

from summem.async_memory import AsyncMemory
from summem.memory import Memory
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.base import Flow, SummaryOutput, SummaryRequest, done
from summem.summarizers.hooks import redact_on_read
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.counters import WordCounter
from tests.fakes.llm import FakeLLMClient
from tests.fakes.memory import small_reducer
from tests.fakes.messages import turn, u
from tests.fakes.summarizers import FakeSummarizer


def _ids(messages: object) -> list[str]:
    return [m.id for m in messages]  # type: ignore[attr-defined]


def test_the_pure_reducer_hands_the_summarizer_the_turns_it_keeps() -> None:
    fake = FakeSummarizer()
    reducer = SummarizationReducer(
        fake,
        token_counter=WordCounter(),
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=10,
    )
    messages = [m for i in range(6) for m in turn(i)]
    result = reducer.reduce(messages)
    assert result.reduced
    request = fake.requests[-1]
    kept = [m for m in result.view if not m.is_summary]
    assert _ids(request.kept) == _ids(kept) and kept  # the view after it, in order
    assert not set(_ids(request.kept)) & set(_ids(request.messages))  # never the span


def _kept_match_the_view(memory_view: list[Message], fake: FakeSummarizer) -> None:
    request = fake.requests[-1]
    assert request.kept  # a reduction keeps the newest turns
    tail = [m.id for m in memory_view if not m.is_summary and m.role != "system"]
    assert set(_ids(request.kept)) <= set(tail)  # what stays verbatim (later turns appended)
    assert not set(_ids(request.kept)) & set(_ids(request.messages))


def test_a_memory_hands_the_summarizer_the_turns_it_keeps_sync_and_async() -> None:
    fake = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(fake))
    for i in range(12):
        memory.extend(turn(i))
    _kept_match_the_view(memory.view(), fake)

    async def run() -> tuple[list[Message], FakeSummarizer]:
        afake = FakeSummarizer()
        amemory = AsyncMemory("s", reducer=small_reducer(afake))
        for i in range(12):
            await amemory.extend(turn(i))
        return await amemory.view(), afake

    view, afake = asyncio.run(run())
    _kept_match_the_view(view, afake)


def test_recompute_hands_every_span_the_turns_the_view_keeps() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(30):
        memory.extend(turn(i))
    memory.add(u("last words"))
    fresh = FakeSummarizer(reply="recomputed")
    memory.recompute(summarizer=fresh)
    tail = [m.id for m in memory.view() if not m.is_summary and m.role != "system"]
    assert len(fresh.requests) > 1
    assert all(_ids(r.kept) == tail for r in fresh.requests)


def test_a_span_before_later_spans_takes_no_reply_from_the_kept_turns() -> None:
    """The kept turns follow the last span only: an earlier span's offer is not theirs to decide.

    Every span of a reduction gets ``kept``; "ok, lock that in" answered the last span, not the
    train the user turned down in the next one (review19).
    """
    from summem._flow import run_sync
    from summem.session.plan import summarize_span
    from summem.summarizers.extractive import ExtractiveSummarizer

    def m(i: str, role: str, text: str) -> Message:
        return Message.from_openai({"role": role, "content": text}, id=i)

    reducer = SummarizationReducer(
        ExtractiveSummarizer(),
        token_counter=WordCounter(),
        threshold_tokens=400,
        target_tokens=200,
        summary_max_tokens=120,
    )
    first = [
        m("u1", "user", "We're going to Leeds for the conference on Friday."),
        m("a1", "assistant", "I found two trains. Shall I hold the 7:40 to Leeds on Friday?"),
    ]
    second = [
        m("u2", "user", "No, too early, we'll drive instead."),
        m("a2", "assistant", "Noted, no train. Shall I book parking near the venue?"),
    ]
    kept = (m("u3", "user", "ok, lock that in"),)
    summary, _ = run_sync(summarize_span(reducer, first, second, None, watermark=2, kept=kept))
    assert summary.content is not None and "lock that in" not in summary.content


class _Counting:
    """A redactor that masks ``w`` words and records every text it was given."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, text: str) -> str:
        self.seen.append(text)
        return " ".join("[w]" if "w" in word else word for word in text.split())


def _redacting(summarizer: object, redactor: _Counting) -> SummarizationReducer:
    return SummarizationReducer(
        summarizer,  # type: ignore[arg-type]
        token_counter=WordCounter(),
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=10,
        redactor=redactor,
    )


def _history() -> list[Message]:
    turns = [m for i in range(6) for m in turn(i)]
    return [Message.from_openai(m, id=f"m{k}") for k, m in enumerate(turns)]


def test_a_summarizer_that_never_reads_the_kept_turns_costs_no_redaction_of_them() -> None:
    fake, redactor, history = FakeSummarizer(), _Counting(), _history()
    result = _redacting(fake, redactor).reduce(history)
    assert result.reduced
    request = fake.requests[-1]
    assert len(request.kept) == len([m for m in result.view if not m.is_summary])
    kept_texts = {m.text for m in result.view if not m.is_summary and m.text}
    span_ids = {m.id for m in request.messages}
    span_texts = {m.text for m in history if m.id in span_ids and m.text}
    assert kept_texts and span_texts <= set(redactor.seen)  # the span is redacted, as before
    assert not kept_texts & set(redactor.seen)  # the kept turns were never redacted


@dataclass
class _Reader:
    """A summarizer that reads the kept turns' text."""

    name: str = "reader"
    read: list[str] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.read.extend(m.text for m in request.kept if m.text)
        return done(SummaryOutput(text="S", summarizer=self.name))


def test_a_summarizer_that_reads_the_kept_turns_reads_them_redacted() -> None:
    reader, redactor = _Reader(), _Counting()
    result = _redacting(reader, redactor).reduce(_history())
    read = reader.read
    assert result.reduced and read
    kept_texts = [m.text for m in result.view if not m.is_summary and m.text]
    assert read == [redactor(t) for t in kept_texts]  # each one redacted
    assert all("w" not in word for text in read for word in text.split() if word != "[w]")


def test_kept_turns_redacted_on_read_never_hand_out_the_unredacted_text() -> None:
    messages = [Message.from_openai(u("my pin is w1234"), id="k0")]
    redactor = _Counting()
    kept = redact_on_read(messages, redactor)
    assert len(kept) == 1 and bool(kept) and not redactor.seen  # no pass for the length
    assert "w1234" not in repr(kept) and "w1234" not in repr(pickle.loads(pickle.dumps(kept)))
    assert copy.deepcopy(kept) == kept == tuple(kept) and kept[0].text == "my pin is [w]"
    assert redactor.seen == ["my pin is w1234"]  # once, however often read


@pytest.mark.parametrize("prompt", ["summarize", "summarize-kept"])
def test_an_llm_prompt_with_kept_gets_them_redacted_one_without_costs_no_pass(prompt: str) -> None:
    client = FakeLLMClient().enqueue("S")
    redactor, history = _Counting(), _history()
    summarizer = LLMSummarizer("gpt-4o-mini", client=client, prompt=prompt)
    result = _redacting(summarizer, redactor).reduce(history)
    assert result.reduced
    kept_texts = [m.text for m in result.view if not m.is_summary and m.text]
    sent = "\n".join(str(m["content"]) for m in client.calls[-1].messages)
    if prompt == "summarize":  # no {kept}: never read, never redacted, never sent
        assert not set(kept_texts) & set(redactor.seen)
        assert "<kept_turns>" not in sent and not any(t in sent for t in kept_texts)
    else:
        assert set(kept_texts) <= set(redactor.seen)
        kept_block = sent[sent.index("<kept_turns>") : sent.index("</kept_turns>")]
        assert all(redactor(t) in kept_block for t in kept_texts)  # redacted, as the span is
        assert not any(t in sent for t in kept_texts if "w" in t)  # nothing unredacted


def test_kept_turns_read_from_two_threads_at_once_are_redacted_once() -> None:
    """A second reader waits for the first one's pass: no second pass, never a half state.

    Unlocked, both readers saw nothing redacted yet and both ran the redactor; a reader between
    the first one's two writes could even read the turns as empty (review20).
    """
    messages = [Message.from_openai(u("my pin is w1234"), id="k0")]
    second_in = threading.Event()
    seen: list[str] = []

    def slow(text: str) -> str:
        seen.append(text)
        if len(seen) == 1:
            second_in.wait(0.3)  # the second reader comes in meanwhile (if it can)
        else:
            second_in.set()
        return text.replace("w1234", "[w]")

    kept = redact_on_read(messages, slow)
    read: list[int] = []
    first = threading.Thread(target=lambda: read.append(len(list(kept))))
    first.start()
    while not seen:
        threading.Event().wait(0.001)
    second = threading.Thread(target=lambda: read.append(len(list(kept))))
    second.start()
    first.join()
    second.join()
    assert read == [1, 1] and len(kept) == 1 and kept[0].text == "my pin is [w]"
    assert seen == ["my pin is w1234"]  # one pass
