"""The session page, section by section: each reads what it shows and returns its context.

Every parameter is checked before anything is read (a 400 costs nothing); then the history
page, the current view, the chart, the summaries (with a line's sources), the view at the
picked turn and the recall results are built from one :class:`~.reading.SessionReader`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from summem.inspector.chart import view_chart
from summem.inspector.context import BadRequestError, Inspector, NotFoundError
from summem.inspector.messages import CallView, message_views
from summem.inspector.reading import SEARCH_REACH, SessionReader
from summem.inspector.summaries import SummaryCard, line_sources
from summem.inspector.views import (
    CARDS_SHOWN,
    CHART_TURNS,
    HISTORY_PER_PAGE,
    MAX_QUERY,
    TIMELINE_SHOWN,
    VIEW_SHOWN,
    branch_rows,
    number_param,
    reader_for,
    session_id,
    summary_cards,
    timeline,
)
from summem.messages import Message

__all__ = ["session_page"]


@dataclass(frozen=True)
class _Asked:
    """The session page's parameters, checked."""

    turn: int | None
    at: int
    summary: str | None
    line: int | None
    query: str


def _asked(request: Request, reader: SessionReader) -> _Asked:
    length = reader.length
    last = max(length - 1, 0)
    if length == 0 and request.query_params.get("turn"):
        raise BadRequestError("this session has no messages: there is no turn to pick")
    turn = number_param(request, "turn", low=0, high=last) if length else None
    at = number_param(request, "at", low=0, high=last)
    if at is None:  # the page where the summary ends: greyed messages, then the view's
        at = max(0, min(reader.state.watermark - 20, length - HISTORY_PER_PAGE))
    summary = request.query_params.get("summary")
    line = number_param(request, "line", low=0, high=None)
    if line is not None and summary is None:
        raise BadRequestError("line needs summary=ID (which summary's line)")
    query = request.query_params.get("q", "").strip()
    if len(query) > MAX_QUERY:
        raise BadRequestError(f"the search has {len(query)} characters; at most {MAX_QUERY}")
    return _Asked(turn, at, summary, line, query)


def _head(system: Message | None, summary: Message | None) -> list[tuple[int | None, Message]]:
    return [(None, m) for m in (system, summary) if m is not None]


def _history(reader: SessionReader, at: int, stubs: dict[str, str]) -> dict[str, Any]:
    known: dict[str, tuple[CallView, int]] = {}  # the calls just before, named by results
    message_views(reader.messages(max(0, at - 64), at), known_calls=known)
    page = reader.messages(at, at + HISTORY_PER_PAGE)
    views = message_views(page, watermark=reader.state.watermark, stubs=stubs, known_calls=known)
    return {"history": views, "at": at, "per_page": HISTORY_PER_PAGE}


def _view_now(reader: SessionReader, stubs: dict[str, str]) -> dict[str, Any]:
    state = reader.state
    tail = state.tail[-VIEW_SHOWN:]
    start = state.length - len(tail)
    items = [*_head(state.system, state.summary), *((start + i, m) for i, m in enumerate(tail))]
    return {
        "view": message_views(items, stubs=stubs),
        "hidden_view": len(state.tail) - len(tail),
        "masked": len(stubs),
    }


