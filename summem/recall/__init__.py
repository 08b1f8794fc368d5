"""Recall: a way back to everything the view no longer carries.

summem keeps every message; :meth:`Memory.recall <summem.memory.Memory.recall>` searches the
session's history (keyword ranking, BM25) and returns the original messages, with their ids
and positions. :func:`~summem.recall.tool.recall_tool` turns that into an OpenAI tool a model
can call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.recall.index import RecallHit, RecallIndex
    from summem.recall.tool import RECALL_TOOL_NAME, RecallTool

__all__ = ["RECALL_TOOL_NAME", "RecallHit", "RecallIndex", "RecallTool"]

_HOMES = {
    "RecallHit": "index",
    "RecallIndex": "index",
    "RECALL_TOOL_NAME": "tool",
    "RecallTool": "tool",
}


def __getattr__(name: str) -> Any:
    """The recall names, loaded on first use.

    Lazily, and not only for import time: a package that imports its own submodules while a
    memory imports one of them lazily in another thread can deadlock Python's import locks
    (each thread holding one module's lock and waiting for the other's).
    """
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
