"""The PostgreSQL store's schema, its migrations and every statement it runs, in one place.

Every table lives in one PostgreSQL schema the store is given (``summem`` by default), so
several applications or tenants can share a database without meeting. The schema's name only
ever reaches SQL as a quoted :class:`psycopg.sql.Identifier`, rendered once per store; session
ids, message ids and every other value are bound parameters, never text in a statement.

Rows are found by a key, not by the id itself: ``key`` is the SHA-256 of the session id (and
``id_key`` that of a message id), so ids of any length (a session id may be 1024 characters,
up to 4 KB of UTF-8; a message id is unbounded) fit a unique B-tree index, whose entries are
limited to about 2.7 KB. Lookups also compare the id itself, so a hash collision could only
make a write fail, never reach another session's rows.

Migrations are applied by :func:`migration_steps` under ``pg_advisory_xact_lock`` in one
transaction, re-reading the version table there, so workers starting together migrate once.
"""

from __future__ import annotations

import hashlib
import re
from typing import ClassVar

from summem.errors import ConfigurationError
from summem.stores.common.schema_compat import check_declarations

__all__ = [
    "COMPATIBLE",
    "LOCK_CLASS",
    "MIGRATIONS",
    "SPEND_LOCK_CLASS",
    "SQL",
    "check_schema_name",
    "name_key",
]

LOCK_CLASS = 0x53554D4D  # "SUMM": the advisory lock class of migrations (two-key form)
SPEND_LOCK_CLASS = 0x53504E44  # "SPND": a budget key's reservations, one at a time
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_schema_name(schema: object) -> str:
    """Return ``schema`` if PostgreSQL can use it as a schema name, else raise.

    Raises:
        ConfigurationError: naming what is wrong (empty, too long, control characters,
            or PostgreSQL's reserved ``pg_`` prefix).
    """
    if not isinstance(schema, str) or not schema:
        raise ConfigurationError(f"PostgreSQL schema must be a non-empty string, got {schema!r}")
    if len(schema.encode("utf-8", "surrogatepass")) > 63:
        raise ConfigurationError(
            f"PostgreSQL schema {schema!r} is longer than 63 bytes (PostgreSQL would cut it)"
        )
    if _CONTROL.search(schema):
        raise ConfigurationError(f"PostgreSQL schema {schema!r} contains control characters")
    if schema.lower().startswith("pg_"):
        raise ConfigurationError(
            f"PostgreSQL schema {schema!r}: names starting with 'pg_' are reserved"
        )
    try:
        schema.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigurationError("PostgreSQL schema must be valid unicode") from None
    return schema


def name_key(value: str) -> bytes:
    """The indexed key of a session or message id: its SHA-256 (ids may be long)."""
    return hashlib.sha256(value.encode("utf-8")).digest()


_APPEND_FUNCTION = """CREATE OR REPLACE FUNCTION {schema}.append_messages(
    p_key bytea, p_name text, p_epoch text, p_id_keys bytea[], p_ids text[], p_bodies text[])
RETURNS bigint LANGUAGE plpgsql AS $$
-- Append the messages whose ids the session does not hold yet (``p_ids`` has no duplicates),
-- creating the session first if there is none; return its new length, or NULL (nothing
-- written) if another session id has the same key. Each statement in a VOLATILE function takes
-- its own snapshot, so the ids are read after the session row is locked: they include what the
-- lock's last holder committed (a single plain statement would read them before the wait).
DECLARE
    s_sid bigint;
    s_name text;
    s_length bigint;
    fresh boolean[] := '{{}}';
    added bigint;
BEGIN
    SELECT sid, name, length INTO s_sid, s_name, s_length
        FROM {schema}.sessions WHERE key = p_key FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO {schema}.sessions (key, name, epoch) VALUES (p_key, p_name, p_epoch)
            ON CONFLICT (key) DO NOTHING;
        SELECT sid, name, length INTO s_sid, s_name, s_length
            FROM {schema}.sessions WHERE key = p_key FOR UPDATE;
    END IF;
    IF s_name IS DISTINCT FROM p_name THEN
        RETURN NULL;
    END IF;
    -- whether it holds each id, looked up by the unique index on (sid, id_key): one query of
    -- them all may be planned as a scan of the session's messages (PL/pgSQL's generic plan)
    FOR i IN 1 .. coalesce(array_length(p_ids, 1), 0) LOOP
        fresh[i] := NOT EXISTS (SELECT 1 FROM {schema}.messages m
            WHERE m.sid = s_sid AND m.id_key = p_id_keys[i] AND m.msg_id = p_ids[i]);
    END LOOP;
    INSERT INTO {schema}.messages (sid, position, id_key, msg_id, body)
        SELECT s_sid, s_length + row_number() OVER (ORDER BY v.ord) - 1, v.id_key, v.msg_id,
            v.body
        FROM unnest(p_id_keys, p_ids, p_bodies, fresh)
            WITH ORDINALITY AS v(id_key, msg_id, body, fresh, ord)
        WHERE v.fresh;
    GET DIAGNOSTICS added = ROW_COUNT;
    IF added > 0 THEN
        UPDATE {schema}.sessions SET length = s_length + added, updated_at = now()
            WHERE sid = s_sid;
    END IF;
    RETURN s_length + added;
END
$$"""

