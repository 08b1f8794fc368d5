"""Plain truncation: evict the oldest groups, keep no record of them in the view.

The equivalent of LangChain4j's ``MessageWindowChatMemory`` / ``TokenWindowChatMemory`` and
Semantic Kernel's ``ChatHistoryTruncationReducer``, with a threshold and a target so it works
once per ``threshold - target`` of growth, and with tool groups never split. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from summem.messages import MessageLike
from summem.reducers.base import BudgetReducer, ReduceResult
from summem.reducers.cut import choose_cut
from summem.reducers.view import DEFAULT_SUMMARY_PREFIX

__all__ = ["TruncationReducer"]


class TruncationReducer(BudgetReducer):
    """Keep the system message, any previous summary as it is, and the newest turns."""

    kind = "truncation"

    def summary_reserve(self) -> int:
        """Truncation writes no summary, so it reserves no room for one."""
        return 0

    def reduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        """Return the view within budget; the input is not changed."""
        parts = self._parts(messages, DEFAULT_SUMMARY_PREFIX)
        shown = self.shown(parts.conversation)
        sizes = [self.size(m) for m in shown]
        head = self.head_size(parts.system, parts.summary)
        before = head + sum(sizes)
        cut = 0
        if before > self.threshold:
            cut = choose_cut(
                parts.conversation, sizes, fixed=head, target=self.target, options=self.cut_options
            )
        kept = shown[cut:]
        head_msgs = [m for m in (parts.system, parts.summary) if m is not None]
        return ReduceResult(
            view=head_msgs + kept,
            summary=parts.summary,
            evicted=parts.conversation[:cut],
            reduced=cut > 0,
            size_before=before,
            size_after=head + sum(sizes[cut:]),
            placement=parts.placement,  # a summary kept inside the system message stays there
        )

    async def areduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        """Same as :meth:`reduce` (truncation does no I/O)."""
        return self.reduce(messages)
