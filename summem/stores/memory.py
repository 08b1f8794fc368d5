"""In-process stores: the reference implementation of the store contract, and the test double.

:class:`InMemoryStore` keeps every session in a dict behind one lock, so it is safe to share
between threads; nothing survives the process. Messages are kept as the (frozen) objects the
caller appended, so their token caches survive between turns. :class:`AsyncInMemoryStore` is
the same store behind :class:`~summem.stores.adapter.AsyncLedgerAdapter`: every operation is a
few dict and list updates, so it runs inline in the event loop without blocking it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from summem.errors import ConfigurationError, ConflictError, SessionNotFoundError, StoreError
from summem.messages import Message
from summem.observe.ledger import Hold, LocalSpendLedger, Reserved, Spent
from summem.stores.adapter import AsyncLedgerAdapter
from summem.stores.base import (
    Branch,
    SessionInfo,
    SessionState,
    check_lease_args,
    check_page,
    check_watermark,
    new_epoch,
    validate_session_id,
)
from summem.stores.common.branching import (
    abandoned_summary_error,
    check_keep,
    check_rewrite,
    no_branch_error,
)
from summem.stores.common.direct import ProbingDirectStore
from summem.stores.common.operations import (
    Commit,
    Create,
    Rewrite,
    Rollback,
    Settle,
    SpendEntry,
)
from summem.stores.common.rows import check_expected
from summem.stores.summary_log import dropped_summary_error, is_stub, summary_stub

__all__ = ["AsyncInMemoryStore", "InMemoryStore"]


@dataclass
class _Logged:
    """One entry of a session's summary log."""

    summary: Message
    watermark: int
    abandoned_by: str | None = None

    @property
    def whole(self) -> bool:
        """False once the bounded log made this entry a stub (no text)."""
        return not is_stub(self.summary)


@dataclass
class _Session:
    epoch: str = field(default_factory=new_epoch)
    version: int = 0
    watermark: int = 0
    system: Message | None = None
    summary: Message | None = None
    history: list[Message] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    log: list[_Logged] = field(default_factory=list)
    stubs: int = 0
    """``log[:stubs]`` are stubs (their text dropped); the rest are whole."""
    branches: dict[str, tuple[Branch, list[Message]]] = field(default_factory=dict)
    updated_at: float = field(default_factory=time.time)
    """When the session was last written (Unix seconds)."""


