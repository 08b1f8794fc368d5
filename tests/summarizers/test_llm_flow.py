"""LLMSummarizer's flow with a fake client: configuration, requests, chunking, rounds."""

from __future__ import annotations

import subprocess
import sys

import openai
import pytest

from summem._flow import run_sync
from summem.clients.base import ChatResponse, LLMClient
from summem.clients.litellm import LiteLLMClient
from summem.clients.openai import OpenAIClient
from summem.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    InvalidSummaryError,
    LLMError,
    SummarizationError,
)
from summem.messages import user
from summem.prompts import load_prompt
from summem.summarizers.base import Summarizer, SummaryRequest
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.counters import WordCounter, words
from tests.fakes.llm import FakeClock, FakeLLMClient
from tests.fakes.providers import drive


def request(n: int = 4, size: int = 10, previous: str | None = None) -> SummaryRequest:
    return SummaryRequest(
        messages=[user(f"M{i} " + words(size - 1)) for i in range(n)],  # 3 + size tokens each
        previous_summary=previous,
        max_tokens=50,
        token_counter=WordCounter(),
    )


def fake_summarizer(client: FakeLLMClient, **kwargs) -> LLMSummarizer:
    kwargs.setdefault("retry", FakeClock().policy())
    return LLMSummarizer("fake-model", client=client, **kwargs)


def test_is_a_summarizer_named_after_its_model():
    s = fake_summarizer(FakeLLMClient())
    assert isinstance(s, Summarizer)
    assert s.name == "llm:fake-model"
    assert isinstance(FakeLLMClient(), LLMClient)


def test_model_is_required():
    with pytest.raises(ConfigurationError):
        LLMSummarizer(client=FakeLLMClient())
    with pytest.raises(ConfigurationError):
        LLMSummarizer("m", client=FakeLLMClient(), max_rounds=0)
    with pytest.raises(ConfigurationError):
        LLMSummarizer("m", client=FakeLLMClient(), max_chunk_tokens=0)


def test_client_resolution():
    assert isinstance(LLMSummarizer("gpt-4o-mini").client, LiteLLMClient)
    sdk = LLMSummarizer("gpt-4o-mini", client=openai.OpenAI(api_key="sk-x"))
    assert isinstance(sdk.client, OpenAIClient)
    only_async = LLMSummarizer("gpt-4o-mini", client=openai.AsyncOpenAI(api_key="sk-x"))
    assert isinstance(only_async.client, OpenAIClient)
    fake = FakeLLMClient()
    assert fake_summarizer(fake).client is fake
    with pytest.raises(ConfigurationError):
        LLMSummarizer("m", client=object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="api_key"):
        LLMSummarizer("m", client=openai.OpenAI(api_key="sk-x"), api_key="sk-y")


def test_litellm_connection_settings_go_to_the_client_not_the_request():
    s = LLMSummarizer("gpt-4o-mini", api_key="sk-abc123456789", api_base="http://x", top_p=0.5)
    assert "sk-abc123456789" not in repr(s)
    assert s.parameters == {"top_p": 0.5}
    assert isinstance(s.client, LiteLLMClient)


def test_request_carries_prompt_parameters_and_overrides():
    client = FakeLLMClient().enqueue("S", "S")
    run_sync(fake_summarizer(client).summarize(request()))
    run_sync(fake_summarizer(client, temperature=0.7, seed=3, timeout=9).summarize(request()))
    first, second = client.calls
    assert first.parameters == {"temperature": 0}  # from prompts/summarize.yaml
    assert second.parameters == {"temperature": 0.7, "seed": 3}
    assert second.timeout == pytest.approx(9.0)  # below the 60s deadline
    assert first.max_output_tokens == 50 + 256
    assert first.messages[0]["role"] == "system"
    assert "M0" in first.messages[-1]["content"]


def test_an_explicit_output_cap_replaces_ours():
    client = FakeLLMClient().enqueue("S")
    run_sync(fake_summarizer(client, max_tokens=77).summarize(request()))
    assert client.calls[0].max_output_tokens is None
    assert client.calls[0].parameters["max_tokens"] == 77


