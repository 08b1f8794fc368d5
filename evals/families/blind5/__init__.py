"""The fifth blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b5-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind5 import accepts, asides, described, fixups, longrun
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b5-fixups": fixups.generate,
    "b5-longrun": longrun.generate,
    "b5-described": described.generate,
    "b5-asides": asides.generate,
    "b5-accepts": accepts.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