_APPEND_ONE_FUNCTION = """CREATE OR REPLACE FUNCTION {schema}.append_message(
    p_key bytea, p_name text, p_epoch text, p_id_key bytea, p_id text, p_body text)
RETURNS bigint LANGUAGE plpgsql AS $$
-- append_messages for one message, without its arrays, loop, unnest and window (the write of
-- every turn): lock the session row (creating it if there is none), return its length if it
-- holds the id, else insert the message at its length and grow it; NULL (nothing written) if
-- another session id has the same key.
DECLARE
    s_sid bigint;
    s_name text;
    s_length bigint;
BEGIN
    SELECT sid, name, length INTO s_sid, s_name, s_length
        FROM {schema}.sessions WHERE key = p_key FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO {schema}.sessions (key, name, epoch) VALUES (p_key, p_name, p_epoch)
            ON CONFLICT (key) DO NOTHING;
        SELECT sid, name, length INTO s_sid, s_name, s_length
            FROM {schema}.sessions WHERE key = p_key FOR UPDATE;
    END IF;
    IF s_name IS DISTINCT FROM p_name THEN
        RETURN NULL;
    END IF;
    -- read after the lock (its own snapshot): includes what the lock's last holder committed
    IF EXISTS (SELECT 1 FROM {schema}.messages m
            WHERE m.sid = s_sid AND m.id_key = p_id_key AND m.msg_id = p_id) THEN
        RETURN s_length;
    END IF;
    INSERT INTO {schema}.messages (sid, position, id_key, msg_id, body)
        VALUES (s_sid, s_length, p_id_key, p_id, p_body);
    UPDATE {schema}.sessions SET length = s_length + 1, updated_at = now() WHERE sid = s_sid;
    RETURN s_length + 1;
END
$$"""

