"""Where a planted value occurs in a conversation: the checks the blind sets draw again on.

A held-out family plants each value where its scorer will look for it and nowhere else; a
generator that finds a value elsewhere raises :class:`Collision` and draws the seed again. A
value occurs in a message verbatim, or as normalised whole words (``"Sage  Mist!"`` holds
``sage mist``), the two ways the trajectory scorer finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from evals.families.facts import message_text
from evals.text import normalize_text

__all__ = ["Collision", "Exhausted", "count_in", "first_clean", "padded", "texts_of", "where"]

W = TypeVar("W")

Texts = Sequence[tuple[str, str]]
"""Each message's text, verbatim and padded (:func:`texts_of`)."""


class Collision(AssertionError):
    """A planted value also occurs in another message (the seed is drawn again)."""


class Exhausted(Collision):
    """A pool of fresh values ran out while writing (the seed is drawn again, as on a collision).

    A long conversation with many tables can use every date or name a writer's pool holds; a
    writer that drew until it found an unused one looped forever (``tables``, seeds 10, 14 and
    16), one that gave up raised and failed the run (``blind5-described``, seeds 8, 12, 14).
    """


def padded(text: str) -> str:
    """``text`` normalised, with a space at each end: whole words match ``" word "``."""
    return f" {normalize_text(text)} "


def texts_of(messages: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each message's text, verbatim and :func:`padded`, for :func:`where`."""
    return [(message_text(m), padded(message_text(m))) for m in messages]


def where(texts: Texts, value: str) -> list[int]:
    """The indexes of the messages that hold ``value``, verbatim or as normalised whole words."""
    form = padded(value)
    return [i for i, (raw, norm) in enumerate(texts) if value in raw or form in norm]


def count_in(messages: Sequence[dict[str, Any]], value: str) -> int:
    """How many of ``messages`` hold ``value``, verbatim or as normalised whole words."""
    return len(where(texts_of(messages), value))


def first_clean(draw: Callable[[int], W], check: Callable[[W], None], tries: int, seed: int) -> W:
    """The first of ``draw(0)``, ``draw(1)``... that ``check`` passes, in ``tries`` draws.

    A :class:`Collision` (or an :class:`Exhausted` pool while drawing) draws again; ``seed``
    names the conversation in the error.
    """
    for attempt in range(tries):
        try:
            made = draw(attempt)
            check(made)
        except Collision:  # an :class:`Exhausted` pool too
            continue
        return made
    raise AssertionError(f"seed {seed}: planted values keep colliding")
