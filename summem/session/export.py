"""``to_dict()`` / ``from_dict()``: a session as a JSON-serialisable dict, and back.

:func:`export_flow` reads the whole session (``history[:k]`` as well as the view, and its
branches with their messages). Resuming is two steps so that a bad dict can never leave
anything behind: :func:`parse_session_dict` checks all of it (format, session id, every record,
the watermark, the branches, the recorded config) with no I/O, and :func:`import_flow` then
writes the session with one ``Store.create`` call, which every backend makes atomic: the
session appears whole or not at all, an existing session is never touched (``ConflictError``),
and of two processes resuming the same dict at once exactly one wins.

A session with branches is replayed: the history as it was before its first branch is created
(without the summary), each branch is made again with ``Store.rewrite`` (same id, same fork
position, same abandoned messages; the store's clock gives ``created_at``), and the summary is
committed last. Every write is a compare-and-set on what the previous one left, and a failure
(or a cancellation) deletes the session again, so no half session stays behind; the one window
is a crash of the process itself between the create and the last write. Both facades
(``Memory`` and ``AsyncMemory``) drive these flows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from summem._flow import Flow
from summem._words import a
from summem.conversation import boundaries
from summem.errors import ConflictError, SessionNotFoundError, StoreError
from summem.messages import Message
from summem.session.core import SessionCore
from summem.session.flows import reload_flow
from summem.session.steps import StoreSteps
from summem.stores.base import (
    Branch,
    SessionState,
    decode_message,
    encode_message,
    validate_session_id,
)

__all__ = [
    "EXPORT_FORMAT",
    "SessionDict",
    "check_summary_role",
    "export_flow",
    "import_flow",
    "parse_session_dict",
]

EXPORT_FORMAT = "summem.session/1"
"""``format`` of the dict ``to_dict()`` writes."""


def _record(message: Message | None) -> dict[str, Any] | None:
    return None if message is None else dict(json.loads(encode_message(message)))


def export_flow(
    core: SessionCore, store: StoreSteps, config: dict[str, Any]
) -> Flow[dict[str, Any]]:
    """The session as a JSON-serialisable dict (see ``Memory.to_dict``).

    The branches are read before and after the session: a branch made meanwhile (it would not
    match the history read) makes the export read again, up to three times.
    """
    from summem.session.branching import can_branch

    sid = core.session_id
    branching = can_branch(store)
    for _ in range(3):
        before: list[Branch] = (yield from store.branches(sid)) if branching else []
        since = core.marks
        try:
            state: SessionState | None = yield from store.load(sid)
        except SessionNotFoundError:
            state = None
        core.reset(state, since)  # a refused (older) snapshot leaves the copy to be read again
        if state is None:
            head: list[Message] = []
            state = SessionState(session_id=sid)
        else:
            head = yield from store.history(sid, 0, state.watermark)
            if len(head) != state.watermark:
                raise ConflictError(f"session {sid!r} was cleared while it was being exported")
        branches = []
        for branch in before:
            messages = yield from store.branch_messages(sid, branch.id)
            branches.append(_branch_record(branch, messages))
        after: list[Branch] = (yield from store.branches(sid)) if branching else []
        if [b.id for b in after] == [b.id for b in before]:
            break
    else:
        raise ConflictError(f"session {sid!r} kept branching while it was being exported")
    out: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "session_id": sid,
        "system": _record(state.system),
        "summary": _record(state.summary),
        "watermark": state.watermark,
        "history": [_record(m) for m in [*head, *state.tail]],
        "config": config,
    }
    if branches:
        out["branches"] = branches
    return out


def _branch_record(branch: Branch, messages: list[Message]) -> dict[str, Any]:
    return {
        "id": branch.id,
        "at": branch.at,
        "created_at": branch.created_at,
        "summary_id": branch.summary_id,
        "watermark": branch.watermark,
        "messages": [_record(m) for m in messages],
    }


@dataclass(frozen=True)
class BranchDict:
    """One branch of a ``to_dict()`` dict, checked and decoded.

    Attributes:
        id: the branch's id.
        at: where it forked.
        messages: what it abandoned, in order.
        added: what followed ``history[:at]`` right after it (until the next branch): the
            ``messages`` of the ``Store.rewrite`` that makes it again.
    """

    id: str
    at: int
    messages: list[Message]
    added: list[Message]


@dataclass(frozen=True)
class SessionDict:
    """A ``to_dict()`` dict, checked and decoded, ready for ``Store.create``."""

    session_id: str
    system: Message | None
    summary: Message | None
    watermark: int
    history: list[Message]
    config: Mapping[str, Any]
    branches: tuple[BranchDict, ...] = ()
    """Oldest first; empty for a session that never branched (or a dict without them)."""
    initial: list[Message] | None = None
    """The history before the first branch (``None``: no branches, ``history`` is all)."""


def _decode(record: object, where: str) -> Message:
    try:
        if not isinstance(record, Mapping):
            raise TypeError(f"expected a record dict, got {type(record).__name__}")
        return decode_message(json.dumps(record), session_id="", where=where)
    except Exception as exc:
        cause = exc.__cause__ if isinstance(exc, StoreError) and exc.__cause__ else exc
        raise StoreError(
            f"session dict: {where} is not a valid message record "
            f"({type(cause).__name__}: {str(cause)[:200]})"
        ) from exc


def parse_session_dict(data: object) -> SessionDict:
    """Check and decode a whole ``to_dict()`` dict, with no I/O.

    Raises:
        StoreError: naming what is wrong: the format, a record (by its place in the dict),
            the watermark, the summary or the config.
        InvalidSessionIdError: the recorded session id is unusable.
    """
    if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
        raise StoreError(f"not a summem session dict (expected format {EXPORT_FORMAT!r})")
    sid = validate_session_id(data.get("session_id"))
    records, watermark = data.get("history"), data.get("watermark")
    if not isinstance(records, list):
        raise StoreError("session dict: 'history' must be a list of message records")
    if isinstance(watermark, bool) or not isinstance(watermark, int):
        raise StoreError(f"session dict: 'watermark' must be an int, got {watermark!r}")
    history = [_decode(r, f"history[{i}]") for i, r in enumerate(records)]
    if not 0 <= watermark <= len(history):
        raise StoreError(
            f"session dict: watermark {watermark} does not fit its history of {len(history)}"
        )
    system = None if data.get("system") is None else _decode(data["system"], "'system'")
    if system is not None and not system.is_system:
        raise StoreError(f"session dict: 'system' is {a(repr(system.role))} message")
    summary = None if data.get("summary") is None else _decode(data["summary"], "'summary'")
    if summary is not None and (summary.summary_info is None or watermark == 0):
        raise StoreError("session dict: the summary has no provenance or covers nothing")
    _check_invariants(history, system, summary, watermark)
    config = data.get("config")
    if config is None:
        config = {}
    if not isinstance(config, Mapping):
        raise StoreError(f"session dict: 'config' must be a mapping, got {type(config).__name__}")
    branches, initial = _parse_branches(data.get("branches"), history)
    return SessionDict(sid, system, summary, watermark, history, config, branches, initial)


def _parse_branches(
    records: object, history: list[Message]
) -> tuple[tuple[BranchDict, ...], list[Message] | None]:
    """The branches of a dict, and the history before the first one (worked out backwards).

    Right before branch ``i`` the history was ``before[i+1][:at_i] + messages_i``, where
    ``before[n]`` is the final history (between branches only appends happen).

    Raises:
        StoreError: naming the branch at fault (``branches[i]``).
    """
    if records is None or records == []:
        return (), None
    if not isinstance(records, list):
        raise StoreError("session dict: 'branches' must be a list of branch records")
    parsed: list[tuple[str, int, list[Message]]] = []
    seen: set[str] = set()
    for i, record in enumerate(records):
        where = f"branches[{i}]"
        if not isinstance(record, Mapping):
            raise StoreError(f"session dict: {where} must be a mapping")
        bid, at, messages = record.get("id"), record.get("at"), record.get("messages")
        if not isinstance(bid, str) or not bid or bid in seen:
            raise StoreError(f"session dict: {where} needs an id of its own, got {bid!r}")
        seen.add(bid)
        if isinstance(at, bool) or not isinstance(at, int) or at < 0:
            raise StoreError(f"session dict: {where}: 'at' must be an int >= 0, got {at!r}")
        if not isinstance(messages, list):
            raise StoreError(f"session dict: {where}: 'messages' must be a list of records")
        decoded = [_decode(r, f"{where}.messages[{j}]") for j, r in enumerate(messages)]
        parsed.append((bid, at, decoded))
    after = history
    out: list[BranchDict] = []
    for i in range(len(parsed) - 1, -1, -1):
        bid, at, messages = parsed[i]
        if at > len(after):
            raise StoreError(
                f"session dict: branches[{i}] forks at {at}, past the end of the history it "
                f"forked from ({len(after)} messages, worked out from the later branches)"
            )
        out.append(BranchDict(bid, at, messages, after[at:]))
        before = after[:at] + messages
        ids = [m.id for m in before]
        if len(set(ids)) != len(ids):
            raise StoreError(
                f"session dict: branches[{i}] repeats the id of a message its history kept"
            )
        after = before
    out.reverse()
    return tuple(out), after


def _check_invariants(
    history: list[Message], system: Message | None, summary: Message | None, watermark: int
) -> None:
    """What I1-I3 require of a session, checked before anything is written.

    Raises:
        StoreError: naming the record at fault (``history[i]``).
    """
    seen: dict[str, int] = {}
    for i, message in enumerate(history):
        if message.id in seen:
            raise StoreError(
                f"session dict: history[{i}] repeats the id of history[{seen[message.id]}] "
                f"({message.id!r}): a message is in history once"
            )
        seen[message.id] = i
        if message.is_system:
            raise StoreError(
                f"session dict: history[{i}] is {a(message.role)} message; the system message "
                "goes in 'system'"
            )
        if message.is_summary:
            raise StoreError(f"session dict: history[{i}] is a summary; it goes in 'summary'")
    for name, extra in (("system", system), ("summary", summary)):
        if extra is not None and extra.id in seen:
            raise StoreError(
                f"session dict: the {name} message has the id of history[{seen[extra.id]}]"
            )
    bounds = boundaries(history)
    if bounds.orphans:
        i = bounds.orphans[0]
        raise StoreError(
            f"session dict: history[{i}] is a tool result answering no earlier call "
            f"({history[i].tool_call_id!r})"
        )
    if watermark not in (*bounds.starts, len(history)):
        raise StoreError(
            f"session dict: the watermark {watermark} splits a tool call from its results "
            "(it must fall between groups)"
        )
    if bounds.pending_from is not None and bounds.pending_from < watermark:
        raise StoreError(
            f"session dict: the watermark {watermark} is past the pending tool call at "
            f"history[{bounds.pending_from}]"
        )
    info = summary.summary_info if summary is not None else None
    if info is not None:
        if info.watermark != watermark:
            raise StoreError(
                f"session dict: the summary stands for history[:{info.watermark}] but the "
                f"watermark is {watermark}"
            )
        if info.previous_summary_id is not None and info.previous_summary_id in seen:
            raise StoreError(
                f"session dict: the summary's previous summary {info.previous_summary_id!r} "
                f"is a message of the history (history[{seen[info.previous_summary_id]}])"
            )
        head = {m.id for m in history[:watermark]}
        stray = [i for i in info.covered_ids if i not in head]
        if stray:
            raise StoreError(
                f"session dict: the summary covers {stray[0]!r}, which is not in "
                f"history[:{watermark}]"
            )


def check_summary_role(summary: Message | None, reducer: object) -> None:
    """A ``system`` or ``developer`` summary only where the reducer writes summaries so.

    Its role is what the model trusts it by: a summary that became ``system`` would be a
    second, privileged system message in the view.

    Raises:
        StoreError: naming the role and what the reducer writes.
    """
    if summary is None or not summary.is_system:
        return
    writes = getattr(reducer, "summary_role", None)
    if summary.role != writes:
        said = f"as {writes!r} messages" if isinstance(writes, str) else "none"
        raise StoreError(
            f"session dict: the summary is a {summary.role!r} message, but the reducer writes "
            f"its summaries {said}: it would be a second system message in the view"
        )


def import_flow(
    core: SessionCore, store: StoreSteps, session: SessionDict, progress: list[str]
) -> Flow[None]:
    """Create the checked session in the store, then read it back.

    One atomic write for a session without branches; with branches, the replay described in
    the module docstring (``progress`` gets ``"created"`` once the session exists, so that a
    caller cancelled midway deletes it too).

    Raises:
        ConflictError: the session already exists in the store (it is left untouched).
    """
    from summem.session.branching import check_branching

    sid = core.session_id
    if session.branches:
        check_branching(store, "resuming a session with branches")
    if not session.branches or session.initial is None:
        yield from store.create(
            sid,
            history=session.history,
            system=session.system,
            summary=session.summary,
            watermark=session.watermark,
        )
    else:
        yield from store.create(
            sid, history=session.initial, system=session.system, summary=None, watermark=0
        )
        progress.append("created")
        try:
            yield from _replay(store, sid, session)
        except Exception:
            yield from _undo(store, sid)
            raise
        progress.remove("created")
    core.stale = True
    yield from reload_flow(core, store)


def _replay(store: StoreSteps, sid: str, session: SessionDict) -> Flow[None]:
    """Make each branch again, then commit the summary: CAS on what the last write left."""
    state: SessionState = yield from store.load(sid)
    version, epoch, length = state.version, state.epoch, state.length
    for branch in session.branches:
        version = yield from store.rewrite(
            sid,
            keep=branch.at,
            messages=branch.added,
            expected_version=version,
            expected_epoch=epoch,
            branch_id=branch.id,
            expected_length=length,
        )
        length = branch.at + len(branch.added)
    if session.summary is not None:
        yield from store.commit(
            sid,
            summary=session.summary,
            watermark=session.watermark,
            expected_version=version,
            expected_epoch=epoch,
        )


def _undo(store: StoreSteps, sid: str) -> Flow[None]:
    """Delete a session whose replay failed (a failure to delete is named, not hidden)."""
    try:
        yield from store.delete(sid)
    except Exception as exc:
        raise StoreError(
            f"session {sid!r}: resuming it failed midway and deleting the part written failed "
            f"too ({exc}): delete it before resuming it again"
        ) from exc
