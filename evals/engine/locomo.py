"""Replay LoCoMo conversations through summem's engine and score what the final view carries.

The engine run sits beside the baselines of :mod:`evals.baselines`, scored the same way
(:mod:`evals.metrics.evidence`): at the end of each conversation, every QA item's evidence turns
are looked up in the view. A turn is carried **verbatim** when its message is still among the
kept turns, and **by the summary** when the summary's provenance names it: the extractive
summarizer records, for every line, the message ids it came from (a message id is
``<sample_id>/<dia_id>``). An LLM summary has no provenance, so it carries evidence only
verbatim here; what it holds is judged by answer containment in its text and, live, by the LLM
judge of :mod:`evals.metrics.qa`. Reports say so.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from evals.engine.config import EngineConfig, build_reducer, provenance_ids
from evals.engine.replay import ReplayTrace, replay
from evals.families.locomo import Conversation, dia_id_of
from evals.metrics.evidence import CarriedView, ItemScore, score_items
from evals.metrics.fragments import FragmentCount, summary_fragments
from evals.progress import progress_bar
from summem import Memory
from summem.clients.base import LLMClient
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.base import Summarizer
from summem.tokens.base import TokenCounter

__all__ = ["EngineRun", "MemoryEnd", "engine_view", "memory_end", "run_engine", "view_stats"]


@dataclass
class EngineRun:
    """One configuration replayed over a list of conversations.

    Attributes:
        config: the engine's settings.
        views: the final view of each conversation, as scored.
        traces: each conversation's replay (cycles, cost, violations).
        scores: every QA item's score against its conversation's view.
        provenance: True when the summaries named their source turns (extractive).
        fragments: the final summaries' short lines that depend on a dropped sentence
            (:mod:`evals.metrics.fragments`), summed over the conversations.
        through_memory: the views scored are a :class:`~summem.Memory`'s (with its loop
            guard and hard-limit folds), what a user gets; False: the bare reducer's replay.
        paused: conversations whose memory paused its reductions (loop guard) by the end.
        summaryless: conversations that had a summary and ended without one.
        differ: conversations whose memory view differs from the bare replay's.
    """

    config: EngineConfig
    views: list[CarriedView] = field(default_factory=list)
    traces: list[ReplayTrace] = field(default_factory=list)
    scores: list[ItemScore] = field(default_factory=list)
    provenance: bool = True
    fragments: FragmentCount = field(default_factory=FragmentCount)
    through_memory: bool = True
    paused: int = 0
    summaryless: int = 0
    differ: int = 0


@dataclass(frozen=True)
class MemoryEnd:
    """How a conversation ends when replayed through a :class:`~summem.Memory`.

    Attributes:
        view: the final view.
        summary: its summary message, if any.
        paused: whether the loop guard paused reductions by the end.
        had_summary: whether any summary existed during the conversation.
    """

    view: tuple[Message, ...]
    summary: Message | None
    paused: bool
    had_summary: bool


def memory_end(messages: Sequence[Message], reducer: SummarizationReducer) -> MemoryEnd:
    """Replay ``messages`` through a fresh :class:`~summem.Memory` on ``reducer``, no threads.

    What a user of summem gets: the session's loop guard (a pause when reductions achieve
    nothing, and the offline folds past the hard limit while paused) on top of the reducer.
    """
    memory = Memory("locomo", reducer=reducer, background=False)
    had = False
    for message in messages:
        memory.add(message)
        had = had or memory.summary is not None
    return MemoryEnd(
        view=tuple(memory.view()),
        summary=memory.summary,
        paused=memory.reductions_paused is not None,
        had_summary=had,
    )


def _kept_ids(view: Sequence[Message]) -> list[str | None]:
    return [m.id for m in view if not m.is_summary]


def _view_tokens(reducer: SummarizationReducer, view: Sequence[Message]) -> int:
    """The view's tokens as the replay counts them (request overhead included)."""
    tokens = reducer.token_counter
    return tokens.request_overhead + sum(tokens.count_message(m) for m in view)


