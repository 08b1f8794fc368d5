"""Branches in PostgreSQL: ``rewrite`` and reading what it abandoned (issue #28).

A rewrite is one transaction of two round trips. The first locks the session's row
(``SELECT ... FOR UPDATE``, as every write does) and reads, after the lock, whether the branch
is already recorded (a retry), the summary to roll back to, and which new ids
``history[:keep]`` already holds. The second goes with the COMMIT: it records the branch and
moves ``history[keep:]`` into ``branch_messages`` (one ``INSERT ... SELECT`` over the position
range), deletes those rows, marks the logged summaries past the fork, inserts the new messages
at ``keep`` and updates the session row. Every statement is an index range: O(abandoned +
new), never O(history).
"""

from __future__ import annotations

from summem.messages import Message
from summem.stores.base import Branch, encode_message, validate_session_id
from summem.stores.common.branching import check_keep, check_rewrite, no_branch_error
from summem.stores.common.operations import Rewrite
from summem.stores.common.rows import check_expected, decode_opt, decode_positions
from summem.stores.postgres.schema import name_key
from summem.stores.postgres.transaction import (
    PgBase,
    Query,
    Steps,
    Transaction,
    batch,
    is_bulk,
    new_rows,
    parse_meta,
)

__all__ = ["PgBranching"]


class PgBranching(PgBase):
    """The branch operations of the PostgreSQL stores."""

    def _op_rewrite(self, session_id: str, rewrite: Rewrite) -> Transaction[int]:
        name = validate_session_id(session_id)
        pending = [(m.id, encode_message(m)) for m in check_rewrite(name, rewrite)]
        keep, branch_id = rewrite.keep, rewrite.branch_id
        q, key, branch_key = self._sql, name_key(name), name_key(branch_id)
        keys = [name_key(mid) for mid, _ in pending]

        def steps() -> Steps[int]:
            meta_rows, retry_rows, valid_rows, kept_rows = yield batch(
                Query(q.LOCK_META, (key, name)),
                Query(q.HAS_BRANCH, (key, name, branch_key, branch_id)),
                Query(q.LATEST_VALID_SUMMARY, (key, name, keep)),
                Query(q.KEPT_IDS, (key, name, keys, keep)),
            )
            found = parse_meta(name, meta_rows)
            if found is not None and retry_rows:
                return found.version  # a retry: the branch is already recorded
            meta = check_expected(name, found, rewrite.expected_version, rewrite.expected_epoch)
            check_keep(name, rewrite, meta.length)
            current = decode_opt(meta.summary, name, "summary")
            summary, watermark = meta.summary, meta.watermark
            if watermark > keep:
                watermark, summary = valid_rows[0] if valid_rows else (0, None)
            # a message in history[:keep], or repeated in the batch, is skipped
            held = {row[0] for row in kept_rows}
            positions, id_keys, ids, bodies = new_rows(pending, keys, held, keep)
            sid, at = meta.sid, (branch_key, branch_id, keep, meta.length - keep)
            summary_id = None if current is None else current.id
            yield batch(
                Query(q.BRANCH_OFF, (sid, *at, summary_id, meta.watermark, sid, keep)),
                Query(q.DELETE_MESSAGES_FROM, (sid, keep)),
                Query(q.ABANDON_SUMMARIES, (branch_id, sid, keep)),
                Query(q.INSERT_MESSAGES, (sid, positions, id_keys, ids, bodies)),
                Query(q.SET_REWRITTEN, (keep + len(ids), summary, watermark, keep, sid)),
                final=True,
            )
            return meta.version + 1

        bulk = is_bulk([body for _, body in pending])
        return Transaction(name, "rewrite", steps, bulk=bulk)

    def _op_branches(self, session_id: str) -> Transaction[list[Branch]]:
        name = validate_session_id(session_id)

        def steps() -> Steps[list[Branch]]:
            (rows,) = yield batch(Query(self._sql.BRANCHES, (name_key(name), name)), final=True)
            return [
                Branch(branch_id, int(at), int(length), float(created), summary_id, int(wm))
                for branch_id, at, length, created, summary_id, wm in rows
            ]

        return Transaction(name, None, steps)

    def _op_branch_messages(self, session_id: str, branch_id: str) -> Transaction[list[Message]]:
        name = validate_session_id(session_id)
        q = self._sql
        params = (name_key(name), name, name_key(str(branch_id)), branch_id)

        def steps() -> Steps[list[Message]]:
            found, rows = yield batch(
                Query(q.FIND_BRANCH, params), Query(q.BRANCH_MESSAGES, params), final=True
            )
            if not found:
                raise no_branch_error(name, branch_id)
            at, length = found[0]
            return decode_positions(name, rows, at, at + length)

        return Transaction(name, None, steps, snapshot=True)
