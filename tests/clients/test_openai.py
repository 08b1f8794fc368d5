"""OpenAIClient against the real openai SDK, intercepted by respx at the transport."""

from __future__ import annotations

import httpx
import openai
import pytest

from summem.clients.base import ChatRequest, LLMClient
from summem.clients.openai import OpenAIClient
from summem.errors import (
    ConfigurationError,
    ContextWindowExceededError,
    LLMError,
    LLMTransientError,
)
from tests.fakes.providers import SENTINEL_KEY
from tests.fakes.replies import (
    OPENAI_URL,
    openai_completion,
    openai_error,
    request_json,
    request_timeout,
)


def chat(**kwargs) -> ChatRequest:
    kwargs.setdefault("messages", [{"role": "user", "content": "hello"}])
    return ChatRequest(model="gpt-4o-mini", **kwargs)


def both() -> OpenAIClient:
    return OpenAIClient(
        openai.OpenAI(api_key=SENTINEL_KEY), openai.AsyncOpenAI(api_key=SENTINEL_KEY)
    )


async def call(client: OpenAIClient, request: ChatRequest, mode: str):
    return client.complete(request) if mode == "sync" else await client.acomplete(request)


async def test_respx_intercepts_the_real_openai_client(mocked_openai_chat, mode):
    mocked_openai_chat.respond(200, json=openai_completion("Hi there."))
    client = OpenAIClient(
        openai.OpenAI(api_key="sk-test-intercept"), openai.AsyncOpenAI(api_key="sk-test-intercept")
    )
    assert isinstance(client, LLMClient)
    response = await call(client, chat(), mode)
    assert mocked_openai_chat.call_count == 1
    sent = mocked_openai_chat.calls.last.request
    assert str(sent.url) == OPENAI_URL
    assert sent.headers["authorization"] == "Bearer sk-test-intercept"  # built by the SDK
    assert request_json(mocked_openai_chat.calls.last)["messages"][0]["content"] == "hello"
    assert (response.text, response.finish_reason) == ("Hi there.", "stop")
    assert (response.input_tokens, response.output_tokens) == (120, 12)
    assert (response.response_id, response.model, response.provider) == (
        "chatcmpl-test",
        "gpt-4o-mini",
        "openai",
    )
    assert response.error is None and response.refusal is None


async def test_sdk_retries_are_off(mocked_openai_chat, mode):
    mocked_openai_chat.respond(500, json=openai_error("boom", type_="server_error"))
    with pytest.raises(LLMTransientError) as info:
        await call(both(), chat(), mode)
    assert mocked_openai_chat.call_count == 1
    assert info.value.status_code == 500
    assert isinstance(info.value.__cause__, openai.InternalServerError)


async def test_timeout_and_output_cap_are_sent(mocked_openai_chat, mode):
    mocked_openai_chat.respond(200, json=openai_completion())
    await call(both(), chat(timeout=7.5, max_output_tokens=300, parameters={"seed": 1}), mode)
    body = request_json(mocked_openai_chat.calls.last)
    assert body["max_completion_tokens"] == 300 and body["seed"] == 1
    assert "max_tokens" not in body
    assert request_timeout(mocked_openai_chat.calls.last) == 7.5


async def test_an_explicit_cap_and_the_legacy_name(mocked_openai_chat):
    mocked_openai_chat.respond(200, json=openai_completion())
    both().complete(chat(max_output_tokens=300, parameters={"max_tokens": 5}))
    assert request_json(mocked_openai_chat.calls.last)["max_tokens"] == 5
    legacy = OpenAIClient(openai.OpenAI(api_key="sk-x"), max_tokens_param="max_tokens")
    legacy.complete(chat(max_output_tokens=300))
    body = request_json(mocked_openai_chat.calls.last)
    assert body["max_tokens"] == 300 and "max_completion_tokens" not in body