_APPEND_PROBED_FUNCTIONS = (
    """CREATE OR REPLACE FUNCTION {schema}.append_message_probed(
    p_key bytea, p_name text, p_epoch text, p_id_key bytea, p_id text, p_body text,
    OUT o_length bigint, OUT o_epoch text, OUT o_version bigint)
LANGUAGE plpgsql AS $$
-- append_message, and the session's epoch and version as of right after it (for a memory with
-- a dispatcher: the append tells it whether a worker committed, in the same round trip). The
-- read is its own statement, so its own snapshot, taken after append_message locked the row:
-- it includes what the lock's last holder committed, and no commit can move them before this
-- statement's transaction ends. All NULL (nothing written) if another session id has the key.
BEGIN
    o_length := {schema}.append_message(p_key, p_name, p_epoch, p_id_key, p_id, p_body);
    IF o_length IS NOT NULL THEN
        SELECT s.epoch, s.version INTO o_epoch, o_version
            FROM {schema}.sessions s WHERE s.key = p_key;
    END IF;
END
$$""",
    """CREATE OR REPLACE FUNCTION {schema}.append_messages_probed(
    p_key bytea, p_name text, p_epoch text, p_id_keys bytea[], p_ids text[], p_bodies text[],
    OUT o_length bigint, OUT o_epoch text, OUT o_version bigint)
LANGUAGE plpgsql AS $$
-- append_messages, and the epoch and version after it (see append_message_probed)
BEGIN
    o_length := {schema}.append_messages(p_key, p_name, p_epoch, p_id_keys, p_ids, p_bodies);
    IF o_length IS NOT NULL THEN
        SELECT s.epoch, s.version INTO o_epoch, o_version
            FROM {schema}.sessions s WHERE s.key = p_key;
    END IF;
END
$$""",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: initial schema
        """CREATE TABLE {schema}.sessions (
            sid bigserial PRIMARY KEY,
            key bytea NOT NULL UNIQUE,
            name text NOT NULL,
            epoch text NOT NULL,
            version bigint NOT NULL DEFAULT 0,
            length bigint NOT NULL DEFAULT 0,
            watermark bigint NOT NULL DEFAULT 0,
            system text,
            summary text,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE {schema}.messages (
            sid bigint NOT NULL REFERENCES {schema}.sessions (sid) ON DELETE CASCADE,
            position bigint NOT NULL,
            id_key bytea NOT NULL,
            msg_id text NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (sid, position),
            UNIQUE (sid, id_key))""",
        """CREATE TABLE {schema}.summaries (
            seq bigserial PRIMARY KEY,
            sid bigint NOT NULL REFERENCES {schema}.sessions (sid) ON DELETE CASCADE,
            summary_id text NOT NULL,
            watermark bigint NOT NULL,
            body text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now())""",
        "CREATE INDEX summaries_by_session ON {schema}.summaries (sid, seq)",
        """CREATE TABLE {schema}.leases (
            key bytea PRIMARY KEY,
            owner text NOT NULL,
            expires_at timestamptz NOT NULL)""",
    ),
    (  # 2: recall searches each message's terms, which each search brings up to date first
        "ALTER TABLE {schema}.messages ADD COLUMN terms tsvector",
        "CREATE INDEX messages_terms ON {schema}.messages USING gin (terms) "
        "WHERE terms IS NOT NULL",  # appends (terms NULL until a search) skip it
        "ALTER TABLE {schema}.sessions ADD COLUMN indexed bigint NOT NULL DEFAULT 0",
    ),
    (  # 3: the spend ledger of spend limits (one row per summarizer call, pruned by window)
        """CREATE TABLE {schema}.spend (
            key bytea NOT NULL,
            name text NOT NULL,
            at double precision NOT NULL,
            tokens bigint NOT NULL,
            cost_usd double precision NOT NULL)""",
        "CREATE INDEX spend_by_key ON {schema}.spend (key, at)",
    ),
    (  # 4: the holds of summarizer calls in flight, so that racing calls never pass a budget
        """CREATE TABLE {schema}.spend_holds (
            key bytea NOT NULL,
            name text NOT NULL,
            hold_id text NOT NULL,
            expires_at double precision NOT NULL,
            tokens bigint NOT NULL,
            cost_usd double precision NOT NULL,
            PRIMARY KEY (key, name, hold_id))""",
        # a settled call's entry keeps its hold id, so a settle retried is charged once
        # (NULL for a plain record_spend entry: NULLs never conflict)
        "ALTER TABLE {schema}.spend ADD COLUMN hold_id text",
        "CREATE UNIQUE INDEX spend_by_hold ON {schema}.spend (key, name, hold_id)",
    ),
    (  # 5: branches (Store.rewrite): the abandoned suffixes, and which summaries they abandoned
        """CREATE TABLE {schema}.branches (
            seq bigserial PRIMARY KEY,
            sid bigint NOT NULL REFERENCES {schema}.sessions (sid) ON DELETE CASCADE,
            id_key bytea NOT NULL,
            branch_id text NOT NULL,
            at bigint NOT NULL,
            length bigint NOT NULL,
            created_at double precision NOT NULL,
            summary_id text,
            watermark bigint NOT NULL,
            UNIQUE (sid, id_key))""",
        """CREATE TABLE {schema}.branch_messages (
            seq bigint NOT NULL REFERENCES {schema}.branches (seq) ON DELETE CASCADE,
            position bigint NOT NULL,
            msg_id text NOT NULL,
            body text NOT NULL,
            PRIMARY KEY (seq, position))""",
        "ALTER TABLE {schema}.summaries ADD COLUMN abandoned_by text",
        # a rewrite marks and picks among the summaries still valid: O(those), not O(log)
        "CREATE INDEX summaries_valid ON {schema}.summaries (sid, watermark) "
        "WHERE abandoned_by IS NULL",
    ),
    (  # 6: an append in one statement, so one round trip (autocommit: no BEGIN, no COMMIT)
        _APPEND_FUNCTION,
    ),
    (  # 7: the bounded summary log: entries past the latest keep_summaries become stubs
        "ALTER TABLE {schema}.summaries ADD COLUMN whole boolean NOT NULL DEFAULT true",
        # a commit finds the entries to stub, a branch the latest whole one: O(kept), not O(log)
        "CREATE INDEX summaries_whole ON {schema}.summaries (sid, seq) WHERE whole",
    ),
    (  # 8: sessions list pages through this index (code point order), not a sort of every row
        'CREATE INDEX sessions_by_name ON {schema}.sessions (name COLLATE "C")',
    ),
    (  # 9: a one-message append (every turn's) without append_messages' arrays and loop
        _APPEND_ONE_FUNCTION,
    ),
    (  # 10: an append that also returns the epoch and version (a fleet's turn: one round trip)
        *_APPEND_PROBED_FUNCTIONS,
    ),
)
"""Schema migrations, applied in order; migration ``i`` brings the version to ``i + 1``."""

