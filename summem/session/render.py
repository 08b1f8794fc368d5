"""The view rendered as chat-completions dicts, each message rendered once and shared.

See :mod:`summem.session.readonly` for what callers of ``messages()`` may change.
"""

from __future__ import annotations

from collections.abc import Iterable

from summem.messages import Message
from summem.session.readonly import NotPlainJSONError, ReadOnlyDict, freeze, freeze_plain

__all__ = ["RenderCache", "render_message"]


def render_message(msg: Message) -> ReadOnlyDict:
    """``freeze(msg.to_openai())``, with one copy instead of two when it can.

    From the message's own values when they are plain JSON (the frozen copy is the only
    one), else from ``to_openai``'s deep copy.
    """
    if msg.tool_calls is None and msg._extra is None and type(msg.content) is not list:
        return ReadOnlyDict(msg._data)  # role, content, name, tool_call_id: str or None
    fields = msg.openai_fields()
    for value in fields.values():
        if type(value) not in _SCALARS:
            break
    else:  # the common message: scalars only, nothing to freeze below the top
        return ReadOnlyDict(fields)
    try:
        frozen: ReadOnlyDict = freeze_plain(fields)
    except NotPlainJSONError:
        frozen = freeze(msg.to_openai())
    return frozen


_SCALARS = frozenset((str, int, float, bool, type(None)))


class RenderCache:
    """The system message and the summary rendered once (made read-only), then shared.

    ``messages()`` runs every turn; rendering a message, or even copying the dicts,
    each time would cost O(view) per turn. The dicts are read-only, so callers cannot change
    the cached view through them. Tail messages are rendered once with :func:`render_message`
    into the core's list of rendered messages, which needs no lookup by id.
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Message, ReadOnlyDict]] = {}

    def render(self, msg: Message) -> ReadOnlyDict:
        """``msg.to_openai()``, read-only and shared."""
        cached = self._cache.get(msg.id)
        if cached is None or cached[0] is not msg:
            cached = (msg, render_message(msg))
            self._cache[msg.id] = cached
        return cached[1]

    def forget(self, msgs: Iterable[Message | None]) -> None:
        """Drop messages that left the view."""
        for msg in msgs:
            if msg is not None:
                self._cache.pop(msg.id, None)
