"""The wrapped call itself, with no key in the HTTP and LLM libraries' logs while it runs.

A wrapper sends the application's request through the application's client (or
``litellm.completion``), but summem makes the call: like summem's own LLM clients, it runs
inside :func:`summem.logs.redacted_logs`, knowing the client's key, secret headers and query
parameters and the call's own (``api_key=``, ``extra_headers=``...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from summem._secrets import client_secrets
from summem.logs import redacted_logs

__all__ = ["acall_quietly", "call_quietly"]


def _secrets(fn: Callable[..., Any], kwargs: dict[str, Any]) -> list[str]:
    """The call's secrets: an SDK method's client's (``resource._client``) and ``kwargs``'."""
    owner: Any = None
    seen, at = 0, cast(Any, fn)
    while at is not None and owner is None and seen < 5:  # through wrappers' ``__wrapped__``
        owner = getattr(getattr(at, "__self__", None), "_client", None)
        at, seen = getattr(at, "__wrapped__", None), seen + 1
    return client_secrets(owner, kwargs)


def call_quietly(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``fn(*args, **kwargs)`` inside :func:`~summem.logs.redacted_logs`."""
    with redacted_logs(_secrets(fn, kwargs)):
        return fn(*args, **kwargs)


async def acall_quietly(
    fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``await fn(*args, **kwargs)`` inside :func:`~summem.logs.redacted_logs`."""
    with redacted_logs(_secrets(fn, kwargs)):
        return await fn(*args, **kwargs)
