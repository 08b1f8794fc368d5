"""The summarizer protocol: what the reducer gives a summarizer and what it gets back.

A summarizer turns the evicted span (plus the previous summary) into new summary text. Its
``summarize`` returns a :data:`~summem._flow.Flow` so one implementation serves sync and async
callers: a pure summarizer returns ``done(output)``; an LLM summarizer yields requests. A plain
function returning a ``str`` or :class:`SummaryOutput` is accepted too (see ``as_flow``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

from summem._flow import Flow, done
from summem.errors import InvalidSummaryError, SummarizationError
from summem.messages import Message
from summem.observe.cost import cost_usd
from summem.summarizers.checks import error_shape
from summem.summarizers.sent import SentView
from summem.tokens.base import TokenCounter

__all__ = [
    "SUMMARY_SLACK",
    "VETTED",
    "Flow",
    "Summarizer",
    "SummaryOutput",
    "SummaryRequest",
    "as_flow",
    "cost_of",
    "done",
    "failure_cost",
    "previous_extra",
    "spent_by",
    "summary_limit",
    "tokens_up_to",
    "uses_llm",
    "validate_summary",
    "works_offline",
]

VETTED = "vetted"
"""``extra`` key set when a chain already ran the request's ``checks`` on its summary."""


@dataclass(frozen=True)
class SummaryRequest:
    """Everything a summarizer may use.

    Attributes:
        messages: the span being evicted, ``history[k:k']``, in order. Never empty.
        previous_summary: text of the summary being replaced; to integrate, not to treat as
            conversation.
        max_tokens: the summary's token budget (``summary_max_tokens``).
        token_counter: the reducer's counter, to measure against ``max_tokens``.
        focus: optional instruction of what matters most.
        must_keep: items the summary must carry verbatim.
        previous_info: the provenance of the previous summary (its ``extra`` may carry state).
        checks: the reducer's own checks of a finished summary (links, the application's
            validators), for summarizers that pick among candidates (a fallback chain) to
            run on each candidate; they raise to reject it.
        allow_llm: ``False`` once a spend limit is exhausted: a fallback chain skips its
            steps that call an LLM (see :func:`uses_llm`).
        sent: the request the assistant last sent, for a summarizer that reuses its cached
            prefix (see :mod:`summem.summarizers.sent`); ``None`` when none was recorded.
        replaces: the tokens this summary stands for, when more than ``messages`` and the
            previous summary: a step of a reduction in several spans, whose summary the next
            span's replaces (0: just those).
        kept: the turns that stay verbatim in the view after this reduction,
            ``history[k':]`` as the reduction was planned, in order (a message appended while
            it runs is not among them); empty when unknown. Context only, never summarized:
            a summarizer may read them to judge what in ``messages`` the conversation still
            refers to (the offline one does, see
            :class:`~summem.summarizers.extractive.ExtractiveSummarizer`), so the summary
            may depend on them as well as on the span and the previous summary. The LLM
            summarizers send them only with a prompt that asks for them (``{kept}``, see
            :mod:`summem.prompts`; they cost a call's worth of tokens each reduction); a
            request replayed by key (``evals.engine.recording``) hashes what is sent, so it
            stays exact either way. With a reducer's ``redactor`` they are redacted when
            first read (:func:`~summem.summarizers.hooks.redact_on_read`).
    """

    messages: Sequence[Message]
    previous_summary: str | None
    max_tokens: int
    token_counter: TokenCounter
    focus: str | None = None
    must_keep: Sequence[str] = ()
    previous_info: Any = None
    checks: Callable[[SummaryOutput, SummaryRequest], Flow[None]] | None = None
    allow_llm: bool = True
    sent: SentView | None = None
    replaces: int = 0
    kept: Sequence[Message] = ()


def previous_extra(info: Any) -> Mapping[str, Any] | None:
    """The ``extra`` a previous summary recorded (``SummaryRequest.previous_info``), if any.

    ``info`` is a :class:`~summem.messages.SummaryInfo`, or a mapping: its ``"extra"``, or the
    extra itself.
    """
    extra = info.get("extra", info) if isinstance(info, Mapping) else getattr(info, "extra", None)
    return extra if isinstance(extra, Mapping) else None


@dataclass(frozen=True)
class SummaryOutput:
    """A summarizer's reply, before the reducer validates and commits it.

    Attributes:
        text: the new summary, standing for the previous summary and the span.
        summarizer: identifies who wrote it, e.g. ``"extractive"`` or ``"llm:gpt-4o-mini"``.
        model: the model, for LLM summaries.
        prompt: ``name@version`` of the prompt used.
        prompt_hash: hash of the prompt's content.
        finish_reason: as the provider reported it.
        calls: LLM calls made (retries included).
        input_tokens: tokens sent to the model, summed over calls.
        output_tokens: tokens received.
        extra: summarizer-specific provenance, stored with the summary.
        cost_usd: what the calls cost in USD; ``None``: priced from ``model`` and the tokens
            with litellm's bundled price map (see :func:`cost_of`).
    """

    text: str
    summarizer: str
    model: str | None = None
    prompt: str | None = None
    prompt_hash: str | None = None
    finish_reason: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None


