"""Models' context windows, read offline from litellm's bundled model info.

Background reduction lets the view run over the threshold while a summary is being written;
only a **hard limit** makes a turn wait, and by default that is the model's context window
less a reserve for the reply. litellm's wheel (a core dependency) ships the model table as
JSON: it is located with ``importlib.util.find_spec`` and read once, never by importing
litellm (that takes seconds); only the two figures per model are kept.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

__all__ = ["context_window", "default_hard_limit"]

_FILE = "model_prices_and_context_window_backup.json"
_LOCK = threading.Lock()
_TABLE: dict[str, tuple[int, int | None]] | None = None


def _table() -> dict[str, tuple[int, int | None]]:
    """``{model: (max_input_tokens, max_output_tokens)}`` from litellm's file ({} if absent)."""
    global _TABLE
    if _TABLE is None:
        with _LOCK:
            if _TABLE is None:
                _TABLE = _read()
    return _TABLE


def _read() -> dict[str, tuple[int, int | None]]:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.origin:
        return {}
    try:
        raw = json.loads((Path(spec.origin).parent / _FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table: dict[str, tuple[int, int | None]] = {}
    for name, info in raw.items() if isinstance(raw, dict) else ():
        if not isinstance(info, dict):
            continue
        window, reply = info.get("max_input_tokens"), info.get("max_output_tokens")
        if isinstance(window, int) and window > 0:
            table[name] = (window, reply if isinstance(reply, int) and reply > 0 else None)
    return table


def context_window(model: str) -> tuple[int, int | None] | None:
    """``(max_input_tokens, max_output_tokens)`` of ``model``, or ``None`` when unknown.

    Looked up as given, then without its provider prefix (``openai/gpt-4o`` as ``gpt-4o``).
    """
    table = _table()
    name = model.strip()
    found = table.get(name) or table.get(name.lower())
    if found is None and "/" in name:
        found = table.get(name.rsplit("/", 1)[-1].lower())
    return found


def default_hard_limit(model: str | None, threshold: int) -> int:
    """The view's hard limit in tokens: the model's window less the reply's reserve.

    The reserve is the model's ``max_output_tokens``, capped at a quarter of the window. An
    unknown model (or none) gets twice the threshold. Never below the threshold.
    """
    found = context_window(model) if model else None
    if found is None:
        return 2 * threshold
    window, reply = found
    reserve = min(reply if reply is not None else window // 4, window // 4)
    return max(threshold, window - reserve)
