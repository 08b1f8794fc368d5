"""The seventh blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b7-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind7 import chains, confirms, intl, passing, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b7-passing": passing.generate,
    "b7-chains": chains.generate,
    "b7-tables": tables.generate,
    "b7-confirms": confirms.generate,
    "b7-intl": intl.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
