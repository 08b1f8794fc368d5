"""Prompt block delimiters, and how conversation text is kept from opening or closing one.

Apart from :mod:`summem.prompts` (which loads yaml and pydantic's prompt model) so that
rendering a transcript, the recall index and the wrappers' import path load neither: they only
need :func:`neutralize_delimiters`. :mod:`summem.prompts` re-exports both names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["DEFAULT_DELIMITERS", "TAG_RE", "neutralize_delimiters"]

DEFAULT_DELIMITERS: tuple[str, ...] = (
    "<transcript>",
    "</transcript>",
    "<previous_summary>",
    "</previous_summary>",
)
"""The block delimiters of the shipped prompts; conversation text can never contain them."""

TAG_RE = re.compile(r"</?([A-Za-z_][\w-]*)>")
"""A tag delimiter such as ``<transcript>`` or ``</transcript>``; group 1 is its name."""


def neutralize_delimiters(text: str, delimiters: Sequence[str] = DEFAULT_DELIMITERS) -> str:
    r"""Make ``text`` unable to open or close a prompt block.

    A tag delimiter such as ``</transcript>`` gets a backslash after its ``<``
    (``<\/transcript>``, ``<\transcript>``), matched case-insensitively and with stray spaces
    (``< /Transcript >``), so the model still reads what was written but the block is not
    closed. Any other delimiter gets a zero-width space (U+200B) after its first character.
    The operation is idempotent.
    """
    if not text:
        return text
    return _delimiter_pattern(tuple(delimiters)).sub(_neutral_sub, text)


def _neutral_sub(m: re.Match[str]) -> str:
    token = m.group(0)
    if token == "<":
        return "<\\"
    return token[0] + "\u200b" + token[1:]


@functools.lru_cache(maxsize=32)
def _delimiter_pattern(delimiters: tuple[str, ...]) -> re.Pattern[str]:
    names: list[str] = []
    literals: list[str] = []
    for d in delimiters:
        m = TAG_RE.fullmatch(d)
        if m:
            names.append(re.escape(m.group(1)))
        elif d:
            literals.append(re.escape(d))
    parts: list[str] = []
    if names:
        alts = "|".join(sorted(set(names), key=len, reverse=True))
        parts.append(rf"<(?=\s*/?\s*(?:{alts})(?![\w-]))")
    parts.extend(sorted(set(literals), key=len, reverse=True))
    if not parts:
        return re.compile(r"(?!x)x")  # matches nothing
    return re.compile("|".join(parts), re.IGNORECASE)
