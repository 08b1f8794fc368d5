"""The cost model: every request a memory sends, replayed and billed under prompt caching.

- :mod:`evals.cost.pricing`: what a request is billed under each provider's caching rules;
- :mod:`evals.cost.setups`: the memory configurations, workloads and models compared;
- :mod:`evals.cost.replay`: a conversation replayed through a memory, every request priced.

Its command, tables and plot are :mod:`evals.runners.cost`.
"""

from __future__ import annotations

__all__: list[str] = []
