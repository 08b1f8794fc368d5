"""A framework's conversation followed into a memory: appends, branches and windows.

LangChain's graph state and pydantic-ai's run history are the conversation as the framework
sees it, handed over whole on every model call. The integrations read such a list as the
conversation **from position p of the recorded history on** (a *window*; p is where the list's
first message is recorded; when that one was edited, the first recorded message places the
list; 0 for a list none of whose messages is recorded):

- the list repeats ``history[p:]`` and goes on: what follows is appended;
- it stops repeating ``history[p:]`` at position k (a regenerate, a time travel, an edit, a
  message removed in the middle, a new conversation when its first message is not recorded):
  the session **branches** at k (:meth:`summem.Memory.branch`): the rest of the list is
  recorded there and the abandoned ``history[k:]`` is kept as a branch, never sent again;
- nothing before p is abandoned: a list that starts later (a state trimmed by
  ``RemoveMessage``, a history processor that dropped the oldest messages) is a window onto a
  longer history, and the model is not sent ``history[w:p]`` either (w: the watermark).

Messages are matched by a key: the framework's own identity of the message (LangChain's id,
pydantic-ai's serialised message with its timestamps) together with summem's fingerprint of
what a provider sees, so an edit that keeps the id is an edit, and two equal "ok" are two.

The keys of the recorded history are kept per integration object and checked against the ids of
the memory's view tail on each call, so a call reads the store's history only when another
writer changed it (or on the first call).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from summem.integrations._shared import split_head

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message

__all__ = [
    "Fork",
    "KeyFn",
    "RecordedKeys",
    "Resume",
    "Window",
    "afollow",
    "follow",
    "follow_any",
    "locate",
    "shown",
]

KeyFn = Callable[["Message"], Hashable]
"""A message's key: the framework's identity of it plus what a provider sees."""

Resume = bool | Literal["unmatched"]
"""Whether a list is a run the memory supplies the past for (see :func:`follow`):
``"unmatched"``: only when none of its messages is recorded, not even with other content under
the framework's own id (LangChain without a checkpointer, passing only the new message)."""


def _own(key: Hashable) -> Hashable | None:
    """The framework's own identity in a key (its first part), if it has one."""
    return key[0] if isinstance(key, tuple) and key else None


@dataclass(frozen=True)
class Fork:
    """Where a list sits in the recorded history, and where it stops repeating it.

    Attributes:
        start: p, the position of the list's first message in the history.
        same: how many messages of the list repeat ``history[start:]``.
    """

    start: int
    same: int

    @property
    def at(self) -> int:
        """Where the list leaves the history: the branch position, or its length (append)."""
        return self.start + self.same


@dataclass
class RecordedKeys:
    """The keys and ids of the whole recorded history, as last read or written."""

    keys: list[Hashable] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    positions: dict[Hashable, list[int]] = field(default_factory=dict)
    owns: dict[Hashable, int] = field(default_factory=dict)
    """The framework's own identities (a key's first part) recorded, with their counts."""
    loaded: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Held around a whole call (sync shell): one middleware may serve several threads."""

    def matches(self, tail: Sequence[Message]) -> bool:
        """True when the view's tail ends the history as known (same ids, same end)."""
        n = len(tail)
        if not self.loaded or n > len(self.ids) or (n == 0 and self.ids):
            return False
        return self.ids[len(self.ids) - n :] == [m.id for m in tail]

    def load(self, history: Sequence[Message], key: KeyFn) -> None:
        """The history as read from the store."""
        self.keys, self.ids, self.positions, self.owns = [], [], {}, {}
        self.extend(history, key)
        self.loaded = True

    def extend(self, messages: Sequence[Message], key: KeyFn) -> None:
        """Messages appended to the history."""
        for m in messages:
            k = key(m)
            self.positions.setdefault(k, []).append(len(self.keys))
            own = _own(k)
            if own is not None:
                self.owns[own] = self.owns.get(own, 0) + 1
            self.keys.append(k)
            self.ids.append(m.id)

    def cut(self, at: int) -> None:
        """The history became ``history[:at]`` (a branch)."""
        for k in self.keys[at:]:
            spots = self.positions[k]
            spots.pop()  # positions are kept in order: the last ones are the cut ones
            if not spots:
                del self.positions[k]
            own = _own(k)
            if own is not None:
                self.owns[own] -= 1
                if not self.owns[own]:
                    del self.owns[own]
        del self.keys[at:], self.ids[at:]

    def knows_any(self, keys: Sequence[Hashable]) -> bool:
        """Whether any of ``keys`` is recorded, or a message under the same own identity."""
        for k in keys:
            own = _own(k)
            if k in self.positions or (own is not None and own in self.owns):
                return True
        return False


def locate(recorded: RecordedKeys, incoming: Sequence[Hashable]) -> Fork:
    """Where ``incoming`` (keys, in order) sits in the recorded history (pure).

    The list's first message is looked up in the history; of its positions, the one the list
    repeats furthest from wins. When the first message is not recorded (it was edited), the
    first one that is places the list: the i-th message recorded at q puts its start at q - i
    (an edit of a window's first message branches at the window's start, not at 0). A list
    none of whose messages is recorded (or an empty one) starts a new conversation:
    ``Fork(0, 0)``.
    """
    if not incoming:
        return Fork(0, 0)
    keys, best = recorded.keys, Fork(0, 0)
    for start in recorded.positions.get(incoming[0], ()):
        same = 0
        limit = min(len(incoming), len(keys) - start)
        while same < limit and incoming[same] == keys[start + same]:
            same += 1
        if same > best.same:
            best = Fork(start, same)
    if best.same:
        return best
    for i, k in enumerate(incoming):
        spots = recorded.positions.get(k)
        if spots:
            return Fork(max(0, spots[0] - i), 0)
    return best


