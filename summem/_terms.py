"""Search terms: how recall splits a message into words, the same for every index.

Each message is one document: its text, its tool calls (names and arguments) and its tool
result, lower-cased and split into words; an identifier such as ``BW-58214-K`` is indexed
whole and by its parts, so either finds it. Stopwords are left out. The in-process index
(:mod:`summem.recall.index`), SQLite's FTS5 table and PostgreSQL's ``tsvector`` column are all
fed these terms, and queries are split the same way, so a query is only ever a list of plain
words: no search syntax of any engine can reach it.
"""

from __future__ import annotations

import re

from summem.messages import Message
from summem.summarizers.extractive.lexicon import STOPWORDS
from summem.summarizers.render import content_text, format_call

__all__ = ["message_terms", "terms"]

_WORD_RE = re.compile(r"[a-z0-9][a-z0-9_.@+-]*[a-z0-9]|[a-z0-9]")
_PART_RE = re.compile(r"[a-z0-9]+")


def terms(text: str) -> list[str]:
    """The index terms of ``text``: words (identifiers whole and by parts), no stopwords.

    A term only ever holds ``a-z``, ``0-9`` and ``_ . @ + -``.
    """
    out: list[str] = []
    append = out.append  # on every append's path (the stores' indexes): kept lean
    for word in _WORD_RE.findall(text.lower()):
        if word.isalnum():  # one part (most words)
            if word not in STOPWORDS:
                append(word)
            continue
        append(word)  # an identifier: whole, then by its parts
        out.extend(p for p in _PART_RE.findall(word) if p not in STOPWORDS)
    return out


def message_terms(message: Message) -> list[str]:
    """What a message says, as index terms: text, tool calls and tool results."""
    texts = [content_text(message)]
    texts += [format_call(call, max_chars=2000) for call in message.tool_calls or ()]
    if message.name:
        texts.append(message.name)
    return terms("\n".join(texts))
