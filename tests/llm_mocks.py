"""HTTP-level mocks for LLM tests: provider payloads, respx fixtures, a fake clock, a fake client.

Requests are intercepted by respx at the httpx transport, so the real openai SDK and the real
litellm code (request building, response parsing, exception mapping) run in every test.
The fixtures are re-exported by ``tests/clients/conftest.py`` and
``tests/summarizers/conftest.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai
import pytest
import respx

from summem._flow import Flow, run_async, run_sync
from summem.clients.base import ChatRequest, ChatResponse
from summem.retry import RetryPolicy
from summem.summarizers.llm import LLMSummarizer

SENTINEL_KEY = "sk-SENTINEL-9f8e7d6c5b4a3210ffee"
OPENAI_URL = "https://api.openai.com/v1/chat/completions"
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_MODEL = "anthropic/claude-haiku-4-5"


# -- payloads -----------------------------------------------------------------------------


def openai_completion(
    text: str | None = "A short summary.",
    finish_reason: str = "stop",
    *,
    refusal: str | None = None,
    model: str = OPENAI_MODEL,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if refusal is not None:
        message["refusal"] = refusal
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132},
    }


def openai_error(message: str, *, code: str | None = None, type_: str = "invalid_request_error"):
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def anthropic_message(text: str | None = "A short summary.", stop_reason: str = "end_turn"):
    content = [] if text is None else [{"type": "text", "text": text}]
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 12},
    }


def anthropic_error(type_: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


# -- captured requests --------------------------------------------------------------------


def request_json(call: Any) -> dict[str, Any]:
    """The JSON body of a captured respx call."""
    body: dict[str, Any] = json.loads(call.request.content)
    return body


def request_strings(call: Any) -> list[str]:
    """Every string inside a captured request's JSON body."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(request_json(call))
    return found


def request_timeout(call: Any) -> float | None:
    """The read timeout httpx was given for a captured request."""
    timeout = call.request.extensions.get("timeout") or {}
    read = timeout.get("read")
    return float(read) if read is not None else None


# -- time ---------------------------------------------------------------------------------


@dataclass
class FakeClock:
    """A monotonic clock that only moves when slept on or advanced; records every sleep."""

    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def policy(self, **kwargs: Any) -> RetryPolicy:
        """A deterministic policy (no jitter) on this clock."""
        kwargs.setdefault("jitter", False)
        return RetryPolicy(sleep=self.sleep, clock=self, **kwargs)


# -- backends -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """One way to reach a model: the openai SDK, or litellm to OpenAI or to Anthropic."""

    name: str
    url: str
    model: str

    @property
    def anthropic(self) -> bool:
        return self.url == ANTHROPIC_URL

    @property
    def litellm(self) -> bool:
        return self.name.startswith("litellm")

    def ok(self, text: str | None = "A short summary.", finish: str = "stop") -> httpx.Response:
        if self.anthropic:
            stop = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
            return httpx.Response(200, json=anthropic_message(text, stop[finish]))
        return httpx.Response(200, json=openai_completion(text, finish))

    def error(
        self, status: int, message: str = "failure", *, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        if self.anthropic:
            kind = {
                400: "invalid_request_error",
                401: "authentication_error",
                429: "rate_limit_error",
                529: "overloaded_error",
            }.get(status, "api_error")
            return httpx.Response(status, json=anthropic_error(kind, message), headers=headers)
        return httpx.Response(status, json=openai_error(message), headers=headers)

    def context_error(self) -> httpx.Response:
        if self.anthropic:
            return httpx.Response(
                400,
                json=anthropic_error(
                    "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
                ),
            )
        return httpx.Response(
            400,
            json=openai_error(
                "This model's maximum context length is 128000 tokens. However, your messages "
                "resulted in 210000 tokens.",
                code="context_length_exceeded",
            ),
        )

    def error_in_200(self) -> httpx.Response:
        if self.anthropic:
            return httpx.Response(200, json=anthropic_error("api_error", "upstream exploded"))
        return httpx.Response(200, json={"error": {"message": "upstream exploded", "code": 502}})

    def summarizer(self, **kwargs: Any) -> LLMSummarizer:
        if self.litellm:
            return LLMSummarizer(self.model, api_key=SENTINEL_KEY, **kwargs)
        return LLMSummarizer(
            self.model,
            client=openai.OpenAI(api_key=SENTINEL_KEY),
            async_client=openai.AsyncOpenAI(api_key=SENTINEL_KEY),
            **kwargs,
        )

    def user_text(self, call: Any) -> str:
        """The rendered user prompt (previous summary + transcript) of a captured request."""
        messages = request_json(call)["messages"]
        user = [m for m in messages if m["role"] == "user"][-1]
        content = user["content"]
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content)
        return str(content)