class InMemoryStore(ProbingDirectStore):
    """A thread-safe store in process memory; nothing is persisted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._leases: dict[str, tuple[str, float]] = {}
        self._spend = LocalSpendLedger()

    @classmethod
    def from_url(cls, url: str) -> InMemoryStore:
        """Build from ``memory://`` (used by :func:`summem.stores.open_store`)."""
        _check_url(url)
        return cls()

    @classmethod
    def async_from_url(cls, url: str) -> AsyncInMemoryStore:
        """Build the async twin from ``memory://``."""
        _check_url(url)
        return AsyncInMemoryStore()

    def _record_spend(self, key: str, spend: SpendEntry) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.record_spend` (in this process)."""
        at, tokens, cost_usd, prune_before = spend
        self._spend.record_spend(
            key, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
        )

    def _spent_since(self, key: str, since: float | None) -> Spent:
        """See :meth:`summem.observe.ledger.SpendLedger.spent_since`."""
        return self._spend.spent_since(key, since)

    def _reserve_spend(self, key: str, hold: Hold) -> Reserved:
        """See :meth:`summem.observe.ledger.SpendLedger.reserve_spend` (in this process)."""
        return self._spend.reserve_spend(key, hold)

    def _settle_spend(self, key: str, settle: Settle) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.settle_spend` (in this process)."""
        hold_id, at, tokens, cost_usd, prune_before = settle
        self._spend.settle_spend(
            key, hold_id, at=at, tokens=tokens, cost_usd=cost_usd, prune_before=prune_before
        )

    def _release_spend(self, key: str, hold_id: str) -> None:
        """See :meth:`summem.observe.ledger.SpendLedger.release_spend` (in this process)."""
        self._spend.release_spend(key, hold_id)

    def _load(self, session_id: str) -> SessionState:
        """See :meth:`summem.stores.base.Store.load`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            if s is None:
                raise SessionNotFoundError(f"no session {session_id!r}")
            return SessionState(
                session_id=session_id,
                system=s.system,
                summary=s.summary,
                watermark=s.watermark,
                length=len(s.history),
                version=s.version,
                epoch=s.epoch,
                tail=s.history[s.watermark :],
            )

    def _exists(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.exists`."""
        validate_session_id(session_id)
        with self._lock:
            return session_id in self._sessions

    def _probe(self, session_id: str) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.Store.probe`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            return None if s is None else (s.epoch, s.version, len(s.history))

    def _history(self, session_id: str, start: int, stop: int | None) -> list[Message]:
        """See :meth:`summem.stores.base.Store.history`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            return [] if s is None else s.history[start:stop]

    def _append(self, session_id: str, messages: Sequence[Message]) -> int:
        """See :meth:`summem.stores.base.Store.append`."""
        validate_session_id(session_id)
        batch = list(messages)
        with self._lock:
            s = self._appended(session_id, batch)
            return 0 if s is None else len(s.history)

    def _append_probe(
        self, session_id: str, messages: Sequence[Message]
    ) -> tuple[str, int, int] | None:
        """See :meth:`summem.stores.base.ProbingAppendStore.append_probe`."""
        validate_session_id(session_id)
        batch = list(messages)
        with self._lock:
            s = self._appended(session_id, batch)
            return None if s is None else (s.epoch, s.version, len(s.history))

    def _appended(self, session_id: str, batch: list[Message]) -> _Session | None:
        """Append ``batch`` (under the lock); the session, ``None`` if none (an empty batch)."""
        s = self._sessions.get(session_id)
        if s is None:
            if not batch:
                return None
            s = self._sessions[session_id] = _Session()
        ids, history = s.ids, s.history
        for msg in batch:
            mid = msg.id
            if mid not in ids:
                ids.add(mid)
                history.append(msg)
        if batch:
            s.updated_at = time.time()
        return s

    def _set_system(self, session_id: str, message: Message | None) -> None:
        """See :meth:`summem.stores.base.Store.set_system`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            if s is None:
                if message is None:
                    return
                s = self._sessions[session_id] = _Session()
            s.system = message
            s.updated_at = time.time()

    def _commit(self, session_id: str, commit: Commit) -> int:
        """See :meth:`summem.stores.base.Store.commit`."""
        summary, watermark, expected_version, expected_epoch, keep = commit
        validate_session_id(session_id)
        with self._lock:
            s = self._checked(session_id, expected_version, expected_epoch)
            check_watermark(session_id, watermark, s.watermark, len(s.history))
            if summary is not None:
                s.log.append(_Logged(summary, watermark))
                while keep is not None and len(s.log) - s.stubs > keep:
                    entry = s.log[s.stubs]
                    entry.summary = summary_stub(entry.summary)
                    s.stubs += 1
            s.summary = summary
            s.watermark = watermark
            s.version += 1
            s.updated_at = time.time()
            return s.version

    def _create(self, session_id: str, create: Create) -> None:
        """See :meth:`summem.stores.base.Store.create`."""
        history, system, summary, watermark = create
        from summem.stores.common.new_session import prepare_new_session  # only to create one

        name = validate_session_id(session_id)
        new = prepare_new_session(name, history, system, summary, watermark)
        with self._lock:
            if name in self._sessions:
                raise ConflictError(f"session {name!r} already exists")
            self._sessions[name] = _Session(
                watermark=new.watermark,
                system=new.system,
                summary=new.summary,
                history=new.history,
                ids={m.id for m in new.history},
                log=[] if new.summary is None else [_Logged(new.summary, new.watermark)],
            )

    def _summaries(self, session_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.summaries`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            return [] if s is None else [entry.summary for entry in s.log]

    def _rollback(self, session_id: str, rollback: Rollback) -> int:
        """See :meth:`summem.stores.base.Store.rollback`."""
        summary_id, expected_version, expected_epoch = rollback
        validate_session_id(session_id)
        with self._lock:
            s = self._checked(session_id, expected_version, expected_epoch)
            if summary_id is None:
                target: tuple[Message | None, int] = (None, 0)
            else:
                found = [entry for entry in s.log if entry.summary.id == summary_id]
                if not found:
                    raise StoreError(
                        f"session {session_id!r}: no logged summary with id {summary_id!r}"
                    )
                latest = found[-1]
                if latest.abandoned_by is not None:
                    raise abandoned_summary_error(session_id, summary_id, latest.abandoned_by)
                if is_stub(latest.summary):
                    raise dropped_summary_error(session_id, summary_id)
                target = (latest.summary, latest.watermark)
            s.summary, s.watermark = target
            s.version += 1
            s.updated_at = time.time()
            return s.version

    def _rewrite(self, session_id: str, rewrite: Rewrite) -> int:
        """See :meth:`summem.stores.base.Store.rewrite`."""
        name = validate_session_id(session_id)
        batch = check_rewrite(name, rewrite)
        keep, branch_id = rewrite.keep, rewrite.branch_id
        with self._lock:
            s = self._sessions.get(name)
            if s is not None and branch_id in s.branches:
                return s.version  # a retry: the branch is already recorded
            s = self._checked(name, rewrite.expected_version, rewrite.expected_epoch)
            check_keep(name, rewrite, len(s.history))
            abandoned = s.history[keep:]
            s.branches[branch_id] = (
                Branch(
                    id=branch_id,
                    at=keep,
                    length=len(abandoned),
                    created_at=time.time(),
                    summary_id=None if s.summary is None else s.summary.id,
                    watermark=s.watermark,
                ),
                abandoned,
            )
            del s.history[keep:]
            s.ids.difference_update(m.id for m in abandoned)
            self._abandon_summaries(s, keep, branch_id)
            for msg in batch:
                if msg.id not in s.ids:
                    s.ids.add(msg.id)
                    s.history.append(msg)
            s.version += 1
            s.updated_at = time.time()
            return s.version

    @staticmethod
    def _abandon_summaries(s: _Session, keep: int, branch_id: str) -> None:
        """Mark the log's summaries past ``keep``; roll back if the current one is among them."""
        for entry in s.log:
            if entry.watermark > keep and entry.abandoned_by is None:
                entry.abandoned_by = branch_id
        if s.watermark <= keep:
            return
        s.summary, s.watermark = None, 0
        for entry in reversed(s.log):
            if entry.abandoned_by is None and entry.watermark <= keep and entry.whole:
                s.summary, s.watermark = entry.summary, entry.watermark
                return

    def _branches(self, session_id: str) -> list[Branch]:
        """See :meth:`summem.stores.base.Store.branches`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            return [] if s is None else [branch for branch, _ in s.branches.values()]

    def _branch_messages(self, session_id: str, branch_id: str) -> list[Message]:
        """See :meth:`summem.stores.base.Store.branch_messages`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            found = None if s is None else s.branches.get(branch_id)
            if found is None:
                raise no_branch_error(session_id, branch_id)
            return list(found[1])

    def _clear(self, session_id: str) -> None:
        """See :meth:`summem.stores.base.Store.clear`."""
        validate_session_id(session_id)
        with self._lock:
            s = self._sessions.get(session_id)
            if s is None:
                return
            s.history, s.log, s.stubs = [], [], 0
            s.ids = set()
            s.branches = {}
            s.system = s.summary = None
            s.watermark = 0
            s.version += 1
            s.updated_at = time.time()

    def _delete(self, session_id: str) -> bool:
        """See :meth:`summem.stores.base.Store.delete`."""
        validate_session_id(session_id)
        with self._lock:
            self._leases.pop(session_id, None)
            return self._sessions.pop(session_id, None) is not None

    def _list(self) -> list[str]:
        """See :meth:`summem.stores.base.Store.list_sessions`."""
        with self._lock:
            return sorted(self._sessions)

    def session_infos(
        self, *, limit: int | None = None, after: str | None = None
    ) -> list[SessionInfo]:
        """See :meth:`summem.stores.base.ListingStore.session_infos`."""
        check_page(limit, after)
        with self._lock:
            names = sorted(n for n in self._sessions if after is None or n > after)[:limit]
            return [
                SessionInfo(
                    session_id=n,
                    length=len(s.history),
                    watermark=s.watermark,
                    version=s.version,
                    summaries=len(s.log),
                    stored_summary=s.summary,
                    updated_at=s.updated_at,
                )
                for n, s in ((n, self._sessions[n]) for n in names)
            ]

    def _acquire(self, session_id: str, owner: str, ttl_seconds: float) -> bool:
        """See :meth:`summem.stores.base.Store.acquire_lease`."""
        validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        now = time.monotonic()
        with self._lock:
            held = self._leases.get(session_id)
            if held is not None and held[0] != owner and held[1] > now:
                return False
            self._leases[session_id] = (owner, now + ttl_seconds)
            return True

    def _release(self, session_id: str, owner: str) -> None:
        """See :meth:`summem.stores.base.Store.release_lease`."""
        validate_session_id(session_id)
        with self._lock:
            held = self._leases.get(session_id)
            if held is not None and held[0] == owner:
                del self._leases[session_id]

    def close(self) -> None:
        """Nothing to release; the data stays until the store is garbage-collected."""

    def _checked(self, session_id: str, version: int, epoch: str | None) -> _Session:
        return check_expected(session_id, self._sessions.get(session_id), version, epoch)


def _check_url(url: str) -> None:
    from summem.stores.url import parse_store_url  # on first use: keeps imports light

    parsed = parse_store_url(url)
    if parsed.scheme != "memory" or parsed.rest.strip("/"):
        raise ConfigurationError(f"a memory store URL is just 'memory://', got {url!r}")


class AsyncInMemoryStore(AsyncLedgerAdapter):
    """The async twin of :class:`InMemoryStore`: same semantics, run inline (nothing blocks).

    Args:
        store: share this sync store's sessions; a new one by default.
    """

    def __init__(self, store: InMemoryStore | None = None) -> None:
        super().__init__(store if store is not None else InMemoryStore(), offload=False)

    @classmethod
    def from_url(cls, url: str) -> AsyncInMemoryStore:
        """Build from ``memory://``."""
        return InMemoryStore.async_from_url(url)
