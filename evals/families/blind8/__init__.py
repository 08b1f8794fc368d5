"""The eighth blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b8-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind8 import accepts, asides, intl, renames, sheets
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b8-asides": asides.generate,
    "b8-sheets": sheets.generate,
    "b8-renames": renames.generate,
    "b8-accepts": accepts.generate,
    "b8-intl": intl.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
