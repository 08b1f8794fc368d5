"""The memories summem is compared with on LoCoMo, at the same token budget.

Each returns the :class:`~evals.metrics.evidence.CarriedView` it ends a conversation with:
:mod:`~evals.baselines.window` (recent turns only, and the budget split every summary baseline
fills), :mod:`~evals.baselines.observations` (LoCoMo's observations as the summary),
:mod:`~evals.baselines.session_summaries` and :mod:`~evals.baselines.tfidf`. A new baseline is
a module here, named in :mod:`evals.runners.locomo`.
"""

from __future__ import annotations

__all__: list[str] = []
