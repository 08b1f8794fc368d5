"""The store contract: what every backend keeps, and the shared (de)serialisation.

A store keeps, per session: the full append-only history (each message with its stable id),
the current system message, the current summary with its provenance, the watermark ``k`` (how
many history messages the summary stands for), a version, an epoch, and the log of every
summary ever committed (for rollback), and the session's branches. A reduction commits
summary + watermark + version together, with a compare-and-set on (epoch, version), or not at
all.

A history is append-only *per branch*: :meth:`BranchingStore.rewrite` makes it ``history[:keep] +
messages`` in one compare-and-set write, keeps the abandoned suffix as a :class:`Branch`
(listed by :meth:`BranchingStore.branches`, read by
:meth:`BranchingStore.branch_messages`), and when ``keep``
falls inside what the summary covers, marks the logged summaries of the abandoned part and
rolls back to the latest one that is still valid.

``version`` changes on every commit, rollback, rewrite and clear, never on append: messages appended
while a summarizer runs do not invalidate its result. ``epoch`` is fixed when a session is
created, so a reduction planned before a delete can never commit into a new session that reuses
the id. A session resumed from elsewhere is written whole by ``create``, atomically, into an
id that must not exist yet.

Beside the contract, optional capabilities a store may have (checked with ``isinstance``):
:class:`BranchingStore`, :class:`SearchableStore`, :class:`ListingStore`, and
:class:`ProbingAppendStore` (an append that returns the session's epoch and version in the
same round trip: a fleet's turn, see ``docs-notes/fleet.md``); each has an async twin.

Backends implement :class:`Store` (sync) or :class:`AsyncStore` (async) with the same method
names; both are written once, as the shells of :mod:`summem.stores.common.shells` over each
backend's operations, and keys, SQL and serialisation live in the backend's own modules.

A store is a persistence layer, not a policy: it does not decide when to reduce, it only makes
sure that appends are atomic (positions contiguous, nothing lost or duplicated), that a commit
lands only on the session state it was planned against, and that one session's keys never touch
another's. Backends are found by URL through :func:`summem.stores.open_store`.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from summem._message_checks import check_values, stored_values
from summem.errors import (
    ConfigurationError,
    ConflictError,
    CorruptRecordError,
    InvalidSessionIdError,
    MessageValidationError,
    StoreError,
)
from summem.messages import Message, SummaryInfo

__all__ = [
    "MAX_SESSION_ID_LENGTH",
    "AsyncBranchingStore",
    "AsyncListingStore",
    "AsyncProbingAppendStore",
    "AsyncSearchableStore",
    "AsyncStore",
    "Branch",
    "BranchingStore",
    "ClosingStore",
    "ListingStore",
    "ProbingAppendStore",
    "SearchHit",
    "SearchableStore",
    "SessionInfo",
    "SessionState",
    "Store",
    "check_lease_args",
    "check_page",
    "check_watermark",
    "decode_message",
    "encode_message",
    "new_epoch",
    "slice_bounds",
    "validate_session_id",
]

MAX_SESSION_ID_LENGTH = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def validate_session_id(session_id: object) -> str:
    """Return ``session_id`` if usable, else raise :class:`InvalidSessionIdError`.

    Any non-empty string without control characters, up to 1024 characters, is accepted
    (unicode included, as long as it encodes to UTF-8); stores must keep ids such as ``a`` and
    ``a:messages`` apart.
    """
    if type(session_id) is str and session_id in _VALID_IDS:
        return session_id  # checked before: every store call checks its id again
    if not isinstance(session_id, str):
        raise InvalidSessionIdError(
            f"session id must be a non-empty string, got {type(session_id).__name__}"
        )
    if not session_id or not session_id.strip():
        raise InvalidSessionIdError("session id must be a non-empty string")
    if len(session_id) > MAX_SESSION_ID_LENGTH:
        raise InvalidSessionIdError(
            f"session id is {len(session_id)} characters; the limit is {MAX_SESSION_ID_LENGTH}"
        )
    if _CONTROL.search(session_id):
        raise InvalidSessionIdError("session id must not contain control characters")
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidSessionIdError("session id must be valid unicode (no surrogates)") from None
    if type(session_id) is str:
        if len(_VALID_IDS) >= _MAX_VALID_IDS:
            _VALID_IDS.clear()
        _VALID_IDS[session_id] = None
    return session_id


_VALID_IDS: dict[str, None] = {}
"""Session ids already found valid (exact ``str`` only), so checking one again is a lookup."""
_MAX_VALID_IDS = 4096


@dataclass
class SessionState:
    """A snapshot of one session as the store holds it.

    Attributes:
        session_id: the session.
        system: the current system message, if any.
        summary: the current summary message (``summary.summary_info`` set), if any.
        watermark: ``k``; the summary stands for ``history[:k]``.
        length: how many messages history holds.
        version: changes on every commit, rollback and clear.
        epoch: fixed at the session's creation.
        tail: ``history[k:]``, what the view shows after the summary. Only this part of the
            history is read: a long, reduced session loads in O(tail), not O(history).
    """

    session_id: str
    system: Message | None = None
    summary: Message | None = None
    watermark: int = 0
    length: int = 0
    version: int = 0
    epoch: str = ""
    tail: list[Message] = field(default_factory=list)

    def view(self) -> list[Message]:
        """``[system] + [summary]? + history[k:]``."""
        head = [m for m in (self.system, self.summary) if m is not None]
        return head + list(self.tail)


@dataclass(frozen=True)
class Branch:
    """The suffix of a session's history that a :meth:`BranchingStore.rewrite` abandoned.

    Attributes:
        id: the ``branch_id`` given to ``rewrite``.
        at: the fork position ``k``: the branch held ``history[k:]`` before the rewrite.
        length: how many messages were abandoned (may be 0).
        created_at: unix time, store clock.
        summary_id: the summary current before the rewrite (``None``: none).
        watermark: the watermark before the rewrite.
    """

    id: str
    at: int
    length: int
    created_at: float
    summary_id: str | None
    watermark: int


class ClosingStore:
    """Makes a sync store a context manager that calls its ``close()`` on exit."""

    def close(self) -> None:
        """Release connections (overridden by each store)."""

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_S = TypeVar("_S", bound=ClosingStore)


@runtime_checkable
class Store(Protocol):
    """A synchronous store. Every method validates ``session_id`` first."""

    def load(self, session_id: str) -> SessionState:
        """The session's state with ``tail = history[k:]``, read as one consistent snapshot.

        Raises:
            SessionNotFoundError: no such session.
            CorruptRecordError: a stored record cannot be decoded.
        """

    def exists(self, session_id: str) -> bool:
        """True if the session exists."""

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        """``history[start:stop]`` with Python slice semantics; empty for an unknown session."""

    def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """Append atomically (all or none), creating the session if needed.

        Costs O(len(messages)), not O(history). Concurrent appends (threads, processes,
        clients) never interleave inside a batch, and positions stay contiguous. The version
        does not change. An empty batch changes nothing (and creates nothing).

        Idempotent by message id: a message whose id the session already holds (or that
        repeats an id earlier in the batch) is skipped, so appending a batch again after an
        error that left its outcome unknown stores nothing twice.

        A store that can also report the session's epoch and version in the same round trip
        offers :meth:`ProbingAppendStore.append_probe` beside this.

        Raises:
            StoreOutcomeUnknownError: the append may or may not have landed (a lost reply).

        Returns:
            The history length after the append.
        """

    def set_system(self, session_id: str, message: Message | None) -> None:
        """Replace (or remove) the system message, creating the session if needed.

        Removing (``None``) never creates a session. The version does not change.
        """

    def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        """Commit summary + watermark, bumping the version, iff (epoch, version) still match.

        The summary is also appended to the session's summary log. Every built-in store also
        takes ``keep_summaries: int | None = None``: the log then keeps that many latest
        entries whole and turns older ones into metadata-only stubs
        (:func:`~summem.stores.summary_log.summary_stub`) in the same write, so it never holds
        more than that many texts (``None``: every entry stays whole). A store without it is
        called without it (see :func:`~summem.stores.summary_log.takes_keep_summaries`).
        ``summary=None`` moves the watermark with no summary (plain truncation); the current
        summary is then dropped and nothing is logged. ``watermark`` may equal the current one
        (a re-summary) but never be smaller, and never exceed the history length. On any error
        nothing is written.

        Returns:
            The new version.

        Raises:
            ConflictError: the session moved (version or epoch differ, it was deleted, or the
                watermark would move backwards or past the history's end).
        """

    def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """Create the session whole, in one atomic write (resuming a session elsewhere).

        History (ids kept), system message, summary (logged, as a commit would) and watermark
        land together or not at all; the new session has a fresh epoch and version 0. The
        input is checked and encoded before anything is written. Concurrent creates of one id:
        exactly one wins.

        Raises:
            ConflictError: the session already exists (it is left untouched).
            StoreError: bad input (naming the record at fault), or the write failed; either
                way no session is left behind.
        """

    def summaries(self, session_id: str) -> list[Message]:
        """Every summary committed to this session, oldest first.

        Entries older than the ``keep_summaries`` latest are stubs (metadata, no text; see
        :func:`~summem.stores.summary_log.is_stub`).
        """

    def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """Make a logged summary current (``None``: no summary, watermark 0); bumps the version.

        The watermark becomes the one that summary was committed with (it may move backwards:
        that is the point). The log itself is kept. When a summary id was committed more
        than once, the latest entry wins.

        Returns:
            The new version.

        Raises:
            ConflictError: the version (or ``expected_epoch``, when given) differs, or the
                session does not exist.
            StoreError: ``summary_id`` is not in the session's log, a :meth:`rewrite`
                abandoned it (:meth:`BranchingStore.rewrite`; the error names the branch), or
                the log keeps it as a stub only (its text dropped); nothing is written.
        """

    def clear(self, session_id: str) -> None:
        """Empty the session (history, summaries, system, branches) and bump its version.

        The session keeps existing with the same epoch, so a reduction planned before the
        clear fails its compare-and-set instead of bringing the old history back. Clearing an
        unknown session does nothing.
        """

    def delete(self, session_id: str) -> bool:
        """Remove the session entirely (its branches and lease too); True if it existed."""

    def list_sessions(self) -> list[str]:
        """Every session id, sorted."""

    def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """Take the session's reduction lease for ``owner`` (re-entrant for the same owner).

        The lease expires ``ttl_seconds`` after the last successful acquire, so a crashed
        worker cannot block a session forever. It does not need the session to exist.

        Returns:
            True if ``owner`` now holds the lease, False if another owner does.

        Raises:
            ConfigurationError: empty owner or non-positive TTL.
        """

    def release_lease(self, session_id: str, owner: str) -> None:
        """Release the lease if ``owner`` holds it."""

    def close(self) -> None:
        """Release connections."""


@runtime_checkable
class AsyncStore(Protocol):
    """The async twin of :class:`Store`: same methods, awaited."""

    async def load(self, session_id: str) -> SessionState:
        """See :meth:`Store.load`."""

    async def exists(self, session_id: str) -> bool:
        """See :meth:`Store.exists`."""

    async def history(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> list[Message]:
        """See :meth:`Store.history`."""

    async def append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`Store.append`."""

    async def set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`Store.set_system`."""

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message | None,
        watermark: int,
        expected_version: int,
        expected_epoch: str,
    ) -> int:
        """See :meth:`Store.commit`."""

    async def create(
        self,
        session_id: str,
        *,
        history: Sequence[Message],
        system: Message | None = None,
        summary: Message | None = None,
        watermark: int = 0,
    ) -> None:
        """See :meth:`Store.create`."""

    async def summaries(self, session_id: str) -> list[Message]:
        """See :meth:`Store.summaries`."""

    async def rollback(
        self,
        session_id: str,
        *,
        summary_id: str | None,
        expected_version: int,
        expected_epoch: str | None = None,
    ) -> int:
        """See :meth:`Store.rollback`."""

    async def clear(self, session_id: str) -> None:
        """See :meth:`Store.clear`."""

    async def delete(self, session_id: str) -> bool:
        """See :meth:`Store.delete`."""

    async def list_sessions(self) -> list[str]:
        """See :meth:`Store.list_sessions`."""

    async def acquire_lease(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`Store.acquire_lease`."""

    async def release_lease(self, session_id: str, owner: str) -> None:
        """See :meth:`Store.release_lease`."""

    async def close(self) -> None:
        """See :meth:`Store.close`."""


@dataclass(frozen=True)
class SessionInfo:
    """One session as a listing shows it, read without its messages.

    Attributes:
        session_id: the session.
        length: how many messages history holds.
        watermark: ``k``; the summary stands for ``history[:k]``.
        version: changes on every commit, rollback, rewrite and clear.
        summaries: how many summaries the session's log holds (what ``summaries()`` returns).
        stored_summary: the current summary as the store holds it: the message, or its
            encoded record, decoded only when :attr:`summary` is read (a listing of many
            sessions does not pay for decoding what it does not show).
        updated_at: when the session was last written (Unix seconds: an append, a commit, a
            rollback, a rewrite, a clear), or ``None`` where the store does not keep it.
    """

    session_id: str
    length: int
    watermark: int
    version: int
    summaries: int
    stored_summary: Message | str | bytes | None = field(default=None, repr=False)
    updated_at: float | None = None

    @property
    def summary(self) -> Message | None:
        """The current summary message, if any.

        Raises:
            CorruptRecordError: the stored record cannot be decoded.
        """
        found = self.stored_summary
        if found is None or isinstance(found, Message):
            return found
        return decode_message(found, session_id=self.session_id, where="summary")

    def summary_extra(self, key: str) -> object:
        """``summary.summary_info.extra[key]`` (``None`` when absent), read cheaply.

        A record that does not mention ``key`` is not decoded at all.

        Raises:
            CorruptRecordError: the stored record cannot be decoded.
        """
        found = self.stored_summary
        if found is None:
            return None
        if not isinstance(found, Message):
            text = found.decode("utf-8", "replace") if isinstance(found, bytes) else found
            if f'"{key}"' not in text:
                return None
            found = self.summary
        info = found.summary_info if found is not None else None
        return info.extra.get(key) if info is not None else None


@runtime_checkable
class ListingStore(Protocol):
    """A store that lists its sessions from an index, without reading their messages.

    A capability beside :class:`Store`; every built-in store is one. A third-party store
    without it still lists: the CLI then loads each session whole (the old, slow way).
    """

    def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """Up to ``limit`` sessions whose ids sort after ``after``, in id order.

        The order is the ids' code point order (that of ``sorted()`` and of
        :meth:`Store.list_sessions`), so a page's last id is the next page's ``after``.

        Raises:
            StoreError: ``limit`` is not a positive int or ``after`` is not a str.
        """


@runtime_checkable
class AsyncListingStore(Protocol):
    """The async twin of :class:`ListingStore` (every built-in async store is one)."""

    async def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`ListingStore.session_infos`."""


def check_page(limit: object, after: object) -> None:
    """Check a listing page's arguments.

    Raises:
        StoreError: naming the bad argument.
    """
    if limit is not None and (type(limit) is not int or limit < 1):
        raise StoreError(f"limit must be a positive int or None, not {limit!r}")
    if after is not None and not isinstance(after, str):
        raise StoreError(f"after must be a session id (str) or None, not {after!r}")
    if after is not None:
        try:
            after.encode("utf-8")  # (the stores send it to their servers as UTF-8)
        except UnicodeEncodeError:
            raise StoreError(
                f"after must be valid unicode (no surrogates), not {after!r}"
            ) from None


@runtime_checkable
class BranchingStore(Protocol):
    """A store whose history can branch (issue #28); every built-in store is one.

    A capability beside :class:`Store`, like :class:`SearchableStore`: a third-party store
    that only appends still is a :class:`Store`; the session layer says clearly when a branch
    or a pop is asked of it, and reads the whole state where :meth:`probe` is missing.
    """

    def probe(self, session_id: str) -> tuple[str, int, int] | None:
        """``(epoch, version, length)`` of the session, ``None`` if there is no such session.

        One cheap read (no message is read or decoded): enough to tell whether a copy of the
        session is still current, since every write changes the version or the length.
        """

    def rewrite(
        self,
        session_id: str,
        *,
        keep: int,
        messages: Sequence[Message],
        expected_version: int,
        expected_epoch: str,
        branch_id: str,
        expected_length: int | None = None,
    ) -> int:
        """The history becomes ``history[:keep] + messages``, in one atomic compare-and-set write.

        - ``history[keep:]`` is kept as the :class:`Branch` ``branch_id`` (``at=keep``), with
          its messages in order (readable by :meth:`branch_messages`); the branch record is
          written even when nothing is abandoned (length 0), so a retry can be recognised.
        - If the watermark > ``keep``: every logged summary with watermark > ``keep`` is marked
          abandoned (by this ``branch_id``; :meth:`Store.summaries` still lists them,
          :meth:`Store.rollback` refuses them with a :class:`~summem.errors.StoreError` naming the
          branch), and the current summary becomes the latest logged, not-abandoned, whole
          (not a stub) summary with watermark <= ``keep`` (``None`` and watermark 0 if there
          is none). Otherwise
          summary and watermark are unchanged (a logged summary with watermark > ``keep``
          from before a rollback is still marked abandoned: it covers abandoned messages).
        - The system message is unchanged. The epoch is unchanged. The version bumps.
        - ``messages``: as for :meth:`Store.append`: a message whose id is in ``history[:keep]`` or
          repeats an earlier id in the batch is skipped. The abandoned messages' ids are free
          to be used again.
        - Idempotent: if a branch with ``branch_id`` is already recorded for the session (a
          retry after :class:`~summem.errors.StoreOutcomeUnknownError`), nothing is written
          and the current version is returned. This check comes before the compare-and-set.
        - ``expected_length`` (optional): the history's length the caller planned against;
          appends do not bump the version, so without it a rewrite racing another writer's
          append abandons that append too (it is kept in the branch). Checked with the version.

        Costs O(abandoned + new messages) plus index work, never O(history).

        Returns:
            The new version.

        Raises:
            ConflictError: version or epoch differ, the session does not exist, the history's
                length is not ``expected_length`` (when given), ``keep < 0`` or
                ``keep > length`` (the message says which).
            StoreOutcomeUnknownError: the reply was lost (network stores).
            StoreError: bad input (empty ``branch_id``, a non-Message in ``messages``);
                nothing is written.
        """

    def branches(self, session_id: str) -> list[Branch]:
        """Every branch recorded for the session, oldest first (``[]`` for an unknown session)."""

    def branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """The messages a branch abandoned, in their old order.

        Raises:
            StoreError: naming the branch, when the session has no such branch.
        """


@runtime_checkable
class AsyncBranchingStore(Protocol):
    """The async twin of :class:`BranchingStore`."""

    async def probe(self, session_id: str) -> tuple[str, int, int] | None:
        """See :meth:`BranchingStore.probe`."""

    async def rewrite(
        self,
        session_id: str,
        *,
        keep: int,
        messages: Sequence[Message],
        expected_version: int,
        expected_epoch: str,
        branch_id: str,
        expected_length: int | None = None,
    ) -> int:
        """See :meth:`BranchingStore.rewrite`."""

    async def branches(self, session_id: str) -> list[Branch]:
        """See :meth:`BranchingStore.branches`."""

    async def branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """See :meth:`BranchingStore.branch_messages`."""


@runtime_checkable
class ProbingAppendStore(Protocol):
    """A store that appends and probes in one call: one round trip where two would be.

    An optional capability beside :class:`Store` (the memory, SQLite, PostgreSQL and Redis
    stores have it: a backend of operations adds an ``_op_append_probe`` and the
    ``OpProbingAppend`` shells of :mod:`summem.stores.common.shells`). A memory with a
    dispatcher (``summem.fleet``) notices a worker's commit by the session's version: with this
    capability its turn learns it from the append itself, one round trip; a store without it is
    appended to, then probed (:meth:`BranchingStore.probe`), as before. A wrapper or
    third-party store simply leaves it out.
    """

    def append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """:meth:`Store.append`, returning ``(epoch, version, length)`` as of after the append.

        The same write as :meth:`Store.append` (atomic, idempotent by id, the version does not
        change), in one round trip. ``length`` is what :meth:`Store.append` returns. The epoch
        and version are read after the append took the session's write lock (or later): a
        commit that landed before the append is never missed (a newer one may be reported,
        which only makes the caller read the session sooner). ``None`` only when there is no
        session afterwards (an empty batch on an unknown session).

        Raises:
            StoreOutcomeUnknownError: the append may or may not have landed (a lost reply).
        """


@runtime_checkable
class AsyncProbingAppendStore(Protocol):
    """The async twin of :class:`ProbingAppendStore`."""

    async def append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """See :meth:`ProbingAppendStore.append_probe`."""


@dataclass(frozen=True)
class SearchHit:
    """One message a store's search found: its position in history, the message, its score.

    Higher scores are better; scores compare within one search only.
    """

    position: int
    message: Message
    score: float


@runtime_checkable
class SearchableStore(Protocol):
    """A store that searches a session's history itself (an optional capability).

    ``Memory.recall`` uses it when the store has it (SQLite: FTS5; PostgreSQL: ``tsvector``),
    else an in-process index it reads through :meth:`Store.history` (memory, Redis). Both
    split messages and queries into the words of :func:`summem._terms.message_terms`, so a
    query is never search syntax: quotes, ``*``, ``NEAR``, ``-`` or ``:`` are plain text.
    """

    def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """The ``k`` best messages of ``history[:stop]`` for ``query``, best first.

        Ranking is BM25-like (SQLite ``bm25()``, PostgreSQL ``ts_rank``): a message holding a
        query's rare word ranks above those holding only common ones; ties go to the most
        recent. Only this session's messages are ever returned; an unknown session, or a
        query with no words, finds nothing.
        """

    def position_of(self, session_id: str, message_id: str) -> int | None:
        """The position in history of the message with this id, if the session holds it."""


@runtime_checkable
class AsyncSearchableStore(Protocol):
    """The async twin of :class:`SearchableStore`."""

    async def search(
        self, session_id: str, query: str, *, k: int, stop: int | None = None
    ) -> list[SearchHit]:
        """See :meth:`SearchableStore.search`."""

    async def position_of(self, session_id: str, message_id: str) -> int | None:
        """See :meth:`SearchableStore.position_of`."""


def new_epoch() -> str:
    """A fresh epoch token for a session being created."""
    return uuid.uuid4().hex


def slice_bounds(start: int, stop: int | None, length: int) -> tuple[int, int]:
    """``history[start:stop]`` as non-negative ``[lo, hi)`` bounds (``lo <= hi``)."""
    lo, hi, _ = slice(start, stop).indices(length)
    return lo, max(lo, hi)


def check_lease_args(owner: str, ttl_seconds: float) -> None:
    """Reject an empty owner or a non-positive TTL.

    Raises:
        ConfigurationError: naming the bad argument.
    """
    if not isinstance(owner, str) or not owner:
        raise ConfigurationError("lease owner must be a non-empty string")
    if not ttl_seconds > 0:
        raise ConfigurationError(f"lease ttl_seconds must be positive, got {ttl_seconds!r}")


def check_watermark(name: str, watermark: int, current: int, length: int) -> None:
    """The commit's watermark rule, the same on every store: never backwards, never past the end.

    Raises:
        ConflictError: naming the session, the watermark and what it collides with.
    """
    if watermark < current:
        raise ConflictError(
            f"session {name!r}: watermark {watermark} would move backwards (it is {current})"
        )
    if watermark > length:
        raise ConflictError(
            f"session {name!r}: watermark {watermark} is past the history's end ({length})"
        )


def encode_message(message: Message) -> str:
    """One message as a JSON record: id, the chat-completions dict, summary provenance, meta."""
    record: dict[str, Any] = {"id": message.id, "m": message.to_openai()}
    if message.summary_info is not None:
        record["s"] = message.summary_info.model_dump(mode="json")
    if message.meta:
        record["x"] = message.meta
    try:
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        pass  # a value the checks at entry would have refused got in around them: name it
    reason, where = "it cannot be written as JSON", None
    try:
        check_values({"meta": message.meta}, None)
        check_values(record["m"], None)
    except MessageValidationError as exc:
        reason, where = exc.reason, exc.field
    raise MessageValidationError(f"{reason} (message {message.id!r})", field=where)


def decode_message(raw: str | bytes, *, session_id: str, where: str = "message") -> Message:
    """Inverse of :func:`encode_message`.

    The record is summem's own: an integer longer than the entry limit an earlier release
    stored is read back (see :func:`~summem._message_checks.stored_values`).

    Raises:
        CorruptRecordError: naming the session and the record.
    """
    try:
        with stored_values():
            return _decoded(json.loads(raw))
    except Exception as exc:
        raise CorruptRecordError(
            f"session {session_id!r}: stored {where} cannot be decoded ({type(exc).__name__}: "
            f"{str(exc)[:200]})"
        ) from exc


def _decoded(record: Any) -> Message:
    msg = Message.from_openai(record["m"], id=str(record["id"]))
    info = record.get("s")
    if info is not None:
        summary = SummaryInfo.model_validate(info)
        if summary.previous_summary_id == msg.id:
            raise ValueError("the summary names itself as the summary it replaced")
        msg = msg.as_summary(summary)
    meta = record.get("x")
    if meta:
        msg = msg.with_meta(**meta)
    return msg
