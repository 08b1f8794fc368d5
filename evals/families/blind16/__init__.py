"""The sixteenth blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b16-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind16 import chains, confirms, intl, prose, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b16-prose": prose.generate,
    "b16-tables": tables.generate,
    "b16-confirms": confirms.generate,
    "b16-chains": chains.generate,
    "b16-intl": intl.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
