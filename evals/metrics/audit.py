"""The invariant checks a replay runs after every message, as pure functions over its state.

Kept apart from :mod:`evals.engine.replay` so each check reads as the invariant it enforces (see
DESIGN.md): I2, the view is ``[system] + [summary] + history[k:]`` and each evicted message is
summarized exactly once; I3, tool-call groups are never split; the budget, kept whenever a
cut was possible; and the summary's provenance, which evidence retention trusts: a summary line
that names its source messages must be made of their words. Each returns the problems it found,
described; empty when the invariant held.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from summem.conversation import boundaries
from summem.messages import Message
from summem.reducers.cut import choose_cut
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.view import split_view

__all__ = [
    "budget_problems",
    "call_problems",
    "provenance_problems",
    "span_problems",
    "view_problems",
]

PROVENANCE_MIN_SUPPORT = 0.5
"""Share of a summary line's words its cited messages must hold (measured: at least 0.75)."""
_WORD = re.compile(r"[^\W_]+")
"""A word in any script (letters and digits), so a line in Hindi or Chinese has words to check."""


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


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 1 or w.isdigit()}


def _source_words(msg: Message) -> set[str]:
    """What a summary line may draw on: text, speaker (role and name), tool calls, extras."""
    data = msg.to_openai()
    parts: list[Any] = [msg.text, msg.role, msg.name or ""]
    for call in data.get("tool_calls") or ():
        function = call.get("function") or {}
        parts += [function.get("name", ""), function.get("arguments", "")]
    parts += [v for k, v in data.items() if k not in {"role", "content", "tool_calls"}]
    return _words(" ".join(str(p) for p in parts))


def provenance_problems(summary: Message, body: str, sources: Mapping[str, Message]) -> list[str]:
    """Each summary line that names source messages must be mostly their words.

    Evidence retention counts a turn as carried by the summary when the summary's provenance
    names it, so a summarizer that misattributed its lines would inflate that figure. Here a
    line whose content words are less than :data:`PROVENANCE_MIN_SUPPORT` in the messages it
    cites is a violation (an LLM summary records no provenance and is not checked).

    Args:
        summary: the committed summary (its ``extra["provenance"]``, if any, is checked).
        body: the summary's text without the reducer's prefix, one line per entry.
        sources: messages by id (the history so far).
    """
    info = summary.summary_info
    entries = info.extra.get("provenance") if info is not None else None
    if not isinstance(entries, list):
        return []
    lines = body.splitlines()
    problems: list[str] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        ids = [i for i in entry.get("ids") or () if isinstance(i, str)]
        number = entry.get("line")
        if not ids or not isinstance(number, int):
            continue
        if not 0 <= number < len(lines) or any(i not in sources for i in ids):
            problems.append(f"summary line {number} names a line or message that does not exist")
            continue
        words = _words(lines[number])
        if not words:
            continue
        cited = set().union(*(_source_words(sources[i]) for i in ids))
        support = len(words & cited) / len(words)
        if support < PROVENANCE_MIN_SUPPORT:
            problems.append(
                f"summary line {number} cites {ids[:3]} but only {support:.0%} of its words "
                "come from them (misattributed provenance)"
            )
    return problems
