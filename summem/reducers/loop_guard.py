"""The loop breaker: automatic reductions that achieve nothing stop, and say why.

A rolling summary can go wrong in two ways that cost a summarizer call every turn forever: the
view cannot get back under its threshold (content the cut may not evict, such as a large system
message or ``keep_last_user_turns`` over long turns, fills it), so every turn reduces and each
reduction frees almost nothing; or the summary itself keeps growing until it is most of the
view. :class:`LoopWatch` looks at each committed automatic reduction and, after
``max_ineffective`` ineffective ones in a row, or as many in a row that each grew the summary
past its cap, returns a
:class:`ReductionsPaused` verdict; the session then makes no more automatic summarizer calls
until ``Memory.resume_reductions()`` (see :mod:`summem.session.core` for what a paused session
does past its hard limit).

A reduction is *ineffective* when it frees (evicted size less the summary's growth) less than
``min_freed_fraction`` of the room a reduction exists to make, ``threshold - target``, **and**
leaves the view above the target. The measure is relative to that room, not to the budget: a
loop frees about one turn per turn, a small part of the room whatever the scale, while an
ordinary reduction lands at the target (never counted, however little it had to free), and a
background reduction folding one span of a view far over its limits frees a span (about a
threshold's worth). So ordinary workloads, whose hysteresis is one reduction per
``threshold - target`` of growth, never trip it, and a loop trips it on its
``max_ineffective``-th reduction.

Growth is measured against the summary's own allowance: the cap is the larger of
``max_summary_fraction`` of the target and the size of a summary message at the reducer's
``summary_max_tokens`` (its text, prefix and overhead, as the reducer reserves room for it,
without the slack validation accepts on top). A summary within its allowance is never
*growing*, whatever the ratio of that allowance to the target: a rolling summary that fills the
room it was given is doing its job (with summaries of half the target or more, it crossed the
fraction on every reduction and ordinary conversations paused, issue #29); one that keeps
growing into the slack past it still is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from summem.errors import ConfigurationError

__all__ = ["LoopGuard", "LoopWatch", "PauseReason", "ReductionsPaused"]

PauseReason = Literal["ineffective", "summary_growth"]


@dataclass(frozen=True)
class LoopGuard:
    """When automatic reductions pause (``SummarizationReducer(loop_guard=...)``).

    Args:
        min_freed_fraction: a reduction that frees less than this fraction of
            ``threshold - target`` and leaves the view above the target is ineffective.
        max_ineffective: pause after this many ineffective reductions in a row, or this many
            in a row that each grew the summary past ``max_summary_fraction``.
        max_summary_fraction: a summary larger than the one it replaced, than this
            fraction of the target and than its own allowance is growing.
    """

    min_freed_fraction: float = 0.25
    max_ineffective: int = 3
    max_summary_fraction: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.min_freed_fraction, int | float) or not (
            0 < self.min_freed_fraction < 1
        ):
            raise ConfigurationError(
                "loop_guard.min_freed_fraction must be a number between 0 and 1 (exclusive), "
                f"got {self.min_freed_fraction!r}"
            )
        if (
            not isinstance(self.max_ineffective, int)
            or isinstance(self.max_ineffective, bool)
            or self.max_ineffective < 1
        ):
            raise ConfigurationError(
                f"loop_guard.max_ineffective must be an int >= 1, got {self.max_ineffective!r}"
            )
        if not isinstance(self.max_summary_fraction, int | float) or not (
            0 < self.max_summary_fraction <= 1
        ):
            raise ConfigurationError(
                "loop_guard.max_summary_fraction must be a number in (0, 1], "
                f"got {self.max_summary_fraction!r}"
            )


@dataclass(frozen=True)
class ReductionsPaused:
    """Why a session's automatic reductions stopped (``Memory.reductions_paused``).

    Attributes:
        reason: ``"ineffective"`` (reductions in a row freed almost nothing) or
            ``"summary_growth"`` (the summary grew past its cap).
        detail: one sentence with the figures.
        reductions: automatic reductions this memory had committed when it paused.
    """

    reason: PauseReason
    detail: str
    reductions: int


class LoopWatch:
    """Watches the committed automatic reductions of one session.

    Not thread-safe: the session core calls it under its lock.
    """

    def __init__(
        self,
        guard: LoopGuard,
        *,
        threshold: int,
        target: int,
        unit: str,
        summary_allowance: int | Callable[[], int] = 0,
    ) -> None:
        self.guard = guard
        self.min_freed = guard.min_freed_fraction * (threshold - target)
        self.target = target
        self._allowance = summary_allowance
        self.unit = unit
        self.ineffective = 0
        self.growing = 0
        self.reductions = 0

    @property
    def summary_allowance(self) -> int:
        """The summary's own room (in the budget's unit): a summary within it never grows.

        Given as a function, it is asked on first use: measuring it may load a tokenizer,
        which a session defers until a reduction (see ``SessionCore.exact``).
        """
        allowance = self._allowance
        if callable(allowance):
            allowance = self._allowance = allowance()
        return allowance

    @property
    def summary_cap(self) -> float:
        """The size past which a summary that grew counts as growing."""
        return max(self.guard.max_summary_fraction * self.target, self.summary_allowance)

    def reset(self) -> None:
        """Start counting again (after a resume or a clear)."""
        self.ineffective = self.growing = 0

    def observe(
        self, *, freed: int, size_after: int, summary_before: int, summary_after: int
    ) -> ReductionsPaused | None:
        """Judge one committed reduction; a verdict when reductions must pause.

        ``freed`` is the evicted size less the summary's growth, ``size_after`` the view's
        size the reduction left (without what was appended while it ran), the summary sizes
        are those before and after it (0: none).
        """
        self.reductions += 1
        unit = self.unit
        if 0 < summary_before < summary_after and summary_after > self.summary_cap:
            self.growing += 1
        else:
            self.growing = 0
        if self.growing >= self.guard.max_ineffective:
            return ReductionsPaused(
                "summary_growth",
                f"the summary grew in {self.growing} reductions in a row, to {summary_after} "
                f"{unit}, past {self._cap_named()}",
                self.reductions,
            )
        if freed < self.min_freed and size_after > self.target:
            self.ineffective += 1
        else:
            self.ineffective = 0
        if self.ineffective >= self.guard.max_ineffective:
            return ReductionsPaused(
                "ineffective",
                f"{self.ineffective} reductions in a row freed less than {self.min_freed:g} "
                f"{unit} each (the last {freed}) and left the view above the target "
                f"({size_after} > {self.target}): something the cut may not evict fills it",
                self.reductions,
            )
        return None

    def _cap_named(self) -> str:
        """The growth cap in words: the target's fraction, or the summary's own allowance."""
        fraction = self.guard.max_summary_fraction
        if self.summary_allowance > fraction * self.target:
            return f"its own allowance ({self.summary_allowance})"
        return f"{fraction:g} of the target ({self.summary_cap:g})"
