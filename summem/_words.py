"""Words in messages: the article before a name that only a run decides ("an assistant").

An error or log line that puts a role, a kind or a type after "a" (``f"a {role} message"``)
reads "a assistant message" for half the values; :func:`a` chooses the article by the word.
"""

from __future__ import annotations

__all__ = ["a"]

# Words starting with a vowel letter but a consonant sound ("a user", "a URL", "a one-off").
_CONSONANT_SOUND = ("us", "uni", "ur", "uti", "eu", "one", "uuid")


def a(word: object) -> str:
    """``word`` with its indefinite article: ``a("assistant") == "an assistant"``.

    Quotes and other leading punctuation are skipped when choosing (``an 'input_audio'``).
    """
    text = str(word)
    letters = text.lstrip("'\"`([{<").lower()
    vowel = letters[:1] in ("a", "e", "i", "o", "u") and not letters.startswith(_CONSONANT_SOUND)
    return f"{'an' if vowel else 'a'} {text}"
