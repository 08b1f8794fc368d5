"""OpenTelemetry: spans (GenAI semantic conventions) and metrics of a replay with 3 reductions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from summem import Memory
from summem.events import (
    ReductionFailed,
    ReductionSkipped,
    SpendLimitReached,
    StoreConflictRetried,
    SummaryRejected,
)
from summem.observe import OpenTelemetryHook
from tests.fakes.counters import words
from tests.fakes.memory import small_reducer
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.observe.test_cost import bundled_prices, llm

SUMMARY = "A short summary."
TURNS = [words(7, f"m{i}") for i in range(25)]  # three reductions at threshold 100 / target 60


class Telemetry:
    def __init__(self, record_content: bool = False) -> None:
        self.spans = InMemorySpanExporter()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        meter_provider = MeterProvider(metric_readers=[self.reader])
        self.hook = OpenTelemetryHook(
            tracer_provider=tracer_provider,
            meter_provider=meter_provider,
            record_content=record_content,
        )

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def points(self) -> dict[str, list[Any]]:
        data = self.reader.get_metrics_data()
        out: dict[str, list[Any]] = {}
        assert data is not None
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    out.setdefault(metric.name, []).extend(metric.data.data_points)
        return out


@pytest.fixture
def replay() -> Iterator[respx.Route]:
    with respx.mock(assert_all_mocked=True) as mock:
        yield mock.post(OPENAI_URL).mock(
            return_value=httpx.Response(200, json=openai_completion(SUMMARY, usage=(120, 12)))
        )


def run(telemetry: Telemetry) -> Memory:
    memory = Memory("s", reducer=small_reducer(llm()), hooks=[telemetry.hook])
    for text in TURNS:
        memory.add({"role": "user", "content": text})
    return memory


def test_spans_and_metrics_of_a_replay_with_three_reductions(replay: respx.Route) -> None:
    telemetry = Telemetry()
    memory = run(telemetry)
    assert replay.call_count == 3 and len(memory.summaries()) == 3
    spans = telemetry.finished()
    reductions = [s for s in spans if s.name == "summem reduction"]
    calls = [s for s in spans if s.name == "chat gpt-4o-mini"]
    assert len(reductions) == 3 and len(calls) == 3 and len(spans) == 6
    for call, reduction in zip(calls, reductions, strict=True):
        attrs = call.attributes or {}
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == "gpt-4o-mini"
        assert attrs["gen_ai.usage.input_tokens"] == 120
        assert attrs["gen_ai.usage.output_tokens"] == 12
        assert call.parent is not None and call.parent.span_id == reduction.context.span_id
        assert call.start_time is not None and reduction.start_time is not None
        assert reduction.start_time <= call.start_time
        r: dict[str, Any] = dict(reduction.attributes or {})
        assert r["summem.trigger"] == "hard" and r["summem.session.id"] == "s"
        assert r["summem.view.tokens_after"] < r["summem.view.tokens_before"]
        assert r["gen_ai.usage.input_tokens"] == 120 and r["summem.evicted.messages"] > 0
    summary_ids = [s.id for s in memory.summaries()]
    assert [(r.attributes or {})["summem.summary.id"] for r in reductions] == summary_ids

    entry = bundled_prices()["gpt-4o-mini"]
    per_call = 120 * entry["input_cost_per_token"] + 12 * entry["output_cost_per_token"]
    points = telemetry.points()
    assert sum(p.value for p in points["summem.reductions"]) == 3
    tokens = {
        p.attributes["gen_ai.token.type"]: p.value for p in points["summem.summarizer.tokens"]
    }
    assert tokens == {"input": 360, "output": 36}
    assert sum(p.value for p in points["summem.summarizer.cost"]) == pytest.approx(3 * per_call)
    usage = {p.attributes["gen_ai.token.type"]: p for p in points["gen_ai.client.token.usage"]}
    assert usage["input"].count == 3 and usage["input"].sum == 360
    for name in ("summem.reduction.duration", "summem.view.tokens", "summem.compression.ratio"):
        (point,) = points[name]
        assert point.count == 3, name
    (view,) = points["summem.view.tokens"]
    assert view.max <= 60
    (ratio,) = points["summem.compression.ratio"]
    assert ratio.min > 1
    assert "summem.reduction.failures" not in points


def strings(spans: list[ReadableSpan], points: dict[str, list[Any]]) -> str:
    found: list[str] = []
    for span in spans:
        found.append(span.name)
        found += [str(v) for v in (span.attributes or {}).values()]
        for event in span.events:
            found += [event.name, *(str(v) for v in (event.attributes or {}).values())]
    for values in points.values():
        for point in values:
            found += [str(v) for v in (point.attributes or {}).values()]
    return "\n".join(found)


def test_no_conversation_content_goes_into_spans_or_metrics_by_default(
    replay: respx.Route,
) -> None:
    telemetry = Telemetry()
    run(telemetry)
    text = strings(telemetry.finished(), telemetry.points())
    assert "m00" not in text and "m240" not in text and SUMMARY not in text
    opted_in = Telemetry(record_content=True)
    run(opted_in)
    assert SUMMARY in strings(opted_in.finished(), opted_in.points())


def test_failures_skips_and_other_events_become_span_events_and_metrics() -> None:
    telemetry = Telemetry()
    hook = telemetry.hook
    from summem.events import ReductionStarted

    hook(ReductionStarted("x", trigger="soft", background=True, attempt=1, summarizer="fake"))
    hook(
        SummaryRejected(
            "x",
            summarizer="fake",
            error_type="InvalidSummaryError",
            reason="secret words",
            next="fail",
        )
    )
    hook(StoreConflictRetried("x", attempt=1, next="retry"))
    hook(
        SpendLimitReached(
            "x", key="x", spent_tokens=5, spent_cost_usd=0.0, max_tokens=1, max_cost_usd=None
        )
    )
    hook(ReductionSkipped("x", reason="backoff", trigger="hard"))
    hook(
        ReductionFailed(
            "x",
            trigger="soft",
            background=True,
            error_type="SummarizationError",
            next="backoff",
            backoff_tokens=40,
        )
    )
    hook(
        ReductionFailed(
            "y",
            trigger="hard",
            background=False,
            error_type="StoreError",
            next="raise",
            backoff_tokens=40,
        )
    )
    (span,) = telemetry.finished()
    assert span.status.status_code.name == "ERROR"
    assert (span.attributes or {})["error.type"] == "SummarizationError"
    assert [e.name for e in span.events] == [
        "summem.summary.rejected",
        "summem.store.conflict",
        "summem.spend_limit.reached",
        "summem.reduction.skipped",
    ]
    assert "secret words" not in strings([span], {})
    points = telemetry.points()
    failures = {p.attributes["error.type"]: p.value for p in points["summem.reduction.failures"]}
    assert failures == {"SummarizationError": 1, "StoreError": 1}
    skipped = {
        p.attributes["summem.skip.reason"]: p.value for p in points["summem.reductions.skipped"]
    }
    assert skipped == {"backoff": 1, "spend_limit": 1}
    (depth,) = points["summem.background.queue_depth"]
    assert depth.value == 0
    assert "record_content=False" in repr(hook)


def test_recompute_rollback_and_clear_become_spans_and_metrics_without_content(
    replay: respx.Route,
) -> None:
    telemetry = Telemetry()
    memory = run(telemetry)
    first, *_, last = memory.summaries()
    before = len(telemetry.finished())
    new = memory.recompute()  # the LLM again: one call per span of history[:k]
    assert new is not None
    memory.rollback(first.id)
    memory.clear()
    spans = telemetry.finished()[before:]
    assert [s.name for s in spans] == ["summem recompute", "summem rollback", "summem clear"]
    recompute, rollback, clear = (dict(s.attributes or {}) for s in spans)
    calls = replay.call_count - 3
    assert recompute["summem.summary.id"] == new.id
    assert recompute["summem.summary.previous_id"] == last.id
    assert recompute["summem.calls"] == recompute["summem.spans"] == calls >= 1
    assert recompute["gen_ai.usage.input_tokens"] == 120 * calls
    assert recompute["gen_ai.request.model"] == "gpt-4o-mini"
    assert rollback["summem.summary.id"] == first.id
    assert rollback["summem.summary.previous_id"] == new.id
    assert rollback["summem.watermark"] == first.summary_info.watermark  # type: ignore[union-attr]
    assert rollback["summem.watermark_before"] == recompute["summem.watermark"]
    assert clear["summem.summary.previous_id"] == first.id
    assert clear["summem.watermark_before"] == rollback["summem.watermark"]
    assert all(s.start_time is not None and s.end_time is not None for s in spans)
    points = telemetry.points()
    changes = {p.attributes["summem.operation"]: p.value for p in points["summem.view.changes"]}
    assert changes == {"recompute": 1, "rollback": 1, "clear": 1}
    tokens = {
        p.attributes["gen_ai.token.type"]: p.value for p in points["summem.summarizer.tokens"]
    }
    assert tokens == {"input": 120 * replay.call_count, "output": 12 * replay.call_count}
    assert SUMMARY not in strings(spans, points)
    opted_in = Telemetry(record_content=True)
    again = run(opted_in)
    again.recompute()
    assert SUMMARY in strings(opted_in.finished()[-1:], {})


def test_a_branch_becomes_a_span_and_a_view_change(replay: respx.Route) -> None:
    telemetry = Telemetry()
    memory = run(telemetry)
    first = memory.summaries()[0]
    k = first.summary_info.watermark  # type: ignore[union-attr]
    before = len(telemetry.finished())
    memory.branch(k + 1, [{"role": "user", "content": "an edited turn"}])
    (span,) = [s for s in telemetry.finished()[before:] if s.name == "summem branch"]
    attrs = dict(span.attributes or {})
    (branch,) = memory.branches()
    assert attrs["summem.branch.id"] == branch.id and attrs["summem.branch.at"] == k + 1
    assert attrs["summem.branch.abandoned"] == len(TURNS) - k - 1
    assert attrs["summem.branch.added"] == 1
    assert attrs["summem.branch.summary"] == "rolled_back"
    assert attrs["summem.summary.id"] == first.id and attrs["summem.watermark"] == k
    assert (
        isinstance(attrs["summem.watermark_before"], int) and attrs["summem.watermark_before"] > k
    )
    changes = {
        p.attributes["summem.operation"]: p.value for p in telemetry.points()["summem.view.changes"]
    }
    assert changes == {"branch": 1}
    assert "an edited turn" not in strings([span], {})
