"""Text normalisation shared by the evals, so every "is X in the view?" check agrees.

Answers and facts are compared after the SQuAD-style normalisation LoCoMo's own scorer uses:
lower case, punctuation and the articles ``a``/``an``/``the`` removed, whitespace collapsed.
Containment is then checked on word boundaries, so ``"2022"`` is not found in ``"12022"``.
Other languages' text is composed first (Unicode NFC: a ``u`` with a combining diaeresis is the
same ``ü``), and their punctuation counts as punctuation (``¿``, ``¡``, ``«``, ``»``, ``„``),
so ``«Núñez»`` holds the word ``núñez``; letters keep their accents.
"""

from __future__ import annotations

import re
import string
import unicodedata

__all__ = ["contains_normalized", "normalize_text"]

_PUNCT = str.maketrans(
    {
        c: " "
        for c in string.punctuation
        + "\u2018\u2019\u201c\u201d\u2014\u00bf\u00a1\u00ab\u00bb\u201e\u201a\u2039\u203a"
    }
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """``text`` lower-cased, without punctuation or articles, single-spaced."""
    text = unicodedata.normalize("NFC", text).lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def contains_normalized(haystack_normalized: str, needle: str) -> bool:
    """True when ``needle`` (normalised here) is in an already normalised haystack, whole words.

    An empty needle (an answer that is only punctuation or articles) is never contained.
    """
    norm = normalize_text(needle)
    if not norm:
        return False
    return f" {norm} " in f" {haystack_normalized} "
