"""Provider usage summed over a session's whole history, kept as a running total.

The wrappers store each reply's usage in ``meta["usage"]``; ``Memory.usage`` must not read the
whole history to add it up. :class:`UsageLedger` keeps head (``history[:k]``) and tail
(``history[k:]``) apart: every summary summem commits carries its head's usage in
``extra["history_usage"]``, so a load knows it at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from summem.messages import Message

__all__ = [
    "HISTORY_USAGE_KEY",
    "SUMMARIZER_TOTAL_KEY",
    "Usage",
    "UsageLedger",
    "add_spend",
    "sum_usage",
    "summarizer_total",
]


def _add_usage(total: dict[str, int], msg: Message) -> None:
    usage = msg.meta.get("usage")
    if isinstance(usage, dict):
        for key, value in usage.items():
            if isinstance(value, int) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value


def sum_usage(messages: Iterable[Message], total: dict[str, int] | None = None) -> dict[str, int]:
    """Add up ``meta["usage"]`` over ``messages`` (integer fields only)."""
    out = {} if total is None else total
    for msg in messages:
        _add_usage(out, msg)
    return out


HISTORY_USAGE_KEY = "history_usage"
"""``SummaryInfo.extra`` key: the usage summed over the ``history[:k]`` a summary stands for."""


SUMMARIZER_TOTAL_KEY = "summarizer_total"
"""``SummaryInfo.extra`` key: what the session's committed reductions spent so far, this one
included (``calls``, ``input_tokens``, ``output_tokens``, ``cost_usd``)."""


def add_spend(carried: object, spent: dict[str, float]) -> dict[str, float]:
    """``spent`` added to a carried :data:`SUMMARIZER_TOTAL_KEY` total (ignored if malformed)."""
    total: dict[str, float] = {}
    if isinstance(carried, dict):
        for key, value in carried.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[str(key)] = value
    for key, value in spent.items():
        total[key] = total.get(key, 0) + value
    return total


class Usage(dict[str, float]):
    """``Memory.usage``: a dict whose repr, while it is empty, says why (offline, it stays so)."""

    def __repr__(self) -> str:
        if self:
            return super().__repr__()
        return (
            "{} (nothing spent yet: usage adds up the provider usage of the replies a wrapper "
            "recorded and what LLM summaries cost; the offline extractive summarizer calls no "
            "model)"
        )


def summarizer_total(summary: Message | None) -> dict[str, float]:
    """What the session's committed reductions spent, as the latest summary records it."""
    info = summary.summary_info if summary is not None else None
    return add_spend(info.extra.get(SUMMARIZER_TOTAL_KEY) if info is not None else None, {})


def _plus(a: dict[str, int], b: dict[str, int], sign: int = 1) -> dict[str, int]:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + sign * value
    return out


class UsageLedger:
    """Provider usage summed over the whole history, without reading it on every load.

    The total is ``head`` (``history[:k]``) plus ``tail`` (``history[k:]``, which a load reads
    anyway). Every summary summem commits carries its head in ``extra["history_usage"]``, so a
    load knows the head at once; after a plain truncation by another worker the head is
    unknown and :meth:`gap` names the range to read (only the part not already summed).
    """

    def __init__(self) -> None:
        self.head: dict[str, int] | None = {}
        self.at: tuple[str, int] = ("", 0)
        """(epoch, watermark) the head was summed for."""
        self.tail: dict[str, int] = {}

    def loaded(
        self, epoch: str, watermark: int, summary: Message | None, tail: Sequence[Message]
    ) -> None:
        """A snapshot was loaded: sum its tail, take the head from its summary if it can."""
        self.tail = sum_usage(tail)
        info = summary.summary_info if summary is not None else None
        carried = info.extra.get(HISTORY_USAGE_KEY) if info is not None else None
        if watermark == 0:
            self.head, self.at = {}, (epoch, 0)
        elif isinstance(carried, dict):
            self.head, self.at = {str(k): int(v) for k, v in carried.items()}, (epoch, watermark)

    def gap(self, epoch: str, watermark: int) -> tuple[int, int] | None:
        """The ``history[start:stop]`` to read so the head is known, or ``None``."""
        if self.head is not None and self.at == (epoch, watermark):
            return None
        if self.head is not None and self.at[0] == epoch and self.at[1] < watermark:
            return self.at[1], watermark
        return 0, watermark

    def filled(self, epoch: str, start: int, stop: int, usage: dict[str, int]) -> None:
        """``usage`` was summed over ``history[start:stop]``."""
        base = {} if start == 0 else self.head if self.at == (epoch, start) else None
        if base is not None:
            self.head, self.at = _plus(base, usage), (epoch, stop)

    def moved(self, epoch: str, watermark: int, new_watermark: int, evicted: list[Message]) -> None:
        """A reduction moved ``evicted`` from the tail into the head."""
        moved = sum_usage(evicted)
        self.tail = _plus(self.tail, moved, -1)
        known = self.head is not None and self.at == (epoch, watermark)
        self.head = _plus(self.head, moved) if known and self.head is not None else None
        self.at = (epoch, new_watermark)

    def head_after(
        self, epoch: str, watermark: int, evicted: list[Message]
    ) -> dict[str, int] | None:
        """The head once ``evicted`` joins it (``None`` if the head is unknown)."""
        if self.head is None or self.at != (epoch, watermark):
            return None
        return _plus(self.head, sum_usage(evicted))

    def total(self) -> dict[str, int]:
        """Head plus tail (the head counts as empty while unknown)."""
        return {k: v for k, v in _plus(self.head or {}, self.tail).items() if v}
