"""Branches: the history becomes ``history[:at]`` plus new messages, the rest kept aside.

A conversation is not append-only: people edit an earlier message, regenerate a reply, rewind
to a checkpoint or pop the last turn. :func:`branch_flow` makes the history
``history[:at] + messages`` with one atomic store operation (``Store.rewrite``, a
compare-and-set like every commit): the abandoned suffix ``history[at:]`` is kept as a
**branch** (listed by ``memory.branches()``, read by ``memory.branch_messages(id)``, exported,
never sent to the model again). When ``at`` falls inside what the summary covers, the store
rolls the view back to the latest logged summary of a prefix of ``history[:at]`` (or to none);
the facade then runs the usual reduction decision, so the view is rebuilt within its budget
(in the background where configured). A :class:`~summem.events.Branched` event says which.

Written once as a flow, driven by ``Memory`` and ``AsyncMemory`` alike (see
:mod:`summem.session.flows`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from summem._flow import Flow
from summem.conversation import Batch, check_batch, track_calls
from summem.errors import (
    ConfigurationError,
    ConflictError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.events import Branched
from summem.messages import Message, MessageLike, new_message_id, parse_messages
from summem.observe.hooks import emit
from summem.session.core import SessionCore
from summem.session.flows import READ_WINDOW, reload_flow
from summem.session.steps import StoreSteps
from summem.stores.adapter import AsyncStoreAdapter

if TYPE_CHECKING:
    from summem.session.recorded import RecordedIndex

__all__ = [
    "branch_flow",
    "can_branch",
    "check_branching",
    "check_position",
    "index_current",
    "new_branch_id",
    "pop_flow",
]

MAX_ATTEMPTS = 3
"""Rewrites tried when another writer committed meanwhile (a reduction, most often)."""


def can_branch(store: StoreSteps) -> bool:
    """Whether the store keeps branches (a :class:`~summem.stores.base.BranchingStore`).

    Every built-in store does; a third-party store written for an older summem (append-only,
    no ``rewrite``) still works for everything else.
    """
    return store.branching


def check_branching(store: StoreSteps, what: str) -> None:
    """Refuse ``what`` (a branch, a pop...) on a store that cannot branch.

    Raises:
        ConfigurationError: naming the store's class and what it lacks.
    """
    if store.branching:
        return
    given = store.store
    shown = given.sync_store if isinstance(given, AsyncStoreAdapter) else given
    raise ConfigurationError(
        f"{what} needs a store that keeps branches, and {type(shown).__name__} has no "
        "rewrite(), branches() and branch_messages() (see summem.stores.base.BranchingStore); "
        "nothing was written. Use a built-in store, or add them to this one"
    )


def index_current(core: SessionCore, index: RecordedIndex) -> bool:
    """Whether ``index`` holds exactly the history the cached view describes."""
    tail = core.view_tail()
    return index.matches(core.epoch, core.length, tail[-1].id if tail else None)


def new_branch_id() -> str:
    """A new, globally unique branch id (``b_`` and 96 random bits in hex)."""
    return f"b_{new_message_id()[2:]}"


def check_position(name: str, value: object, length: int) -> int:
    """``value`` as a position in a history of ``length`` messages (``0 <= value <= length``).

    Raises:
        ConfigurationError: not an int, or outside the history (naming its length).
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigurationError(f"{name} must be an int, got {value!r}")
    if not 0 <= value <= length:
        raise ConfigurationError(
            f"{name}={value} is outside the history: it holds {length} message(s), so "
            f"{name} must be between 0 and {length}"
        )
    return value


def pop_flow(
    core: SessionCore, store: StoreSteps, index: RecordedIndex | None, n: object
) -> Flow[list[Message]]:
    """Abandon the last ``n`` messages (a branch at ``length - n``); return them."""
    check_branching(store, "pop()")
    if core.stale:
        yield from reload_flow(core, store)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ConfigurationError(f"pop's n must be a non-negative int, got {n!r}")
    if n > core.length:
        raise ConfigurationError(
            f"pop({n}): the history holds {core.length} message(s), fewer than {n}"
        )
    if n == 0:
        return []
    branch_id = new_branch_id()
    yield from branch_flow(core, store, index, core.length - n, (), branch_id=branch_id, pop=n)
    popped: list[Message] = yield from store.branch_messages(core.session_id, branch_id)
    return popped


