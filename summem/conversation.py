"""The rules of a conversation that every layer above shares: groups, tool calls, system messages.

A **group** is the unit that is never split: one message, or an assistant message with
``tool_calls`` together with every tool result answering it (parallel calls, results in any
order; anything between the call and its last result belongs to the group too). A message
glued to the next (``meta[GLUED_TO_NEXT]``, a Responses reasoning item) starts the group of the
message after it. A call whose
results have not all arrived is **pending**: no cut may fall at or after it.

There is one system message at a time (``system`` and ``developer`` alike): adding one with the
same content keeps the current one, one with different content replaces it. A batch of new
messages is checked against a session with :func:`check_batch`: the system rules applied in
order, every tool result answering a pending call, no call id pending twice, no assistant
message with nothing to send (see :func:`check_assistant_payload`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from summem.errors import MessageValidationError
from summem.messages import GLUED_TO_NEXT, Message

__all__ = [
    "Batch",
    "Boundaries",
    "apply_system",
    "boundaries",
    "check_assistant_payload",
    "check_batch",
    "one_new",
    "split_groups",
    "track_calls",
]


@dataclass(frozen=True)
class Boundaries:
    """Where groups start in a sequence of messages.

    Attributes:
        starts: index of the first message of each group, ascending; ``starts[0] == 0`` when
            the sequence is non-empty.
        pending_from: index of the earliest unanswered tool call's group, or ``None``.
        orphans: indices of tool results answering no earlier call in the sequence.
    """

    starts: tuple[int, ...]
    pending_from: int | None
    orphans: tuple[int, ...]


def boundaries(messages: Sequence[Message]) -> Boundaries:
    """Find the group starts of ``messages`` in one pass."""
    starts: list[int] = []
    orphans: list[int] = []
    open_calls: set[str] = set()
    group_start = 0
    glued = False
    for i, msg in enumerate(messages):
        if not open_calls and not glued:
            starts.append(i)
            group_start = i
        glued = msg.meta.get(GLUED_TO_NEXT) is True
        if msg.tool_calls:
            open_calls.update(msg.tool_call_ids)
        elif msg.role == "tool":
            call_id = msg.tool_call_id or ""
            if call_id in open_calls:
                open_calls.discard(call_id)
            else:
                orphans.append(i)
    return Boundaries(tuple(starts), group_start if open_calls else None, tuple(orphans))


def split_groups(messages: Sequence[Message]) -> list[list[Message]]:
    """``messages`` cut into groups, in order."""
    starts = boundaries(messages).starts
    ends = [*starts[1:], len(messages)]
    return [list(messages[s:e]) for s, e in zip(starts, ends, strict=True)]


def apply_system(current: Message | None, new: Message) -> Message:
    """The system message after adding ``new``: same content keeps ``current``, else ``new``."""
    if current is not None and current.same_content(new):
        return current
    return new


_REPLY_FIELDS = ("refusal", "audio", "function_call")
"""Extras that make an assistant reply without content or tool calls a real one."""


def check_assistant_payload(msg: Message, index: int | None) -> None:
    """Refuse an assistant message with no content, no tool calls and no other reply.

    ``{"role": "assistant"}`` (or ``content: None`` and no ``tool_calls``) is a valid dict,
    but providers reject it in a request (OpenAI: ``content`` is required unless
    ``tool_calls`` or ``function_call`` is given); once stored it would be in every later view,
    so adding it is refused. Replies that legitimately carry no content stay accepted: a
    ``refusal``, an ``audio`` reply, a legacy ``function_call``. An empty string is content.

    Raises:
        MessageValidationError: naming the message's index and ``content``.
    """
    if msg.role != "assistant" or msg.tool_calls or msg.content is not None:
        return
    extra = msg.model_extra or {}
    if any(extra.get(key) for key in _REPLY_FIELDS):
        return
    raise MessageValidationError(
        "an assistant message needs content or tool_calls (or a refusal, audio or "
        "function_call reply); providers reject one with none, and once stored it would be "
        "sent with every later request",
        index=index,
        field="content",
    )


class Batch(NamedTuple):
    """A validated batch, ready to store (a tuple: built on every turn, it must be cheap).

    Attributes:
        accepted: every input message as stored, in input order (system messages included).
        history: the messages to append (no system messages).
        sizes: their sizes in the budget's unit.
        system: the system message after the batch.
        system_changed: True when ``system`` must be written to the store.
    """

    accepted: list[Message]
    history: list[Message]
    sizes: list[int]
    system: Message | None
    system_changed: bool


_new_batch = tuple.__new__  # Batch(...) without NamedTuple's Python-level __new__


def one_new(msg: Message, size: int, system: Message | None) -> Batch:
    """The batch of one new message that leaves the system message and pending calls alone.

    A user message, or an assistant message with content and no calls, of ``size``.
    """
    return _new_batch(Batch, ([msg], [msg], [size], system, False))


def check_batch(
    msgs: Sequence[Message],
    system: Message | None,
    pending: dict[str, None],
    known: Mapping[str, Message],
    *,
    size: Callable[[Message], int],
    single: bool,
) -> Batch:
    """Apply the system rules and check tool pairing for a parsed batch, in order.

    ``pending`` holds the session's unanswered tool call ids (it is updated in place);
    ``known`` the messages in the view, by id. Adding is idempotent by id: a message whose id
    is in ``known`` (or earlier in the batch) is not stored again, and ``accepted`` holds the
    stored one in its place (a retry after an error of unknown outcome stores nothing twice).
    ``size`` measures each message to append, in the budget's unit.

    Raises:
        MessageValidationError: a summary message, a tool result answering no pending call
            (naming its ``tool_call_id``), a tool call id already pending, an id already
            stored for a message with different content, or an assistant message with nothing
            to send (:func:`check_assistant_payload`).
    """
    if len(msgs) == 1:
        msg = msgs[0]
        # The common turn, settled without the walk (which would do the same): one new user
        # message, or assistant message with content and no tool calls, not a summary, its id
        # not stored. It changes neither the system message nor the pending calls, and cannot
        # fail (an assistant message without content goes to the walk's payload check).
        if (
            (msg.role == "user" or (msg.role == "assistant" and msg.content is not None))
            and not msg.tool_calls
            and not msg.is_summary
            and msg.id not in known
        ):
            return one_new(msg, size(msg), system)
    return _check_each(msgs, system, pending, known, size=size, single=single)


def _check_each(
    msgs: Sequence[Message],
    system: Message | None,
    pending: dict[str, None],
    known: Mapping[str, Message],
    *,
    size: Callable[[Message], int],
    single: bool,
) -> Batch:
    """:func:`check_batch`, walking the batch message by message."""
    current = system
    seen: dict[str, Message] = {}
    accepted: list[Message] = []
    history: list[Message] = []
    for i, msg in enumerate(msgs):
        index = None if single else i
        if msg.is_summary:
            raise MessageValidationError(
                "a summary written by summem cannot be added back; add conversation "
                "messages (history()), not the view",
                index=index,
            )
        if msg.is_system:
            system = apply_system(system, msg)
            accepted.append(system)
            continue
        mid = msg.id
        same = known.get(mid) or seen.get(mid)
        if same is not None:
            if not same.same_content(msg):
                raise MessageValidationError(
                    f"id {msg.id!r} is already stored for a different message; "
                    "leave the id out to store this one as new",
                    index=index,
                    field="id",
                )
            accepted.append(same)  # already stored (or earlier in this batch): a no-op
            continue
        if msg.role == "assistant":
            check_assistant_payload(msg, index)
        if msg.role == "tool":
            call_id = msg.tool_call_id or ""
            if call_id not in pending:
                raise MessageValidationError(
                    f"tool result answers no pending tool call in this session: "
                    f"tool_call_id {call_id!r} is unknown or already answered",
                    index=index,
                    field="tool_call_id",
                )
            del pending[call_id]
        if msg.tool_calls:
            for call_id in msg.tool_call_ids:
                if call_id in pending:
                    raise MessageValidationError(
                        f"tool call id {call_id!r} is already pending in this session",
                        index=index,
                        field="tool_calls",
                    )
                pending[call_id] = None
        seen[mid] = msg
        history.append(msg)
        accepted.append(msg)
    changed = False
    if system is not current and system is not None:  # the batch held a system message
        if current is not None and system.same_content(current):
            system = current  # same content as stored: keep the stored message (and its id)
            accepted = [current if m.is_system else m for m in accepted]
        else:
            changed = True
    return Batch(accepted, history, [size(m) for m in history], system, changed)


def track_calls(pending: dict[str, None], msg: Message) -> None:
    """Update ``pending`` (unanswered tool call ids) with one message added after them."""
    if msg.role == "tool":
        pending.pop(msg.tool_call_id or "", None)
    for call_id in msg.tool_call_ids:
        pending[call_id] = None
