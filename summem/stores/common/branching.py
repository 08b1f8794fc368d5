"""The rules of ``Store.rewrite`` that every backend shares (checks, rollback choice, errors).

A rewrite forks a session at ``keep``: the history becomes ``history[:keep] + messages`` and the
abandoned suffix is kept as a :class:`~summem.stores.base.Branch`. Each backend does the write in
its own way (a lock, a transaction, a Lua script); what it checks first, which logged summary
becomes current when the fork falls inside the summary, and the text of its errors are written
once here, so the backends cannot drift.
"""

from __future__ import annotations

from summem._words import a
from summem.errors import ConflictError, StoreError
from summem.messages import Message
from summem.stores.common.operations import Rewrite

__all__ = [
    "abandoned_summary_error",
    "check_keep",
    "check_rewrite",
    "no_branch_error",
]


def check_rewrite(name: str, rewrite: Rewrite) -> list[Message]:
    """Check a rewrite's input before anything is read or written; return its messages.

    Raises:
        StoreError: naming the session and what is wrong (an empty or non-string branch id,
            a ``keep`` or expected version that is not an int, a message that is not a
            :class:`~summem.messages.Message`).
    """
    branch_id = rewrite.branch_id
    if not isinstance(branch_id, str) or not branch_id:
        raise StoreError(
            f"session {name!r}: branch_id must be a non-empty string, got {branch_id!r}"
        )
    for field in ("keep", "expected_version", "expected_length"):
        value = getattr(rewrite, field)
        if field == "expected_length" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise StoreError(f"session {name!r}: {field} must be an int, got {value!r}")
    if not isinstance(rewrite.expected_epoch, str):
        raise StoreError(
            f"session {name!r}: expected_epoch must be a string, got {rewrite.expected_epoch!r}"
        )
    try:
        batch = list(rewrite.messages)
    except Exception as exc:
        raise StoreError(
            f"session {name!r}: the messages to rewrite with cannot be read "
            f"({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc
    for i, message in enumerate(batch):
        if not isinstance(message, Message):
            raise StoreError(
                f"session {name!r}: messages[{i}] is {a(type(message).__name__)}, not a Message"
            )
    return batch


def check_keep(name: str, rewrite: Rewrite, length: int) -> None:
    """The history is ``expected_length`` long (when given), and ``0 <= keep <= length``.

    Checked with the compare-and-set on the version (see
    :func:`~summem.stores.common.rows.check_expected`).

    Raises:
        ConflictError: naming the session, ``keep`` and the history's length.
    """
    keep, expected = rewrite.keep, rewrite.expected_length
    if expected is not None and expected != length:
        raise ConflictError(
            f"session {name!r} moved: the history is {length} long, expected {expected}"
        )
    if keep < 0:
        raise ConflictError(f"session {name!r}: cannot keep {keep} messages (keep must be >= 0)")
    if keep > length:
        raise ConflictError(
            f"session {name!r}: cannot keep {keep} messages, the history holds {length}"
        )


def no_branch_error(name: str, branch_id: str) -> StoreError:
    """The error for a branch the session does not record."""
    return StoreError(f"session {name!r}: no branch {branch_id!r}")


def abandoned_summary_error(name: str, summary_id: str, branch_id: str) -> StoreError:
    """The error for a rollback to a summary a rewrite abandoned (it names the branch)."""
    return StoreError(
        f"session {name!r}: summary {summary_id!r} was abandoned by branch {branch_id!r} "
        "(it covers messages that are no longer in the history)"
    )
