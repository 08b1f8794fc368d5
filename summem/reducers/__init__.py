"""Reducers: what to keep in the view, and how to make room.

:class:`SummarizationReducer` (a rolling summary) and :class:`TruncationReducer` (drop the
oldest), their result (:class:`ReduceResult`), the view's style (:class:`ViewStyle`) and the
guard against reduction loops (:class:`LoopGuard`, :class:`ReductionsPaused`). The names below
load on first use (see :mod:`summem.recall` for why lazily).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from summem.reducers.base import ReduceResult
    from summem.reducers.loop_guard import LoopGuard, ReductionsPaused
    from summem.reducers.style import ViewStyle
    from summem.reducers.summarization import SummarizationReducer
    from summem.reducers.truncation import TruncationReducer

__all__ = [
    "LoopGuard",
    "ReduceResult",
    "ReductionsPaused",
    "SummarizationReducer",
    "TruncationReducer",
    "ViewStyle",
]

_HOMES = {
    "LoopGuard": ".loop_guard",
    "ReduceResult": ".base",
    "ReductionsPaused": ".loop_guard",
    "SummarizationReducer": ".summarization",
    "TruncationReducer": ".truncation",
    "ViewStyle": ".style",
}

__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