BACKENDS = (
    Backend("openai-sdk", OPENAI_URL, OPENAI_MODEL),
    Backend("litellm-openai", OPENAI_URL, OPENAI_MODEL),
    Backend("litellm-anthropic", ANTHROPIC_URL, ANTHROPIC_MODEL),
)


async def drive(flow: Flow[Any], mode: str) -> Any:
    """Run ``flow`` with the sync or the async driver."""
    if mode == "sync":
        return run_sync(flow)
    return await run_async(flow)


# -- a fake client --------------------------------------------------------------------------


@dataclass
class FakeLLMClient:
    """A typed in-memory LLMClient: replies (or errors) are queued, requests recorded."""

    replies: list[ChatResponse | BaseException] = field(default_factory=list)
    calls: list[ChatRequest] = field(default_factory=list)
    input_limit: int | None = None

    def enqueue(self, *items: ChatResponse | BaseException | str) -> FakeLLMClient:
        for item in items:
            self.replies.append(
                ChatResponse(text=item, finish_reason="stop") if isinstance(item, str) else item
            )
        return self

    def _next(self, request: ChatRequest) -> ChatResponse:
        self.calls.append(request)
        if not self.replies:
            raise AssertionError("FakeLLMClient: no reply queued")
        item = self.replies.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    def complete(self, request: ChatRequest) -> ChatResponse:
        return self._next(request)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        return self._next(request)

    def max_input_tokens(self, model: str) -> int | None:
        return self.input_limit


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def litellm_httpx(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """litellm with its async path on httpx (not aiohttp), so respx sees every request.

    ``AsyncHTTPHandler.should_use_aiohttp_transport`` reads ``disable_aiohttp_transport``
    when a client is built; litellm caches clients, so the cache is flushed around the test.
    """
    import litellm

    monkeypatch.setattr(litellm, "disable_aiohttp_transport", True)
    litellm.in_memory_llm_clients_cache.flush_cache()
    yield litellm
    litellm.in_memory_llm_clients_cache.flush_cache()


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    """A respx router; any request it has no route for fails the test."""
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as mock:
        yield mock


@pytest.fixture
def mocked_openai_chat(router: respx.MockRouter) -> respx.Route:
    """The route for ``POST https://api.openai.com/v1/chat/completions``."""
    return router.post(OPENAI_URL)


@pytest.fixture
def mocked_anthropic_messages(router: respx.MockRouter) -> respx.Route:
    """The route for ``POST https://api.anthropic.com/v1/messages``."""
    return router.post(ANTHROPIC_URL)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=BACKENDS, ids=[b.name for b in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn; litellm ones get httpx transport for their async path."""
    selected: Backend = request.param
    if selected.litellm:
        request.getfixturevalue("litellm_httpx")
    return selected


@pytest.fixture
def route(backend: Backend, router: respx.MockRouter) -> respx.Route:
    """The route the current backend's requests go to."""
    return router.post(backend.url)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Which driver runs the flow."""
    value: str = request.param
    return value
