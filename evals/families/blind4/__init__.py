"""The fourth blind set: six held-out families written without reading the summarizer.

Each module writes one family's conversations (``generate(seed, turns=, facts=)``); the
catalogue (:mod:`evals.families.catalogue`) names them by their ``b4-*`` style. Written blind
and run once: do not tune against them (see ``README.md`` here).
"""

from __future__ import annotations

from collections.abc import Callable

from evals.families.blind4 import chains, confirms, filler, habits, locale, tables
from evals.families.trajectories import Trajectory

__all__ = ["GENERATORS"]

GENERATORS: dict[str, Callable[..., Trajectory]] = {
    "b4-habits": habits.generate,
    "b4-tables": tables.generate,
    "b4-confirms": confirms.generate,
    "b4-chains": chains.generate,
    "b4-locale": locale.generate,
    "b4-filler": filler.generate,
}
"""Style name -> the generator writing that family (``seed``, ``turns=``, ``facts=``)."""
