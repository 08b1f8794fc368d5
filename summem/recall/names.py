"""The recall tool's name, apart from the tool.

The wrappers look for it in every reply; importing :mod:`summem.recall.tool` for it would bring
in the recall index and the transcript renderer on every wrapper's import.
"""

from __future__ import annotations

__all__ = ["RECALL_TOOL_NAME"]

RECALL_TOOL_NAME = "recall_conversation"
"""The recall tool's function name."""
