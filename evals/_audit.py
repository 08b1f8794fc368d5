"""The invariant checks a replay runs after every message, as pure functions over its state.

Kept apart from :mod:`evals.replay` so each check reads as the invariant it enforces (see
DESIGN.md): I2, the view is ``[system] + [summary] + history[k:]`` and each evicted message is
summarized exactly once; I3, tool-call groups are never split; and the budget, kept whenever a
cut was possible. Each returns the problems it found, described; empty when the invariant held.
"""

from __future__ import annotations

from collections.abc import Sequence

from summem.messages import Message
from summem.reducers._cut import boundaries, choose_cut
from summem.reducers.base import split_view
from summem.reducers.summarization import SummarizationReducer

__all__ = ["budget_problems", "call_problems", "span_problems", "view_problems"]


def call_problems(view: Sequence[Message], msg: Message) -> list[str]:
    """A tool result arriving must find its call still in the view."""
    if msg.role != "tool":
        return []
    calls = {i for m in view for i in m.tool_call_ids}
    if msg.tool_call_id in calls:
        return []
    return [f"tool result {msg.tool_call_id!r} arrives but its call left the view"]


def span_problems(
    span: Sequence[Message],
    evicted: Sequence[Message],
    covered_ids: Sequence[str],
    already_covered: set[str],
    *,
    previous: Message | None,
    previous_id: str | None,
) -> list[str]:
    """One reduction: it evicted and summarized exactly ``span``, once, integrating the last."""
    problems: list[str] = []
    span_ids = [m.id for m in span]
    if [m.id for m in evicted] != span_ids or list(covered_ids) != span_ids:
        problems.append("the summary does not cover exactly the evicted span history[k:k']")
    again = already_covered.intersection(covered_ids)
    if again:
        problems.append(f"{len(again)} messages summarized a second time")
    if previous_id != (previous.id if previous is not None else None):
        problems.append("the new summary did not integrate the previous one")
    if span and boundaries(span).pending_from is not None:
        problems.append("a tool call was evicted before all its results arrived")
    return problems


def view_problems(
    view: Sequence[Message],
    conversation: Sequence[Message],
    watermark: int,
    summary: Message | None,
    covered: int,
    *,
    summary_prefix: str,
) -> list[str]:
    """The view after a reduction: ``[system] + [summary] + history[k:]``, groups whole."""
    problems: list[str] = []
    parts = split_view(view, summary_prefix=summary_prefix)
    if [m.id for m in parts.conversation] != [m.id for m in conversation[watermark:]]:
        problems.append("the view is not [system] + [summary] + history[k:]")
    if parts.summary is not summary:
        problems.append("the view does not carry the latest summary")
    if boundaries(parts.conversation).orphans:
        problems.append("the view holds a tool result without its call (a group was split)")
    if covered != watermark:
        problems.append(f"{watermark} messages evicted but {covered} summarized")
    return problems


def budget_problems(view: Sequence[Message], size: int, reducer: SummarizationReducer) -> list[str]:
    """Over the threshold is a violation only when a cut was possible.

    The newest group always stays, and so does a pending tool call: a single group larger than
    the budget is kept whole by design.
    """
    if size <= reducer.threshold:
        return []
    parts = split_view(view, summary_prefix=reducer.summary_prefix)
    sizes = [reducer.size(m) for m in parts.conversation]
    fixed = reducer.head_size(parts.system, None) + reducer.summary_reserve()
    cut = choose_cut(
        parts.conversation,
        sizes,
        fixed=fixed,
        target=reducer.target,
        options=reducer.cut_options,
    )
    return [f"view of {size} over the threshold {reducer.threshold}"] if cut > 0 else []
