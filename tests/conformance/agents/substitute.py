"""``SummemSession`` behind ``SQLiteSession``'s constructor, for the SDK's own session tests.

``SQLiteSession(session_id, db_path=":memory:", session_settings=None)``: a file path becomes a
summem SQLite store on that file (each session opens its own, as each ``SQLiteSession`` opens
its own connections); ``":memory:"`` an in-memory store of its own, as SQLite's ``:memory:``
database is private to its connection.

One API difference is bridged here, not in summem: ``SQLiteSession.close()`` is synchronous
and the SDK's tests call it, unawaited, inside running event loops, where ``SummemSession``'s
(a coroutine) would be dropped. Here it closes at once when no loop runs in the thread and,
inside a running loop, schedules the close on it and keeps the task until it has run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from summem.integrations.agents import SummemSession

__all__ = ["SQLiteSession", "get_text_message"]

_closing: set[asyncio.Task[None]] = set()


class SQLiteSession(SummemSession):
    """``SummemSession`` made as ``SQLiteSession`` is."""

    def __init__(
        self,
        session_id: str,
        db_path: str | Path = ":memory:",
        sessions_table: str = "agent_sessions",
        messages_table: str = "agent_messages",
        session_settings: Any = None,
    ) -> None:
        store = None if str(db_path) == ":memory:" else f"sqlite:///{db_path}"
        super().__init__(session_id, store=store, session_settings=session_settings)

    def close(self) -> Any:  # the SDK's is sync: see the module docstring
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return super().close()
        self.memory._closed = True  # closed now, as SQLiteSession.close() leaves it
        task = loop.create_task(self._close_store())
        _closing.add(task)
        task.add_done_callback(_closing.discard)
        return None

    async def _close_store(self) -> None:
        memory = self.memory
        memory._closed = False  # AsyncMemory.close() returns at once on a closed memory
        await memory.close()


def get_text_message(content: str) -> ResponseOutputMessage:
    """An assistant message output item (as the SDK's tests/test_responses.py makes it)."""
    return ResponseOutputMessage(
        id="1",
        type="message",
        role="assistant",
        content=[ResponseOutputText(text=content, type="output_text", annotations=[], logprobs=[])],
        status="completed",
    )