COMPATIBLE: tuple[int, ...] = (
    1,  # 1: the initial schema
    2,  # 2: recall's terms: older code would clear a session without resetting ``indexed``
    2,  # 3: the spend ledger's table: code at schema 2 never reads or writes it
    2,  # 4: the holds' table: older code never reads it (it checks budgets without holds)
    5,  # 5: branches: older code would roll back to an abandoned summary and its clear would
    #      leave the session's branches behind
    5,  # 6: the append function: older code never calls it (its appends write the same rows)
    7,  # 7: stubs in the summary log: older code would make a stub (no text) current
    7,  # 8: an index only: code at schema 7 reads and writes the same rows
    7,  # 9: a function: older code never calls it (its appends write the same rows)
    7,  # 10: two functions: older code never calls them (they write what the appends write)
)
"""For each migration, the oldest schema version whose code may still use the data once it
has run (see :mod:`summem.stores.common.schema_compat`). The version table records the marker in
``compatible``, with the version it was computed for in ``compatible_for``."""
check_declarations(COMPATIBLE, len(MIGRATIONS))


def _render(template: str, schema: str) -> bytes:
    from psycopg import sql  # only when a store is built: summem imports without psycopg

    return sql.SQL(template).format(schema=sql.Identifier(schema)).as_bytes(None)


_META = "sid, epoch, version, length, watermark, system, summary"


