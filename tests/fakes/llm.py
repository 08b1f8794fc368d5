"""Typed fake LLM clients (no HTTP): replies queued or computed from the request; a fake clock."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from summem.clients.base import ChatRequest, ChatResponse
from summem.retry import RetryPolicy

_TRANSCRIPT = re.compile(r"<transcript>(.*?)</transcript>", re.DOTALL)
_PREVIOUS = re.compile(r"<previous_summary>(.*?)</previous_summary>", re.DOTALL)


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


@dataclass
class ScriptedLLM:
    """An ``LLMClient`` whose replies are a pure function of the request."""

    words_per_summary: int = 120
    requests: list[ChatRequest] = field(default_factory=list)
    input_limit: int | None = 128_000

    def _reply(self, request: ChatRequest) -> str:
        text = "\n".join(str(m.get("content") or "") for m in request.messages)
        if "<transcript>" in text:
            previous = _PREVIOUS.search(text)
            lines = [] if previous is None else previous.group(1).strip().splitlines()
            lines = [ln for ln in lines if not ln.startswith("(none yet")]
            transcript = _TRANSCRIPT.search(text)
            body = transcript.group(1) if transcript else ""
            lines += [ln.strip() for ln in body.splitlines() if re.search(r"\d", ln)]
            words = " ".join(lines[-40:]).split()
            return " ".join(words[-self.words_per_summary :]) or "nothing to keep"
        if "Gold answer:" in text:
            gold = re.search(r"Gold answer: (.*)", text)
            answer = re.search(r"Generated answer: (.*)", text)
            first = (gold.group(1).split() or [""])[0].lower() if gold else ""
            said = answer.group(1).lower() if answer else ""
            return '{"label": "CORRECT"}' if first and first in said else '{"label": "WRONG"}'
        question = re.search(r"Question: (.*)", text)
        asked = set(re.findall(r"[a-z]{4,}", question.group(1).lower())) if question else set()
        memory = text.split("<memory>")[-1].split("</memory>")[0]
        for line in memory.splitlines():
            if asked & set(re.findall(r"[a-z]{4,}", line.lower())):
                return line[:80]
        return "unknown"

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        reply = self._reply(request)
        tokens = sum(len(str(m.get("content") or "")) for m in request.messages) // 4
        return ChatResponse(
            text=reply,
            finish_reason="stop",
            input_tokens=tokens,
            output_tokens=len(reply) // 4,
            model=request.model,
            provider="scripted",
        )

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        return self.complete(request)

    def max_input_tokens(self, model: str) -> int | None:
        return self.input_limit


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