@dataclass(frozen=True)
class Window:
    """What a call recorded, for building the model's input.

    Attributes:
        start: where the framework's list starts in the history (p); the model is not sent
            ``history[w:p]``. ``None``: the memory supplies everything before the list.
        length: the history's length after the write.
    """

    start: int | None
    length: int


def _split(incoming: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    """``(leading system messages, the conversation)``."""
    lead = 0
    while lead < len(incoming) and incoming[lead].is_system:
        lead += 1
    return list(incoming[:lead]), list(incoming[lead:])


def _system_to_set(current: Message | None, systems: Sequence[Message]) -> Message | None:
    """The list's system message when it differs from the memory's (one system message)."""
    if not systems:
        return None
    last = systems[-1]
    if current is not None and current.role == last.role and current.content == last.content:
        return None
    return last


def _write_plan(
    recorded: RecordedKeys, rest: list[Message], key: KeyFn, *, resume: Resume
) -> tuple[Fork, list[Message], bool]:
    keys = [key(m) for m in rest]
    fork = locate(recorded, keys)
    if resume == "unmatched":
        resume = fork.same == 0 and not recorded.knows_any(keys)
    if resume and fork.same == 0:  # the memory supplies the past: the list goes after it
        fork = Fork(len(recorded.keys), 0)
    return fork, rest[fork.same :], bool(resume)


Step = tuple[str, tuple[Any, ...]]
"""A memory call a follow makes: the method's name and its arguments."""


def _follow_flow(
    system: Message | None,
    recorded: RecordedKeys,
    incoming: Sequence[Message],
    key: KeyFn,
    resume: Resume,
) -> Generator[Step, Any, Window]:
    """The memory calls of one follow, written once (:func:`follow` / :func:`afollow` run it)."""
    systems, rest = _split(incoming)
    to_set = _system_to_set(system, systems)
    if to_set is not None:
        yield "add", (to_set,)
    view: list[Message] = yield "view", ()
    if not recorded.matches(split_head(view)[2]):
        recorded.load((yield "history_messages", ()), key)
    fork, new, resumed = _write_plan(recorded, rest, key, resume=resume)
    stored: list[Message] = []
    if fork.at < len(recorded.keys):
        stored = yield "branch", (fork.at, new)
        recorded.cut(fork.at)
    elif new:
        stored = yield "extend", (new,)
    if len(stored) == len(new):
        recorded.extend(stored, key)
    else:  # the memory left something out: read the history again next time
        recorded.loaded = False
    return Window(None if resumed else fork.start, len(recorded.keys))


def follow(
    memory: Memory,
    recorded: RecordedKeys,
    incoming: Sequence[Message],
    key: KeyFn,
    *,
    resume: Resume = False,
) -> Window:
    """Record ``incoming`` (the framework's conversation) in a sync memory; see the module.

    Args:
        memory: the session's memory.
        recorded: the keys of its history as this integration object knows them.
        incoming: the framework's conversation, converted (system messages first).
        key: the framework's :data:`KeyFn`.
        resume: the list is a run the memory supplies the past for: when its first message
            is not recorded it goes after the recorded conversation (instead of starting a
            new one), and the model is sent the whole view; ``"unmatched"``: so only when
            none of its messages is recorded, even under its own id with other content
            (an edit keeps its id: it still branches).
    """
    with recorded.lock:
        flow = _follow_flow(memory.system, recorded, incoming, key, resume)
        reply: Any = None
        while True:
            try:
                name, args = flow.send(reply)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            reply = getattr(memory, name)(*args)


async def afollow(
    memory: AsyncMemory,
    recorded: RecordedKeys,
    incoming: Sequence[Message],
    key: KeyFn,
    *,
    resume: Resume = False,
) -> Window:
    """The async twin of :func:`follow` (an ``AsyncMemory``; one call at a time per object)."""
    flow = _follow_flow(memory.system, recorded, incoming, key, resume)
    reply: Any = None
    while True:
        try:
            name, args = flow.send(reply)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        reply = await getattr(memory, name)(*args)


async def follow_any(
    memory: Memory | AsyncMemory,
    recorded: RecordedKeys,
    incoming: Sequence[Message],
    key: KeyFn,
    *,
    resume: Resume = False,
) -> Window:
    """:func:`follow` for either memory, from async code (a ``Memory`` in a worker thread)."""
    from summem.async_memory import AsyncMemory

    if isinstance(memory, AsyncMemory):
        return await afollow(memory, recorded, incoming, key, resume=resume)
    return await asyncio.to_thread(follow, memory, recorded, incoming, key, resume=resume)


def shown(view: list[Message], window: Window) -> list[Message]:
    """The view without ``history[w:p]`` (what a trimmed list left out), calls kept whole.

    Tool results left at the front without their call are dropped with it.
    """
    system, summary, tail = split_head(view)
    if window.start is not None:
        w = window.length - len(tail)
        drop = max(0, window.start - w)
        while drop < len(tail) and tail[drop].role == "tool":
            drop += 1
        tail = tail[drop:] if drop else tail
    return [m for m in (system, summary) if m is not None] + tail
