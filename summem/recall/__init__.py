"""Recall: a way back to everything the view no longer carries.

summem keeps every message; :meth:`Memory.recall <summem.memory.Memory.recall>` searches the
session's history (keyword ranking, BM25) and returns the original messages, with their ids
and positions. :func:`~summem.recall.tool.recall_tool` turns that into an OpenAI tool a model
can call.
"""

from summem.recall.index import RecallHit, RecallIndex
from summem.recall.tool import RECALL_TOOL_NAME, RecallTool

__all__ = ["RECALL_TOOL_NAME", "RecallHit", "RecallIndex", "RecallTool"]
