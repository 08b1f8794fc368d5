"""Replay a conversation through summem's engine, one message at a time, and audit every step.

Retention is only half of what a memory must show: the other half is what it cost and whether
it kept its promises. :func:`replay` appends a conversation's messages one by one to a view
reduced by a :class:`~summem.reducers.summarization.SummarizationReducer`, exactly as the engine
does on each turn, and records:

- every reduction cycle (what it evicted, what the summarizer read and was billed for);
- the efficiency figures of :func:`efficiency`: compression ratio, summarizer tokens per
  conversation token, summarizer calls per 1k tokens, cumulative prompt tokens against sending
  the full context, and the turns that had to wait on the summarizer;
- violations of the engine's invariants, checked as it goes: each evicted message summarized
  exactly once and in order (I2), tool-call groups whole (I3), the view within the threshold
  whenever a cut was possible, the watermark never moving back, and every summary line that
  names its source messages made of their words (the provenance evidence retention trusts).

Background summarization is simulated deterministically: from ``soft_threshold_tokens`` on, a
reduction of the view at that moment is started and committed ``latency_messages`` appended
messages later, keeping the messages that arrived meanwhile (the engine's compare-and-set
commit). A turn *waits* when the view passes the threshold before that: it takes the result at
once and, if still over, reduces in the foreground. Without a soft threshold every reduction
blocks the turn that triggered it. Threads would make these counts depend on timing; this does
not.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.metrics.audit import (
    budget_problems,
    call_problems,
    provenance_problems,
    span_problems,
    view_problems,
)
from summem.errors import LLMError, ReductionError
from summem.messages import Message, parse_message
from summem.reducers.base import ReduceResult
from summem.reducers.summarization import SummarizationReducer

__all__ = ["Cycle", "ReplayState", "ReplayTrace", "efficiency", "replay"]


@dataclass(frozen=True)
class Cycle:
    """One committed reduction.

    Attributes:
        number: 1 for the first reduction of the replay, then 2, 3...
        at_message: messages accepted when it was committed.
        watermark_before: conversation messages the previous summary stood for.
        watermark: the new watermark ``k'``.
        evicted_tokens: tokens of the evicted span.
        previous_summary_tokens: tokens of the summary it replaced (0 for the first).
        summary_tokens: tokens of the new summary message.
        view_tokens_before: the view the reduction started from.
        view_tokens_after: the view it produced (messages appended meanwhile not included).
        llm_calls: model calls the summarizer made.
        llm_input_tokens: prompt tokens the model billed.
        llm_output_tokens: completion tokens the model billed.
        cost_usd: what those calls cost (litellm's bundled prices; 0 offline).
        background: started at the soft threshold rather than blocking a turn.
    """

    number: int
    at_message: int
    watermark_before: int
    watermark: int
    evicted_tokens: int
    previous_summary_tokens: int
    summary_tokens: int
    view_tokens_before: int
    view_tokens_after: int
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int
    cost_usd: float
    background: bool = False


@dataclass(frozen=True)
class ReplayState:
    """What a probe sees right after a cycle commits.

    Attributes:
        history: the messages accepted so far, in order.
        view: the view now, summary included.
        summary: the summary message.
        cycle: the cycle just committed.
    """

    history: Sequence[Message]
    view: Sequence[Message]
    summary: Message | None
    cycle: Cycle


@dataclass(frozen=True)
class ReplayTrace:
    """A whole replay: the final view, every cycle, the cost counters and any violations.

    Attributes:
        history: every message, as replayed (with its id).
        view: the final view.
        summary: the final summary, if any reduction happened.
        watermark: conversation messages (system excluded) the summary stands for.
        cycles: every committed reduction, in order.
        conversation_tokens: tokens of all messages, as if sent at once (no request overhead).
        view_tokens: tokens of the final view (request overhead included).
        max_view_tokens: largest view after any turn.
        prompt_points: assistant messages: the points where the model was called.
        prompt_tokens: the views sent at those points, summed.
        full_prompt_tokens: the same with the whole history sent each time.
        waited_turns: turns that waited on the summarizer.
        violations: invariant violations, described; empty when all held.
        seconds: wall time of the replay.
        failed_reductions: reductions whose summary was rejected or whose calls failed (the
            view stays unreduced, as a memory with ``fail_on_error=False`` keeps it).
    """

    history: tuple[Message, ...]
    view: tuple[Message, ...]
    summary: Message | None
    watermark: int
    cycles: tuple[Cycle, ...]
    conversation_tokens: int
    view_tokens: int
    max_view_tokens: int
    prompt_points: int
    prompt_tokens: int
    full_prompt_tokens: int
    waited_turns: int
    violations: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    failed_reductions: int = 0


def efficiency(traces: Sequence[ReplayTrace]) -> dict[str, float]:
    """The cost figures of one or more replays, from summed counts (not averaged ratios).

    Keys: ``compression_ratio`` (evicted tokens per final summary token),
    ``summarizer_read_per_token`` (evicted spans plus previous summaries the summarizer read, per
    conversation token), ``llm_input_per_token`` (prompt tokens the summarizer's model billed,
    per conversation token; 0 offline), ``summarizer_cost_usd`` (what the summarizer's calls
    cost in all, at litellm's bundled prices; 0 offline), ``reductions_per_1k`` and
    ``llm_calls_per_1k`` (per 1,000 conversation tokens), ``prompt_ratio`` (cumulative prompt
    tokens against sending the full context at every model call), ``waited_share`` (turns
    that waited, per model call), plus the means ``view_tokens``, ``max_view_tokens``,
    ``summary_tokens`` and the totals ``cycles``, ``waited_turns`` and ``violations``.
    """
    n = len(traces) or 1
    conv = sum(t.conversation_tokens for t in traces) or 1
    cycles = [c for t in traces for c in t.cycles]
    evicted = sum(sum(c.evicted_tokens for c in t.cycles) for t in traces)
    summaries = sum(t.cycles[-1].summary_tokens for t in traces if t.cycles)
    read = sum(c.evicted_tokens + c.previous_summary_tokens for c in cycles)
    points = sum(t.prompt_points for t in traces) or 1
    full = sum(t.full_prompt_tokens for t in traces) or 1
    return {
        "conversation_tokens": conv / n,
        "view_tokens": sum(t.view_tokens for t in traces) / n,
        "max_view_tokens": float(max((t.max_view_tokens for t in traces), default=0)),
        "summary_tokens": summaries / n,
        "cycles": len(cycles),
        "compression_ratio": evicted / summaries if summaries else 0.0,
        "summarizer_read_per_token": read / conv,
        "llm_input_per_token": sum(c.llm_input_tokens for c in cycles) / conv,
        "summarizer_cost_usd": sum(c.cost_usd for c in cycles),
        "reductions_per_1k": 1000 * len(cycles) / conv,
        "llm_calls_per_1k": 1000 * sum(c.llm_calls for c in cycles) / conv,
        "prompt_ratio": sum(t.prompt_tokens for t in traces) / full,
        "waited_turns": sum(t.waited_turns for t in traces),
        "waited_share": sum(t.waited_turns for t in traces) / points,
        "violations": sum(len(t.violations) for t in traces),
        "failed_reductions": sum(t.failed_reductions for t in traces),
        "seconds": sum(t.seconds for t in traces),
    }


def replay(
    messages: Iterable[Message | Mapping[str, Any]],
    reducer: SummarizationReducer,
    *,
    on_cycle: Callable[[ReplayState], None] | None = None,
    latency_messages: int = 1,
) -> ReplayTrace:
    """Append ``messages`` one at a time to a view kept by ``reducer``; audit every step.

    Args:
        messages: the conversation, dicts or messages (dicts get fresh ids).
        reducer: the engine's configuration; its ``soft_threshold`` (if set) turns on the
            background simulation described in this module's docstring.
        on_cycle: called after every committed reduction (a probe of what the view carries).
        latency_messages: with a soft threshold, messages appended before a background
            reduction commits (at least 1).

    Raises:
        ReductionError: the summarizer failed and the reducer has ``fail_on_error=True``.
    """
    run = _Replay(reducer, on_cycle, max(1, latency_messages))
    start = time.perf_counter()
    for item in messages:
        run.append(item if isinstance(item, Message) else parse_message(dict(item)))
    run.settle()
    return run.trace(time.perf_counter() - start)


@dataclass
class _InFlight:
    result: ReduceResult
    view_len: int
    remaining: int
    tokens_before: int


class _Replay:
    """The replay's state: history, view, watermark and the audit so far."""

    def __init__(
        self,
        reducer: SummarizationReducer,
        on_cycle: Callable[[ReplayState], None] | None,
        latency: int,
    ) -> None:
        self.reducer = reducer
        self.counter = reducer.size_counter
        self.tokens = reducer.token_counter
        self.soft = _soft_twin(reducer)
        self.on_cycle = on_cycle
        self.latency = latency
        self.history: list[Message] = []
        self.by_id: dict[str, Message] = {}
        self.conversation: list[Message] = []  # history without system messages
        self.view: list[Message] = []
        self.summary: Message | None = None
        self.watermark = 0
        self.covered: set[str] = set()
        self.cycles: list[Cycle] = []
        self.violations: list[str] = []
        self.in_flight: _InFlight | None = None
        self.failed = 0
        self.unreduced = False  # the last reduction failed and nothing reduced the view since
        self.max_view = self.prompt_points = self.prompt_tokens = 0
        self.full_prompt = self.history_tokens = self.waited = 0
        self.system: Message | None = None

    # -- the turn ---------------------------------------------------------------------------

    def append(self, msg: Message) -> None:
        if msg.role == "assistant":
            self.prompt_points += 1
            self.prompt_tokens += self._tokens(self.view)
            self.full_prompt += self._full_size()
        self._fail(call_problems(self.view, msg))
        self.history.append(msg)
        self.by_id[msg.id] = msg
        if msg.is_system:
            self.system = msg
        else:
            self.conversation.append(msg)
            self.history_tokens += self.tokens.count_message(msg)
        self.view = [*self.view, msg]
        flight = self.in_flight
        if flight is not None:
            flight.remaining -= 1
            if flight.remaining <= 0:
                self._commit_in_flight()
        size = self._size(self.view)
        if size > self.reducer.threshold:
            waited = self.in_flight is not None
            if waited:
                self._commit_in_flight()  # the turn waits for the background result
                size = self._size(self.view)
            if size > self.reducer.threshold:
                result = self.reducer.reduce(self.view)
                waited = waited or result.reduced
                self._commit(result, size, background=False)
            self.waited += waited
        elif self.soft is not None and self.in_flight is None and size > self.soft.threshold:
            result = self.soft.reduce(self.view)
            if result.reduced:
                self.in_flight = _InFlight(result, len(self.view), self.latency, size)
        self._check_budget()

    def settle(self) -> None:
        """Commit a reduction still in flight when the conversation ends."""
        if self.in_flight is not None:
            self._commit_in_flight()

    def _commit_in_flight(self) -> None:
        flight, self.in_flight = self.in_flight, None
        assert flight is not None
        appended = self.view[flight.view_len :]
        self._commit(flight.result, flight.tokens_before, background=True, appended=appended)

    def _commit(
        self,
        result: ReduceResult,
        tokens_before: int,
        *,
        background: bool,
        appended: Sequence[Message] = (),
    ) -> None:
        if result.error is not None:
            cause = result.error.__cause__
            if cause is not None and not isinstance(cause, (LLMError, ReductionError)):
                raise result.error  # not the model's doing (a recording miss, a bug): stop
            self.failed += 1
            self.unreduced = True
        if result.error is not None or not result.reduced:
            self.view = [*result.view, *appended]
            return
        self.unreduced = False
        summary = result.summary
        info = summary.summary_info if summary is not None else None
        if summary is None or info is None:
            self.violations.append("a reduction committed no summary message")
            self.view = [*result.view, *appended]
            return
        previous = self.summary
        k_before, k = self.watermark, info.watermark
        span = self.conversation[k_before:k]
        self._fail(
            span_problems(
                span,
                result.evicted,
                info.covered_ids,
                self.covered,
                previous=previous,
                previous_id=info.previous_summary_id,
            )
        )
        self.covered.update(info.covered_ids)
        body = summary.text.removeprefix(self.reducer.summary_prefix)
        self._fail(provenance_problems(summary, body, self.by_id))
        self.view = [*result.view, *appended]
        self.summary, self.watermark = summary, max(k, k_before)
        cycle = Cycle(
            number=len(self.cycles) + 1,
            at_message=len(self.history),
            watermark_before=k_before,
            watermark=k,
            evicted_tokens=sum(self.tokens.count_message(m) for m in result.evicted),
            previous_summary_tokens=self.tokens.count_message(previous) if previous else 0,
            summary_tokens=self.tokens.count_message(summary),
            view_tokens_before=tokens_before,
            view_tokens_after=result.tokens_after,
            llm_calls=result.summarizer_calls,
            llm_input_tokens=result.summarizer_input_tokens,
            llm_output_tokens=int((info.extra.get("usage") or {}).get("output_tokens") or 0),
            cost_usd=float((info.extra.get("usage") or {}).get("cost_usd") or 0.0),
            background=background,
        )
        self.cycles.append(cycle)
        self._fail(
            view_problems(
                self.view,
                self.conversation,
                self.watermark,
                self.summary,
                len(self.covered),
                summary_prefix=self.reducer.summary_prefix,
            )
        )
        if self.on_cycle is not None:
            self.on_cycle(ReplayState(tuple(self.history), tuple(self.view), summary, cycle))

    # -- sizes ------------------------------------------------------------------------------

    def _size(self, view: Sequence[Message]) -> int:
        """The view in the budget's unit (tokens or messages)."""
        return self.counter.request_overhead + sum(self.counter.count_message(m) for m in view)

    def _tokens(self, view: Sequence[Message]) -> int:
        return self.tokens.request_overhead + sum(self.tokens.count_message(m) for m in view)

    def _full_size(self) -> int:
        system = self.tokens.count_message(self.system) if self.system is not None else 0
        return self.tokens.request_overhead + system + self.history_tokens

    # -- the audit --------------------------------------------------------------------------

    def _fail(self, problems: Sequence[str]) -> None:
        self.violations += [f"after message {len(self.history)}: {p}" for p in problems]

    def _check_budget(self) -> None:
        self.max_view = max(self.max_view, self._tokens(self.view))
        if not self.unreduced:  # over the budget after a failed reduction is the failure's
            self._fail(budget_problems(self.view, self._size(self.view), self.reducer))

    def trace(self, seconds: float) -> ReplayTrace:
        if len(self.covered) != self.watermark:
            self._fail([f"{self.watermark} messages evicted but {len(self.covered)} summarized"])
        return ReplayTrace(
            history=tuple(self.history),
            view=tuple(self.view),
            summary=self.summary,
            watermark=self.watermark,
            cycles=tuple(self.cycles),
            conversation_tokens=self.history_tokens,
            view_tokens=self._tokens(self.view),
            max_view_tokens=self.max_view,
            prompt_points=self.prompt_points,
            prompt_tokens=self.prompt_tokens,
            full_prompt_tokens=self.full_prompt,
            waited_turns=self.waited,
            violations=tuple(self.violations),
            seconds=seconds,
            failed_reductions=self.failed,
        )


def _soft_twin(reducer: SummarizationReducer) -> SummarizationReducer | None:
    """The reducer with its threshold lowered to the soft one: what a background run does."""
    if reducer.soft_threshold is None:
        return None
    twin = copy.copy(reducer)
    twin.threshold = reducer.soft_threshold
    return twin
