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

__all__ = ["contains_normalized", "normalize_text", "person_neutral"]

_PUNCT = str.maketrans(
    {
        c: " "
        for c in string.punctuation
        + "\u2018\u2019\u201c\u201d\u2014\u00bf\u00a1\u00ab\u00bb\u201e\u201a\u2039\u203a"
    }
)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPACES = re.compile(r"\s+")
_PERSONS = re.compile(
    r"\b(i|me|my|mine|you|your|yours|he|him|his|she|her|hers|we|us|our|ours|they|them|their"
    r"|theirs)\b"
)
_SELVES = re.compile(r"\b(myself|yourself|himself|herself|ourselves|yourselves|themselves)\b")


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


def person_neutral(normalized: str) -> str:
    """An already normalised text with its personal pronouns folded into one word each.

    Every personal and possessive pronoun (``i``, ``my``, ``his``, ``her``, ``their``, ...)
    becomes ``prn`` and every reflexive one (``myself``, ``herself``, ...) ``prnself``, so a
    speaker's own words ("my faith") and a third-person rewrite of them ("her faith") compare
    equal. English only; used for a diagnostic beside the headline metric, never instead of it
    (it is more lenient: "your dad" then holds "his dad" too).
    """
    return _SELVES.sub("prnself", _PERSONS.sub("prn", normalized))
