"""The PostgreSQL store's full-text index: a ``tsvector`` column of each message's terms.

``messages.terms`` holds the message's search terms (:func:`summem._terms.message_terms`) as a
``tsvector`` built here, lexeme by lexeme, not by a text-search configuration: PostgreSQL's
parser would split identifiers and paths differently from the query side and the other
stores. A GIN index serves ``@@``. Ranking is ``ts_rank``, best first, ties to the most recent
message.

As in the SQLite store, the index is written by the searches, not by the appends (splitting
a message into terms costs more than the rest of an append's work on the client): an append
leaves ``terms`` empty, ``sessions.indexed`` counts the session's indexed messages, and a
search first indexes the rest, :data:`CATCH_UP_CHUNK` messages a transaction, each holding the
session row's lock (``FOR UPDATE``, as appends and clears do) and moving ``indexed`` with the
terms it writes. A search therefore always covers the whole history.

Queries are split into the same terms and sent as a ``tsquery`` of quoted lexemes joined by
``|``, a bound parameter: a term holds only ``a-z 0-9 _ . @ + -``, so no tsquery or SQL
syntax can reach the server, and a query with no words is not run at all.
"""

from __future__ import annotations

from summem._terms import message_terms, terms
from summem.messages import Message

__all__ = ["CATCH_UP_CHUNK", "MAX_LEXEME", "ts_query", "ts_vector"]

CATCH_UP_CHUNK = 1000
"""Messages a search indexes per transaction (each holds the session row's lock)."""

MAX_LEXEME = 256
"""Longer terms (a hash, a blob of base64) are not indexed: PostgreSQL caps a lexeme at 2 KB."""

_MAX_POSITION = 16383  # PostgreSQL's; later words share it
_MAX_LEXEME_BYTES = 512 * 1024  # a tsvector is at most 1 MB


def ts_vector(message: Message) -> str:
    """``message``'s terms as a ``tsvector`` literal (``'word':1,4 'other':2``)."""
    positions: dict[str, list[int]] = {}
    size = 0
    for i, term in enumerate(message_terms(message), start=1):
        if len(term) > MAX_LEXEME:
            continue
        seen = positions.get(term)
        if seen is None:
            size += len(term) + 8
            if size > _MAX_LEXEME_BYTES:
                break
            positions[term] = seen = []
        pos = min(i, _MAX_POSITION)
        if not seen or seen[-1] != pos:
            seen.append(pos)
    return " ".join(f"'{t}':{','.join(map(str, p))}" for t, p in positions.items())


def ts_query(query: str) -> str | None:
    """``query`` as a ``tsquery`` literal (its terms, any of them), or ``None`` if wordless."""
    words = [w for w in dict.fromkeys(terms(query)) if len(w) <= MAX_LEXEME]
    return " | ".join(f"'{w}'" for w in words) or None
