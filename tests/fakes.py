"""Typed fakes for tests: a summarizer that records its requests, and a word counter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from summem._flow import Flow, done
from summem.exceptions import SummarizationError
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest


class WordCounter:
    """Deterministic counter: words + 3 per message (+1 per tool call); no tokenizer."""

    key = "words"
    request_overhead = 0

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_message(self, message: Message) -> int:
        cached = message.token_cache.get(self.key)
        if cached is None:
            cached = 3 + self.count_text(message.text) + 2 * len(message.tool_calls or ())
            message.token_cache[self.key] = cached
        return cached


@dataclass
class FakeSummarizer:
    """Summarizes to a short fixed-shape text and records every request."""

    name: str = "fake"
    requests: list[SummaryRequest] = field(default_factory=list)
    fail_with: BaseException | None = None
    reply: str | None = None

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        if self.fail_with is not None:
            raise self.fail_with
        text = self.reply if self.reply is not None else f"S{len(self.requests)}"
        return done(SummaryOutput(text=text, summarizer=self.name))

    @property
    def seen(self) -> list[Message]:
        """Every message handed to the summarizer, in order."""
        return [m for r in self.requests for m in r.messages]


@dataclass
class EchoStep:
    """A step returning a fixed value, recording whether it ran sync or async."""

    value: Any
    ran: list[str] = field(default_factory=list)

    def run(self) -> Any:
        self.ran.append("sync")
        return self.value

    async def arun(self) -> Any:
        self.ran.append("async")
        return self.value


@dataclass
class StepSummarizer:
    """A summarizer that performs one (fake) I/O step, like an LLM summarizer would."""

    name: str = "stepper"
    step: EchoStep = field(default_factory=lambda: EchoStep("stepped summary"))

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        text = yield self.step
        return SummaryOutput(text=str(text), summarizer=self.name, calls=1)


def failing(exc: BaseException | None = None) -> FakeSummarizer:
    return FakeSummarizer(fail_with=exc or SummarizationError("boom: provider down"))


def words(n: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n))
