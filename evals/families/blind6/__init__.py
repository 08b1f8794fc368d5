"""The sixth blind set: five held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b6-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind6 import confirms, prose, restated, session, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b6-restated": restated.generate,
    "b6-tables": tables.generate,
    "b6-prose": prose.generate,
    "b6-confirms": confirms.generate,
    "b6-session": session.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
