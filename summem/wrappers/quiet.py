"""The wrapped call itself, with no key in the HTTP and LLM libraries' logs while it runs.

A wrapper sends the application's request through the application's client (or
``litellm.completion``), but summem makes the call: like summem's own LLM clients, it runs
inside :func:`summem.logs.redacted_logs`, knowing the client's key, secret headers and query
parameters and the call's own (``api_key=``, ``extra_headers=``...). A stream such a call
returns, or a stream manager (which sends its request when entered), is :func:`quieted`: each
step that drives the SDK runs in the same redaction (see :mod:`summem.wrappers.passing`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from summem._secrets import client_secrets
from summem.logs import redacted_logs
from summem.wrappers.passing import Quieted

__all__ = ["acall_quietly", "call_quietly", "quieted", "secrets_of"]

QuietedT = TypeVar("QuietedT", bound=Quieted)


def _secrets(fn: Callable[..., Any], kwargs: dict[str, Any]) -> list[str]:
    """The call's secrets: an SDK method's client's (``resource._client``) and ``kwargs``'."""
    owner: Any = None
    seen, at = 0, cast(Any, fn)
    while at is not None and owner is None and seen < 5:  # through wrappers' ``__wrapped__``
        owner = getattr(getattr(at, "__self__", None), "_client", None)
        at, seen = getattr(at, "__wrapped__", None), seen + 1
    return client_secrets(owner, kwargs)


def secrets_of(fn: Callable[..., Any], kwargs: dict[str, Any]) -> tuple[str, ...]:
    """What a call of ``fn`` with ``kwargs`` must never log (see :func:`call_quietly`)."""
    return tuple(_secrets(fn, kwargs))


def quieted(driver: QuietedT, fn: Callable[..., Any], kwargs: dict[str, Any]) -> QuietedT:
    """``driver`` (a stream or a manager of ``fn``'s call), driving the SDK in its redaction."""
    driver._secrets = secrets_of(fn, kwargs)
    return driver


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