def test_prompt_can_be_a_template_or_a_path(tmp_path):
    template = load_prompt("summarize")
    assert fake_summarizer(FakeLLMClient(), prompt=template).prompt is template
    path = tmp_path / "mine.yaml"
    path.write_text(
        'name: mine\nversion: "3"\nmessages:\n  - role: user\n    content: '
        '"{previous_summary} {transcript} {max_tokens}"\n'
    )
    client = FakeLLMClient().enqueue("S")
    out = run_sync(fake_summarizer(client, prompt=path).summarize(request()))
    assert out.prompt == "mine@3"
    assert len(client.calls[0].messages) == 1


async def test_max_chunk_tokens_summarizes_in_rounds(mode):
    client = FakeLLMClient().enqueue("S1", "S2", "S3", "S4")
    s = fake_summarizer(client, max_chunk_tokens=30)  # 13 tokens a message: 2 per chunk
    out = await drive(s.summarize(request(n=4, previous="OLD")), mode)
    assert len(client.calls) == 2
    assert out.text == "S2"
    assert out.calls == 2 and out.extra["rounds"] == 2
    first, second = (c.messages[-1]["content"] for c in client.calls)
    assert "OLD" in first and "M1" in first and "M2" not in first
    assert "S1" in second and "M3" in second and "OLD" not in second


async def test_a_span_needing_more_rounds_than_allowed_fails_before_any_call(mode):
    client = FakeLLMClient().enqueue("S")
    s = fake_summarizer(client, max_chunk_tokens=13, max_rounds=3)
    with pytest.raises(SummarizationError, match="needs at least 4 calls"):
        await drive(s.summarize(request(n=4)), mode)
    assert client.calls == []


