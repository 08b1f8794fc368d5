"""What a view is scored by.

- :mod:`evals.metrics.retention`: planted facts carried verbatim, by the summary, or lost;
- :mod:`evals.metrics.evidence`: LoCoMo's evidence turns and answers carried by a view;
  :mod:`evals.metrics.misses`: why one memory misses answers another holds;
- :mod:`evals.metrics.qa`: LoCoMo's questions answered from the view and graded by an LLM judge
  (prompts in ``evals/metrics/prompts/``);
- :mod:`evals.metrics.audit`: the engine's invariants, checked after every replayed message.
"""

from __future__ import annotations

__all__: list[str] = []