async def test_429_carries_retry_after(mocked_openai_chat, mode):
    mocked_openai_chat.respond(
        429,
        json=openai_error("slow", code="rate_limit_exceeded"),
        headers={"retry-after-ms": "1500"},
    )
    with pytest.raises(LLMTransientError) as info:
        await call(both(), chat(), mode)
    assert info.value.retry_after == 1.5
    assert info.value.status_code == 429


async def test_context_length_exceeded(mocked_openai_chat, mode):
    mocked_openai_chat.respond(400, json=openai_error("too long", code="context_length_exceeded"))
    with pytest.raises(ContextWindowExceededError):
        await call(both(), chat(), mode)


async def test_other_client_errors(mocked_openai_chat, mode):
    mocked_openai_chat.respond(404, json=openai_error("no such model", code="model_not_found"))
    with pytest.raises(LLMError) as info:
        await call(both(), chat(), mode)
    assert type(info.value) is LLMError
    assert info.value.status_code == 404 and "no such model" in str(info.value)


async def test_connection_errors_are_transient(mocked_openai_chat, mode):
    mocked_openai_chat.side_effect = httpx.ConnectError("refused")
    with pytest.raises(LLMTransientError):
        await call(both(), chat(), mode)


async def test_error_object_inside_a_200(mocked_openai_chat, mode):
    mocked_openai_chat.respond(200, json={"error": {"message": "upstream failed", "code": 502}})
    response = await call(both(), chat(), mode)
    assert response.error == "upstream failed (code 502)"
    assert response.text == ""


async def test_a_200_that_is_not_json(mocked_openai_chat, mode):
    mocked_openai_chat.respond(200, text="<html>Bad gateway</html>", content_type="text/html")
    response = await call(both(), chat(), mode)
    assert response.error is not None and "Bad gateway" in response.error


async def test_refusal_is_reported(mocked_openai_chat):
    mocked_openai_chat.respond(200, json=openai_completion(None, refusal="No."))
    response = both().complete(chat())
    assert response.refusal == "No." and response.text == ""


def test_azure_and_custom_base_urls(router):
    azure_route = router.post(
        "https://example.openai.azure.com/openai/deployments/summ/chat/completions"
    ).respond(200, json=openai_completion("from azure"))
    local_route = router.post("http://localhost:8000/v1/chat/completions").respond(
        200, json=openai_completion("from vllm")
    )
    azure = OpenAIClient(
        openai.AzureOpenAI(
            api_key=SENTINEL_KEY,
            azure_endpoint="https://example.openai.azure.com",
            api_version="2024-06-01",
        )
    )
    local = OpenAIClient(openai.OpenAI(api_key="none", base_url="http://localhost:8000/v1"))
    assert azure.provider == "azure" and local.provider == "openai"
    assert azure.complete(ChatRequest(model="summ", messages=[])).text == "from azure"
    assert local.complete(chat()).text == "from vllm"
    assert azure_route.call_count == local_route.call_count == 1
    assert SENTINEL_KEY not in repr(azure)


async def test_missing_mode_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="async"):
        await OpenAIClient(openai.OpenAI(api_key="sk-x")).acomplete(chat())
    with pytest.raises(ConfigurationError, match="sync"):
        OpenAIClient(async_client=openai.AsyncOpenAI(api_key="sk-x")).complete(chat())
    with pytest.raises(ConfigurationError):
        OpenAIClient(openai.AsyncOpenAI(api_key="sk-x"))  # type: ignore[arg-type]


def test_default_clients_need_a_key_only_when_used(monkeypatch, mocked_openai_chat):
    client = OpenAIClient()  # nothing configured yet: fine until the first call
    with pytest.raises(ConfigurationError):
        client.complete(chat())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    mocked_openai_chat.respond(200, json=openai_completion())
    assert OpenAIClient().complete(chat()).text == "A short summary."
    assert mocked_openai_chat.calls.last.request.headers["authorization"] == "Bearer sk-from-env"


def test_given_clients_are_not_modified():
    original = openai.OpenAI(api_key="sk-x", max_retries=5)
    OpenAIClient(original)
    assert original.max_retries == 5
