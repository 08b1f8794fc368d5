"""The conversations the evals replay: seeded planted-fact trajectories and LoCoMo.

- :mod:`evals.families.trajectories`: the seeded generator, its styles (direct, indirect,
  nested-tool, lists, heldout) and the facts it plants (:mod:`evals.families.facts`), from the
  word pools and frames of :mod:`~evals.families.pools`, :mod:`~evals.families.hidden`,
  :mod:`~evals.families.lists` and :mod:`~evals.families.heldout`;
- :mod:`evals.families.catalogue`: the named families every runner picks by ``--family``;
- :mod:`evals.families.locomo`: LoCoMo read from a path given at run time, never copied here.
"""

from __future__ import annotations

__all__: list[str] = []
