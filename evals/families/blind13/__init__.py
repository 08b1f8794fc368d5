"""The thirteenth blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b13-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind13 import chains, dialogue, intl, prose, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b13-dialogue": dialogue.generate,
    "b13-prose": prose.generate,
    "b13-tables": tables.generate,
    "b13-chains": chains.generate,
    "b13-intl": intl.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