class SQL:
    """Every statement the store runs, rendered for one schema (placeholders are ``%s``)."""

    _TEMPLATES: ClassVar[dict[str, str]] = {
        # -- migrations
        "ADVISORY_LOCK": "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
        "CREATE_SCHEMA": "CREATE SCHEMA IF NOT EXISTS {schema}",
        "CREATE_VERSION": (
            "CREATE TABLE IF NOT EXISTS {schema}.summem_schema_version ("
            "one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL)"
        ),
        "VERSION_TABLE": "SELECT to_regclass(quote_ident(%s) || '.summem_schema_version')",
        # the marker's columns may be missing (a table from before them): read through jsonb
        "VERSION": (
            "SELECT version, (to_jsonb(v) ->> 'compatible')::integer, "
            "(to_jsonb(v) ->> 'compatible_for')::integer FROM {schema}.summem_schema_version v"
        ),
        "ADD_MARKER": (
            "ALTER TABLE {schema}.summem_schema_version "
            "ADD COLUMN IF NOT EXISTS compatible integer, "
            "ADD COLUMN IF NOT EXISTS compatible_for integer"
        ),
        "SET_VERSION": (
            "INSERT INTO {schema}.summem_schema_version (one, version, compatible, "
            "compatible_for) VALUES (true, %s, %s, %s) ON CONFLICT (one) DO UPDATE SET "
            "version = EXCLUDED.version, compatible = EXCLUDED.compatible, "
            "compatible_for = EXCLUDED.compatible_for"
        ),
        # -- sessions
        "META": f"SELECT {_META} FROM {{schema}}.sessions WHERE key = %s AND name = %s",
        "LOCK_META": (
            f"SELECT {_META} FROM {{schema}}.sessions WHERE key = %s AND name = %s FOR UPDATE"
        ),
        "EXISTS": "SELECT sid FROM {schema}.sessions WHERE key = %s AND name = %s",
        "PROBE": (
            "SELECT epoch, version, length FROM {schema}.sessions WHERE key = %s AND name = %s"
        ),
        "CREATE": (
            "INSERT INTO {schema}.sessions (key, name, epoch) VALUES (%s, %s, %s) "
            "ON CONFLICT (key) DO NOTHING"
        ),
        "CREATE_WHOLE": (
            "INSERT INTO {schema}.sessions (key, name, epoch, length, watermark, system, "
            "summary) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO NOTHING "
            "RETURNING sid"
        ),
        "NAMES": "SELECT name FROM {schema}.sessions",
        # the listing, in code point order (the "C" collation compares UTF-8 bytes), read
        # through the index on name COLLATE "C": a page reads its rows only
        "INFOS": (
            "SELECT name, length, watermark, version, summary, "
            "(SELECT count(*) FROM {schema}.summaries s WHERE s.sid = x.sid), "
            "extract(epoch FROM updated_at)::float8 "
            'FROM {schema}.sessions x WHERE name COLLATE "C" > %s '
            'ORDER BY name COLLATE "C" LIMIT %s'
        ),
        "SET_SYSTEM": "UPDATE {schema}.sessions SET system = %s, updated_at = now() WHERE sid = %s",
        "SET_SUMMARY": (
            "UPDATE {schema}.sessions SET summary = %s, watermark = %s, version = version + 1, "
            "updated_at = now() WHERE sid = %s"
        ),
        "CLEAR": (
            "UPDATE {schema}.sessions SET system = NULL, summary = NULL, watermark = 0, "
            "length = 0, indexed = 0, version = version + 1, updated_at = now() WHERE sid = %s"
        ),
        "DELETE_SESSION": (  # messages and summaries go with it (ON DELETE CASCADE)
            "DELETE FROM {schema}.sessions WHERE key = %s AND name = %s RETURNING sid"
        ),
        # -- messages
        "RANGE": (
            "SELECT position, body FROM {schema}.messages "
            "WHERE sid = %s AND position >= %s AND position < %s ORDER BY position"
        ),
        "TAIL": (  # history[watermark:length], in the same snapshot as META
            "SELECT m.position, m.body FROM {schema}.messages m "
            "JOIN {schema}.sessions s ON m.sid = s.sid WHERE s.key = %s AND s.name = %s "
            "AND m.position >= s.watermark AND m.position < s.length ORDER BY m.position"
        ),
        "INSERT_MESSAGES": (
            "INSERT INTO {schema}.messages (sid, position, id_key, msg_id, body) "
            "SELECT %s, * FROM unnest(%b::bigint[], %b::bytea[], %b::text[], %b::text[])"
        ),
        # one statement (binary parameters: bodies go as they are, no array text to escape)
        "APPEND_ONE": (  # scalar parameters: psycopg dumps arrays at five times the cost
            "SELECT {schema}.append_message(%b, %b, %b, %b, %b, %b)"
        ),
        "APPEND_MANY": "SELECT {schema}.append_messages(%b, %b, %b, %b, %b, %b)",
        # the same, returning (length, epoch, version) as of right after the append
        "APPEND_ONE_PROBED": "SELECT * FROM {schema}.append_message_probed(%b, %b, %b, %b, %b, %b)",
        "APPEND_MANY_PROBED": (
            "SELECT * FROM {schema}.append_messages_probed(%b, %b, %b, %b, %b, %b)"
        ),
        "SEARCH": (  # this session's messages below the stop, best first
            "SELECT m.position, m.body, ts_rank(m.terms, q) AS score "
            "FROM {schema}.messages m JOIN {schema}.sessions s ON m.sid = s.sid, "
            "CAST(%s AS tsquery) q WHERE s.key = %s AND s.name = %s AND m.terms @@ q "
            "AND m.position < LEAST(%s, s.length) ORDER BY score DESC, m.position DESC LIMIT %s"
        ),
        "POSITION_OF": (
            "SELECT m.position FROM {schema}.messages m JOIN {schema}.sessions s "
            "ON m.sid = s.sid WHERE s.key = %s AND s.name = %s AND m.id_key = %s "
            "AND m.msg_id = %s"
        ),
        "LOCK_INDEX_STATE": (  # a search's catch-up: serialised with appends and clears
            "SELECT sid, length, indexed FROM {schema}.sessions WHERE key = %s AND name = %s "
            "FOR UPDATE"
        ),
        "INDEX_STATE": (
            "SELECT length, indexed FROM {schema}.sessions WHERE key = %s AND name = %s"
        ),
        "SET_INDEXED": "UPDATE {schema}.sessions SET indexed = %s WHERE sid = %s",
        "SET_TERMS": (
            "UPDATE {schema}.messages m SET terms = v.terms FROM unnest(%s::bigint[], "
            "%s::bigint[], %s::tsvector[]) AS v(sid, position, terms) "
            "WHERE m.sid = v.sid AND m.position = v.position"
        ),
        "DELETE_MESSAGES": "DELETE FROM {schema}.messages WHERE sid = %s",
        # -- the summary log
        "LOG_SUMMARY": (
            "INSERT INTO {schema}.summaries (sid, summary_id, watermark, body) "
            "VALUES (%s, %s, %s, %s)"
        ),
        "SUMMARIES": (
            "SELECT su.body FROM {schema}.summaries su JOIN {schema}.sessions s "
            "ON su.sid = s.sid WHERE s.key = %s AND s.name = %s ORDER BY su.seq"
        ),
        # the whole entries past the latest %s (the offset), to be made stubs
        "TO_STUB": (
            "SELECT su.seq, su.body FROM {schema}.summaries su JOIN {schema}.sessions s "
            "ON su.sid = s.sid WHERE s.key = %s AND s.name = %s AND su.whole "
            "ORDER BY su.seq DESC OFFSET %s"
        ),
        "SET_STUBS": (
            "UPDATE {schema}.summaries su SET body = v.body, whole = false "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(seq, body) WHERE su.seq = v.seq"
        ),
        "FIND_SUMMARY": (
            "SELECT su.watermark, su.body, su.abandoned_by, su.whole FROM {schema}.summaries su "
            "JOIN {schema}.sessions s ON su.sid = s.sid WHERE s.key = %s AND s.name = %s "
            "AND su.summary_id = %s ORDER BY su.seq DESC LIMIT 1"
        ),
        "DELETE_SUMMARIES": "DELETE FROM {schema}.summaries WHERE sid = %s",
        # -- branches (Store.rewrite); a branch's messages go with it (ON DELETE CASCADE)
        "HAS_BRANCH": (
            "SELECT 1 FROM {schema}.branches b JOIN {schema}.sessions s ON b.sid = s.sid "
            "WHERE s.key = %s AND s.name = %s AND b.id_key = %s AND b.branch_id = %s"
        ),
        "LATEST_VALID_SUMMARY": (
            "SELECT su.watermark, su.body FROM {schema}.summaries su JOIN {schema}.sessions s "
            "ON su.sid = s.sid WHERE s.key = %s AND s.name = %s AND su.abandoned_by IS NULL "
            "AND su.whole AND su.watermark <= %s ORDER BY su.seq DESC LIMIT 1"
        ),
        "KEPT_IDS": (  # the new messages' ids already in history[:keep]
            "SELECT m.msg_id FROM {schema}.messages m JOIN {schema}.sessions s ON m.sid = s.sid "
            "WHERE s.key = %s AND s.name = %s AND m.id_key = ANY(%s::bytea[]) "
            "AND m.position < %s"
        ),
        "BRANCH_OFF": (  # record the branch and move history[keep:] into it
            "WITH b AS (INSERT INTO {schema}.branches (sid, id_key, branch_id, at, length, "
            "created_at, summary_id, watermark) VALUES (%s, %s, %s, %s, %s, "
            "extract(epoch FROM clock_timestamp()), %s, %s) RETURNING seq) "
            "INSERT INTO {schema}.branch_messages (seq, position, msg_id, body) "
            "SELECT b.seq, m.position, m.msg_id, m.body FROM b, {schema}.messages m "
            "WHERE m.sid = %s AND m.position >= %s"
        ),
        "DELETE_MESSAGES_FROM": ("DELETE FROM {schema}.messages WHERE sid = %s AND position >= %s"),
        "ABANDON_SUMMARIES": (
            "UPDATE {schema}.summaries SET abandoned_by = %s "
            "WHERE sid = %s AND watermark > %s AND abandoned_by IS NULL"
        ),
        "SET_REWRITTEN": (
            "UPDATE {schema}.sessions SET length = %s, summary = %s, watermark = %s, "
            "indexed = LEAST(indexed, %s), version = version + 1, updated_at = now() "
            "WHERE sid = %s"
        ),
        "BRANCHES": (
            "SELECT b.branch_id, b.at, b.length, b.created_at, b.summary_id, b.watermark "
            "FROM {schema}.branches b JOIN {schema}.sessions s ON b.sid = s.sid "
            "WHERE s.key = %s AND s.name = %s ORDER BY b.seq"
        ),
        "FIND_BRANCH": (
            "SELECT b.at, b.length FROM {schema}.branches b JOIN {schema}.sessions s "
            "ON b.sid = s.sid WHERE s.key = %s AND s.name = %s AND b.id_key = %s "
            "AND b.branch_id = %s"
        ),
        "BRANCH_MESSAGES": (
            "SELECT bm.position, bm.body FROM {schema}.branch_messages bm "
            "JOIN {schema}.branches b ON bm.seq = b.seq JOIN {schema}.sessions s "
            "ON b.sid = s.sid WHERE s.key = %s AND s.name = %s AND b.id_key = %s "
            "AND b.branch_id = %s ORDER BY bm.position"
        ),
        "DELETE_BRANCHES": "DELETE FROM {schema}.branches WHERE sid = %s",
        # -- leases (the server's clock decides expiry: workers' clocks may disagree)
        "ACQUIRE_LEASE": (
            "INSERT INTO {schema}.leases AS l (key, owner, expires_at) "
            "VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s)) "
            "ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, "
            "expires_at = EXCLUDED.expires_at "
            "WHERE l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp() RETURNING 1"
        ),
        "RELEASE_LEASE": "DELETE FROM {schema}.leases WHERE key = %s AND owner = %s",
        "DELETE_LEASE": "DELETE FROM {schema}.leases WHERE key = %s",
        # -- the spend ledger (times are the spend limit's clock)
        "RECORD_SPEND": (
            "INSERT INTO {schema}.spend (key, name, at, tokens, cost_usd) "
            "VALUES (%s, %s, %s, %s, %s)"
        ),
        "SETTLE_SPEND": (
            "INSERT INTO {schema}.spend (key, name, at, tokens, cost_usd, hold_id) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
        ),
        "PRUNE_SPEND": "DELETE FROM {schema}.spend WHERE key = %s AND name = %s AND at <= %s",
        "SPENT_SINCE": (
            "SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost_usd), 0) FROM {schema}.spend "
            "WHERE key = %s AND name = %s AND at > %s"
        ),
        # -- holds: a reservation takes the key's lock for its transaction, then checks
        "SPEND_LOCK": "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
        "EXPIRE_HOLDS": (
            "DELETE FROM {schema}.spend_holds WHERE key = %s AND name = %s AND expires_at <= %s"
        ),
        "SPENT_AND_HELD": (  # one statement, one snapshot: a settle is seen whole or not
            "SELECT s.t + h.t, s.c + h.c FROM (SELECT COALESCE(SUM(tokens), 0) AS t, "
            "COALESCE(SUM(cost_usd), 0) AS c FROM {schema}.spend "
            "WHERE key = %s AND name = %s AND at > %s) s, "
            "(SELECT COALESCE(SUM(tokens), 0) AS t, COALESCE(SUM(cost_usd), 0) AS c "
            "FROM {schema}.spend_holds WHERE key = %s AND name = %s AND hold_id <> %s) h"
        ),
        "PUT_HOLD": (
            "INSERT INTO {schema}.spend_holds AS h "
            "(key, name, hold_id, expires_at, tokens, cost_usd) VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (key, name, hold_id) DO UPDATE SET expires_at = EXCLUDED.expires_at, "
            "tokens = EXCLUDED.tokens, cost_usd = EXCLUDED.cost_usd"
        ),
        "DROP_HOLD": (
            "DELETE FROM {schema}.spend_holds WHERE key = %s AND name = %s AND hold_id = %s"
        ),
    }

    ADVISORY_LOCK: bytes
    CREATE_SCHEMA: bytes
    CREATE_VERSION: bytes
    VERSION_TABLE: bytes
    VERSION: bytes
    ADD_MARKER: bytes
    SET_VERSION: bytes
    META: bytes
    LOCK_META: bytes
    EXISTS: bytes
    PROBE: bytes
    CREATE: bytes
    CREATE_WHOLE: bytes
    NAMES: bytes
    INFOS: bytes
    SET_SYSTEM: bytes
    SET_SUMMARY: bytes
    CLEAR: bytes
    DELETE_SESSION: bytes
    RANGE: bytes
    TAIL: bytes
    INSERT_MESSAGES: bytes
    APPEND_ONE: bytes
    APPEND_MANY: bytes
    APPEND_ONE_PROBED: bytes
    APPEND_MANY_PROBED: bytes
    SEARCH: bytes
    POSITION_OF: bytes
    LOCK_INDEX_STATE: bytes
    INDEX_STATE: bytes
    SET_INDEXED: bytes
    SET_TERMS: bytes
    DELETE_MESSAGES: bytes
    LOG_SUMMARY: bytes
    TO_STUB: bytes
    SET_STUBS: bytes
    SUMMARIES: bytes
    FIND_SUMMARY: bytes
    DELETE_SUMMARIES: bytes
    HAS_BRANCH: bytes
    LATEST_VALID_SUMMARY: bytes
    KEPT_IDS: bytes
    BRANCH_OFF: bytes
    DELETE_MESSAGES_FROM: bytes
    ABANDON_SUMMARIES: bytes
    SET_REWRITTEN: bytes
    BRANCHES: bytes
    FIND_BRANCH: bytes
    BRANCH_MESSAGES: bytes
    DELETE_BRANCHES: bytes
    ACQUIRE_LEASE: bytes
    RELEASE_LEASE: bytes
    DELETE_LEASE: bytes
    RECORD_SPEND: bytes
    SETTLE_SPEND: bytes
    PRUNE_SPEND: bytes
    SPENT_SINCE: bytes
    SPEND_LOCK: bytes
    EXPIRE_HOLDS: bytes
    SPENT_AND_HELD: bytes
    PUT_HOLD: bytes
    DROP_HOLD: bytes

    def __init__(self, schema: str) -> None:
        self.schema = check_schema_name(schema)
        for attr, template in self._TEMPLATES.items():
            setattr(self, attr, _render(template, schema))
        self.migrations: tuple[tuple[bytes, ...], ...] = tuple(
            tuple(_render(s, schema) for s in statements) for statements in MIGRATIONS
        )
