"""Clients: one chat call through litellm or the openai SDK, behind :class:`LLMClient`.

:mod:`summem.clients.base` holds the protocol and the request and response types,
:mod:`summem.clients.litellm` and :mod:`summem.clients.openai` the two clients. The names
below load on first use: each client imports its SDK, which ``import summem`` must not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.clients.base import ChatRequest, ChatResponse, LLMClient
    from summem.clients.litellm import LiteLLMClient
    from summem.clients.openai import OpenAIClient

__all__ = ["ChatRequest", "ChatResponse", "LLMClient", "LiteLLMClient", "OpenAIClient"]

_HOMES = {
    "ChatRequest": "base",
    "ChatResponse": "base",
    "LLMClient": "base",
    "LiteLLMClient": "litellm",
    "OpenAIClient": "openai",
}


def __getattr__(name: str) -> Any:
    """The clients' names, loaded on first use (see :mod:`summem.recall` for why lazily)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
