"""Held-out families written blind: by someone who had not read the summarizer's rules.

A family tuned on stops telling a general rule from one fitted to its sentences, so these six
were written from how people talk, without reading the extractive summarizer or the reducers,
for judging selection rules on conversations they were not tuned on (issue 29). Each module is
one family's seeded writer; :mod:`evals.families.blind.base` is what they share (fresh values,
small talk dense with incidental values on both sides, tool calls, repeated status reports):

- ``prose``: preferences and personal facts in plain prose, with none of the cue words a rule
  could key on ("I prefer", "I always", "my favourite"...; :data:`prose.BANNED` is checked);
- ``tables``: tool results as markdown tables, CSV and JSON (columns and rows, or records), one
  cell a later user turn points to by its row;
- ``confirmations``: the assistant offers options, the user accepts one in a few words;
- ``chains``: a value or a person's name corrected two to four times over long gaps;
- ``locales``: names with diacritics and dates written the German, Spanish, French, Italian or
  Portuguese way, in English sentences and in short sentences of those languages;
- ``fragments``: a value in a sentence that leans on the one before ("We picked a name for the
  boat. It's going to be Marigold."), or in the second sentence of a longer message.

The trajectory generator (:func:`evals.families.trajectories.generate_trajectory`) runs them as
styles named here, and checks every planted value occurs in its own message only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from evals.families.blind import chains, confirmations, fragments, locales, prose, tables
from evals.families.blind.base import Writer

__all__ = ["WRITERS", "Writer"]

WRITERS: dict[str, Callable[[random.Random, int, int], Writer]] = {
    "prose": prose.write,
    "tables": tables.write,
    "confirmations": confirmations.write,
    "chains": chains.write,
    "locales": locales.write,
    "fragments": fragments.write,
}
"""Style name -> ``write(rng, turns, facts)``: a whole conversation with its planted facts."""
