"""What is already recorded: telling the new messages in a list from the ones resent.

Applications pass messages two ways. Some pass only the new messages each call; many (the
openai habit) keep their own list and pass the whole conversation every time, or echo back the
view ``messages()`` gave them, or append the reply they got (``response.choices[0].message``)
before the tool results. :func:`new_messages` finds the longest run at the start of the list
that repeats the end of the recorded conversation (the whole history, the view's tail, or just
the last reply) and keeps only what follows; summem's own summary and the system message in the
list are handled by the system rules and dropped.

Messages are compared by a fingerprint of what a provider sees (role, content, name, tool calls,
tool call id), never by identity alone. The fingerprints of the recorded conversation live in a
:class:`RecordedIndex` kept per memory: the tail (``history[k:]``) comes from the cached view;
``history[:k]`` is read once, only when a list could be a resend reaching back into it, and then
kept up to date as messages are appended, so a call costs a pass over the list it was given,
never a scan of the stored history.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from summem._message_checks import check_values
from summem._words import a
from summem.errors import HistoryMismatchError, MessageValidationError
from summem.messages import Message, sdk_message_dict

__all__ = ["Mode", "Recorded", "RecordedIndex", "fingerprint", "new_messages"]

Mode = Literal["auto", "new", "full"]
"""How a list passed to a wrapper (or ``Memory.record``) is read.

