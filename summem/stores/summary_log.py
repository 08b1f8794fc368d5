"""The summary log, bounded: the last N summaries whole, the older ones as metadata only.

Every commit logs its summary, so :meth:`~summem.stores.base.Store.rollback` and a branch
(:meth:`~summem.stores.base.BranchingStore.rewrite`) can make an earlier one current again. A
session that runs for months commits tens of thousands of summaries; kept whole, the log would
grow with the history. So a store keeps the latest ``keep_summaries`` entries whole (the
argument of ``commit``, from ``Memory(keep_summaries=...)`` or ``summem.yaml``) and turns each
older one into its **stub** (:func:`summary_stub`): the same id, role, watermark, previous
summary, summarizer, model, prompt, sizes, time and spend, with no text and no per-message
provenance. A stub is O(1), so the stored log is O(N) whole summaries plus a small record per
reduction, and reading it never loads old texts.

A stub is never made current: ``rollback`` to it raises :func:`dropped_summary_error` (nothing
written), and a branch that must roll the view back falls back to the latest *whole* summary
of a prefix of what it keeps, or to none (the view is then rebuilt by the usual reduction).
"""

from __future__ import annotations

import inspect
from typing import Any

from summem.errors import ConfigurationError, StoreError
from summem.messages import Message

__all__ = [
    "DEFAULT_KEEP_SUMMARIES",
    "DROPPED_KEY",
    "check_keep_summaries",
    "covered_count",
    "dropped_summary_error",
    "is_stub",
    "summary_stub",
    "takes_keep_summaries",
]

DEFAULT_KEEP_SUMMARIES = 20
"""Whole summaries a session's log keeps by default (older ones are stubs)."""

DROPPED_KEY = "text_dropped"
"""The ``summary_info.extra`` key that marks a stub: what the whole summary held (sizes)."""

_KEPT_EXTRA = (
    "usage",
    "fallback",
    "recomputed",
    "dropped_messages",
    "history_usage",
    "summarizer_total",
)
"""``extra`` keys a stub keeps: each a few numbers, used by the reduction timeline and spend."""


def check_keep_summaries(value: object) -> int | None:
    """``value`` as a number of whole summaries to keep (``None``: keep every one whole).

    Raises:
        ConfigurationError: not ``None`` nor an int of at least 1.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(
            f"keep_summaries must be an int of at least 1 (or None to keep every summary "
            f"whole), got {value!r}"
        )
    return value


def is_stub(summary: Message) -> bool:
    """True when ``summary`` is a log entry whose text was dropped (see :func:`summary_stub`)."""
    info = summary.summary_info
    return info is not None and DROPPED_KEY in info.extra


def covered_count(summary: Message) -> int:
    """How many messages ``summary`` folded in: its covered ids, or the count that names them.

    A stub keeps the count (``extra["text_dropped"]["covered"]``), a recomputed summary names
    all of ``history[:k]`` by its count (``extra["recomputed"]["messages"]``).
    """
    info = summary.summary_info
    if info is None:
        return 0
    for key, field in ((DROPPED_KEY, "covered"), ("recomputed", "messages")):
        record = info.extra.get(key)
        value = record.get(field) if isinstance(record, dict) else None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return len(info.covered_ids)


def summary_stub(summary: Message) -> Message:
    """``summary`` as a metadata-only log entry: O(1) whatever it covered.

    Keeps the id, role, watermark, previous summary, summarizer, model, prompt and hash, token
    count, time and the small spend records of ``extra``; the text becomes ``""`` and the
    covered and uncovered ids become counts (``extra["text_dropped"]``). A stub of a stub is
    itself.
    """
    info = summary.summary_info
    if info is None or DROPPED_KEY in info.extra:
        return summary
    extra: dict[str, Any] = {k: info.extra[k] for k in _KEPT_EXTRA if k in info.extra}
    uncovered = info.extra.get("uncovered_ids")
    extra[DROPPED_KEY] = {
        "chars": len(summary.text),
        "covered": covered_count(summary),
        "uncovered": len(uncovered) if isinstance(uncovered, list) else None,
    }
    stub = Message(role=summary.role, content="").with_id(summary.id)
    return stub.as_summary(info.model_copy(update={"covered_ids": (), "extra": extra}))


def takes_keep_summaries(store: object) -> bool:
    """Whether ``store.commit`` takes ``keep_summaries`` (every built-in store does).

    A third-party store written before the bounded log does not; it is called as before and
    keeps its log as it always did. An adapter around a sync store answers for that store.
    """
    inner = getattr(store, "sync_store", None)
    if inner is not None and inner is not store:
        return takes_keep_summaries(inner)
    commit = getattr(store, "commit", None)
    if commit is None:
        return False
    try:
        params = inspect.signature(commit).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "keep_summaries" or p.kind is p.VAR_KEYWORD for p in params)


def dropped_summary_error(session_id: str, summary_id: str) -> StoreError:
    """The error of a rollback to a summary whose text the bounded log dropped."""
    return StoreError(
        f"session {session_id!r}: summary {summary_id!r} is logged as metadata only (its text "
        "was dropped: the log keeps the last keep_summaries summaries whole), so it cannot be "
        "made current; nothing was written. Roll back to a later summary, or to none and "
        "recompute()"
    )
