"""The pages: each reads the store and returns a template's name and its context.

Query parameters are checked here and a wrong one is a :class:`BadRequestError` naming it
(400); an unknown session or branch is a :class:`NotFoundError` (404). Nothing here writes.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from summem.inspector.chart import view_chart
from summem.inspector.context import BadRequestError, Inspector, NotFoundError
from summem.inspector.listing import list_page
from summem.inspector.messages import CallView, MessageView, message_views
from summem.inspector.reading import Reduction, SessionReader
from summem.inspector.summaries import SummaryCard, line_sources, summary_card
from summem.messages import Message
from summem.stores.base import BranchingStore, validate_session_id

__all__ = ["branch_page", "export_download", "session_page", "sessions_page"]

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


def _int(request: Request, name: str, *, low: int, high: int | None) -> int | None:
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


def _session_id(inspector: Inspector, request: Request) -> str:
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


def _reader(inspector: Inspector, sid: str) -> SessionReader:
    b = inspector.budget
    return SessionReader(
        inspector.source.store,
        sid,
        size=b.size,
        head_size=b.head_size,
        threshold=b.threshold,
        recorded_turns=inspector.source.turns,
    )


def _timeline(
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


def _branch_rows(store: Any, sid: str) -> list[dict[str, Any]]:
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


def _cards(reader: SessionReader, prefix: str) -> dict[str, SummaryCard]:
    on_chain: dict[str, Reduction] = {r.summary.id: r for r in reader.reductions}
    current = reader.state.summary.id if reader.state.summary is not None else None
    cards: dict[str, SummaryCard] = {}
    for summary in reader.log:
        cards[summary.id] = summary_card(
            summary, on_chain.get(summary.id), current=summary.id == current, prefix=prefix
        )
    return cards


def session_page(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """One session: chart, view beside history, summaries, timeline, branches, recall."""
    sid = _session_id(inspector, request)
    reader = _reader(inspector, sid)
    state = reader.state
    length = reader.length
    last = max(length - 1, 0)
    turn = _int(request, "turn", low=0, high=last) if length else None
    if length == 0 and request.query_params.get("turn"):
        raise BadRequestError("this session has no messages: there is no turn to pick")
    at = _int(request, "at", low=0, high=last)
    if at is None:
        at = max(0, min(state.watermark - 20, length - HISTORY_PER_PAGE))
    budget = inspector.budget
    stubs = budget.masked(state.tail)

    # the history page, the calls before it so its first results can name them
    known: dict[str, tuple[CallView, int]] = {}
    lead = reader.messages(max(0, at - 64), at)
    message_views(lead, known_calls=known)
    history = message_views(
        reader.messages(at, at + HISTORY_PER_PAGE),
        watermark=state.watermark,
        stubs=stubs,
        known_calls=known,
    )

    # the current view
    tail = state.tail[-VIEW_SHOWN:]
    tail_start = state.length - len(tail)
    head: list[tuple[int | None, Message]] = []
    if state.system is not None:
        head.append((None, state.system))
    if state.summary is not None:
        head.append((None, state.summary))
    view_items: list[tuple[int | None, Message]] = [
        *head,
        *((tail_start + i, m) for i, m in enumerate(tail)),
    ]
    view = message_views(view_items, stubs=stubs)
    hidden_view = len(state.tail) - len(tail)

    # the chart
    if turn is not None:
        lo = max(0, min(turn - CHART_TURNS // 2, length - CHART_TURNS))
    else:
        lo = max(0, length - CHART_TURNS)
    hi = min(length, lo + CHART_TURNS)
    from summem.inspector.reading import SEARCH_REACH

    near = [r for r in reader.reductions if lo - SEARCH_REACH <= r.watermark < hi]  # turn >= wm
    marks = [(r.turn, f"S{r.index}", r.exact) for r in near if lo <= r.turn < hi]
    chart = view_chart(
        reader.sizes(lo, hi),
        threshold=budget.threshold,
        target=budget.target,
        unit=budget.unit,
        reductions=marks,
        selected=turn,
    )

    # summaries, timeline, branches
    cards = _cards(reader, budget.summary_prefix)
    chosen_id = request.query_params.get("summary")
    if chosen_id is not None and chosen_id not in cards:
        raise NotFoundError(f"session {sid!r} has no summary {chosen_id!r}")
    line = _int(request, "line", low=0, high=None)
    if line is not None and chosen_id is None:
        raise BadRequestError("line needs summary=ID (which summary's line)")
    shown_cards = [c for c in cards.values() if c.index is not None][-CARDS_SHOWN:][::-1]
    off_chain = [c for c in cards.values() if c.index is None]
    chosen = cards.get(chosen_id) if chosen_id is not None else None
    if chosen is not None and chosen not in shown_cards:
        shown_cards.insert(0, chosen)
    sources: list[MessageView] | None = None
    sources_missing: list[str] = []
    if chosen is not None and line is not None:
        summary = next(s for s in reader.log if s.id == chosen.id)
        ids = line_sources(summary, line)
        if ids is None:
            raise BadRequestError(
                f"summary {chosen.id} records no sources for line {line} (a header line, or a "
                "summarizer that does not record them)"
            )
        where = reader.positions_of(ids)
        found = sorted((where[i], i) for i in ids if i in where)
        sources = message_views(
            [(p, m) for p, _ in found for m in [reader.message(p)] if m is not None],
            watermark=state.watermark,
        )
        sources_missing = [i for i in ids if i not in where]
    uncovered_at: dict[str, int] = {}
    if chosen is not None and chosen.uncovered:
        uncovered_at = reader.positions_of(chosen.uncovered)
    branches = _branch_rows(inspector.source.store, sid)
    timeline = _timeline(reader, cards, branches)

    # the view at a turn
    view_at = None
    if turn is not None:
        at_turn = reader.view_at(turn)
        at_head: list[tuple[int | None, Message]] = []
        if state.system is not None:
            at_head.append((None, state.system))
        if at_turn.reduction is not None:
            at_head.append((None, at_turn.reduction.summary))
        start = at_turn.reduction.watermark if at_turn.reduction is not None else 0
        at_stubs = budget.masked([m for _, m in at_turn.messages])
        view_at = {
            "turn": turn,
            "size": at_turn.size,
            "reduction": at_turn.reduction,
            "card": cards.get(at_turn.reduction.summary.id) if at_turn.reduction else None,
            "start": start,
            "messages": message_views([*at_head, *at_turn.messages], stubs=at_stubs),
        }

    # recall
    query = request.query_params.get("q", "").strip()
    if len(query) > MAX_QUERY:
        raise BadRequestError(f"the search has {len(query)} characters; at most {MAX_QUERY}")
    hits = None
    if query:
        found_hits = inspector.recall.search(sid, query)
        hits = [
            (score, view)
            for (_, _, score), view in zip(
                found_hits,
                message_views([(p, m) for p, m, _ in found_hits], watermark=state.watermark),
                strict=True,
            )
        ]

    return "session.html", {
        "title": f"Session {sid}",
        "sid": sid,
        "state": state,
        "length": length,
        "budget": budget,
        "chart": chart,
        "chart_lo": lo,
        "chart_hi": hi,
        "history": history,
        "at": at,
        "per_page": HISTORY_PER_PAGE,
        "view": view,
        "hidden_view": hidden_view,
        "masked": len(stubs),
        "cards": shown_cards,
        "all_cards": [c for c in cards.values() if c.index is not None],
        "off_chain": off_chain,
        "chosen": chosen,
        "line": line,
        "sources": sources,
        "sources_missing": sources_missing,
        "uncovered_at": uncovered_at,
        "timeline": timeline[-TIMELINE_SHOWN:],
        "timeline_hidden": max(0, len(timeline) - TIMELINE_SHOWN),
        "branches": branches,
        "reductions": reader.reductions,
        "turn": turn,
        "view_at": view_at,
        "q": query,
        "hits": hits,
    }


def branch_page(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """The messages one branch abandoned."""
    sid = _session_id(inspector, request)
    bid = request.query_params.get("branch")
    if not bid:
        raise BadRequestError("which branch? (the page needs &branch=BRANCH_ID)")
    store = inspector.source.store
    rows = [b for b in _branch_rows(store, sid) if b["id"] == bid]
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


def export_download(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """``summem sessions export --format json``, as a download."""
    from summem.cli.sessions import export_text

    sid = _session_id(inspector, request)
    text = export_text(inspector.source.store, sid, "json")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in sid)[:80] or "session"
    response = Response(
        text,
        media_type="application/json",
        headers={"content-disposition": f'attachment; filename="{safe}.json"'},
    )
    return "", {"response": response}
