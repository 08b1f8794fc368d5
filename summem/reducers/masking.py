"""Tool-result masking: old, large tool results shown as a compact stub (pure, no LLM).

Tool observations are most of an agent's context and are rarely read again whole. Masking
replaces, in the view only, each tool result that is older than the last ``after`` tool groups
and at least ``min_tokens`` long by a stub message: same role ``tool``, same ``tool_call_id``
(tool pairing stays valid), same id, and content such as ``[masked tool result:
lookup_order(order_id=BW-1) -> status=shipped; eta=2025-03-21; full result: recall message_id=m_1]``
(the call and its key values, as the extractive summarizer's tool facts show them, and the
message id ``Memory.recall(id=...)`` fetches the whole result with). History is untouched.

Stable: the stub depends on the message and its call alone, and a result only ever becomes
older, so a masked message stays masked the same way on every later turn (the prompt's prefix
does not churn). A stub is never masked again (masking a masked view changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from summem.errors import ConfigurationError
from summem.messages import Message

__all__ = ["STUB_PREFIX", "MaskState", "ToolMasking", "mask_messages", "stub_for"]

STUB_PREFIX = "[masked tool result: "
"""How a stub's content starts (a result that starts so is never masked again)."""


@dataclass(frozen=True)
class ToolMasking:
    """Which tool results the view shows as stubs.

    Attributes:
        after: keep the results of the last ``after`` tool groups whole (``0``: mask every
            finished group's results).
        min_tokens: mask only results of at least this many tokens.
        exempt: names of tools whose results are never masked.
    """

    after: int = 3
    min_tokens: int = 200
    exempt: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not isinstance(self.after, int) or self.after < 0:
            raise ConfigurationError(
                f"mask_tool_results_after must be an int >= 0, got {self.after!r}"
            )
        if not isinstance(self.min_tokens, int) or self.min_tokens < 0:
            raise ConfigurationError(
                f"mask_min_tokens must be an int >= 0, got {self.min_tokens!r}"
            )
        object.__setattr__(self, "exempt", frozenset(self.exempt))

    def record(self) -> dict[str, object]:
        """The settings as JSON-serialisable values (for a reducer's record)."""
        return {
            "mask_tool_results_after": self.after,
            "mask_min_tokens": self.min_tokens,
            "mask_exempt_tools": sorted(self.exempt),
        }


def stub_for(result: Message, name: str, raw_arguments: object) -> Message:
    """The stub shown for ``result``, a tool result answering ``name(raw_arguments)``.

    Deterministic: the same result and call always give the same stub (same id, same
    ``tool_call_id``).
    """
    from summem.summarizers.extractive.tool_facts import call_arguments, compact_call, tool_body

    args = call_arguments(raw_arguments) or {}  # imported here: masking is off by default
    facts = tool_body(compact_call(name, args), args, result.text)
    text = f"{STUB_PREFIX}{facts}; full result: recall message_id={result.id}]"
    data = {"role": "tool", "tool_call_id": result.tool_call_id, "content": text}
    return Message.from_openai(data, id=result.id)


@dataclass
class _Group:
    seq: int
    open: set[str]
    calls: dict[str, tuple[str, object]]
    results: list[tuple[int, Message]] = field(default_factory=list)


class MaskState:
    """Masking over a growing list of messages, updated one message at a time.

    ``add`` each message in order; it returns the positions (in the list as it stands) of
    the results that became masked. ``drop`` tells that the first messages left the list.
    """

    def __init__(self, masking: ToolMasking, count_tokens: Callable[[Message], int]) -> None:
        self.masking = masking
        self._count = count_tokens
        self._groups: dict[str, _Group] = {}  # tool_call_id -> its group
        self._waiting: list[_Group] = []  # groups whose results may still be masked
        self._seen = 0  # tool groups seen
        self._added = 0  # messages added
        self._dropped = 0  # messages dropped from the front
        self.stubs: dict[str, Message] = {}
        """Message id -> its stub, for every masked message."""

    def shown(self, message: Message) -> Message:
        """The message as the view shows it (its stub when masked)."""
        return self.stubs.get(message.id, message)

    def add(self, message: Message) -> list[int]:
        """Take the next message; the positions of the results that became masked."""
        position = self._added
        self._added += 1
        if message.role == "assistant" and message.tool_calls:
            calls: dict[str, tuple[str, object]] = {}
            for call in message.tool_calls:
                fn = call.get("function") or {}
                call_id = call.get("id")
                if isinstance(call_id, str):
                    calls[call_id] = (str(fn.get("name", "tool")), fn.get("arguments"))
            group = _Group(self._seen, set(calls), calls)
            self._seen += 1
            for call_id in calls:
                self._groups[call_id] = group
            self._waiting.append(group)
        elif message.role == "tool" and message.tool_call_id in self._groups:
            group = self._groups.pop(message.tool_call_id)
            group.open.discard(message.tool_call_id)
            name = group.calls[message.tool_call_id][0]
            if self._maskable(message, name):
                group.results.append((position, message))
        return self._mask_ready()

    def _maskable(self, message: Message, name: str) -> bool:
        m = self.masking
        if name in m.exempt or message.text.startswith(STUB_PREFIX):
            return False
        return self._count(message) >= m.min_tokens

    def _mask_ready(self) -> list[int]:
        newest_kept = self._seen - self.masking.after  # groups with seq >= this stay whole
        masked: list[int] = []
        still: list[_Group] = []
        for group in self._waiting:
            if group.seq >= newest_kept or group.open:
                still.append(group)
                continue
            for position, message in group.results:
                if position < self._dropped:
                    continue
                call_id = message.tool_call_id or ""
                name, raw = group.calls[call_id]
                stub = stub_for(message, name, raw)
                if self._count(stub) < self._count(message):
                    self.stubs[message.id] = stub
                    masked.append(position - self._dropped)
        self._waiting = still
        return masked

    def drop(self, messages: Sequence[Message]) -> None:
        """The first ``len(messages)`` messages left the list (evicted)."""
        self._dropped += len(messages)
        for m in messages:
            self.stubs.pop(m.id, None)


def mask_messages(
    messages: Iterable[Message], masking: ToolMasking, count_tokens: Callable[[Message], int]
) -> list[Message]:
    """``messages`` with the results ``masking`` selects replaced by their stubs."""
    items = list(messages)
    state = MaskState(masking, count_tokens)
    for m in items:
        state.add(m)
    return [state.shown(m) for m in items]