def _chart(inspector: Inspector, reader: SessionReader, turn: int | None) -> dict[str, Any]:
    length = reader.length
    middle = turn if turn is not None else length
    lo = max(0, min(middle - CHART_TURNS // 2, length - CHART_TURNS))
    hi = min(length, lo + CHART_TURNS)
    near = [r for r in reader.reductions if lo - SEARCH_REACH <= r.watermark < hi]
    marks = [(r.turn, f"S{r.index}", r.exact) for r in near if lo <= r.turn < hi]
    budget = inspector.budget
    chart = view_chart(
        reader.sizes(lo, hi),
        threshold=budget.threshold,
        target=budget.target,
        unit=budget.unit,
        reductions=marks,
        selected=turn,
    )
    return {"chart": chart, "chart_lo": lo, "chart_hi": hi}


def _summaries(
    inspector: Inspector, reader: SessionReader, asked: _Asked, sid: str
) -> dict[str, Any]:
    cards = summary_cards(reader, inspector.budget.summary_prefix)
    if asked.summary is not None and asked.summary not in cards:
        raise NotFoundError(f"session {sid!r} has no summary {asked.summary!r}")
    chosen = cards.get(asked.summary) if asked.summary is not None else None
    on_chain = [c for c in cards.values() if c.index is not None]
    shown: list[SummaryCard] = on_chain[-CARDS_SHOWN:][::-1]
    if chosen is not None and chosen not in shown:
        shown.insert(0, chosen)
    uncovered = chosen.uncovered if chosen is not None else None
    context: dict[str, Any] = {
        "cards": shown,
        "all_cards": on_chain,
        "off_chain": [c for c in cards.values() if c.index is None],
        "chosen": chosen,
        "line": asked.line,
        "sources": None,
        "sources_missing": [],
        "uncovered_at": reader.positions_of(uncovered) if uncovered else {},
    }
    if chosen is not None and asked.line is not None:
        summary = next(s for s in reader.log if s.id == chosen.id)
        ids = line_sources(summary, asked.line)
        if ids is None:
            raise BadRequestError(
                f"summary {chosen.id} records no sources for line {asked.line} (a header line, "
                "or a summarizer that does not record them)"
            )
        where = reader.positions_of(ids)
        found = [
            (p, m)
            for p in sorted(where[i] for i in ids if i in where)
            for m in [reader.message(p)]
            if m is not None
        ]
        context["sources"] = message_views(found, watermark=reader.state.watermark)
        context["sources_missing"] = [i for i in ids if i not in where]
    branches = branch_rows(inspector.source.store, sid)
    events = timeline(reader, cards, branches)
    context.update(
        branches=branches,
        timeline=events[-TIMELINE_SHOWN:],
        timeline_hidden=max(0, len(events) - TIMELINE_SHOWN),
    )
    return context


def _view_at(inspector: Inspector, reader: SessionReader, turn: int | None) -> dict[str, Any]:
    if turn is None:
        return {"view_at": None}
    at = reader.view_at(turn)
    summary = at.reduction.summary if at.reduction is not None else None
    stubs = inspector.budget.masked([m for _, m in at.messages])
    items = [*_head(reader.state.system, summary), *at.messages]
    return {
        "view_at": {
            "turn": turn,
            "size": at.size,
            "reduction": at.reduction,
            "start": at.reduction.watermark if at.reduction is not None else 0,
            "messages": message_views(items, stubs=stubs),
        }
    }


def _recall(inspector: Inspector, reader: SessionReader, query: str) -> dict[str, Any]:
    if not query:
        return {"q": query, "hits": None}
    found = inspector.recall.search(reader.session_id, query)
    views = message_views([(p, m) for p, m, _ in found], watermark=reader.state.watermark)
    return {"q": query, "hits": [(score, v) for (_, _, score), v in zip(found, views, strict=True)]}


def session_page(inspector: Inspector, request: Request) -> tuple[str, dict[str, Any]]:
    """One session: chart, view beside history, summaries, timeline, branches, recall."""
    sid = session_id(inspector, request)
    reader = reader_for(inspector, sid)
    asked = _asked(request, reader)
    stubs = inspector.budget.masked(reader.state.tail)
    context: dict[str, Any] = {
        "title": f"Session {sid}",
        "sid": sid,
        "state": reader.state,
        "length": reader.length,
        "budget": inspector.budget,
        "reductions": reader.reductions,
        "turn": asked.turn,
    }
    context.update(_summaries(inspector, reader, asked, sid))
    context.update(_history(reader, asked.at, stubs))
    context.update(_view_now(reader, stubs))
    context.update(_chart(inspector, reader, asked.turn))
    context.update(_view_at(inspector, reader, asked.turn))
    context.update(_recall(inspector, reader, asked.query))
    return "session.html", context
