"""Evals: measure what summem's memory keeps and what it costs, on synthetic and real conversations.

They sit outside the ``summem`` package (never shipped in the wheel) and outside the unit suite;
``evals/README.md`` documents one command per eval. Four kinds of parts, each a package, each
importing only the ones below it (checked by import-linter):

- :mod:`evals.runners`: the commands (``python -m evals.runners.<name>``), one module each: the
  planted-fact trajectories, LoCoMo, sweeps, the ablation, the CI gate, masking, recall, fact
  loss, the cost model and the figures of the READMEs; with their JSON/Markdown/plot output
  (:mod:`evals.runners.report`) and the one-line errors of their command line;
- :mod:`evals.cost`: the cost model: every request a memory sends, replayed and priced under
  each provider's prompt caching;
- :mod:`evals.engine`: summem's engine as the evals drive it: one named configuration, a
  conversation replayed one message at a time with its invariants checked, recorded and
  replayed model replies, LoCoMo's conversations through it;
- :mod:`evals.baselines`: the memories summem is compared with on LoCoMo at the same budget
  (window, LoCoMo's observations, its session summaries, TF-IDF), one module each;
- :mod:`evals.metrics`: what a view is scored by: planted-fact retention, evidence retention on
  LoCoMo and why an answer was missed, answers graded by an LLM judge, the engine's invariants;
- :mod:`evals.families`: the conversations: the seeded planted-fact trajectory generator and its
  named families, and LoCoMo (read from a path given at run time, never copied here: CC BY-NC);
- :mod:`evals.text` and :mod:`evals.progress`: the text normalisation every check agrees on, and
  the progress bars.

A new trajectory family is a line in :mod:`evals.families.catalogue`; a new baseline is a
module in :mod:`evals.baselines` named in :mod:`evals.runners.locomo`; a new command is a
module in :mod:`evals.runners`.
"""

from __future__ import annotations

__all__: list[str] = []