def engine_view(trace: ReplayTrace, reducer: SummarizationReducer) -> CarriedView:
    """The final view of a replay as a :class:`CarriedView` (turn ids, text, tokens)."""
    summary = trace.summary
    kept = [m for m in trace.view if not m.is_summary and not m.is_system]
    verbatim = {d for m in kept if (d := dia_id_of(m.id)) is not None}
    summarized = {d for i in provenance_ids(summary) if (d := dia_id_of(i)) is not None}
    return CarriedView(
        messages=tuple(m.to_openai() for m in trace.view),
        verbatim=frozenset(verbatim),
        summarized=frozenset(summarized),
        text="\n".join(m.text for m in trace.view),
        tokens=trace.view_tokens,
        summary_tokens=reducer.token_counter.count_message(summary) if summary else 0,
        summary_text=summary.text if summary is not None else "",
    )


def run_engine(
    conversations: Sequence[Conversation],
    config: EngineConfig,
    *,
    counter: TokenCounter,
    client: LLMClient | None = None,
    timestamps: bool = False,
    progress: bool | None = None,
    summarizer: Summarizer | None = None,
    through_memory: bool | None = None,
) -> EngineRun:
    """Replay each conversation through a fresh reducer built from ``config``; score it.

    The replay (:func:`~evals.engine.replay.replay`) checks the engine's invariants and
    counts its cost; with ``through_memory`` (default), the view scored is the one a
    :class:`~summem.Memory` on the same settings ends with (:func:`memory_end`: its loop
    guard included), and the run counts where it differs from the bare replay.

    Args:
        conversations: LoCoMo conversations.
        config: the engine's settings.
        counter: the tokenizer budgets are counted with.
        client: for LLM summarizers (live, recording or replaying).
        timestamps: give each message its session date as a ``timestamp`` extra, which the
            extractive summarizer writes in front of its lines (and which costs tokens).
        progress: show a progress bar (default: when stderr is a terminal).
        summarizer: replaces the one ``config`` names (an ablated extractive summarizer).
        through_memory: score the view a :class:`~summem.Memory` ends with, not the bare
            reducer's (default: for an offline summarizer; an LLM one would be called twice).
    """
    if through_memory is None:
        through_memory = not config.is_llm
    run = EngineRun(config, through_memory=through_memory)
    with progress_bar(len(conversations), config.label, enabled=progress) as advance:
        for conv in conversations:
            reducer = build_reducer(config, counter=counter, client=client, summarizer=summarizer)
            messages = conv.message_objects(timestamp_key="timestamp" if timestamps else None)
            trace = replay(messages, reducer, latency_messages=config.latency_messages)
            if through_memory:
                fresh = build_reducer(config, counter=counter, client=client, summarizer=summarizer)
                end = memory_end(
                    conv.message_objects(timestamp_key="timestamp" if timestamps else None), fresh
                )
                run.paused += end.paused
                run.summaryless += end.had_summary and end.summary is None
                same = _kept_ids(end.view) == _kept_ids(trace.view) and (
                    (end.summary.text if end.summary else None)
                    == (trace.summary.text if trace.summary else None)
                )
                run.differ += not same
                trace = dataclasses.replace(
                    trace,
                    view=end.view,
                    summary=end.summary,
                    view_tokens=_view_tokens(fresh, end.view),
                )
                reducer = fresh
            view = engine_view(trace, reducer)
            run.traces.append(trace)
            run.views.append(view)
            run.scores.extend(score_items(conv, view))
            body = reducer.summary_text(trace.summary)
            run.fragments.add(summary_fragments(trace.summary, body, trace.history))
            run.provenance = run.provenance and (trace.summary is None or bool(view.summarized))
            advance(1)
    return run


def view_stats(views: Sequence[CarriedView]) -> dict[str, float]:
    """Mean and largest view size, summary size and carried turns over ``views``."""
    sizes = [v.tokens for v in views]
    return {
        "view_tokens_mean": statistics.fmean(sizes),
        "view_tokens_max": float(max(sizes)),
        "summary_tokens_mean": statistics.fmean(v.summary_tokens for v in views),
        "turns_verbatim_mean": statistics.fmean(len(v.verbatim) for v in views),
        "turns_summarized_mean": statistics.fmean(len(v.summarized) for v in views),
    }
