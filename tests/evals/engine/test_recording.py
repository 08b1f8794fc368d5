from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.engine.config import EngineConfig, build_reducer
from evals.engine.recording import RecordingClient, ReplayingClient, ReplayMissError, request_key
from evals.engine.replay import replay
from evals.families.trajectories import generate_trajectory
from summem.clients.base import ChatRequest, ChatResponse
from summem.errors import ContextWindowExceededError, LLMError, LLMTransientError
from summem.tokens.base import resolve_counter
from tests.fakes.llm import ScriptedLLM


def request(text: str = "hello", **params: object) -> ChatRequest:
    return ChatRequest(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": text}],
        parameters=dict(params),
        max_output_tokens=100,
    )


class Failing:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise self.exc

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        raise self.exc

    def max_input_tokens(self, model: str) -> int | None:
        return None


def test_key_ignores_timeout_and_secret_values_but_not_content() -> None:
    base = request()
    assert request_key(base) == request_key(
        ChatRequest(base.model, base.messages, timeout=3.0, max_output_tokens=100)
    )
    assert request_key(request(api_key="sk-a")) == request_key(request(api_key="sk-b"))
    assert request_key(request("hello")) != request_key(request("hello!"))
    assert request_key(request(temperature=0)) != request_key(request(temperature=1))


def test_record_then_replay_gives_the_same_replies(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = RecordingClient(ScriptedLLM(), path)
    live = [recorder.complete(request(f"what is 2+{i}?")) for i in range(3)]
    replayer = ReplayingClient(path)
    assert len(replayer) == 3
    assert [replayer.complete(request(f"what is 2+{i}?")) for i in range(3)] == live


async def test_async_paths_record_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    reply = await RecordingClient(ScriptedLLM(), path).acomplete(request("day 12"))
    assert await ReplayingClient(path).acomplete(request("day 12")) == reply


def test_a_request_never_recorded_is_a_miss_not_a_guess(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    RecordingClient(ScriptedLLM(), path).complete(request("a"))
    with pytest.raises(ReplayMissError, match="no reply for this request"):
        ReplayingClient(path).complete(request("b"))


def test_repeated_requests_replay_in_order_then_repeat_the_last(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    lines = [
        {"key": request_key(request()), "model": "m", "response": {"text": t}}
        for t in ("first", "second")
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    client = ReplayingClient(path)
    assert [client.complete(request()).text for _ in range(3)] == ["first", "second", "second"]


def test_final_errors_are_recorded_and_raised_again_transient_ones_are_not(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    window = ContextWindowExceededError("too long", provider="openai", status_code=400)
    with pytest.raises(ContextWindowExceededError):
        RecordingClient(Failing(window), path).complete(request("long"))
    with pytest.raises(LLMTransientError):
        RecordingClient(Failing(LLMTransientError("busy")), path).complete(request("busy"))
    replayer = ReplayingClient(path)
    with pytest.raises(ContextWindowExceededError, match="too long") as info:
        replayer.complete(request("long"))
    assert info.value.status_code == 400
    with pytest.raises(ReplayMissError):
        replayer.complete(request("busy"))
    assert isinstance(info.value, LLMError)


def test_secrets_never_reach_the_recording(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    RecordingClient(ScriptedLLM(), path).complete(request("x", api_key="sk-SECRET-123"))
    text = path.read_text()
    assert "sk-SECRET-123" not in text
    assert "***" in text


def test_input_limit_is_recorded_for_the_replay(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    assert RecordingClient(ScriptedLLM(input_limit=9000), path).max_input_tokens("m") == 9000
    assert ReplayingClient(path).max_input_tokens("m") == 9000
    assert ReplayingClient(path).max_input_tokens("other") is None


def test_corrupt_recording_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text('{"meta": {}}\nnot json\n')
    with pytest.raises(ValueError, match=r"rec.jsonl:2"):
        ReplayingClient(path)


def test_an_llm_summarized_replay_reproduces_offline(tmp_path: Path) -> None:
    counter = resolve_counter(model="gpt-4o")
    config = EngineConfig(1200, 900, 250, summarizer="llm:gpt-4o-mini")
    messages = generate_trajectory(3, turns=50, facts=6).messages
    path = tmp_path / "rec.jsonl"
    live = RecordingClient(ScriptedLLM(), path)
    first = replay(messages, build_reducer(config, counter=counter, client=live))
    assert first.cycles and live.calls == sum(c.llm_calls for c in first.cycles)
    offline = ReplayingClient(path)
    second = replay(messages, build_reducer(config, counter=counter, client=offline))
    assert offline.calls == live.calls
    assert [c.watermark for c in second.cycles] == [c.watermark for c in first.cycles]
    assert second.summary is not None and first.summary is not None
    assert second.summary.text == first.summary.text
    assert first.violations == second.violations == ()