@runtime_checkable
class Summarizer(Protocol):
    """Anything that can summarize a span."""

    @property
    def name(self) -> str:
        """Identifies the summarizer in provenance, e.g. ``"extractive"``."""

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """A flow that returns the new summary."""


def spent_by(output: SummaryOutput) -> dict[str, int]:
    """What producing ``output`` cost: ``calls``, ``input_tokens``, ``output_tokens``."""
    return {
        "calls": output.calls,
        "input_tokens": output.input_tokens,
        "output_tokens": output.output_tokens,
    }


def cost_of(output: SummaryOutput) -> float:
    """What producing ``output`` cost in USD (0 when nothing was priced)."""
    if output.cost_usd is not None:
        return output.cost_usd
    return cost_usd(output.model, output.input_tokens, output.output_tokens)


def failure_cost(exc: Exception, model: str | None) -> float:
    """What a failed summarizer's calls cost in USD, priced on ``model`` unless known."""
    if not isinstance(exc, SummarizationError):
        return 0.0
    if exc.cost_usd is not None:
        return exc.cost_usd
    usage = exc.usage
    return cost_usd(model, int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)))


def uses_llm(summarizer: object) -> bool:
    """True for a summarizer that calls a model (it has a ``model`` name): one that spends."""
    return isinstance(getattr(summarizer, "model", None), str)


def works_offline(summarizer: object) -> bool:
    """True for a summarizer that calls a model but can still summarize without one.

    A delegating summarizer (``OpenAICompaction``, ``AnthropicCompaction``) whose twin is
    offline: once a spend limit is exhausted it commits the twin alone, calling no model.
    """
    return getattr(summarizer, "works_offline", False) is True


def as_flow(result: Any, name: str) -> Flow[SummaryOutput]:
    """Accept a flow, a :class:`SummaryOutput` or a plain ``str`` from a summarizer."""
    if inspect.isgenerator(result):
        return cast("Flow[SummaryOutput]", result)
    if isinstance(result, SummaryOutput):
        return done(result)
    if isinstance(result, str):
        return done(SummaryOutput(text=result, summarizer=name))
    raise TypeError(
        f"summarizer {name!r} returned {type(result).__name__}; "
        "expected a flow, a SummaryOutput or a str"
    )


SUMMARY_SLACK = 0.1
"""How far past ``max_tokens`` a summary may run (as a share, at least 16 tokens): a model's own
tokenizer and the counter used here may disagree a little."""


def summary_limit(max_tokens: int, *, slack: float = SUMMARY_SLACK) -> int:
    """The most tokens a summary asked for ``max_tokens`` may have and still be accepted."""
    return max_tokens + max(16, int(max_tokens * slack))


def tokens_up_to(
    counter: TokenCounter, messages: Sequence[Message], previous: str | None, enough: int
) -> int:
    """The tokens of ``messages`` then ``previous``, counted until they pass ``enough``.

    Exact when at most ``enough``; past it, a partial count (still past ``enough``). The
    checks that compare a span with a bound need no more, and a message budget has no other
    use for the span's tokens: the rest of a long span is not tokenized.
    """
    n = 0
    for m in messages:
        n += counter.count_message(m)
        if n > enough:
            return n
    if previous:
        n += counter.count_text(previous)
    return n


def validate_summary(
    output: SummaryOutput, request: SummaryRequest, *, slack: float = SUMMARY_SLACK
) -> int:
    """Check a summary before anything commits it; return its size in tokens.

    A summary must be non-empty, valid Unicode, not an error or a refusal (see
    :func:`~summem.summarizers.checks.error_shape`), within ``max_tokens`` (plus ``slack`` as a
    fraction, at least 16 tokens), and smaller than what it replaces (the previous summary plus
    the span).

    Raises:
        InvalidSummaryError: naming the check that failed and the summarizer.
    """
    text = output.text
    if not isinstance(text, str) or not text.strip():
        raise InvalidSummaryError(f"summarizer {output.summarizer!r} returned an empty summary")
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no store could keep it
            raise InvalidSummaryError(
                f"summarizer {output.summarizer!r} returned text that is not valid Unicode "
                "(a lone surrogate)"
            ) from None
    shape = error_shape(text)
    if shape is not None:
        raise InvalidSummaryError(f"summarizer {output.summarizer!r}: rejected, {shape}")
    counter = request.token_counter
    tokens = counter.count_text(text)
    limit = summary_limit(request.max_tokens, slack=slack)
    if tokens > limit:
        raise InvalidSummaryError(
            f"summarizer {output.summarizer!r} returned {tokens} tokens; "
            f"summary_max_tokens is {request.max_tokens} (with slack {limit})"
        )
    # counted only until it passes the summary's size: the rest cannot change the verdict
    replaced = tokens_up_to(counter, request.messages, request.previous_summary, tokens)
    replaced = max(replaced, request.replaces)
    if tokens >= replaced:
        raise InvalidSummaryError(
            f"summarizer {output.summarizer!r} returned {tokens} tokens, not smaller than the "
            f"{replaced} tokens it replaces"
        )
    return tokens
