"""The view rendered as chat-completions dicts, each message rendered once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from summem.messages import Message, copy_json

__all__ = ["RenderCache"]


class RenderCache:
    """Each message rendered once (``to_openai()``), then copied cheaply on every read.

    ``messages()`` runs every turn; rendering a pydantic model each time costs several times
    more than copying plain dicts. Copies keep callers from changing the cached view.
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Message, dict[str, Any]]] = {}

    def render(self, msg: Message) -> dict[str, Any]:
        """``msg.to_openai()``, as a fresh copy."""
        cached = self._cache.get(msg.id)
        if cached is None or cached[0] is not msg:
            cached = (msg, msg.to_openai())
            self._cache[msg.id] = cached
        fresh: dict[str, Any] = copy_json(cached[1])
        return fresh

    def forget(self, msgs: Iterable[Message | None]) -> None:
        """Drop messages that left the view."""
        for msg in msgs:
            if msg is not None:
                self._cache.pop(msg.id, None)
