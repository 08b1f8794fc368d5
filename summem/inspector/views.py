"""The pages: each reads the store and returns a template's name and its context.

Query parameters are checked here and a wrong one is a :class:`BadRequestError` naming it
(400); an unknown session or branch is a :class:`NotFoundError` (404). Nothing here writes.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from summem.inspector.context import BadRequestError, Inspector, NotFoundError
from summem.inspector.listing import list_page
from summem.inspector.messages import message_views
from summem.inspector.reading import Reduction, SessionReader
from summem.inspector.summaries import SummaryCard, summary_card
from summem.messages import Message
from summem.stores.base import BranchingStore, validate_session_id

__all__ = [
    "CARDS_SHOWN",
    "CHART_TURNS",
    "HISTORY_PER_PAGE",
    "MAX_QUERY",
    "SESSIONS_PER_PAGE",
    "TIMELINE_SHOWN",
    "VIEW_SHOWN",
    "branch_page",
    "branch_rows",
    "export_download",
    "number_param",
    "reader_for",
    "session_id",
    "sessions_page",
    "summary_cards",
    "timeline",
]

SESSIONS_PER_PAGE = 50
HISTORY_PER_PAGE = 100
VIEW_SHOWN = 200
"""The current view's newest messages shown (a session never reduced may hold many)."""
CHART_TURNS = 2000
"""Turns the chart covers at most (around the picked turn, else the latest)."""
TIMELINE_SHOWN = 50
"""Timeline entries shown (the latest): each may estimate a turn, reading a view's worth."""
CARDS_SHOWN = 5
MAX_QUERY = 500


def number_param(request: Request, name: str, *, low: int, high: int | None) -> int | None:
    """The whole number the query parameter ``name`` gives (``None``: not given).

    Raises:
        BadRequestError: not a whole number, or outside ``[low, high]`` (naming both).
    """
    raw = request.query_params.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        raise BadRequestError(f"{name} must be a whole number, not {raw[:40]!r}") from None
    if value < low or (high is not None and value > high):
        bounds = f"{low} to {high}" if high is not None else f"at least {low}"
        raise BadRequestError(f"{name} {value} is out of range ({bounds})")
    return value


def session_id(inspector: Inspector, request: Request) -> str:
    """The session the page names (``?id=``).

    Raises:
        BadRequestError: none given.
        InvalidSessionIdError: not a usable session id.
        NotFoundError: the store has no such session.
    """
    sid = request.query_params.get("id")
    if sid is None or sid == "":
        raise BadRequestError("which session? (the page needs ?id=SESSION)")
    validate_session_id(sid)
    if not inspector.source.store.exists(sid):
        raise NotFoundError(f"no session {sid!r} in {inspector.source.shown}")
    return sid


# -- sessions ----------------------------------------------------------------------------------


def sessions_page(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """The sessions list: search by id prefix, pages of :data:`SESSIONS_PER_PAGE`."""
    prefix = request.query_params.get("q", "").strip()
    after = request.query_params.get("after") or None
    if len(prefix) > 1024 or (after is not None and len(after) > 1024):
        raise BadRequestError("a session id has at most 1024 characters")
    rows, next_after = list_page(
        inspector.source.store, prefix=prefix, after=after, limit=SESSIONS_PER_PAGE
    )
    return "sessions.html", {
        "title": "Sessions",
        "rows": rows,
        "q": prefix,
        "after": after,
        "next_after": next_after,
    }


# -- one session -------------------------------------------------------------------------------


def reader_for(inspector: Inspector, sid: str) -> SessionReader:
    """A reader of the session, sized with the inspector's budget."""
    b = inspector.budget
    return SessionReader(
        inspector.source.store,
        sid,
        size=b.size,
        head_size=b.head_size,
        threshold=b.threshold,
        recorded_turns=inspector.source.turns,
    )


def timeline(
    reader: SessionReader, cards: dict[str, SummaryCard], branches: list[Any]
) -> list[dict[str, Any]]:
    """What happened to the view, oldest first, from the summaries log and the branches."""
    events: list[dict[str, Any]] = []
    for summary in reader.log:
        info = summary.summary_info
        card = cards.get(summary.id)
        if info is None or card is None:
            continue
        kind = "summary recomputed" if card.recomputed else "reduction committed"
        events.append({"at": card.created_at, "kind": kind, "card": card, "branch": None})
    for b in branches:
        events.append({"at": b["created_at"], "kind": "branched", "card": None, "branch": b})
    events.sort(key=lambda e: e["at"])
    return events


def branch_rows(store: Any, sid: str) -> list[dict[str, Any]]:
    """The session's branches, oldest first (none in a store that cannot branch)."""
    import datetime

    if not isinstance(store, BranchingStore):
        return []
    rows = []
    for b in store.branches(sid):
        when = datetime.datetime.fromtimestamp(b.created_at, tz=datetime.timezone.utc)
        rows.append(
            {
                "id": b.id,
                "at": b.at,
                "abandoned": b.length,
                "created_at": when.isoformat(timespec="seconds"),
                "summary_id": b.summary_id,
                "watermark": b.watermark,
            }
        )
    return rows


def summary_cards(reader: SessionReader, prefix: str) -> dict[str, SummaryCard]:
    """A card per summary of the log, by id, in log order."""
    on_chain: dict[str, Reduction] = {r.summary.id: r for r in reader.reductions}
    current = reader.state.summary.id if reader.state.summary is not None else None
    cards: dict[str, SummaryCard] = {}
    for summary in reader.log:
        cards[summary.id] = summary_card(
            summary, on_chain.get(summary.id), current=summary.id == current, prefix=prefix
        )
    return cards


def branch_page(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """The messages one branch abandoned."""
    sid = session_id(inspector, request)
    bid = request.query_params.get("branch")
    if not bid:
        raise BadRequestError("which branch? (the page needs &branch=BRANCH_ID)")
    store = inspector.source.store
    rows = [b for b in branch_rows(store, sid) if b["id"] == bid]
    if not rows or not isinstance(store, BranchingStore):
        raise NotFoundError(f"session {sid!r} has no branch {bid!r}")
    branch = rows[0]
    messages = store.branch_messages(sid, bid)
    items: list[tuple[int | None, Message]] = [
        (branch["at"] + i, m) for i, m in enumerate(messages)
    ]
    return "branch.html", {
        "title": f"Branch {bid}",
        "sid": sid,
        "branch": branch,
        "messages": message_views(items),
    }


def _attachment(sid: str) -> str:
    """A ``Content-Disposition`` naming ``SID.json``.

    ASCII in ``filename`` (a header is bytes), the id itself in ``filename*`` (RFC 6266,
    percent-encoded UTF-8) for the browsers that read it.
    """
    from urllib.parse import quote

    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in sid)[:80].strip("._")
    name = name or "session"  # never a hidden file, never a path
    ascii_name = "".join(c if c.isascii() else "_" for c in name).strip("._-") or "session"
    header = f'attachment; filename="{ascii_name}.json"'
    if ascii_name != name:
        header += f"; filename*=UTF-8''{quote(name + '.json', safe='')}"
    return header


def export_download(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """``summem sessions export --format json``, as a download."""
    from summem.cli.sessions import export_text

    sid = session_id(inspector, request)
    text = export_text(inspector.source.store, sid, "json")
    response = Response(
        text, media_type="application/json", headers={"content-disposition": _attachment(sid)}
    )
    return "", {"response": response}
