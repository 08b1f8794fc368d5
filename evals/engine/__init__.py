"""summem's engine as the evals drive it.

- :mod:`evals.engine.config`: one named configuration, its summarizer and client;
- :mod:`evals.engine.replay`: a conversation replayed one message at a time, audited, costed;
- :mod:`evals.engine.recording`: live model replies recorded to JSONL and replayed offline;
- :mod:`evals.engine.locomo`: LoCoMo's conversations through the engine, scored as the
  baselines are.
"""

from __future__ import annotations

__all__: list[str] = []
