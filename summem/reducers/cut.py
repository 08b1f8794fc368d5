"""Where a reduction may cut: the smallest group boundary that brings the view to its target.

Pure, shared by every reducer and by ``Memory``. The groups and pending calls it respects are
defined in :mod:`summem.conversation`; the options here add the user's constraints (keep the
last N user turns, cut only before a user message).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from summem.conversation import boundaries
from summem.messages import Message

__all__ = ["CutOptions", "choose_cut"]


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
