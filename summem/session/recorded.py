"""What is already recorded: telling the new messages in a list from the ones resent.

Applications pass messages two ways. Some pass only the new messages each call; many (the
openai habit) keep their own list and pass the whole conversation every time, or echo back the
view ``messages()`` gave them, or append the reply they got (``response.choices[0].message``)
before the tool results. :func:`read_list` finds the longest run at the start of the list that
repeats the end of the recorded conversation (the whole history, the view's tail, or just the
last reply) and keeps only what follows; summem's own summary and the system message in the
list are handled by the system rules and dropped.

A list that is the whole conversation may also differ from what is recorded: the user edited
an earlier message, pressed "regenerate" (the list stops before the last reply) or rewound to
a checkpoint. Then the session **branches** where they differ (see :func:`read_list` for the
rules, and how new messages that repeat an earlier "ok" are told from a resent conversation).

Messages are compared by a fingerprint of what a provider sees (role, content, name, tool calls,
tool call id), never by identity alone. The fingerprints of the recorded conversation live in a
:class:`RecordedIndex` kept per memory: the tail (``history[k:]``) comes from the cached view;
``history[:k]`` is read once, only when a list could be a resend reaching back into it, and then
kept up to date as messages are appended (and cut back on a branch), so a call costs a pass over
the list it was given, never a scan of the stored history.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from summem._message_checks import check_values
from summem._words import a
from summem.errors import HistoryMismatchError, MessageValidationError
from summem.messages import MODEL_REPLY, Message, sdk_message_dict

__all__ = ["Mode", "Reading", "Recorded", "RecordedIndex", "fingerprint", "read_list"]

Mode = Literal["auto", "new", "full"]
"""How a list passed to a wrapper (or ``Memory.record``) is read.

