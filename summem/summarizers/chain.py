"""Fallback chains: try summarizers in order until one writes a valid summary.

A reduction should not fail because one provider is down. :class:`FallbackSummarizer` tries
its steps in order (say, a strong model, a cheap model, the extractive summarizer, then
:class:`TruncatingSummarizer`) inside ONE flow, so the chain itself serves sync and async
callers. Each step's output is checked with :func:`~summem.summarizers.base.validate_summary`
before it is accepted; a step that raises a :class:`~summem.errors.SummemError` or returns
an invalid summary hands over to the next. A step that starts failing is said once at WARNING
on the ``summem.summarizers`` logger, with the reason (not again until it has succeeded), and
each step's reason is kept in the summary's ``extra["fallback"]["reasons"]`` and in the events'
``fallback_reasons``.

Each step has a circuit breaker: after ``failure_threshold`` failures in a row the step is
skipped for ``cooldown_seconds``; after that it gets one trial again (a success closes the
circuit, a failure re-opens it for another cool-down). The last step is never skipped: it is the
last resort, and skipping it could only turn a possible success into a certain failure.
Breakers live on the chain object and are shared by every session using it (thread-safe).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from summem._flow import Flow, done
from summem._secrets import redact
from summem.errors import (
    ConfigurationError,
    InvalidSummaryError,
    SpendLimitError,
    SummarizationError,
    SummemError,
)
from summem.events import SummaryRejected
from summem.observe.hooks import announce
from summem.summarizers.base import (
    VETTED,
    Summarizer,
    SummaryOutput,
    SummaryRequest,
    as_flow,
    cost_of,
    failure_cost,
    previous_extra,
    spent_by,
    uses_llm,
    validate_summary,
)
from summem.summarizers.clip import clip_to_tokens

__all__ = ["VETTED", "FallbackSummarizer", "TruncatingSummarizer"]


_ERROR_CHARS = 300

logger = logging.getLogger("summem.summarizers")


@dataclass
class _Breaker:
    failures: int = 0
    opened_at: float | None = None


class FallbackSummarizer:
    """Tries each summarizer in order; the first valid summary wins.

    Args:
        steps: the summarizers, best first. End with something that cannot fail, such as
            :class:`TruncatingSummarizer`, when a reduction must always succeed.
        failure_threshold: failures in a row that open a step's circuit.
        cooldown_seconds: how long an open circuit skips its step.
        clock: monotonic seconds; injectable for tests.
        name: recorded as the chain's name; defaults to ``fallback(a>b>c)``.

    Raises:
        ConfigurationError: no steps, or a threshold or cool-down out of range.
    """

    def __init__(
        self,
        steps: Sequence[Summarizer],
        *,
        failure_threshold: int = 3,
        cooldown_seconds: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
    ) -> None:
        if not steps:
            raise ConfigurationError("a fallback chain needs at least one summarizer")
        for i, step in enumerate(steps):
            if not callable(getattr(step, "summarize", None)) or not isinstance(
                getattr(step, "name", None), str
            ):
                raise ConfigurationError(
                    f"fallback chain step {i} must be a summarizer (a summarize(request) method "
                    f"and a name), such as ExtractiveSummarizer(); got {type(step).__name__}"
                )
        if failure_threshold < 1:
            raise ConfigurationError(
                f"failure_threshold must be at least 1, got {failure_threshold}"
            )
        if cooldown_seconds < 0:
            raise ConfigurationError(f"cooldown_seconds must be >= 0, got {cooldown_seconds}")
        self._steps = tuple(steps)
        self.failure_threshold = failure_threshold
        self.cooldown_seconds = cooldown_seconds
        self._clock = clock
        self._breakers = [_Breaker() for _ in self._steps]
        self._lock = threading.Lock()
        self._name = name or "fallback(" + ">".join(s.name for s in self._steps) + ")"

    @property
    def name(self) -> str:
        """Identifies the chain; each summary still records the step that wrote it."""
        return self._name

    @property
    def steps(self) -> tuple[Summarizer, ...]:
        """The summarizers, in the order they are tried."""
        return self._steps

    def __repr__(self) -> str:
        return f"FallbackSummarizer({list(self._steps)!r})"

    def is_open(self, step: int) -> bool:
        """True while step number ``step``'s circuit is open (it would be skipped)."""
        with self._lock:
            return self._is_open(self._breakers[step], self._clock())

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """A flow that runs the steps in order and returns the first valid summary.

        Raises:
            SummarizationError: every step failed or was skipped; the message lists each
                step's error, and the last error is the cause.
            SpendLimitError: a spend limit is exhausted (``request.allow_llm`` is false, so
                every step that calls an LLM is skipped) and nothing else was left to try.
        """
        errors: list[str] = []
        failed: list[str] = []
        last: SummemError | None = None
        spent = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
        cost = 0.0
        final = len(self._steps) - 1
        limited = 0
        for i, step in enumerate(self._steps):
            if not request.allow_llm and uses_llm(step):
                errors.append(f"{step.name}: skipped (spend limit reached)")
                failed.append(step.name)
                limited += 1
                continue
            if i != final and self.is_open(i):
                errors.append(
                    f"{step.name}: skipped (circuit open after "
                    f"{self._breakers[i].failures} failures in a row)"
                )
                failed.append(step.name)
                continue
            output = None
            try:
                output = yield from as_flow(step.summarize(request), step.name)
                validate_summary(output, request)
                if request.checks is not None:
                    yield from request.checks(output, request)
            except SummemError as exc:
                if output is not None:
                    used = spent_by(output)
                    cost += cost_of(output)
                else:
                    used = exc.usage if isinstance(exc, SummarizationError) else {}
                    cost += failure_cost(exc, getattr(step, "model", None))
                for key in spent:
                    spent[key] += int(used.get(key, 0))
                first_failure = self._record(i, ok=False)
                reason = _redact(str(exc))
                if first_failure:
                    _say_why(
                        step.name, exc, reason, self._steps[i + 1].name if i != final else None
                    )
                if output is not None and isinstance(exc, InvalidSummaryError):
                    yield from announce(
                        SummaryRejected(
                            "",
                            summarizer=step.name,
                            error_type=type(exc).__name__,
                            reason=reason,
                            next="next_step" if i != final else "fail",
                        )
                    )
                errors.append(f"{step.name}: {type(exc).__name__}: {reason}")
                failed.append(step.name)
                last = exc
                continue
            self._record(i, ok=True)
            if request.checks is not None:
                output = replace(output, extra={**output.extra, VETTED: True})
            if failed:
                output = replace(
                    output,
                    calls=output.calls + spent["calls"],
                    input_tokens=output.input_tokens + spent["input_tokens"],
                    output_tokens=output.output_tokens + spent["output_tokens"],
                    cost_usd=cost_of(output) + cost,
                    extra={
                        **output.extra,
                        "fallback": {"used": step.name, "failed": failed, "reasons": errors},
                    },
                )
            return output
        error = SpendLimitError if limited and last is None else SummarizationError
        raise error(
            f"all {len(self._steps)} summarizers failed: " + "; ".join(errors),
            usage=spent,
            cost_usd=cost,
        ) from last

    def _is_open(self, breaker: _Breaker, now: float) -> bool:
        return (
            breaker.failures >= self.failure_threshold
            and breaker.opened_at is not None
            and now - breaker.opened_at < self.cooldown_seconds
        )

    def _record(self, step: int, *, ok: bool) -> bool:
        """Count a success or a failure; True for a first failure after a success (or ever)."""
        with self._lock:
            breaker = self._breakers[step]
            if ok:
                breaker.failures, breaker.opened_at = 0, None
                return False
            breaker.failures += 1
            if breaker.failures >= self.failure_threshold:
                breaker.opened_at = self._clock()  # opens, or re-opens after a failed trial
            return breaker.failures == 1