def branch_flow(
    core: SessionCore,
    store: StoreSteps,
    index: RecordedIndex | None,
    at: object,
    items: Iterable[MessageLike],
    *,
    branch_id: str | None = None,
    pop: int | None = None,
) -> Flow[list[Message]]:
    """Make the history ``history[:at] + items``; the rest becomes a branch (see module doc).

    The batch is validated whole first, against ``history[:at]`` (a tool result must answer a
    call pending there or earlier in the batch). A store error of unknown outcome is retried
    once with the same branch id (the store recognises it). The write is a compare-and-set on
    the version and the length: when another writer committed meanwhile (a reduction) the
    session is read again and the write tried again, as long as the history is as it was;
    when another writer appended or branched, :class:`~summem.errors.ConflictError` says so
    (nothing of theirs is abandoned behind their back). With ``pop=n`` the branch abandons
    the last ``n`` messages whatever the length is when it lands (``at`` is worked out again).

    Returns:
        The messages of ``items`` as stored (system messages included), as ``extend`` does.

    Raises:
        ConfigurationError: ``at`` is not a position in the history.
        MessageValidationError: a message is not valid, or a tool result answers no pending
            call (nothing is written).
        ConflictError: another writer changed ``history[:at]`` (or kept committing).
        StoreOutcomeUnknownError: whether the branch was written cannot be told.
    """
    sid = core.session_id
    check_branching(store, "a branch (an edit, a regenerate, a rewind or a pop)")
    if core.needs_load():  # stale, or the epoch unknown (the session was made by appends)
        yield from reload_flow(core, store)
    check_position("at", at, core.length)
    assert isinstance(at, int)  # checked above; for the type checker
    msgs = parse_messages(items)  # ids given once: a retry stores the same messages
    branch_id = branch_id or new_branch_id()
    anchor: str | None = None
    length = core.length
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            core.stale = True
            yield from reload_flow(core, store)
            if pop is not None and pop <= core.length:
                at = core.length - pop
            elif core.length != length and at != 0:  # at 0: the same, whatever was appended
                raise ConflictError(
                    f"session {sid!r}: another writer changed the history meanwhile (it holds "
                    f"{core.length} message(s) now, {length} before); nothing was branched: "
                    "branch again at the position you mean"
                )
        before = yield from _before(core, store, at, msgs)
        here = before[-1].id if before else None
        if attempt and pop is None and here != anchor:
            raise ConflictError(
                f"session {sid!r}: history[:{at}] changed meanwhile (another writer branched "
                "or cleared it); nothing was branched"
            )
        anchor = here
        batch = _checked(core, msgs, before)
        state = (core.summary.id if core.summary is not None else None, core.watermark)
        length, current = core.length, index is not None and index_current(core, index)
        if batch.system_changed:
            yield from _set_system(core, store, batch.system)
        try:
            yield from _rewrite(core, store, at, batch.history, branch_id)
        except ConflictError:
            if attempt == MAX_ATTEMPTS - 1:
                raise
            continue
        break
    core.branched(at)
    yield from reload_flow(core, store)
    if current and index is not None:
        index.truncate(at)
        index.extend(batch.history)
        if not index_current(core, index):
            index.complete = False  # another writer too, or the store skipped an id: read again
    summary_id = core.summary.id if core.summary is not None else None
    event = Branched(
        sid,
        branch_id=branch_id,
        at=at,
        abandoned=length - at,
        added=len(batch.history),
        summary=_summary_outcome(state[1], at, summary_id),
        summary_id=summary_id,
        previous_summary_id=state[0],
        watermark=core.watermark,
        previous_watermark=state[1],
    )
    yield from emit(core.hooks, event)
    return batch.accepted


def _summary_outcome(
    watermark: int, at: int, summary_id: str | None
) -> Literal["kept", "rolled_back", "dropped"]:
    if watermark <= at:
        return "kept"
    return "rolled_back" if summary_id is not None else "dropped"


def _before(
    core: SessionCore, store: StoreSteps, at: int, msgs: list[Message]
) -> Flow[list[Message]]:
    """The end of ``history[:at]``: enough to check the batch against it and to anchor it.

    From the cached tail when ``at`` is past the watermark (no call before the watermark is
    pending: reductions never pass one); otherwise read: the last message, or a window when
    the batch holds tool results (their calls may be pending in ``history[:at]``).
    """
    with core.lock:
        k = core.watermark
        if at > k:
            return list(core.tail[: at - k])
    if at == 0:
        return []
    reach = READ_WINDOW if at < k and any(m.role == "tool" for m in msgs) else 1
    window: list[Message] = yield from store.history(core.session_id, max(0, at - reach), at)
    return window


def _checked(core: SessionCore, msgs: list[Message], before: list[Message]) -> Batch:
    """Validate the batch against ``history[:at]`` (its end, ``before``) and the system."""
    pending: dict[str, None] = {}
    for m in before:
        if m.tool_calls or m.role == "tool":
            track_calls(pending, m)
    known = {m.id: m for m in before}
    return check_batch(msgs, core.system, pending, known, size=core.reducer.size, single=False)


def _set_system(core: SessionCore, store: StoreSteps, system: Message | None) -> Flow[None]:
    sid = core.session_id
    try:
        yield from store.set_system(sid, system)
    except GeneratorExit:  # cancelled: the write may have landed
        core.stale = True
        raise
    except StoreOutcomeUnknownError:
        core.stale = True
        yield from store.set_system(sid, system)  # replacing it again is harmless
    core.system_set(system)


def _rewrite(
    core: SessionCore, store: StoreSteps, at: int, messages: list[Message], branch_id: str
) -> Flow[int]:
    """One rewrite; an unknown outcome is settled by sending it again (the store knows the id)."""
    sid = core.session_id

    def attempt() -> Flow[int]:
        version: int = yield from store.rewrite(
            sid,
            keep=at,
            messages=messages,
            expected_version=core.version,
            expected_epoch=core.epoch,
            branch_id=branch_id,
            expected_length=core.length,
        )
        return version

    try:
        return (yield from attempt())
    except StoreOutcomeUnknownError:
        core.stale = True
    except ConflictError:
        raise
    except (StoreError, GeneratorExit):  # GeneratorExit: cancelled, the write may have landed
        core.stale = True
        raise
    try:
        return (yield from attempt())
    except ConflictError:
        raise
    except GeneratorExit:
        raise
    except StoreError as exc:
        raise StoreOutcomeUnknownError(
            f"session {sid!r}: cannot tell whether the branch {branch_id!r} was written "
            f"({exc}); memory.branches() lists it if it was",
            operation="rewrite",
            messages=messages,
        ) from exc
