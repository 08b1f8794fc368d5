"""What both Redis stores share: key layout, script arguments and reply parsing.

Each store operation is built here as a :class:`ScriptCall` (which script, which keys, which
arguments, and how to read the reply), with no I/O. :class:`~summem.stores.redis.RedisStore`
runs it with ``redis`` and :class:`~summem.stores.redis.AsyncRedisStore` awaits it with
``redis.asyncio``, so the two can never drift apart. The ``redis`` package itself is imported
only when a store is built (:func:`import_redis`).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import uuid
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from summem.errors import (
    ConfigurationError,
    ConflictError,
    CorruptRecordError,
    MissingDependencyError,
    SessionNotFoundError,
    StoreError,
    StoreOutcomeUnknownError,
)
from summem.messages import Message
from summem.observe.ledger import (
    Hold,
    Reserved,
    Spent,
    check_hold,
    check_hold_id,
    check_since,
    check_spend_entry,
    check_spend_key,
)
from summem.stores.base import (
    SessionInfo,
    SessionState,
    check_lease_args,
    decode_message,
    encode_message,
    new_epoch,
    validate_session_id,
)
from summem.stores.common.branching import abandoned_summary_error
from summem.stores.common.new_session import prepare_new_session
from summem.stores.common.operations import (
    Commit,
    Create,
    CreateOps,
    Rollback,
    Settle,
    SpendEntry,
    StoreOp,
)
from summem.stores.common.rows import decode_opt
from summem.stores.common.schema_compat import (
    check_declarations,
    check_schema,
    compatible_down_to,
)
from summem.stores.redis.scripts import SCRIPTS
from summem.stores.summary_log import dropped_summary_error, summary_stub

__all__ = [
    "COMPATIBLE",
    "FOLLOW_UPS",
    "NEW_SESSION",
    "SCHEMA_VERSION",
    "RedisBase",
    "ScriptCall",
    "cas_result",
    "import_redis",
    "text",
]

T = TypeVar("T")
C = TypeVar("C")


def import_redis() -> Any:
    """The ``redis`` package (with ``redis.asyncio``), or the install hint."""
    try:
        import redis
        import redis.asyncio
    except ImportError as exc:
        raise MissingDependencyError("redis", "redis") from exc
    return redis


SCHEMA_VERSION = 3
"""The schema version of the key layout this summem writes (see :mod:`summem.stores.redis`)."""

COMPATIBLE: tuple[int, ...] = (
    1,  # 1: the initial layout
    2,  # 2: stubs in the summary log (an entry's text dropped): older code would make one
    #      current (a rollback to it, or a branch behind the latest whole summaries)
    3,  # 3: the session index <prefix>:sessions: older code creates sessions it never
    #      indexes, which a listing would then miss
)
"""For each schema version, the oldest one whose code may still use its data (see
:mod:`summem.stores.common.schema_compat`): ``<prefix>:schema`` records it in ``compatible``."""
check_declarations(COMPATIBLE, SCHEMA_VERSION)

SCHEMA_FIELDS = ("version", "compatible", "compatible_for")
"""The fields of the ``<prefix>:schema`` hash: the data's schema version, the marker, and the
version the marker was recorded for."""

WRITES = frozenset(
    {
        "append",
        "set_system",
        "commit",
        "stub_legacy",
        "stage",
        "create",
        "discard",
        "rollback",
        "rewrite",
        "clear",
        "delete",
        "acquire_lease",
        "release_lease",
        "record_spend",
        "reserve_spend",
        "settle_spend",
        "release_spend",
    }
)
"""The scripts that write: a lost reply leaves their outcome unknown."""


_KEY_CACHE_SIZE = 4096
"""Sessions whose keys a store keeps built (then it starts again)."""


def unknown_url_options(client: Any) -> list[str]:
    """The options a client's URL gave that its connections do not take.

    redis-py passes a URL's unknown query parameters through, and each connect then fails
    with a TypeError. A cluster client (no single pool) or a connection class whose signature
    cannot be read gives ``[]``: nothing is refused on a guess.
    """
    import inspect

    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    connection = getattr(pool, "connection_class", None)
    if not isinstance(kwargs, dict) or not isinstance(connection, type):
        return []
    taken: set[str] = set()
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    for klass in connection.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            params = inspect.signature(init).parameters
        except (TypeError, ValueError):
            return []
        taken.update(n for n, p in params.items() if p.kind not in variadic)
    return sorted(k for k in kwargs if k not in taken)


class _Keys(NamedTuple):
    meta: str
    msgs: str
    sums: str
    lease: str
    ids: str
    branches: str
    bmsgs: str
    abandoned: str

    def session(self) -> list[str]:
        """The keys of the scripts that may create or empty a session, in their order."""
        return [
            self.meta,
            self.msgs,
            self.sums,
            self.ids,
            self.branches,
            self.bmsgs,
            self.abandoned,
        ]


FOLLOW_UPS = 4
"""Follow-up calls (:attr:`ScriptCall.follow`) one operation may run: each stubs one entry of
the summary log that an older release logged whole, so a log of any length is caught up a few
entries a commit, never all at once."""

Probed = tuple[str, int, int] | None
"""What a probe replies: the session's (epoch, version, length), or ``None`` for none."""

