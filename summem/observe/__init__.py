"""Seeing what a memory does and what it costs: hooks, prices, spend limits, OpenTelemetry.

The events themselves are in :mod:`summem.events`. :class:`SpendLimit` caps what summarization
may spend; :class:`OpenTelemetryHook` turns the events into spans and metrics (the ``otel``
extra). The names below load on first use (see :mod:`summem.recall` for why lazily).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.observe.otel import OpenTelemetryHook
    from summem.observe.spend import SpendLimit

__all__ = ["OpenTelemetryHook", "SpendLimit"]

_HOMES = {"OpenTelemetryHook": "otel", "SpendLimit": "spend"}


def __getattr__(name: str) -> Any:
    """The names above, loaded on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
