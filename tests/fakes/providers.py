"""Ways to reach a model in tests, each at its provider's real URL, mocked with respx.

:class:`Backend` is one way (the openai SDK, or litellm to OpenAI or Anthropic) with the replies
and errors its provider sends; :func:`mock_providers` routes OpenAI, Anthropic and Gemini at
once and captures what each was sent. Unrouted requests fail (respx's ``assert_all_mocked``),
and the conftest network guard backs that up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai
import respx

from summem._flow import Flow, run_async, run_sync
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.replies import (
    ANTHROPIC_MODEL,
    ANTHROPIC_URL,
    GEMINI_URL,
    OPENAI_MODEL,
    OPENAI_URL,
    anthropic_error,
    anthropic_message,
    gemini_reply,
    openai_completion,
    openai_error,
    request_json,
)

SENTINEL_KEY = "sk-SENTINEL-9f8e7d6c5b4a3210ffee"


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


@dataclass
class Captured:
    """The requests the client sent: (provider, request, JSON body), in order."""

    requests: list[tuple[str, httpx.Request, dict[str, Any]]] = field(default_factory=list)

    def last(self) -> tuple[str, httpx.Request, dict[str, Any]]:
        assert self.requests, "nothing was sent"
        return self.requests[-1]


@contextmanager
def mock_providers(
    *, gemini_models: Sequence[str] = ("gemini-2.5-flash",), text: str = "ok from {}"
) -> Iterator[Captured]:
    """Route OpenAI, Anthropic and Gemini; each replies ``text`` with its provider's name."""
    captured = Captured()

    def route(provider: str, body: dict[str, Any]) -> Any:
        def respond(request: httpx.Request) -> httpx.Response:
            captured.requests.append((provider, request, json.loads(request.content)))
            return httpx.Response(200, json=body)

        return respond

    with respx.mock(assert_all_called=False) as router:
        router.post(OPENAI_URL).mock(
            side_effect=route("openai", openai_completion(text.format("openai")))
        )
        router.post(ANTHROPIC_URL).mock(
            side_effect=route("anthropic", anthropic_message(text.format("anthropic")))
        )
        for model in gemini_models:
            router.post(GEMINI_URL.format(model)).mock(
                side_effect=route("gemini", gemini_reply(text.format("gemini")))
            )
        yield captured
