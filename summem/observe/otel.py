"""OpenTelemetry spans and metrics for a memory's reductions (the ``summem[otel]`` extra).

:class:`OpenTelemetryHook` is a hook (``Memory(..., hooks=[OpenTelemetryHook()])``) that turns
the memory's events into:

- a span ``summem reduction`` per reduction (trigger, span evicted, view sizes, summary id,
  status ERROR with ``error.type`` on failure; skips, conflicts, rejections and spend limits
  as span events), and a child span per summarizer call following the GenAI semantic
  conventions: ``chat {model}`` with ``gen_ai.operation.name``, ``gen_ai.request.model``,
  ``gen_ai.usage.input_tokens`` and ``gen_ai.usage.output_tokens``;
- metrics: ``summem.reductions``, ``summem.reduction.failures`` (by ``error.type``),
  ``summem.reductions.skipped`` (by reason), ``summem.summarizer.tokens`` (by
  ``gen_ai.token.type``), ``gen_ai.client.token.usage``, ``summem.summarizer.cost`` (USD),
  ``summem.view.tokens`` (after each reduction), ``summem.compression.ratio`` (view size
  before / after), ``summem.reduction.duration`` (seconds) and
  ``summem.background.queue_depth``;
- the other operations that change the view: a span each, ``summem recompute`` (its
  summarizer tokens and cost counted in the metrics above too), ``summem rollback``,
  ``summem clear`` and ``summem branch`` (an edit, regenerate, rewind or pop), and the counter
  ``summem.view.changes`` (by ``summem.operation``).

Only ``opentelemetry-api`` is needed; the application installs and configures the SDK.
Nothing of the conversation goes into spans or metrics unless ``record_content=True`` (then
the new summary and rejection reasons are added to the spans).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from summem._version import __version__
from summem.errors import MissingDependencyError
from summem.events import (
    Branched,
    MemoryEvent,
    ReductionCommitted,
    ReductionFailed,
    ReductionPlanned,
    ReductionSkipped,
    ReductionStarted,
    SessionCleared,
    SpendLimitReached,
    StoreConflictRetried,
    SummarizerCalled,
    SummaryRecomputed,
    SummaryRejected,
    SummaryRolledBack,
)

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span, TracerProvider

__all__ = ["OpenTelemetryHook"]

_NS = 1_000_000_000


def _ns(seconds: float) -> int:
    return int(seconds * _NS)


class OpenTelemetryHook:
    """A hook that reports a memory's reductions as OpenTelemetry spans and metrics.

    Args:
        tracer_provider: where spans go; the global one by default.
        meter_provider: where metrics go; the global one by default.
        record_content: also put the new summary's text and rejection reasons on the spans
            (conversation content: off by default).

    Raises:
        MissingDependencyError: ``opentelemetry-api`` is not installed (``summem[otel]``).
    """

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        record_content: bool = False,
    ) -> None:
        try:
            from opentelemetry import metrics, trace
        except ImportError as exc:  # pragma: no cover - the dev extra installs it
            raise MissingDependencyError("opentelemetry-api", "otel") from exc
        self._trace = trace
        self.record_content = record_content
        self._tracer = trace.get_tracer("summem", __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter("summem", __version__, meter_provider=meter_provider)
        self._reductions = meter.create_counter(
            "summem.reductions", unit="{reduction}", description="Reductions committed"
        )
        self._failures = meter.create_counter(
            "summem.reduction.failures", unit="{reduction}", description="Reductions failed"
        )
        self._skipped = meter.create_counter(
            "summem.reductions.skipped", unit="{reduction}", description="Reductions skipped"
        )
        self._tokens = meter.create_counter(
            "summem.summarizer.tokens", unit="{token}", description="Summarizer tokens"
        )
        self._token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens per summarizer call"
        )
        self._cost = meter.create_counter(
            "summem.summarizer.cost", unit="USD", description="Summarizer cost (litellm prices)"
        )
        self._view = meter.create_histogram(
            "summem.view.tokens", unit="{token}", description="View size after a reduction"
        )
        self._ratio = meter.create_histogram(
            "summem.compression.ratio", unit="1", description="View size before / after"
        )
        self._duration = meter.create_histogram(
            "summem.reduction.duration", unit="s", description="Reduction latency"
        )
        self._queue = meter.create_up_down_counter(
            "summem.background.queue_depth",
            unit="{reduction}",
            description="Background reductions in flight",
        )
        self._changes = meter.create_counter(
            "summem.view.changes",
            unit="{operation}",
            description="Recomputes, rollbacks, clears and branches",
        )
        self._lock = threading.Lock()
        self._open: dict[str, tuple[Span, bool]] = {}
        self._plans: dict[str, ReductionPlanned] = {}

    def __repr__(self) -> str:
        return f"OpenTelemetryHook(record_content={self.record_content!r})"

    def __call__(self, event: MemoryEvent) -> None:
        """Report one event."""
        attrs: dict[str, Any]
        if isinstance(event, ReductionPlanned):
            self._planned(event)
        elif isinstance(event, ReductionStarted):
            self._started(event)
        elif isinstance(event, SummarizerCalled):
            self._called(event)
        elif isinstance(event, ReductionCommitted):
            self._committed(event)
        elif isinstance(event, ReductionFailed):
            self._failed(event)
        elif isinstance(event, ReductionSkipped):
            self._skipped.add(1, {"summem.skip.reason": event.reason})
            self._span_event(
                event, "summem.reduction.skipped", {"summem.skip.reason": event.reason}
            )
        elif isinstance(event, SummaryRejected):
            attrs = {
                "summem.summarizer": event.summarizer,
                "error.type": event.error_type,
                "summem.next": event.next,
            }
            if self.record_content:
                attrs["summem.rejection.reason"] = event.reason
            self._span_event(event, "summem.summary.rejected", attrs)
        elif isinstance(event, StoreConflictRetried):
            attrs = {"summem.attempt": event.attempt, "summem.next": event.next}
            self._span_event(event, "summem.store.conflict", attrs)
        elif isinstance(event, SpendLimitReached):
            self._skipped.add(1, {"summem.skip.reason": "spend_limit"})
            attrs = {"summem.spend.spent_tokens": event.spent_tokens}
            self._span_event(event, "summem.spend_limit.reached", attrs)
        elif isinstance(event, SummaryRecomputed | SummaryRolledBack | SessionCleared | Branched):
            self._view_changed(event)

    # -- spans ------------------------------------------------------------------------------

    def _planned(self, event: ReductionPlanned) -> None:
        with self._lock:  # read by _started, next in the same flow
            self._plans[event.session_id] = event

    def _started(self, event: ReductionStarted) -> None:
        with self._lock:
            plan = self._plans.pop(event.session_id, None)
        attrs: dict[str, Any] = {
            "summem.session.id": event.session_id,
            "summem.trigger": event.trigger,
            "summem.background": event.background,
            "summem.attempt": event.attempt,
        }
        if event.summarizer is not None:
            attrs["summem.summarizer"] = event.summarizer
        if plan is not None:
            attrs["summem.evicted.messages"] = plan.messages
            attrs["summem.evicted.tokens"] = plan.tokens
            attrs["summem.spans"] = plan.spans
            attrs["summem.view.tokens_before"] = plan.size_before
        span = self._tracer.start_span(
            "summem reduction", attributes=attrs, start_time=_ns(event.at)
        )
        with self._lock:
            stale = self._open.pop(event.session_id, None)
            self._open[event.session_id] = (span, event.background)
        if stale is not None:  # pragma: no cover - a flow always ends what it started
            stale[0].end()
        if event.background:
            self._queue.add(1)

    def _called(self, event: SummarizerCalled) -> None:
        with self._lock:
            parent = self._open.get(event.session_id)
        context = self._trace.set_span_in_context(parent[0]) if parent is not None else None
        operation = "chat" if event.model else "summarize"
        name = f"{operation} {event.model or event.summarizer}"
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": operation,
            "gen_ai.usage.input_tokens": event.input_tokens,
            "gen_ai.usage.output_tokens": event.output_tokens,
            "summem.summarizer": event.summarizer,
            "summem.calls": event.calls,
            "summem.cost_usd": event.cost_usd,
        }
        if event.model:
            attrs["gen_ai.request.model"] = event.model
        if event.fallback_used:
            attrs["summem.fallback.used"] = event.fallback_used
            attrs["summem.fallback.failed"] = list(event.fallback_failed)
            attrs["summem.fallback.reasons"] = list(event.fallback_reasons)
        span = self._tracer.start_span(
            name,
            context=context,
            attributes=attrs,
            start_time=_ns(event.at - event.duration_seconds),
        )
        span.end(end_time=_ns(event.at))
        common = {"gen_ai.operation.name": operation, "summem.summarizer": event.summarizer}
        if event.model:
            common["gen_ai.request.model"] = event.model
        for kind, count in (("input", event.input_tokens), ("output", event.output_tokens)):
            self._tokens.add(count, {**common, "gen_ai.token.type": kind})
            self._token_usage.record(count, {**common, "gen_ai.token.type": kind})
        self._cost.add(event.cost_usd, common)

    def _close(self, session_id: str) -> tuple[Span, bool] | None:
        with self._lock:
            return self._open.pop(session_id, None)

    def _committed(self, event: ReductionCommitted) -> None:
        attrs: dict[str, Any] = {"summem.trigger": event.trigger}
        self._reductions.add(1, attrs)
        self._view.record(event.size_after)
        if event.size_after > 0:
            self._ratio.record(event.size_before / event.size_after)
        self._duration.record(event.duration_seconds, {"summem.outcome": "committed"})
        opened = self._close(event.session_id)
        if opened is None:
            return
        span, background = opened
        span.set_attributes(
            {
                "summem.view.tokens_after": event.size_after,
                "summem.watermark": event.watermark,
                "gen_ai.usage.input_tokens": event.input_tokens,
                "gen_ai.usage.output_tokens": event.output_tokens,
                "summem.cost_usd": event.cost_usd,
            }
        )
        if event.summary_id is not None:
            span.set_attribute("summem.summary.id", event.summary_id)
        if event.fallback_used:
            span.set_attribute("summem.fallback.used", event.fallback_used)
        if self.record_content and event.summary_text is not None:
            span.set_attribute("summem.summary.text", event.summary_text)
        span.end(end_time=_ns(event.at))
        if background:
            self._queue.add(-1)

    def _failed(self, event: ReductionFailed) -> None:
        self._failures.add(1, {"error.type": event.error_type, "summem.trigger": event.trigger})
        self._duration.record(event.duration_seconds, {"summem.outcome": "failed"})
        opened = self._close(event.session_id)
        if opened is None:
            return
        span, background = opened
        span.set_attribute("error.type", event.error_type)
        span.set_attribute("summem.next", event.next)
        span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, event.error_type))
        span.end(end_time=_ns(event.at))
        if background:
            self._queue.add(-1)

    def _view_changed(
        self, event: SummaryRecomputed | SummaryRolledBack | SessionCleared | Branched
    ) -> None:
        attrs: dict[str, Any] = {"summem.session.id": event.session_id}
        duration = 0.0
        if isinstance(event, SummaryRecomputed):
            operation, duration = "recompute", event.duration_seconds
            attrs |= {
                "summem.summary.id": event.summary_id,
                "summem.watermark": event.watermark,
                "summem.spans": event.spans,
                "summem.calls": event.calls,
                "gen_ai.usage.input_tokens": event.input_tokens,
                "gen_ai.usage.output_tokens": event.output_tokens,
                "summem.cost_usd": event.cost_usd,
            }
            if event.summarizer is not None:
                attrs["summem.summarizer"] = event.summarizer
            if event.model is not None:
                attrs["gen_ai.request.model"] = event.model
            if self.record_content and event.summary_text is not None:
                attrs["summem.summary.text"] = event.summary_text
            common = {"gen_ai.operation.name": "chat" if event.model else "summarize"}
            if event.summarizer is not None:
                common["summem.summarizer"] = event.summarizer
            if event.model:
                common["gen_ai.request.model"] = event.model
            for kind, count in (("input", event.input_tokens), ("output", event.output_tokens)):
                self._tokens.add(count, {**common, "gen_ai.token.type": kind})
            self._cost.add(event.cost_usd, common)
        elif isinstance(event, SummaryRolledBack):
            operation = "rollback"
            attrs |= {
                "summem.watermark": event.watermark,
                "summem.watermark_before": event.previous_watermark,
            }
            if event.summary_id is not None:
                attrs["summem.summary.id"] = event.summary_id
        elif isinstance(event, Branched):
            operation = "branch"
            attrs |= {
                "summem.branch.id": event.branch_id,
                "summem.branch.at": event.at,
                "summem.branch.abandoned": event.abandoned,
                "summem.branch.added": event.added,
                "summem.branch.summary": event.summary,
                "summem.watermark": event.watermark,
                "summem.watermark_before": event.previous_watermark,
            }
            if event.summary_id is not None:
                attrs["summem.summary.id"] = event.summary_id
        else:
            operation = "clear"
            attrs["summem.watermark_before"] = event.previous_watermark
        if event.previous_summary_id is not None:
            attrs["summem.summary.previous_id"] = event.previous_summary_id
        self._changes.add(1, {"summem.operation": operation})
        span = self._tracer.start_span(
            f"summem {operation}", attributes=attrs, start_time=_ns(event.at - duration)
        )
        span.end(end_time=_ns(event.at))

    def _span_event(self, event: MemoryEvent, name: str, attrs: dict[str, Any]) -> None:
        with self._lock:
            opened = self._open.get(event.session_id)
        if opened is not None:
            opened[0].add_event(name, attributes=attrs, timestamp=_ns(event.at))
