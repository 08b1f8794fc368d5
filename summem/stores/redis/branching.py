"""Branches in Redis: ``rewrite`` and reading what it abandoned (issue #28).

A rewrite is one Lua script (``rewrite`` in :mod:`summem.stores.redis.scripts`) over the
session's keys, all in its hash slot: it checks the retry, the compare-and-set and ``keep``
before its first write, moves ``history[keep:]`` to the end of the session's ``bmsgs`` list
(``LRANGE`` + ``RPUSH`` + ``LTRIM``), records the branch in the ``branches`` hash, marks the
logged summaries past the fork in the ``abandoned`` hash, rolls the summary back if it must,
and appends the new messages: O(abandoned + new) plus the summary log, never O(history).
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from summem.errors import ConflictError, CorruptRecordError
from summem.messages import Message
from summem.stores.base import Branch, encode_message, validate_session_id
from summem.stores.common.branching import check_rewrite, no_branch_error
from summem.stores.common.operations import Rewrite
from summem.stores.redis.operations import RedisBase, ScriptCall, cas_result, text

__all__ = ["RedisBranching"]

C = TypeVar("C")


class RedisBranching(RedisBase[C]):
    """The branch operations of the Redis stores."""

    def _op_rewrite(self, session_id: str, rewrite: Rewrite) -> ScriptCall[int]:
        name = validate_session_id(session_id)
        batch = check_rewrite(name, rewrite)
        keep, expected = rewrite.keep, rewrite.expected_length
        args: list[str | int] = [
            rewrite.expected_epoch,
            rewrite.expected_version,
            keep,
            rewrite.branch_id,
            "" if expected is None else expected,
            len(batch),
            *(m.id for m in batch),
            *(encode_message(m) for m in batch),
        ]

        def parse(raw: Any) -> int:
            status = text(raw[0])
            if status == "length":
                raise ConflictError(
                    f"session {name!r} moved: the history is {raw[1]} long, expected {expected}"
                )
            if status == "keep":
                if keep < 0:
                    raise ConflictError(
                        f"session {name!r}: cannot keep {keep} messages (keep must be >= 0)"
                    )
                raise ConflictError(
                    f"session {name!r}: cannot keep {keep} messages, the history holds {raw[1]}"
                )
            return cas_result(name, raw, None)

        return ScriptCall(name, "rewrite", self._keys(name).session(), args, parse)

    def _op_branches(self, session_id: str) -> ScriptCall[list[Branch]]:
        name = validate_session_id(session_id)

        def parse(raw: Any) -> list[Branch]:
            found = [_branch(name, text(raw[i]), raw[i + 1]) for i in range(0, len(raw) - 1, 2)]
            return [branch for _, branch in sorted(found, key=lambda pair: pair[0])]

        return ScriptCall(name, "branches", [self._keys(name).branches], [], parse)

    def _op_branch_messages(self, session_id: str, branch_id: str) -> ScriptCall[list[Message]]:
        name = validate_session_id(session_id)
        k = self._keys(name)

        def parse(raw: Any) -> list[Message]:
            if raw is None:
                raise no_branch_error(name, branch_id)
            _, branch = _branch(name, branch_id, raw[0])
            if len(raw[1]) != branch.length:
                raise CorruptRecordError(
                    f"session {name!r}: the messages of branch {branch_id!r} are missing"
                )
            return self._decode_range(raw[1], name, branch.at)

        return ScriptCall(name, "branch_messages", [k.branches, k.bmsgs], [str(branch_id)], parse)


def _branch(name: str, branch_id: str, raw: Any) -> tuple[int, Branch]:
    """A branch record (``{"q", "at", "n", "t", "s", "w", "o"}``) and its order."""
    try:
        r = json.loads(raw)
        branch = Branch(
            id=branch_id,
            at=int(r["at"]),
            length=int(r["n"]),
            created_at=float(r["t"]),
            summary_id=r["s"] or None,
            watermark=int(r["w"]),
        )
        return int(r["q"]), branch
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        raise CorruptRecordError(f"session {name!r}: branch {branch_id!r} is invalid") from exc