``"auto"``: a list that starts by repeating the end of the recorded conversation is a resend
(only what follows is new); a list that proves it is the whole conversation (a model reply
summem recorded from a response, resent), edited or cut short, branches where it differs;
anything else is all new (see :func:`read_list`).
``"new"``: every message is new. ``"full"``: the list is the conversation (after the system
message and summem's summary): it branches at its first difference from the recorded one.
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
    replies: set[int] = field(default_factory=set)
    """Positions in ``fps`` of the messages summem recorded from a model's response
    (:data:`~summem.messages.MODEL_REPLY`): the only proof that a list is the conversation."""
    last_id: str | None = None
    """The id of the last message indexed: a clear and regrowth elsewhere changes it."""
    complete: bool = False
    """True once the whole history has been read into ``fps`` (kept up to date after that)."""
    full_habit: bool = False
    """The caller's last list was the whole conversation (a resend of all of it, or a branch):
    a later list that starts like the history and stops short is a regenerate or a rewind.
    Kept across :meth:`reset`: it is the caller's habit, not the session's."""

    def reset(self, epoch: str) -> None:
        """Forget everything (another epoch, a clear)."""
        self.epoch, self.complete, self.last_id = epoch, False, None
        self.fps, self.positions, self.replies = [], {}, set()

    def extend(self, messages: Sequence[Message]) -> None:
        """Add messages appended to the history, in order."""
        for msg in messages:
            fp = fingerprint(msg)
            if msg.meta.get(MODEL_REPLY):
                self.replies.add(len(self.fps))
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

    def truncate(self, length: int) -> None:
        """Forget ``history[length:]`` (a branch at ``length``): O(what is forgotten)."""
        fps, positions = self.fps, self.positions
        while len(fps) > length:
            self.replies.discard(len(fps) - 1)
            fp = fps.pop()
            where = positions[fp]
            where.pop()  # positions are ascending: the last one is this one
            if not where:
                del positions[fp]
        self.last_id = None  # unknown now: the caller extends the index, then checks it


@dataclass(frozen=True)
class Recorded:
    """What :func:`read_list` compares a list with: fingerprints of ``history[offset:]``.

    Attributes:
        fps: the fingerprints of ``history[offset:]``, in order.
        positions: fingerprint -> its positions in ``fps``.
        offset: 0 when ``fps`` is the whole history, else ``k`` (only the view's tail).
        watermark: ``k``, where the view's tail starts in the history.
        summary: the fingerprint of the summary in the view (``None``: none).
        replies: positions in ``fps`` of model replies summem recorded from a response.
        full_habit: the caller's last list was the whole conversation (see
            :attr:`RecordedIndex.full_habit`).
    """

    fps: Sequence[Hashable]
    positions: dict[Hashable, list[int]]
    offset: int
    watermark: int = 0
    summary: Hashable | None = None
    replies: frozenset[int] | set[int] = frozenset()
    full_habit: bool = False

    @classmethod
    def of_tail(cls, tail: Sequence[Message], offset: int, **context: Any) -> Recorded:
        """The cached view's tail (``history[offset:]``)."""
        fps = [fingerprint(m) for m in tail]
        positions: dict[Hashable, list[int]] = {}
        for i, fp in enumerate(fps):
            positions.setdefault(fp, []).append(i)
        replies = frozenset(i for i, m in enumerate(tail) if m.meta.get(MODEL_REPLY))
        return cls(fps, positions, offset, replies=replies, **context)


@dataclass(frozen=True)
class Reading:
    """What a list passed to ``record()`` asks for.

    Attributes:
        new: the messages to store (system messages first, then the conversation's new part).
        at: ``None``: append ``new``; else branch at ``at`` (``history[:at] + new``).
        need_history: only the tail was known and the answer may lie before it: read the
            whole history and ask again.
        full_list: whether the list was the whole conversation (``None``: cannot tell); the
            caller keeps it as :attr:`RecordedIndex.full_habit`.
    """

    new: list[Any]
    at: int | None = None
    need_history: bool = False
    full_list: bool | None = None


def _text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


_SYSTEM_ROLES = ("system", "developer")


def read_list(
    items: Sequence[Any], recorded: Recorded, *, mode: Mode, summary_prefix: str | None
) -> Reading:
    """Tell what ``items`` adds to the recorded conversation, or where it branches from it.

    The rules, in order (``H`` is the history, the list's conversation is what follows its
    leading system messages and summem's own summary echoed back):

    1. The list repeats the end of ``H`` (all of it, the view's tail, or the last reply), then
       goes on: what follows is new (appended). But when the caller's last list was the whole
       conversation and this one is a proper prefix of ``H``, it is a regenerate or a rewind
       (rule 4), even in a conversation that repeats itself ("hi", "hello", "hi"...).
    2. The list echoes the current summary (it is the view passed back): it is compared with
       the view's tail and branches where it differs (nothing differs: it appends).
    3. ``mode="full"``: the list is the conversation: it branches at the first difference.
    4. ``mode="auto"``: the list is taken for the whole conversation, edited or cut short, only
       on proof: the part it keeps of ``H`` holds a model reply summem recorded from a
       provider's response (:data:`~summem.messages.MODEL_REPLY`, set by the wrappers); or it
       is ``H`` with one message changed and the rest (two or more messages, such a reply
       among them) resent unchanged; or, for a list that starts like ``H``, the caller's last
       list was the whole conversation (itself known only on that proof). Then it branches
       at the first difference (an edit), or where it ends (a regenerate or a rewind: a
       proper prefix of ``H``). Messages the caller wrote are never proof: new messages may
       repeat an earlier "ok" or "hi", a fixed greeting or few-shot examples (assistant
       messages included) may lead every call.
    5. Anything else is new, every message of it (``mode="full"`` makes the list the
       conversation when there is no proof).

    System messages anywhere in the list follow the system rules (one at a time, at the head);
    they never make a branch.

    Raises:
        HistoryMismatchError: a list echoing a summary that is no longer current which differs
            from the recorded conversation.
        MessageValidationError: an item is not a mapping or holds values that are not JSON.
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
        return Reading(list(plain))
    lead = 0
    while lead < len(plain) and _head_system(plain[lead]):
        lead += 1
    start_rest = lead
    if (
        start_rest < len(plain)
        and summary_prefix
        and _text(_as_dict(plain[start_rest])).startswith(summary_prefix)
    ):
        start_rest += 1  # summem's summary, echoed back with the view
    echoed = plain[lead] if start_rest > lead else None
    systems = plain[:lead]
    # the conversation, with its place in ``items``; system messages inside it go to the head
    conv: list[tuple[int, Any]] = []
    for i in range(start_rest, len(plain)):
        if _head_system(plain[i]):
            systems.append(plain[i])
        else:
            conv.append((i, plain[i]))
    rest = [m for _, m in conv]
    return _Reader(recorded, systems, rest, [i for i, _ in conv], mode).read(echoed)


class _Reader:
    """:func:`read_list` once the list is split: the conversation ``rest`` against ``H``."""

    def __init__(
        self, rec: Recorded, systems: list[Any], rest: list[Any], where: list[int], mode: Mode
    ) -> None:
        self.rec, self.systems, self.rest, self.where, self.mode = rec, systems, rest, where, mode
        self.fprest = [_fp(m) for m in rest]
        self.whole = rec.offset == 0

    def new(self, start: int, **more: Any) -> Reading:
        return Reading(self.systems + self.rest[start:], **more)

    def branch(self, at: int, start: int) -> Reading:
        return Reading(self.systems + self.rest[start:], at=at, full_list=True)

    def read(self, echoed: Any) -> Reading:
        rec, rest = self.rec, self.rest
        if echoed is not None and rec.summary is not None and _fp(echoed) == rec.summary:
            return self.against_view()
        if not rest:
            if self.mode == "full" and echoed is None and rec.offset + len(rec.fps):
                return self.branch(0, 0)  # the conversation is empty now
            return self.new(0)
        if rec.full_habit and echoed is None and self.whole:
            p = _common(self.fprest, rec.fps)
            if p == len(rest) < len(rec.fps):  # a proper prefix: a regenerate or a rewind
                return self.against_history()
        appended = self.suffix()
        if appended is not None:
            return appended
        if not self.whole:
            need = (
                echoed is not None
                or self.mode == "full"
                or rec.full_habit
                or len(rest) > len(rec.fps)
                or any(_role(m) == "assistant" for m in rest)
            )
            return Reading([], need_history=True) if need else self.new(0)
        if echoed is not None:  # a summary that is no longer current: cannot tell where
            raise _mismatch(self.where[0], rest[0], self.rest_of_it)
        return self.against_history()

    ambiguous = (
        "the list repeats the recorded conversation from its start, then differs from it, and "
        "no reply in it came from a model through summem, so an edit cannot be told from new "
        "messages; nothing was recorded: pass mode='full' if the list is the whole conversation "
        "(it branches here, the rest kept as a branch) or mode='new' to record it all as new"
    )

    rest_of_it = (
        "the list passes back a summary that is no longer current and then differs from the "
        "recorded conversation, so where it branches cannot be told; nothing was recorded: "
        "pass memory.messages() as it is now plus the new messages, only the new messages, "
        "or mode='new' to record the whole list as new"
    )

    def suffix(self) -> Reading | None:
        """Rule 1: the list repeats the end of what is recorded; what follows is new."""
        fps, fprest = self.rec.fps, self.fprest
        n, m = len(fps), len(fprest)
        for start in self.rec.positions.get(fprest[0], ()):
            overlap = n - start
            if m < overlap:
                continue  # shorter than the part it would repeat: not a resend from here
            if all(fprest[i] == fps[start + i] for i in range(1, overlap)):
                full = True if self.whole and start == 0 and self.replied(0, overlap) else None
                return self.new(overlap, full_list=full)
        return None

    def against_view(self) -> Reading:
        """Rule 2: the view passed back, compared with the view's tail (at ``k``)."""
        rec = self.rec
        k = rec.watermark
        tail = rec.fps[k - rec.offset :]
        p = _common(self.fprest, tail)
        if p == len(tail):
            return self.new(p)
        return Reading(self.systems + self.rest[p:], at=k + p)

    def against_history(self) -> Reading:
        """Rules 3 to 5, with the whole history known."""
        fps, fprest = self.rec.fps, self.fprest
        n, m = len(fps), len(fprest)
        p = _common(fprest, fps)
        if p == n:  # the whole history, then what is new
            return self.new(p, full_list=True if self.replied(0, n) else None)
        if self.mode == "full":
            return self.branch(p, p)
        # proof: a model reply summem recorded, in what the list keeps of H
        kept = self.replied(0, p)
        habit = self.rec.full_habit and p >= 1
        if p < m:  # the list goes on past where it stops repeating H: an edit?
            if kept or habit or self.edited_in_place(p):
                return self.branch(p, p)
            if p >= 1 and m >= n:  # repeats H from its start, covers it, then differs
                raise _mismatch(self.where[p], self.rest[p], self.ambiguous)
            return self.new(0, full_list=False if n else None)
        # a proper prefix of H (p == m < n): a regenerate or a rewind?
        if habit or kept:
            return self.branch(p, p)
        return self.new(0, full_list=False)

    def replied(self, lo: int, hi: int) -> bool:
        """Whether ``fps[lo:hi]`` holds a model reply summem recorded from a response."""
        replies = self.rec.replies
        if hi - lo <= len(replies):
            return any(i in replies for i in range(lo, hi))
        return any(lo <= i < hi for i in replies)

    def edited_in_place(self, p: int) -> bool:
        """The list is ``H`` with the message at ``p`` changed and the rest resent as it was.

        At least two messages after ``p``, a model reply summem recorded among them: a new
        message and a canned reply that happens to match ``H`` are not mistaken for it.
        """
        fps, fprest = self.rec.fps, self.fprest
        n = len(fps)
        if len(fprest) < n or n - p - 1 < 2 or fprest[p + 1 : n] != list(fps[p + 1 : n]):
            return False
        return self.replied(p + 1, n)


def _common(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """How many items ``a`` and ``b`` share at their start."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def _head_system(item: Any) -> bool:
    """A system or developer message the system rules apply to (one at a time, at the head)."""
    return item.is_system if isinstance(item, Message) else item.get("role") in _SYSTEM_ROLES


def _role(item: Any) -> Any:
    return item.role if isinstance(item, Message) else item.get("role")


def _as_dict(item: Any) -> dict[str, Any]:
    return item.to_openai() if isinstance(item, Message) else item


def _fp(item: Any) -> Hashable:
    return fingerprint(item if isinstance(item, (dict, Message)) else sdk_message_dict(item))


def _mismatch(index: int, item: Any, what: str) -> HistoryMismatchError:
    return HistoryMismatchError(f"{what} (here: {a(_role(item))} message)", index=index)
