"""Where a reduction may cut: groups, pending tool calls, and the planned watermark.

Pure functions shared by every reducer and by ``Memory``. A **group** is the unit that is never
split: one message, or an assistant message with ``tool_calls`` together with every tool result
answering it (parallel calls, results in any order; anything between the call and its last
result belongs to the group too). A call whose results have not all arrived is **pending**: no
cut may fall at or after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from summem.messages import Message

__all__ = ["Boundaries", "CutOptions", "boundaries", "choose_cut", "split_groups"]


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
    for i, msg in enumerate(messages):
        if not open_calls:
            starts.append(i)
            group_start = i
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


@dataclass(frozen=True)
class CutOptions:
    """Constraints on where a cut may fall.

    Attributes:
        keep_last_user_turns: never evict the last N user messages (nor anything after them).
        cut_before_user: only cut right before a user message, so the kept turns start with one.
    """

    keep_last_user_turns: int = 0
    cut_before_user: bool = False


def choose_cut(
    messages: Sequence[Message],
    sizes: Sequence[int],
    *,
    fixed: int,
    target: int,
    options: CutOptions = CutOptions(),  # frozen, so a shared default is safe
) -> int:
    """The number of leading messages to evict so the rest fits ``target``.

    ``messages`` are the messages currently after the summary (``history[k:]``), ``sizes`` their
    sizes, and ``fixed`` what the view holds besides them (system message, room for the summary,
    request overhead). The cut is the smallest group boundary at which ``fixed + sum(sizes[cut:])
    <= target``. It never falls inside a group, at or past a pending call, past the newest group,
    or past the last ``keep_last_user_turns`` user messages; with ``cut_before_user`` it falls
    right before a user message. When no allowed cut reaches the target, the largest allowed cut
    is returned (evict as much as the rules allow). ``0`` means nothing can be evicted.
    """
    n = len(messages)
    if n == 0:
        return 0
    bounds = boundaries(messages)
    # The newest group always stays. A pending call's group is the last start (no boundary
    # follows an unanswered call), so this also keeps every cut before a pending call.
    limit = bounds.starts[-1]
    if options.keep_last_user_turns > 0:
        # The N-th user message from the end, or the first one when there are fewer than N:
        # with fewer user turns than N, every one of them is among "the last N".
        seen = 0
        for i in range(n - 1, -1, -1):
            if messages[i].role == "user":
                seen += 1
                limit = min(limit, i)
                if seen == options.keep_last_user_turns:
                    break
    remaining = sum(sizes)
    best = 0
    prev = 0
    for start in bounds.starts:
        if start > limit:
            break
        remaining -= sum(sizes[prev:start])
        prev = start
        if start == 0:
            continue
        if options.cut_before_user and messages[start].role != "user":
            continue
        best = start
        if fixed + remaining <= target:
            return start
    return best