class SlowClient(FakeLLMClient):
    """Each call takes ``seconds`` on ``clock`` and records the timeout it was given."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds = clock, seconds

    def _next(self, request):
        self.clock.advance(self.seconds)
        return super()._next(request)


async def test_the_deadline_bounds_every_round_together(mode):
    clock = FakeClock()
    client = SlowClient(clock, 4.0).enqueue("S1", "S2", "S3", "S4")
    s = LLMSummarizer(
        "fake-model",
        client=client,
        retry=clock.policy(deadline_seconds=10.0),
        max_chunk_tokens=13,  # one message a round: 4 rounds of 4s each
    )
    with pytest.raises(SummarizationError, match=r"deadline of 10s reached after 3 round") as info:
        await drive(s.summarize(request(n=4)), mode)
    assert len(client.calls) == 3
    # Each call may only use what is left of the one deadline: 10s, then 6s, then 2s.
    assert [c.timeout for c in client.calls] == pytest.approx([10.0, 6.0, 2.0])
    assert "fake-model" in str(info.value)


async def test_without_a_deadline_every_round_runs(mode):
    clock = FakeClock()
    client = SlowClient(clock, 40.0).enqueue("S1", "S2", "S3", "S4")
    s = LLMSummarizer(
        "fake-model",
        client=client,
        retry=clock.policy(deadline_seconds=None),
        max_chunk_tokens=13,
    )
    out = await drive(s.summarize(request(n=4)), mode)
    assert out.text == "S4" and len(client.calls) == 4


def test_a_known_input_limit_splits_the_span_before_calling():
    req = request(n=6, size=100)  # 6 messages of 103 tokens
    client = FakeLLMClient(input_limit=1200).enqueue(*[f"S{i}" for i in range(6)])
    s = fake_summarizer(client)
    budget = s._span_budget(req)
    assert budget is not None and 206 <= budget < 618  # the prompt and the reply take room
    out = run_sync(s.summarize(req))
    assert 1 < len(client.calls) < 6
    assert out.calls == len(client.calls)
    transcripts = [c.messages[-1]["content"] for c in client.calls]
    assert all(f"M{i} " in "".join(transcripts) for i in range(6))
    assert all(t.count("[user]") * 103 <= budget for t in transcripts)


def test_context_errors_from_a_client_split_the_span():
    too_big = ContextWindowExceededError("too big", provider="fake", model="fake-model")
    client = FakeLLMClient().enqueue(too_big, "S1", "S2")
    out = run_sync(fake_summarizer(client).summarize(request(n=4)))
    assert [len(c.messages[-1]["content"].split("[user]")) - 1 for c in client.calls] == [4, 2, 2]
    assert out.text == "S2"


def test_an_invalid_round_fails_the_whole_span():
    client = FakeLLMClient().enqueue("S1", ChatResponse(text="half", finish_reason="length"))
    with pytest.raises(InvalidSummaryError):
        run_sync(fake_summarizer(client, max_chunk_tokens=30).summarize(request(n=4)))
    assert len(client.calls) == 2


def test_llm_errors_become_one_summarization_error_with_the_cause():
    boom = LLMError("forbidden", provider="fake", model="fake-model", status_code=403)
    client = FakeLLMClient().enqueue(boom)
    with pytest.raises(SummarizationError) as info:
        run_sync(fake_summarizer(client).summarize(request()))
    assert info.value.__cause__ is boom
    assert "status=403" in str(info.value) and "provider=fake" in str(info.value)


def test_programming_errors_are_not_disguised():
    client = FakeLLMClient().enqueue(TypeError("bug"))
    with pytest.raises(TypeError):
        run_sync(fake_summarizer(client).summarize(request()))


def test_summary_text_is_stripped():
    client = FakeLLMClient().enqueue("  \n S \n")
    assert run_sync(fake_summarizer(client).summarize(request())).text == "S"


def test_import_summem_does_not_import_litellm():
    code = (
        "import sys, summem\n"
        "from summem.summarizers.llm import LLMSummarizer\n"
        "from summem.clients.litellm import LiteLLMClient\n"
        "s = LLMSummarizer('gpt-4o-mini', api_key='sk-x')\n"
        "assert isinstance(s.client, LiteLLMClient)\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def one_huge_message(n_words: int = 3000) -> SummaryRequest:
    return SummaryRequest(
        messages=[user("HEAD " + words(n_words - 2) + " TAIL")],
        previous_summary=None,
        max_tokens=50,
        token_counter=WordCounter(),
    )


def test_a_single_message_over_the_chunk_budget_is_clipped_not_failed():
    client = FakeLLMClient().enqueue("S")
    out = run_sync(fake_summarizer(client, max_chunk_tokens=300).summarize(one_huge_message()))
    assert out.text == "S" and out.extra["clipped_messages"] == 1 and len(client.calls) == 1
    transcript = client.calls[0].messages[-1]["content"]
    assert "HEAD" in transcript and "TAIL" not in transcript
    assert "more characters elided]" in transcript
    assert len(transcript.split()) < 600  # about the 300-token budget, not 3000 words


def test_context_errors_on_a_single_message_clip_it_further_until_it_fits():
    too_big = ContextWindowExceededError("too big", provider="fake", model="fake-model")
    client = FakeLLMClient().enqueue(too_big, too_big, "S")
    out = run_sync(fake_summarizer(client).summarize(one_huge_message()))
    assert out.text == "S" and out.extra["clipped_messages"] == 1
    sizes = [len(c.messages[-1]["content"]) for c in client.calls]
    assert sizes[0] > sizes[1] > sizes[2]  # whole, then half, then a quarter
    assert sizes[2] < sizes[0] / 3


def test_clipping_a_message_the_model_always_refuses_ends():
    too_big = ContextWindowExceededError("too big", provider="fake", model="fake-model")
    client = FakeLLMClient().enqueue(*[too_big] * 50)
    with pytest.raises(SummarizationError, match="single message does not fit"):
        run_sync(fake_summarizer(client, max_rounds=50).summarize(one_huge_message()))
    # halving from ~20k characters down to the 200-character floor: a handful of calls
    assert 3 <= len(client.calls) <= 10
