"""Recall: a way back to everything the view no longer carries.

summem keeps every message; :meth:`Memory.recall <summem.memory.Memory.recall>` searches the
session's history (keyword ranking, BM25) and returns the original messages, with their ids
and positions. :func:`~summem.recall.tool.recall_tool` turns that into an OpenAI tool a model
can call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from summem.recall.index import RecallHit, RecallIndex
    from summem.recall.names import RECALL_TOOL_NAME
    from summem.recall.tool import RecallTool

__all__ = ["RECALL_TOOL_NAME", "RecallHit", "RecallIndex", "RecallTool"]

_HOMES = {
    "RECALL_TOOL_NAME": ".names",
    "RecallHit": ".index",
    "RecallIndex": ".index",
    "RecallTool": ".tool",
}

# Lazily, and not only for import time: a package that imports its own submodules while a
# memory imports one of them lazily in another thread can deadlock Python's import locks (each
# thread holding one module's lock and waiting for the other's).
__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
