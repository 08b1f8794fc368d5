"""ChatRequest/ChatResponse values and the ChatCall step (retries, timeouts, both drivers)."""

from __future__ import annotations

import pytest

from summem._flow import Step
from summem._secrets import mask_parameters, secret_values
from summem.clients.base import ChatCall, ChatRequest, ChatResponse
from summem.errors import LLMError, LLMRetryError, LLMTransientError
from tests.fakes.llm import FakeClock, FakeLLMClient


def chat(**kwargs) -> ChatRequest:
    return ChatRequest(model="m", messages=[{"role": "user", "content": "secret chat"}], **kwargs)


def test_request_repr_hides_messages_and_secrets():
    req = chat(parameters={"api_key": "sk-abcdefgh", "max_tokens": 9, "temperature": 0})
    text = repr(req)
    assert "sk-abcdefgh" not in text and "secret chat" not in text
    assert "'max_tokens': 9" in text and "'api_key': '***'" in text


def test_mask_and_collect_secrets():
    params = {
        "api_key": "k1",
        "azure_ad_token": "t1",
        "max_completion_tokens": 5,
        "extra_headers": {"Authorization": "Bearer b1", "X-Trace": "t"},
    }
    masked = mask_parameters(params)
    assert masked["api_key"] == masked["azure_ad_token"] == masked["extra_headers"] == "***"
    assert masked["max_completion_tokens"] == 5
    assert sorted(secret_values(params)) == ["Bearer b1", "k1", "t1"]


def test_chat_call_is_a_step():
    assert isinstance(ChatCall(FakeLLMClient(), chat()), Step)


async def test_chat_call_retries_and_counts_attempts(mode):
    clock = FakeClock()
    client = FakeLLMClient().enqueue(LLMTransientError("503"), ChatResponse(text="hi"))
    step = ChatCall(client, chat(), clock.policy())
    response = step.run() if mode == "sync" else await step.arun()
    assert response.text == "hi"
    assert step.attempts == 2
    assert clock.sleeps == [0.5]


async def test_chat_call_keeps_attempts_after_failure(mode):
    clock = FakeClock()
    client = FakeLLMClient().enqueue(*[LLMTransientError("503") for _ in range(3)])
    step = ChatCall(client, chat(), clock.policy(max_attempts=3))
    with pytest.raises(LLMRetryError):
        step.run() if mode == "sync" else await step.arun()
    assert step.attempts == 3


def test_non_transient_errors_are_not_retried():
    client = FakeLLMClient().enqueue(LLMError("nope", status_code=400), ChatResponse(text="x"))
    step = ChatCall(client, chat(), FakeClock().policy())
    with pytest.raises(LLMError):
        step.run()
    assert step.attempts == 1


def test_timeout_is_clipped_to_the_deadline():
    clock = FakeClock()
    client = FakeLLMClient().enqueue(ChatResponse(text="a"), ChatResponse(text="b"))
    ChatCall(client, chat(timeout=30.0), clock.policy(deadline_seconds=12.0)).run()
    ChatCall(client, chat(timeout=5.0), clock.policy(deadline_seconds=12.0)).run()
    assert [c.timeout for c in client.calls] == [12.0, 5.0]


def test_no_deadline_keeps_the_requests_timeout():
    client = FakeLLMClient().enqueue(ChatResponse(text="a"))
    ChatCall(client, chat(), FakeClock().policy(deadline_seconds=None)).run()
    assert client.calls[0].timeout is None
