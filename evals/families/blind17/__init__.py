"""The seventeenth blind set: three held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b17-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind17 import chains, prose, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b17-chains": chains.generate,
    "b17-tables": tables.generate,
    "b17-prose": prose.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
