# ruff: noqa: RUF002 - words and digits of other scripts
"""Words of other scripts: Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai, CJK, Hangul.

The summarizer reads a sentence as its lower-cased ASCII words (:func:`.facts.tokenize`). A
sentence written in another script had no words at all: "Контакт у Києві: Олена Коваленко",
"موعد الشحن ١٤ تموز ٢٠٢٧" or "ราคารวมทั้งหมด ๑,๓๐๐ บาท ครับ" scored 0 and was never kept, and a
correction in that script could never be read against what it corrects. Here a run of letters
(with their combining marks: Devanagari and Thai vowel signs) of any script but the Latin
one is a word, and every decimal digit is read as its value (Persian ``۲۳``, Arabic-Indic
``٢٣``, Devanagari ``२३`` and Thai ``๒๓`` are all ``23``, as :func:`unicodedata.digit` says),
so a date or an amount written in one set of digits and corrected in another has the same
value words. A script written without spaces (Thai, Chinese, Japanese) gives one word per run
between spaces or punctuation; the line kept is always the text as written.

Latin letters with accents are left as they were read before (``Gdańsk`` is ``gda`` and
``sk``; :func:`.facts.fold` takes accents off where words are compared across spellings), and
ASCII text is read exactly as before, so only text holding another script's letters or digits
changes (``script_words`` with ``embedded_values``; 5 seeds, after 10 reductions / at the
end; blind12-intl the same with ``script_words`` alone): own ``scripts-intl``
at 4,000 tokens 0.776 / 0.750 -> 0.976 / 0.980, at 2,000 0.850 / 0.630 -> 1.000 / 0.760;
held-out blind12-intl at 4,000 0.733 / 0.587 -> 0.822 / 0.707, at 2,000 0.640 / 0.467 ->
0.760 / 0.573; blind11-intl at 4,000 0.750 / 0.587 -> 0.812 / 0.627; no other family's text
holds such a character (``docs-notes/fidelity-round13-intl.md``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import sys
import unicodedata
from collections.abc import Iterator

__all__ = [
    "embedded_values",
    "other_script",
    "script_words",
    "script_words_scope",
    "scripts_on",
]


def _letter_classes() -> tuple[str, str, str, str]:
    """Regex classes of another script's letters, and of its letters and marks (BMP, beyond).

    Letters (``L*``) and combining marks (``M*``) from U+0370 on, except the Latin blocks
    (Latin Extended Additional, Extended-C/D/E, the fullwidth Latin letters, the superscript
    and subscript letters, the letterlike symbols and the Latin ligatures ``ﬁ``). A word starts
    with a letter: a mark alone (the emoji variation selector U+FE0F in "☀️", the keycap
    U+20E3) is no word. Two classes each, as a class of BMP characters only is read by a
    table lookup and one holding others by a walk over its ranges.
    """
    latin = {
        *range(0x1E00, 0x1F00),
        *range(0x2070, 0x20A0),
        *range(0x2100, 0x2150),
        *range(0x2C60, 0x2C80),
        *range(0xA720, 0xA800),
        *range(0xAB30, 0xAB70),
        *range(0xFB00, 0xFB07),
        *range(0xFF21, 0xFF5B),
    }
    letters: list[list[int]] = []
    marked: list[list[int]] = []
    for cp in range(0x0370, min(sys.maxunicode, 0x2FFFF) + 1):
        kind = unicodedata.category(chr(cp))[0]
        if cp in latin or kind not in "LM":
            continue
        for ranges in (letters, marked) if kind == "L" else (marked,):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])

    def spell(part: list[list[int]]) -> str:
        return "".join(
            re.escape(chr(lo)) if lo == hi else f"{re.escape(chr(lo))}-{re.escape(chr(hi))}"
            for lo, hi in part
        )

    def split(ranges: list[list[int]]) -> tuple[str, str]:
        bmp = [r for r in ranges if r[1] <= 0xFFFF]
        return spell(bmp), spell([r for r in ranges if r[0] > 0xFFFF])

    return (*split(letters), *split(marked))


@functools.cache
def _reader() -> tuple[re.Pattern[str], dict[int, str]]:
    """The word pattern and the digit map, built on the first text of another script.

    The pattern reads ASCII words as :func:`.facts.tokenize` does, or a run of another
    script's letters; the map takes every non-ASCII decimal digit to its ASCII digit (``۲``
    ``٢`` ``२`` ``๒`` and the fullwidth two -> ``2``). Built once, lazily: English text never
    pays for the walk over the code points.
    """
    bmp, beyond, marked_bmp, marked_beyond = _letter_classes()
    astral = "(?=[\\U00010000-\\U0010ffff])"
    script = f"(?:[{bmp}]|{astral}[{beyond}])(?:[{marked_bmp}]|{astral}[{marked_beyond}])*"
    words = re.compile(r"[a-z0-9][a-z0-9'.@+-]*[a-z0-9]|[a-z0-9]|" + script)
    digits = str.maketrans(
        {
            chr(cp): str(unicodedata.digit(chr(cp)))
            for cp in range(0x80, min(sys.maxunicode, 0x1FFFF) + 1)
            if unicodedata.category(chr(cp)) == "Nd"
        }
    )
    return words, digits


_OTHER_DIGIT_RE = re.compile(r"(?![0-9])\d")
"""A decimal digit of another numeral system."""
_OTHER_RE = re.compile(
    "[^\x00-\u036f\u2000-\u206f\u20a0-\u20cf\u2190-\u2bff\ufe00-\ufe0f\U0001f000-\U0001faff]"
)
"""A character past the Latin blocks: every letter of another script and every non-ASCII
decimal digit is one. Punctuation (the dashes and curly quotes of English text), currency
signs, arrows, symbols, emoji and their variation selectors hold no letter or digit, and are not."""

RULES = ("script_words", "embedded_values")
"""The rules of this module an ablation may switch off (names of ``HEURISTICS``)."""
_OFF: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "summem_scripts_off", default=frozenset()
)


@contextlib.contextmanager
def script_words_scope(off: frozenset[str]) -> Iterator[None]:
    """Switch off the :data:`RULES` in ``off`` while the block runs (ablations)."""
    token = _OFF.set(off & frozenset(RULES))
    try:
        yield
    finally:
        _OFF.reset(token)


def scripts_on(rule: str = "script_words") -> bool:
    """Whether ``rule`` (one of :data:`RULES`) is on in this context."""
    return rule not in _OFF.get()


def other_script(text: str) -> bool:
    """Whether ``text`` may hold a letter of another script or a non-ASCII digit."""
    return _OTHER_RE.search(text) is not None


def script_words(lowered: str) -> list[str]:
    """The words of lower-cased, non-ASCII ``lowered``: ASCII words, other scripts' runs.

    ``"поставка ١٤ тموز"`` -> ``["поставка", "14", ...]``: digits of every script read as
    ASCII ones.
    """
    words, digits = _reader()
    if _OTHER_DIGIT_RE.search(lowered):
        lowered = lowered.translate(digits)
    return words.findall(lowered)


def embedded_values(words: list[str]) -> frozenset[str]:
    """The words of another script in a sentence of mostly ASCII words: its names and values.

    "Sorry, the Haifa contact changed, it is דוד כהן now." or "The Kyiv shipment moved to
    3 квітня 2027": in an English sentence, what is written in another script is what the
    sentence is about, a name, a month or a place, as a capitalised word is in English
    (scripts without capitals have no other mark of a name). A correction that says the
    subject again with another one replaces the statement (:mod:`.supersede`); read as subject
    words, the new name or month was a word the old statement lacked and nothing was
    replaced. A sentence written in that script (no more ASCII words than words of it) has no
    such words: its words are its subject.

    Measured (``embedded_values``, 5 seeds): blind12-intl unchanged; own ``scripts-intl``
    (300-turn draft) at 2,000 tokens, at the end, 0.850 -> 0.870, stale-only 0.021 -> 0.042.
    """
    if not scripts_on("embedded_values"):
        return frozenset()
    other = [w for w in words if not w.isascii()]
    if not other:
        return frozenset()
    ascii_words = sum(1 for w in words if w.isascii() and not w[:1].isdigit())
    return frozenset(other) if ascii_words > len(other) else frozenset()
