"""Where the kept turns are shown to an LLM summarizer with a ``{kept}`` prompt.

The prompt says they are "the turns right after the transcript". Two paths broke that:

- reusing the assistant's cached request (``reuse_cache``): the request already holds the kept
  turns it was sent with, right after the span, and the instruction repeated them in full (the
  same turns twice, paid twice). They are now named by position, as the span is; only those
  appended since the request was sent are written out.
- a span summarized in several calls (``max_chunk_tokens`` or the model's limit): every call
  was shown the kept turns, also a call whose chunk is followed by the next chunk. "ok, lock
  that in" then read as the answer to an offer the first chunk ends with, which the next chunk
  turns down. The kept turns now go with the last chunk only, the one they follow.
"""

from __future__ import annotations

from summem._flow import run_sync
from summem.clients.base import ChatRequest
from summem.messages import Message, assistant, system, user
from summem.summarizers.base import SummaryRequest
from summem.summarizers.llm import LLMSummarizer
from summem.summarizers.sent import STOP, SentView
from tests.fakes.counters import WordCounter
from tests.fakes.llm import FakeLLMClient


def _kept_block(chat: ChatRequest) -> str:
    text = "\n".join(str(m.get("content") or "") for m in chat.messages)
    assert "</kept_turns>" in text, "the prompt shows a kept-turns block"
    return text.rsplit("<kept_turns>", 1)[1].rsplit("</kept_turns>", 1)[0]


def _span() -> list[Message]:
    return [
        user("We're going to Leeds for the conference on Friday, SPAN-0."),
        assistant("I found two trains. Shall I hold the 7:40 to Leeds on Friday? SPAN-1"),
        user("No, too early, we'll drive instead. SPAN-2"),
        assistant("Noted, no train. Shall I book parking near the venue? SPAN-3"),
    ]


def _kept() -> list[Message]:
    return [user("ok, lock that in KEPT-0"), assistant("Done, parking booked. KEPT-1")]


def test_cache_reuse_names_the_kept_turns_above_and_writes_out_only_the_later_ones() -> None:
    head, span, kept = system("You are a travel assistant."), _span(), _kept()
    later = user("And a table for two at 8? KEPT-2")  # appended after the request was sent
    shown = [head, *span, *kept]
    sent = SentView.of([m.to_openai() for m in shown], shown, model="m")
    client = FakeLLMClient().enqueue("Drove to Leeds; parking booked.")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept", reuse_cache=True)
    request = SummaryRequest(
        messages=span,
        previous_summary=None,
        max_tokens=200,
        token_counter=WordCounter(),
        kept=(*kept, later),
        sent=sent,
    )
    run_sync(summarizer.summarize(request))
    (chat,) = client.calls
    assert chat.messages[: len(shown)] == list(sent.messages)  # the request, byte for byte
    instruction = str(chat.messages[-1]["content"])
    assert instruction.startswith(STOP)
    block = _kept_block(chat)
    assert "(messages #5 to #6 above)" in block  # the kept turns the request shows
    assert "KEPT-0" not in instruction and "KEPT-1" not in instruction  # not twice
    assert "KEPT-2" in block  # appended since: not above, so written out


def test_cache_reuse_writes_out_every_kept_turn_the_request_does_not_hold() -> None:
    head, span, kept = system("You are a travel assistant."), _span(), _kept()
    shown = [head, *span]  # sent before the kept turns were said
    sent = SentView.of([m.to_openai() for m in shown], shown, model="m")
    client = FakeLLMClient().enqueue("Drove to Leeds; parking booked.")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept", reuse_cache=True)
    request = SummaryRequest(
        messages=span,
        previous_summary=None,
        max_tokens=200,
        token_counter=WordCounter(),
        kept=tuple(kept),
        sent=sent,
    )
    run_sync(summarizer.summarize(request))
    block = _kept_block(client.calls[0])
    assert "above" not in block and "KEPT-0" in block and "KEPT-1" in block


def test_a_span_in_several_calls_shows_the_kept_turns_to_the_last_call_only() -> None:
    client = FakeLLMClient().enqueue("Leeds on Friday; 7:40 train offered.", "Drove; parking.")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept", max_chunk_tokens=30)
    request = SummaryRequest(
        messages=_span(),
        previous_summary=None,
        max_tokens=200,
        token_counter=WordCounter(),
        kept=tuple(_kept()),
    )
    run_sync(summarizer.summarize(request))
    assert len(client.calls) == 2  # the span in two chunks
    first, last = (_kept_block(c) for c in client.calls)
    assert "KEPT-" not in first  # followed by the next chunk, not by the kept turns
    assert "KEPT-0" in last and "KEPT-1" in last


def test_a_span_in_one_call_shows_the_kept_turns_as_before() -> None:
    client = FakeLLMClient().enqueue("Drove to Leeds; parking booked.")
    summarizer = LLMSummarizer("m", client=client, prompt="summarize-kept")
    request = SummaryRequest(
        messages=_span(),
        previous_summary=None,
        max_tokens=200,
        token_counter=WordCounter(),
        kept=tuple(_kept()),
    )
    run_sync(summarizer.summarize(request))
    assert "KEPT-0" in _kept_block(client.calls[0])
