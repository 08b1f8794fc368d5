"""Typed fake summarizers and flow steps: record requests, fail on demand, block on a gate."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any

from summem._flow import Flow, done
from summem.errors import SummarizationError
from summem.messages import Message
from summem.summarizers.base import SummaryOutput, SummaryRequest


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


@dataclass
class Gate:
    """A step that blocks until released: the summarizer's (fake) model call."""

    release: threading.Event = field(default_factory=threading.Event)
    started: threading.Event = field(default_factory=threading.Event)
    text: str = "gated summary"

    def run(self) -> Any:
        self.started.set()
        assert self.release.wait(timeout=20), "gate never released"
        return self.text

    async def arun(self) -> Any:
        self.started.set()
        for _ in range(20_000):
            if self.release.is_set():
                return self.text
            await asyncio.sleep(0.001)
        raise AssertionError("gate never released")


@dataclass
class GatedSummarizer:
    """A summarizer whose every call waits on one :class:`Gate` (released once: all pass)."""

    name: str = "gated"
    gate: Gate = field(default_factory=Gate)
    requests: list[SummaryRequest] = field(default_factory=list)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        self.requests.append(request)
        text = yield self.gate
        return SummaryOutput(text=f"{text} {len(self.requests)}", summarizer=self.name, calls=1)


def offline_or_none(summary: Any, rejected: str | None = None) -> bool:
    """No summary, or (past the hard limit) the offline extractive one, never a rejected reply."""
    if summary is None:
        return True
    info = summary.summary_info
    if info is None or info.summarizer != "extractive":
        return False
    return rejected is None or rejected not in summary.text