NEW_SESSION = -1
"""The reply of an append or ``set_system`` sent without an epoch to a missing session."""


@dataclass(frozen=True)
class ScriptCall(StoreOp[T]):
    """One script call and how to read its reply.

    Attributes:
        creates: for a call that creates no session (an append or ``set_system`` without an
            epoch), the call that may: run after the session is indexed, when the reply is
            :data:`NEW_SESSION`.
        index: ``"add"``: put the session in the index (``<prefix>:sessions``) before the
            call and again after it (a delete racing the create may have taken the id out in
            between); ``"remove"``: take it out after, then put it back if the session exists
            by then (recreated meanwhile): so a session that exists is always indexed.
        follow: upkeep after a call that succeeded, from its raw reply: the next call, or
            ``None``; at most :data:`FOLLOW_UPS` of them run, and their errors are not the
            call's (a commit that stubs summaries an older release logged, a few a commit).
    """

    script: str
    keys: list[str]
    args: list[str | int]
    parse: Callable[[Any], T]
    creates: Callable[[], ScriptCall[T]] | None = None
    index: str = ""
    follow: Callable[[Any], ScriptCall[Any] | None] | None = None


def text(value: Any) -> str:
    """A reply value as text (Redis replies bytes)."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _int(value: Any) -> int | None:
    try:
        return int(text(value))
    except (TypeError, ValueError):
        return None


def _float(value: Any) -> float | None:
    """``value`` as a float; ``None`` when absent or not a number (a hash from an older release)."""
    try:
        return float(text(value))
    except (TypeError, ValueError):
        return None


def _chunks(bodies: list[str], max_bytes: int, max_messages: int) -> list[list[str]]:
    """``bodies`` cut into runs of at most ``max_bytes`` (UTF-8) and ``max_messages``."""
    chunks: list[list[str]] = [[]]
    size = 0
    for body in bodies:
        n = len(body.encode("utf-8"))
        if chunks[-1] and (size + n > max_bytes or len(chunks[-1]) >= max_messages):
            chunks.append([])
            size = 0
        chunks[-1].append(body)
        size += n
    return chunks


class RedisBase(Generic[C]):
    """Key building, script arguments and reply parsing shared by both Redis stores."""

    create_chunk_bytes = 8 << 20
    """Most bytes of history one ``create`` call sends; a longer history is staged first."""
    create_chunk_messages = 20_000
    """Most messages one ``create`` call sends."""
    create_stage_ttl_seconds = 600.0
    """How long a staged history outlives its last chunk (a crashed create's leftovers)."""

    def __init__(self, url_or_client: str | C, *, prefix: str = "summem") -> None:
        redis_module = import_redis()
        if not isinstance(prefix, str) or not prefix or "{" in prefix or "}" in prefix:
            raise ConfigurationError(
                f"Redis key prefix must be a non-empty string without braces, got {prefix!r}"
            )
        self._prefix = prefix
        self._key_cache: dict[str, _Keys] = {}  # a session's keys, built once (every turn)
        self._schema_checked = False  # the prefix's recorded schema, checked on first use
        self._indexed = False  # the session index known to hold every session (see _index)
        self._stored_schema: int | None = None  # the recorded version, read on first use
        errors = redis_module.exceptions
        # a cluster client's own errors (no node reachable, keys of several slots) are not
        # RedisErrors
        self._redis_error: tuple[type[Exception], ...] = (
            errors.RedisError,
            errors.RedisClusterException,
        )
        self._lost_reply: tuple[type[Exception], ...] = (
            errors.ConnectionError,
            errors.TimeoutError,
        )
        self._owns = isinstance(url_or_client, str)
        self._client: Any = url_or_client
        if isinstance(url_or_client, str):
            with self._errors(None):  # a cluster client connects when it is made
                try:
                    self._client = self._client_from_url(redis_module, url_or_client)
                    unknown = unknown_url_options(self._client)
                    if unknown:  # redis-py would fail every command with a TypeError
                        raise ValueError(
                            f"unknown query parameter(s) {', '.join(map(repr, unknown))}"
                        )
                except (ValueError, TypeError) as exc:  # redis-py's word on a malformed URL
                    from summem._secrets import mask_url, redact, url_secrets

                    text = redact(str(exc), url_secrets(url_or_client))
                    raise ConfigurationError(
                        f"bad Redis URL {mask_url(url_or_client)}: {text}"
                    ) from None
        self._scripts = {n: self._client.register_script(src) for n, src in SCRIPTS.items()}

    @abstractmethod
    def _client_from_url(self, redis_module: Any, url: str) -> Any:
        """A client of the store's kind (sync or asyncio) for ``url``; the store owns it."""

    @property
    def prefix(self) -> str:
        """The key prefix this store writes under."""
        return self._prefix

    def _schema_key(self) -> str:
        return f"{self._prefix}:schema"  # no braces: never one of a session's keys

    def _index_key(self) -> str:
        """The session index: a sorted set of every session id (score 0, so in id order).

        No braces: on a Redis Cluster it has its own slot, written by a call of its own when
        a session is created (before it exists) or deleted (after), never by a turn.
        """
        return f"{self._prefix}:sessions"

    def _index_fields(self, stored: int | None) -> dict[str, int]:
        """What ``<prefix>:schema`` records once the index holds every session (a backfill).

        ``stored`` is the version read just before: below this one, the marker is stamped too.
        """
        fields = {"index": 1}
        if stored is None or stored < SCHEMA_VERSION:
            fields |= self._stamp_fields()
        return fields

    def _check_schema(self, raw: Any) -> None:
        """Refuse data whose recorded schema this summem cannot use (``HMGET`` of the fields).

        No ``<prefix>:schema`` hash means schema 1, the layout of every summem before the
        bounded summary log: this summem records schema 2 only before its first commit that
        may make stubs (:meth:`_stamp_needed`), so a prefix that never held one stays
        readable by those summems.
        """
        version, compatible, compatible_for = (_int(v) for v in raw)
        self._stored_schema = version
        if version is None:
            return
        check_schema(
            f"Redis prefix {self._prefix!r}",
            stored=version,
            known=SCHEMA_VERSION,
            compatible=compatible if compatible_for == version else None,
        )

    def _stamp_needed(self, call: ScriptCall[Any]) -> bool:
        """Whether ``call`` may write a stub into a prefix not yet marked as schema 2.

        Summems of schema 1 (before the bounded log) read a stub as a summary: the marker
        (``version`` 2, ``compatible`` 2) makes those that know the marker refuse the prefix
        instead (:class:`~summem.errors.SchemaVersionError`) once a commit may stub an entry.
        """
        stored = self._stored_schema
        if stored is not None and stored >= SCHEMA_VERSION:
            return False
        return call.script == "commit" and call.args[5] != ""

    def _stamp_fields(self) -> dict[str, int]:
        """The ``<prefix>:schema`` fields this summem records (see :meth:`_stamp_needed`)."""
        marker = compatible_down_to(COMPATIBLE, SCHEMA_VERSION)
        return {"version": SCHEMA_VERSION, "compatible": marker, "compatible_for": SCHEMA_VERSION}

    def _keys(self, name: str) -> _Keys:
        keys = self._key_cache.get(name)
        if keys is None:
            tag = base64.urlsafe_b64encode(name.encode("utf-8")).decode("ascii").rstrip("=")
            base = f"{self._prefix}:{{{tag}}}:"
            keys = _Keys(
                *(base + part for part in ("meta", "msgs", "sums", "lease", "ids")),
                *(base + part for part in ("branches", "bmsgs", "abandoned")),
            )
            if len(self._key_cache) >= _KEY_CACHE_SIZE:  # a worker that meets many sessions
                self._key_cache.clear()
            self._key_cache[name] = keys
        return keys

    def _scan_pattern(self) -> str:
        escaped = "".join("\\" + c if c in "*?[]\\" else c for c in self._prefix)
        return escaped + ":{*}:meta"

    def _names(self, keys: Iterable[Any]) -> list[str]:
        head, tail = len(self._prefix) + 2, len("}:meta")
        names = set()
        for raw in keys:
            key = text(raw)
            tag = key[head:-tail]
            try:
                name = base64.urlsafe_b64decode(tag + "=" * (-len(tag) % 4)).decode("utf-8")
            except (binascii.Error, ValueError):
                continue
            if name and self._keys(name).meta == key:  # only keys this store would write
                names.add(name)
        return sorted(names)

    @contextmanager
    def _errors(self, name: str | None, script: str | None = None) -> Iterator[None]:
        """Redis errors as summem's; a write whose reply was lost has an unknown outcome."""
        try:
            yield
        except self._redis_error as exc:
            where = f"session {name!r}" if name is not None else f"Redis store {self._prefix!r}"
            if "WRONGTYPE" in str(exc):
                raise CorruptRecordError(f"{where}: a stored key has the wrong type") from exc
            if script in WRITES and isinstance(exc, self._lost_reply):
                # the command may have run before the connection dropped or the timeout hit
                # (and redis-py may have sent it again): only reading the session tells
                raise StoreOutcomeUnknownError(
                    f"{where}: Redis error during {script} ({exc}); it may or may not have "
                    "been applied: read the session to know",
                    operation=script,
                ) from exc
            raise StoreError(f"{where}: Redis error: {exc}") from exc

    # -- operations -----------------------------------------------------------------------

    def _op_load(self, session_id: str) -> ScriptCall[SessionState]:
        name = validate_session_id(session_id)
        k = self._keys(name)

        def parse(raw: Any) -> SessionState:
            if raw is None:
                raise SessionNotFoundError(f"no session {name!r}")
            flat, bodies, length = raw
            meta = {text(flat[i]): flat[i + 1] for i in range(0, len(flat) - 1, 2)}
            version, watermark = _int(meta.get("version")), _int(meta.get("watermark"))
            if "epoch" not in meta or version is None or watermark is None:
                raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
            if not 0 <= watermark <= length:
                raise CorruptRecordError(f"session {name!r}: stored watermark is invalid")
            return SessionState(
                session_id=name,
                system=decode_opt(meta.get("system"), name, "system message"),
                summary=decode_opt(meta.get("summary"), name, "summary"),
                watermark=watermark,
                length=length,
                version=version,
                epoch=text(meta["epoch"]),
                tail=self._decode_range(bodies, name, watermark),
            )

        return ScriptCall(name, "load", [k.meta, k.msgs], [], parse)

    def _op_exists(self, session_id: str) -> ScriptCall[bool]:
        name = validate_session_id(session_id)
        return ScriptCall(name, "exists", [self._keys(name).meta], [], lambda raw: bool(raw))

    def _op_probe(self, session_id: str) -> ScriptCall[tuple[str, int, int] | None]:
        name = validate_session_id(session_id)
        k = self._keys(name)

        def parse(raw: Any) -> tuple[str, int, int] | None:
            if raw is None:
                return None
            epoch, version, length = raw
            if epoch is None or _int(version) is None:
                raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
            return text(epoch), int(text(version)), int(length)

        return ScriptCall(name, "probe", [k.meta, k.msgs], [], parse)

    def _op_history(
        self, session_id: str, start: int, stop: int | None
    ) -> ScriptCall[list[Message]]:
        name = validate_session_id(session_id)
        args: list[str | int] = [int(start), "" if stop is None else int(stop)]
        return ScriptCall(
            name,
            "history",
            [self._keys(name).msgs],
            args,
            lambda raw: self._decode_range(raw[1], name, int(raw[0])),
        )

    def _op_append(self, session_id: str, messages: Sequence[Message]) -> ScriptCall[int]:
        """One ``EVALSHA`` on an existing session (four keys, no epoch drawn).

        A missing session replies :data:`NEW_SESSION`: it is indexed, then created by
        :attr:`ScriptCall.creates` (four round trips, once per session).
        """
        name = validate_session_id(session_id)
        k = self._keys(name)
        args: list[str | int] = [
            "",
            len(messages),
            *(m.id for m in messages),
            *(encode_message(m) for m in messages),
        ]

        def creating() -> ScriptCall[int]:
            again: list[str | int] = [new_epoch(), *args[1:]]
            return ScriptCall(name, "append", k.session(), again, int, index="add")

        return ScriptCall(name, "append", [k.meta, k.msgs, k.sums, k.ids], args, int, creating)

    def _op_append_probe(self, session_id: str, messages: Sequence[Message]) -> ScriptCall[Probed]:
        """:meth:`_op_append` whose script also replies the epoch and version (one ``EVALSHA``).

        An empty batch writes nothing: it is a probe.
        """
        if not messages:
            return self._op_probe(session_id)
        name = validate_session_id(session_id)
        plain = self._op_append(name, messages)

        def parse(raw: Any) -> Probed:
            length, epoch, version = raw
            if epoch is None or _int(version) is None:
                raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
            return text(epoch), int(text(version)), int(length)

        def probed(
            call: ScriptCall[int], creates: Callable[[], ScriptCall[Probed]] | None = None
        ) -> ScriptCall[Probed]:
            args = [*call.args, "1"]  # ARGV[2m+3]: reply {length, epoch, version}
            return ScriptCall(name, call.script, call.keys, args, parse, creates, call.index)

        creating = plain.creates
        return probed(plain, None if creating is None else lambda: probed(creating()))

    def _op_set_system(self, session_id: str, message: Message | None) -> ScriptCall[None]:
        name = validate_session_id(session_id)
        k = self._keys(name)
        body = "" if message is None else encode_message(message)

        def creating() -> ScriptCall[None]:
            return ScriptCall(
                name, "set_system", k.session(), [new_epoch(), body], _none, index="add"
            )

        return ScriptCall(name, "set_system", k.session(), ["", body], _none, creating)

    def _op_commit(self, session_id: str, commit: Commit) -> ScriptCall[int]:
        name = validate_session_id(session_id)
        summary, watermark, expected_version, expected_epoch, keep = commit
        k = self._keys(name)
        body = log = ""
        if summary is not None:
            body = encode_message(summary)
            # "d": the entry's stub, which replaces "m" once keep later entries follow it
            stub = encode_message(summary_stub(summary))
            entry = {"id": summary.id, "w": int(watermark), "m": body, "d": stub}
            log = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        args: list[str | int] = [
            expected_epoch,
            expected_version,
            int(watermark),
            body,
            log,
            "" if keep is None else keep,
        ]

        def parse(raw: Any) -> int:
            return cas_result(name, raw, watermark)

        def follow(raw: Any) -> ScriptCall[Any] | None:
            if keep is None or len(raw) < 4:
                return None
            return self._op_stub_legacy(name, raw[2:4], keep)

        return ScriptCall(name, "commit", [k.meta, k.msgs, k.sums], args, parse, follow=follow)

    def _op_stub_legacy(self, name: str, found: Any, keep: int) -> ScriptCall[None] | None:
        """The stub of a log entry an older release logged whole, then the walk goes on.

        ``found`` is its position and entry, as a commit's walk met it; ``None`` when there is
        none. An entry that cannot be read is left whole and passed over.
        """
        if not found or len(found) != 2:
            return None
        position, entry = int(found[0]), found[1]
        stub, summary_id = "", ""
        try:
            logged = json.loads(entry)
            summary_id = str(logged["id"])
            summary = decode_message(logged["m"], session_id=name, where="summary log entry")
            if summary.summary_info is not None:
                stub = encode_message(summary_stub(summary))
        except (ValueError, TypeError, KeyError, RecursionError, CorruptRecordError):
            stub = ""
        k = self._keys(name)
        args: list[str | int] = [position, summary_id, stub, keep]

        def follow(raw: Any) -> ScriptCall[Any] | None:
            return self._op_stub_legacy(name, raw, keep)

        return ScriptCall(name, "stub_legacy", [k.meta, k.msgs, k.sums], args, _none, follow=follow)

    def _ops_create(self, session_id: str, create: Create) -> CreateOps:
        name = validate_session_id(session_id)
        new = prepare_new_session(name, *create)
        k = self._keys(name)
        stage_key = f"{k.meta.removesuffix('meta')}import:{uuid.uuid4().hex}"
        *staged, inline = _chunks(new.bodies, self.create_chunk_bytes, self.create_chunk_messages)
        ttl_ms = max(1, math.ceil(self.create_stage_ttl_seconds * 1000))

        def parse(raw: Any) -> int:
            status = text(raw[0])
            if status == "exists":
                raise ConflictError(f"session {name!r} already exists")
            if status == "staging":
                raise StoreError(
                    f"session {name!r}: the staged history was lost before the create "
                    f"(expired after {self.create_stage_ttl_seconds}s?); nothing was written"
                )
            return int(raw[1])

        stage_ops = [
            ScriptCall(name, "stage", [stage_key, k.meta], [ttl_ms, *c], parse) for c in staged
        ]
        args: list[str | int] = [
            new_epoch(),
            new.watermark,
            new.system_body or "",
            new.summary_body or "",
            new.log_entry() or "",
            sum(len(c) for c in staged),
            *inline,
        ]
        keys = [k.meta, k.msgs, k.sums, stage_key, k.ids, k.branches, k.bmsgs, k.abandoned]
        final = ScriptCall(name, "create", keys, args, parse, index="add")
        discard = ScriptCall(name, "discard", [stage_key], [], _none)
        return CreateOps(stage_ops, final, discard)

    def _op_info(self, name: str) -> ScriptCall[SessionInfo | None]:
        def parse(raw: Any) -> SessionInfo | None:
            if raw is None:
                return None  # deleted since the SCAN
            (version, watermark, summary, updated), length, count = raw
            version, watermark = _int(version), _int(watermark)
            if version is None or watermark is None:
                raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
            return SessionInfo(
                session_id=name,
                length=int(length),
                watermark=watermark,
                version=version,
                summaries=int(count),
                stored_summary=summary,
                updated_at=_float(updated),
            )

        k = self._keys(name)
        return ScriptCall(name, "info", [k.meta, k.msgs, k.sums], [], parse)

    def _op_summaries(self, session_id: str) -> ScriptCall[list[Message]]:
        name = validate_session_id(session_id)

        def parse(raw: Any) -> list[Message]:
            out = []
            for entry in raw:
                try:
                    body = json.loads(entry)["m"]
                except (ValueError, TypeError, KeyError, RecursionError) as exc:
                    raise CorruptRecordError(
                        f"session {name!r}: stored summary log entry cannot be decoded"
                    ) from exc
                out.append(decode_message(body, session_id=name, where="summary log entry"))
            return out

        return ScriptCall(name, "summaries", [self._keys(name).sums], [], parse)

    def _op_rollback(self, session_id: str, rollback: Rollback) -> ScriptCall[int]:
        name = validate_session_id(session_id)
        summary_id, expected_version, expected_epoch = rollback
        k = self._keys(name)
        args: list[str | int] = [
            expected_epoch or "",
            expected_version,
            "0" if summary_id is None else "1",
            summary_id or "",
        ]

        def parse(raw: Any) -> int:
            return cas_result(name, raw, None, summary_id)

        return ScriptCall(name, "rollback", [k.meta, k.msgs, k.sums, k.abandoned], args, parse)

    def _op_clear(self, session_id: str) -> ScriptCall[None]:
        name = validate_session_id(session_id)
        k = self._keys(name)

        def parse(raw: Any) -> None:
            if int(raw) < 0:
                raise CorruptRecordError(f"session {name!r}: stored version is invalid")

        return ScriptCall(name, "clear", k.session(), [], parse)

    def _op_delete(self, session_id: str) -> ScriptCall[bool]:
        name = validate_session_id(session_id)
        keys = list(self._keys(name))
        return ScriptCall(name, "delete", keys, [], lambda raw: bool(raw), index="remove")

    def _op_acquire(self, session_id: str, owner: str, ttl_seconds: float) -> ScriptCall[bool]:
        name = validate_session_id(session_id)
        check_lease_args(owner, ttl_seconds)
        ttl_ms = max(1, math.ceil(ttl_seconds * 1000))
        args: list[str | int] = [owner, ttl_ms]
        return ScriptCall(name, "acquire_lease", [self._keys(name).lease], args, lambda r: bool(r))

    def _op_release(self, session_id: str, owner: str) -> ScriptCall[None]:
        name = validate_session_id(session_id)
        return ScriptCall(name, "release_lease", [self._keys(name).lease], [owner], _none)

    def _spend_key(self, key: str) -> str:
        tag = base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii").rstrip("=")
        return f"{self._prefix}:spend:{{{tag}}}"

    def _op_record_spend(self, key: str, spend: SpendEntry) -> ScriptCall[None]:
        key, at, tokens, cost_usd, prune_before = check_spend_entry(key, *spend)
        entry = f"{uuid.uuid4().hex}:{tokens}:{cost_usd!r}"
        prune = "" if prune_before is None else repr(prune_before)
        # the whole set expires once its newest entry is past the retention (a deleted
        # session's or a gone tenant's spend does not stay for ever)
        keep_ms = "" if prune_before is None else str(max(1, math.ceil((at - prune_before) * 1000)))
        args: list[str | int] = [repr(at), entry, prune, keep_ms]
        return ScriptCall(None, "record_spend", [self._spend_key(key)], args, _none)

    def _op_spent_since(self, key: str, since: float | None) -> ScriptCall[Spent]:
        key, since = check_spend_key(key), check_since("since", since)

        def parse(raw: Any) -> Spent:
            parts = [text(part) for part in raw]  # ok, tokens, cost / bad, the entry
            if len(parts) == 3 and parts[0] == "ok":
                return Spent(int(parts[1]), float(parts[2]))
            raise CorruptRecordError(
                f"Redis store {self._prefix!r}: a spend entry of {key!r} is invalid"
            )

        low = "-inf" if since is None else f"({since!r}"
        return ScriptCall(None, "spent_since", [self._spend_key(key)], [low], parse)

    def _op_reserve_spend(self, key: str, hold: Hold) -> ScriptCall[Reserved]:
        key, hold = check_hold(key, hold)
        ledger = self._spend_key(key)

        def parse(raw: Any) -> Reserved:
            parts = [text(part) for part in raw]  # yes/no, tokens, cost / bad, the entry
            if len(parts) == 3 and parts[0] in ("yes", "no"):
                return Reserved(parts[0] == "yes", Spent(int(parts[1]), float(parts[2])))
            raise CorruptRecordError(
                f"Redis store {self._prefix!r}: a spend entry or hold of {key!r} is invalid"
            )

        low = "-inf" if hold.since is None else f"({hold.since!r}"
        ttl_ms = max(1, math.ceil((hold.expires_at - hold.at) * 1000))
        args: list[str | int] = [
            repr(hold.at),
            low,
            hold.hold_id,
            f"{hold.expires_at!r}:{hold.tokens}:{hold.cost_usd!r}",
            "" if hold.max_tokens is None else str(hold.max_tokens),
            "" if hold.max_cost_usd is None else repr(hold.max_cost_usd),
            ttl_ms,
        ]
        return ScriptCall(None, "reserve_spend", [ledger, f"{ledger}:holds"], args, parse)

    def _op_settle_spend(self, key: str, settle: Settle) -> ScriptCall[None]:
        hold_id, at, tokens, cost_usd, prune_before = settle
        key, at, tokens, cost_usd, prune_before = check_spend_entry(
            key, at, tokens, cost_usd, prune_before
        )
        check_hold_id(hold_id)
        ledger = self._spend_key(key)
        prune = "" if prune_before is None else repr(prune_before)
        keep_ms = "" if prune_before is None else str(max(1, math.ceil((at - prune_before) * 1000)))
        entry = f"{hold_id}:{tokens}:{cost_usd!r}"
        args: list[str | int] = [repr(at), entry, prune, keep_ms, hold_id]
        return ScriptCall(None, "settle_spend", [ledger, f"{ledger}:holds"], args, _none)

    def _op_release_spend(self, key: str, hold_id: str) -> ScriptCall[None]:
        key, hold_id = check_spend_key(key), check_hold_id(hold_id)
        holds = f"{self._spend_key(key)}:holds"
        return ScriptCall(None, "release_spend", [holds], [hold_id], _none)

    @staticmethod
    def _decode_range(bodies: Sequence[Any], name: str, start: int) -> list[Message]:
        return [
            decode_message(b, session_id=name, where=f"message at position {start + i}")
            for i, b in enumerate(bodies)
        ]


def _none(raw: Any) -> None:
    return None


def cas_result(name: str, raw: Any, watermark: int | None, summary_id: str | None = None) -> int:
    """The new version a compare-and-set script replied, or the error its status names."""
    status = text(raw[0])
    detail: Any = raw[1] if len(raw) > 1 else None
    if status == "ok":
        return int(detail)
    if status == "missing":
        raise ConflictError(f"session {name!r} no longer exists")
    if status == "epoch":
        raise ConflictError(f"session {name!r} was deleted and created again")
    if status == "version":
        raise ConflictError(f"session {name!r} moved: version is {detail}")
    if status == "backwards":
        raise ConflictError(
            f"session {name!r}: watermark {watermark} would move backwards (it is {detail})"
        )
    if status == "past_end":
        raise ConflictError(
            f"session {name!r}: watermark {watermark} is past the history's end ({detail})"
        )
    if status == "unknown":
        raise StoreError(f"session {name!r}: no logged summary with id {summary_id!r}")
    if status == "abandoned" and summary_id is not None:
        raise abandoned_summary_error(name, summary_id, text(detail))
    if status == "dropped" and summary_id is not None:
        raise dropped_summary_error(name, summary_id)
    raise CorruptRecordError(f"session {name!r}: stored session record is invalid")
