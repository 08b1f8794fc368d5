"""Seeing what a memory does and what it costs: hooks, prices, spend limits, OpenTelemetry.

The events themselves are in :mod:`summem.events`. :class:`SpendLimit` caps what summarization
may spend; :class:`OpenTelemetryHook` turns the events into spans and metrics (the ``otel``
extra). The names below load on first use (see :mod:`summem.recall` for why lazily).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from summem.observe.otel import OpenTelemetryHook
    from summem.observe.spend import SpendLimit

__all__ = ["OpenTelemetryHook", "SpendLimit"]

_HOMES = {"OpenTelemetryHook": ".otel", "SpendLimit": ".spend"}

__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
