# ruff: noqa: RUF002, RUF003 - the punctuation of other scripts
"""Text normalisation shared by the evals, so every "is X in the view?" check agrees.

Answers and facts are compared after the SQuAD-style normalisation LoCoMo's own scorer uses:
lower case, punctuation and the articles ``a``/``an``/``the`` removed, whitespace collapsed.
Containment is then checked on word boundaries, so ``"2022"`` is not found in ``"12022"``.
Other languages' text is composed first (Unicode NFC: a ``u`` with a combining diaeresis is the
same ``ü``), and their punctuation counts as punctuation (``¿``, ``¡``, ``«``, ``»``, ``„``),
so ``«Núñez»`` holds the word ``núñez``; letters keep their accents. The sentence and clause
marks of other scripts (``。`` ``、`` ``「`` ``」`` ``！`` the fullwidth forms, ``।`` ``؟`` ``،``
``။`` ``።``) count as punctuation too. Thai, Lao, Khmer, Burmese, Chinese and Japanese are written
without spaces between words: where the text next to a value, or the value's own first or last
character, is of such a script, that side needs no space ("担当は山田太郎です。" holds
``山田太郎``, "ส่งวันที่ 14 มีนาคม" holds ``14``), so a summary holding the value as written is not
scored as missing it.
"""

from __future__ import annotations

import re
import string
import unicodedata

__all__ = ["contains_normalized", "find_normalized", "normalize_text", "person_neutral"]

_PUNCT = str.maketrans(
    {
        c: " "
        for c in string.punctuation
        + "\u2018\u2019\u201c\u201d\u2014\u00bf\u00a1\u00ab\u00bb\u201e\u201a\u2039\u203a"
        + "".join(map(chr, range(0x3000, 0x3004)))  # ideographic space, 、 。 〃
        + "".join(map(chr, range(0x3008, 0x3012)))  # 〈 〉 《 》 「 」 『 』 【 】
        + "\u30fb\uff01\uff08\uff09\uff0c\uff0e\uff1a\uff1b\uff1f"  # ・ ！ （ ） ， ． ： ； ？
        + "\u0964\u0965\u060c\u061b\u061f\u06d4\u104a\u104b\u1361\u1362\u1363\u1364"
    }
)
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f]"
)
"""A character of a script written without spaces between words: Thai, Lao, Burmese, Khmer,
kana and the CJK ideographs."""
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
    return find_normalized(haystack_normalized, norm) >= 0


def find_normalized(haystack_normalized: str, norm: str, start: int = 0) -> int:
    """Where normalised ``norm`` first stands as whole words in the haystack from ``start``, or -1.

    A side of the match is a word boundary where it meets a space or an end of the haystack,
    or where the character beside it or ``norm``'s own character on that side is of a script
    written without spaces (:data:`_UNSPACED`): ``14`` stands in ``3月14日`` but not in ``140``.
    """
    if not norm:
        return -1
    hay = haystack_normalized
    if not (_UNSPACED.search(norm) or _UNSPACED.search(hay, start)):
        return f" {hay} ".find(f" {norm} ", start)  # the padded index is the word's own
    first, last = _UNSPACED.match(norm[0]) is not None, _UNSPACED.match(norm[-1]) is not None
    at = hay.find(norm, start)
    while at >= 0:
        end = at + len(norm)
        before = at == 0 or hay[at - 1] == " " or first or _UNSPACED.match(hay[at - 1])
        after = end == len(hay) or hay[end] == " " or last or _UNSPACED.match(hay[end])
        if before and after:
            return at
        at = hay.find(norm, at + 1)
    return -1


def person_neutral(normalized: str) -> str:
    """An already normalised text with its personal pronouns folded into one word each.

    Every personal and possessive pronoun (``i``, ``my``, ``his``, ``her``, ``their``, ...)
    becomes ``prn`` and every reflexive one (``myself``, ``herself``, ...) ``prnself``, so a
    speaker's own words ("my faith") and a third-person rewrite of them ("her faith") compare
    equal. English only; used for a diagnostic beside the headline metric, never instead of it
    (it is more lenient: "your dad" then holds "his dad" too).
    """
    return _SELVES.sub("prnself", _PERSONS.sub("prn", normalized))
