"""Evals: measure what summem's memory keeps and what it costs, on synthetic and real conversations.

They sit outside the ``summem`` package (never shipped in the wheel) and outside the unit suite;
``evals/README.md`` documents one command per eval.

- :mod:`evals.trajectories` / :mod:`evals.facts`: seeded assistant conversations with facts
  planted at known turns, and the check of whether a view still carries each fact;
  :mod:`evals.trajectories_run` probes them after 1, 3 and 10 reduction cycles;
- :mod:`evals.locomo`: the LoCoMo dataset (read from a path given at run time, never copied
  here: it is CC BY-NC) as typed turns, messages and QA items with normalised evidence ids;
- :mod:`evals.locomo_baselines`: the window-only and LoCoMo-observation baselines and the
  retention and answer-containment metrics; :mod:`evals.locomo_engine` scores summem's engine
  the same way; :mod:`evals.locomo_run` runs them side by side from the command line;
- :mod:`evals.replay`: the engine replayed one message at a time, with its cost figures and
  invariant checks (:mod:`evals._audit`); :mod:`evals.engine` names a configuration;
- :mod:`evals.recording`: record live model replies to JSONL and replay them offline;
  :mod:`evals.qa`: answer LoCoMo's questions from the memory and grade them with an LLM judge;
- :mod:`evals.sweep`: grids of settings, retention against cost; :mod:`evals.gate`: the CI
  regression gate; :mod:`evals.report`: JSON reports, Markdown tables and Pareto plots.
"""