class TruncatingSummarizer:
    """Plain truncation, the last resort: keeps the previous summary and notes what was dropped.

    No model, no extraction: the previous summary is clipped to ``max_tokens`` (its beginning
    is kept) and a line ``- (N earlier messages were dropped without a summary.)`` is added,
    where N counts every message dropped this way so far (a previous note is folded in). It
    never raises; with ``max_tokens`` above about 20 the result is never empty.
    """

    _NOTE_RE = re.compile(
        r"^- \((\d+) earlier messages? (?:was|were) dropped without a summary\.\)$", re.M
    )

    def __init__(self, *, name: str = "truncation") -> None:
        self._name = name

    @property
    def name(self) -> str:
        """Identifies the summarizer in provenance."""
        return self._name

    def __repr__(self) -> str:
        return f"TruncatingSummarizer(name={self._name!r})"

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """A flow with no I/O that returns the clipped previous summary and the note."""
        counter, budget = request.token_counter, request.max_tokens
        previous = request.previous_summary or ""
        dropped = len(request.messages)
        for m in self._NOTE_RE.finditer(previous):
            dropped += int(m.group(1))
        previous = self._NOTE_RE.sub("", previous).strip()
        note = (
            f"- ({dropped} earlier message{'s were' if dropped != 1 else ' was'} "
            "dropped without a summary.)"
        )
        text = clip_to_tokens(note, budget, counter)
        if previous and text == note:
            room = budget - counter.count_text("\n" + note)
            while room > 0:
                kept = clip_to_tokens(previous, room, counter)
                candidate = f"{kept}\n\n{note}" if kept else note  # its own run of lines
                overshoot = counter.count_text(candidate) - budget
                if overshoot <= 0:
                    text = candidate
                    break
                room -= overshoot
        extra: dict[str, Any] = {"dropped_messages": dropped}
        fmt = (previous_extra(request.previous_info) or {}).get("format")
        if isinstance(fmt, str) and text != note:  # the previous summary's text, in its layout
            extra["format"] = fmt
        return done(SummaryOutput(text=text, summarizer=self._name, extra=extra))


def _say_why(name: str, exc: SummemError, reason: str, following: str | None) -> None:
    """One WARNING when a step starts failing (not again until it has succeeded once)."""
    then = f"falling back to {following!r}" if following is not None else "no step is left"
    logger.warning(
        "summarizer %r failed, %s (said once until it succeeds again): %s: %s",
        name,
        then,
        type(exc).__name__,
        reason,
    )


def _redact(message: str) -> str:
    """An error message safe to log: anything shaped like a key is masked, length capped."""
    cleaned = redact(message)
    return cleaned if len(cleaned) <= _ERROR_CHARS else cleaned[: _ERROR_CHARS - 3] + "..."
