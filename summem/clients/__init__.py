"""Clients: one chat call through litellm or the openai SDK, behind :class:`LLMClient`.

:mod:`summem.clients.base` holds the protocol and the request and response types,
:mod:`summem.clients.litellm` and :mod:`summem.clients.openai` the two clients. The names
below load on first use: each client imports its SDK, which ``import summem`` must not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from summem.clients.base import ChatRequest, ChatResponse, LLMClient
    from summem.clients.litellm import LiteLLMClient
    from summem.clients.openai import OpenAIClient

__all__ = ["ChatRequest", "ChatResponse", "LLMClient", "LiteLLMClient", "OpenAIClient"]

_HOMES = {
    "ChatRequest": ".base",
    "ChatResponse": ".base",
    "LLMClient": ".base",
    "LiteLLMClient": ".litellm",
    "OpenAIClient": ".openai",
}

__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
