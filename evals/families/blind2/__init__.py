"""The second set of held-out families written blind (issue 29), long enough for 10+ reductions.

Written from how people talk to assistants, by someone who had read neither the summarizer nor
the first blind set's sentences, only the family interface. Each module's ``write(rng, turns,
facts)`` returns a :class:`~evals.families.blind2.base.Writer` holding the whole conversation
and its planted facts; the trajectory generator (:func:`evals.families.trajectories
.generate_trajectory`) runs them as the styles named here and checks that every planted value
occurs in its own message only. A family tuned on is no longer held out: do not tune on these.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind2 import accepts, chat, code, intl, revisions, tables
from evals.families.blind2.base import Writer

__all__ = ["WRITERS", "Writer"]

WRITERS: dict[str, Callable[[random.Random, int, int], Writer]] = {
    "tool-tables": tables.write,
    "chat-preferences": chat.write,
    "revisions": revisions.write,
    "accepts": accepts.write,
    "code-session": code.write,
    "intl": intl.write,
}
"""Style name -> ``write(rng, turns, facts)``: a whole conversation with its planted facts."""