``"auto"``: a list that starts by repeating the end of the recorded conversation is a resend
(only what follows is new); anything else is all new. ``"new"``: every message is new.
``"full"``: the list must start with the recorded conversation (after the system message and
summem's summary); a list that does not raises :class:`~summem.errors.HistoryMismatchError`.
"""

_FP_KEY = "summem:fingerprint"


def fingerprint(message: Message | dict[str, Any]) -> Hashable:
    """What a provider sees of a message, as a hashable value.

    ``content: null`` and ``""`` count as the same (servers that reject ``null`` get ``""``),
    and fields summem does not send (provider extras such as ``refusal: null``) are ignored.
    Cached on :class:`~summem.messages.Message` objects (they are immutable).
    """
    if isinstance(message, Message):
        cached = message.token_cache.get(_FP_KEY)
        if cached is not None:
            return cached
        data: dict[str, Any] = {
            "role": message.role,
            "content": message.content,
            "name": message.name,
            "tool_calls": message.tool_calls,
            "tool_call_id": message.tool_call_id,
        }
    else:
        data = message
    content = data.get("content")
    if content is None or isinstance(content, str):
        text = content or ""
    else:
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    calls = tuple(
        (
            str(c.get("id")),
            str((c.get("function") or {}).get("name")),
            str((c.get("function") or {}).get("arguments")),
        )
        for c in data.get("tool_calls") or []
        if isinstance(c, dict)
    )
    fp = hash((data.get("role"), text, data.get("name"), calls, data.get("tool_call_id")))
    if isinstance(message, Message):
        message.token_cache[_FP_KEY] = fp
    return fp


@dataclass
class RecordedIndex:
    """Fingerprints of the whole history and where each appears, once it has been read.

    Attributes:
        epoch: the session's epoch the index was built for.
        fps: the fingerprints of ``history[:len(fps)]``, in order.
        positions: fingerprint -> its positions in ``fps``.
    """

    epoch: str = ""
    fps: list[Hashable] = field(default_factory=list)
    positions: dict[Hashable, list[int]] = field(default_factory=dict)
    last_id: str | None = None
    """The id of the last message indexed: a clear and regrowth elsewhere changes it."""
    complete: bool = False
    """True once the whole history has been read into ``fps`` (kept up to date after that)."""

    def reset(self, epoch: str) -> None:
        """Forget everything (another epoch, a clear)."""
        self.epoch, self.complete, self.last_id = epoch, False, None
        self.fps, self.positions = [], {}

    def extend(self, messages: Sequence[Message]) -> None:
        """Add messages appended to the history, in order."""
        for msg in messages:
            fp = fingerprint(msg)
            self.positions.setdefault(fp, []).append(len(self.fps))
            self.fps.append(fp)
            self.last_id = msg.id

    def matches(self, epoch: str, length: int, last_id: str | None) -> bool:
        """True when the index holds exactly the history described."""
        return (
            self.complete
            and self.epoch == epoch
            and len(self.fps) == length
            and (last_id is None or self.last_id == last_id)
        )


@dataclass(frozen=True)
class Recorded:
    """Fingerprints of ``history[offset:]``, for :func:`new_messages`."""

    fps: Sequence[Hashable]
    positions: dict[Hashable, list[int]]
    offset: int

    @classmethod
    def of_tail(cls, tail: Sequence[Message], offset: int) -> Recorded:
        """The cached view's tail (``history[offset:]``)."""
        fps = [fingerprint(m) for m in tail]
        positions: dict[Hashable, list[int]] = {}
        for i, fp in enumerate(fps):
            positions.setdefault(fp, []).append(i)
        return cls(fps, positions, offset)


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def new_messages(
    items: Sequence[Any], recorded: Recorded, *, mode: Mode, summary_prefix: str | None
) -> tuple[list[Any], bool]:
    """The messages of ``items`` not recorded yet, and whether the whole history is needed.

    Args:
        items: the list passed (dicts, SDK message objects or Messages), in order.
        recorded: what is recorded: the tail, or the whole history (``offset == 0``).
        mode: see :data:`Mode`.
        summary_prefix: the text summem's summary starts with; a summary echoed back in the
            list (right after the system messages) is summem's own and is dropped.

    Returns:
        ``(new, need_history)``: with ``need_history`` the list may be a resend reaching back
        before the tail; the caller reads the whole history and asks again.

    Raises:
        HistoryMismatchError: the list is a resend (it starts with the recorded conversation,
            or ``mode="full"``) that differs from it; names the position in ``items``.
    """
    plain = [m if isinstance(m, (dict, Message)) else sdk_message_dict(m) for m in items]
    for i, item in enumerate(plain):  # before anything below walks or hashes them
        if isinstance(item, Message):
            continue
        if not isinstance(item, Mapping):
            raise MessageValidationError(
                f"expected a mapping (a chat-completions dict), got {type(item).__name__}",
                index=i,
            )
        check_values(item, i)
    if mode == "new" or not plain:
        return list(plain), False
    lead = 0
    while lead < len(plain) and _role(plain[lead]) in ("system", "developer"):
        lead += 1
    start_rest = lead
    if (
        start_rest < len(plain)
        and summary_prefix
        and _text(_as_dict(plain[start_rest])).startswith(summary_prefix)
    ):
        start_rest += 1  # summem's summary, echoed back with the view
    systems, rest = plain[:lead], plain[start_rest:]
    n = len(recorded.fps)
    if not rest:
        return systems, False
    echoed_view = start_rest > lead  # summem's summary came back: this is a resend
    for start in recorded.positions.get(_fp(rest[0]), ()):
        overlap = n - start
        if len(rest) < overlap:
            continue  # shorter than the part it would repeat: not a resend from here
        differs = next(
            (i for i in range(1, overlap) if _fp(rest[i]) != recorded.fps[start + i]), None
        )
        if differs is None:
            return systems + rest[overlap:], False
        if mode == "full" or echoed_view or (recorded.offset == 0 and start == 0):
            raise _mismatch(start_rest + differs, rest[differs])
    if recorded.offset > 0 and len(rest) > n:
        return [], True  # may repeat history from before the tail: read it, then decide
    if mode == "full" and (n or recorded.offset):
        raise _mismatch(start_rest, rest[0])
    return systems + rest, False


def _role(item: Any) -> Any:
    return item.role if isinstance(item, Message) else item.get("role")


def _as_dict(item: Any) -> dict[str, Any]:
    return item.to_openai() if isinstance(item, Message) else item


def _fp(item: Any) -> Hashable:
    return fingerprint(item if isinstance(item, (dict, Message)) else sdk_message_dict(item))


def _mismatch(index: int, item: Any) -> HistoryMismatchError:
    return HistoryMismatchError(
        f"the list repeats the recorded conversation, then differs here ({a(_role(item))} "
        "message): earlier turns were edited or dropped, and nothing was recorded; pass only "
        "the new messages, or mode='new' to record the whole list as new",
        index=index,
    )
