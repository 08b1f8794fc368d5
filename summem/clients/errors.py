"""Provider errors turned into summem's, and secrets kept out of every message.

The openai SDK and litellm raise the same exception family (litellm's classes subclass the
openai SDK's), so one mapping serves both adapters without importing litellm:

* timeouts, connection errors, 408, 409, 429 and 5xx become
  :class:`~summem.errors.LLMTransientError` (the only retried kind), with the wait read from
  ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date);
* a request larger than the context window (OpenAI's ``context_length_exceeded``, litellm's
  ``ContextWindowExceededError``, Anthropic's "prompt is too long", HTTP 413) becomes
  :class:`~summem.errors.ContextWindowExceededError`;
* anything else (400, 401, 403, 404, 422, a 429 for an exhausted quota) is a plain
  :class:`~summem.errors.LLMError`: retrying cannot help.

Messages name the provider, model and status and quote the provider's own text, passed
through :func:`~summem._secrets.redact`, so an API key (ours, or one echoed in a
provider's reply) never lands in an exception (invariant I6). The SDK exception, chained as
the cause, is scrubbed the same way, since a formatted traceback prints it too.
"""

from __future__ import annotations

import contextlib
import email.utils
import time
from collections.abc import Iterable, Mapping
from typing import Any

from summem._secrets import redact, redact_pii
from summem.clients.keys import KEY_VARIABLES
from summem.errors import (
    ContextWindowExceededError,
    LLMAuthenticationError,
    LLMError,
    LLMTransientError,
)

__all__ = ["map_provider_error", "parse_retry_after"]

_MAX_DETAIL = 200
_CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "context length",
    "prompt is too long",
    "input is too long",
    "too many tokens",
)
_TRANSIENT_STATUS = frozenset((408, 409, 429))
_AUTH_MARKERS = (
    "missing credentials",
    "api_key client option must be set",
    "no api key",
    "api key not found",
    "incorrect api key",
    "invalid api key",
    "invalid x-api-key",
    "invalid_api_key",
)


def parse_retry_after(
    headers: Mapping[str, Any] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after``; ``None`` when absent or bad."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _scrub(exc: BaseException, secrets: Iterable[str]) -> None:
    """Redact the SDK exception's own text, and its chain's: tracebacks print all of it.

    Providers echo keys back ("Incorrect API key provided: sk-..."); litellm keeps that text in
    ``message`` and in the openai SDK exception it raised from (``__context__``).
    """
    secrets = list(secrets)
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        message = getattr(current, "message", None)
        if isinstance(message, str):
            with contextlib.suppress(AttributeError, TypeError):
                current.message = redact(message, secrets)  # type: ignore[attr-defined]
        current.args = tuple(redact(a, secrets) if isinstance(a, str) else a for a in current.args)
        pending += [current.__cause__, current.__context__]


def _headers_of(exc: BaseException) -> Mapping[str, Any] | None:
    """Response headers, wherever the SDK kept them (litellm rebuilds ``response``)."""
    for candidate in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if candidate:
            return dict(candidate.items()) if hasattr(candidate, "items") else None
    return None


def _detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping) and isinstance(body.get("message"), str):
        text = str(body["message"])
    else:
        text = str(getattr(exc, "message", None) or exc)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 3] + "..."


def _code(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    code = getattr(exc, "code", None)
    if code is None and isinstance(body, Mapping):
        code = body.get("code") or body.get("type")
    return str(code or "")


def _is_auth_error(exc: BaseException, status: int | None, detail: str) -> bool:
    """A refused or missing key, whatever status litellm wrapped it in (it uses 500 too)."""
    if any(
        cls.__name__ in ("AuthenticationError", "PermissionDeniedError")
        for cls in type(exc).__mro__
    ):
        return True
    if status in (401, 403):
        return True
    low = detail.lower()
    return any(marker in low for marker in _AUTH_MARKERS)


def _is_connection_error(exc: BaseException, status: int | None, detail: str) -> bool:
    """No answer from the server, whatever litellm wrapped it in (an HTTP 500, with no reply)."""
    cause: BaseException | None = exc
    for _ in range(8):  # the chain of causes, bounded
        if cause is None:
            break
        names = {cls.__name__ for cls in type(cause).__mro__}
        if names & {"APIConnectionError", "ConnectError", "ConnectionError"}:
            return True
        cause = cause.__cause__ or cause.__context__
    return status in (None, 500) and "connection error" in detail.lower()


def _is_context_error(exc: BaseException, status: int | None, detail: str) -> bool:
    if any(cls.__name__ == "ContextWindowExceededError" for cls in type(exc).__mro__):
        return True
    if status == 413:
        return True
    if status not in (None, 400):
        return False
    haystack = f"{_code(exc)} {detail}".lower()
    return any(marker in haystack for marker in _CONTEXT_MARKERS)


def map_provider_error(
    exc: BaseException,
    *,
    provider: str | None,
    model: str | None,
    secrets: Iterable[str | None] = (),
) -> LLMError:
    """The summem error for an openai-SDK-family (openai or litellm) exception.

    Args:
        exc: what the SDK raised.
        provider: named in the message when the exception does not say.
        model: the model the call used.
        secrets: values to scrub from the message (the client's API key).
    """
    import openai  # a core dependency; imported here so this module stays cheap

    known = [s for s in secrets if s]
    _scrub(exc, known)
    provider = str(getattr(exc, "llm_provider", None) or provider or "unknown")
    raw_status = getattr(exc, "status_code", None)
    status = raw_status if isinstance(raw_status, int) else None
    detail = redact_pii(redact(_detail(exc), known))
    where = f"{provider} model {model!r}"
    if isinstance(exc, openai.APITimeoutError):
        return LLMTransientError(
            f"{where}: request timed out: {detail}", provider=provider, model=model
        )
    if isinstance(exc, openai.APIConnectionError) or _is_connection_error(exc, status, detail):
        return LLMTransientError(
            f"{where}: connection failed: {detail}", provider=provider, model=model
        )
    if _is_auth_error(exc, status, detail):
        variable = KEY_VARIABLES.get(provider)
        hint = f"set {variable}, or pass api_key" if variable else "check the API key"
        # litellm reports a key it never sent (missing) as HTTP 500: no request was made
        label = f"HTTP {status}" if status in (401, 403) else "no key, or a refused key"
        return LLMAuthenticationError(
            f"{where}: authentication failed ({label}; not retried; {hint}): {detail}",
            provider=provider,
            model=model,
            status_code=status,
        )
    if _is_context_error(exc, status, detail):
        return ContextWindowExceededError(
            f"{where}: the request exceeds the model's context window (HTTP {status}): {detail}",
            provider=provider,
            model=model,
            status_code=status,
        )
    if status is not None and (status in _TRANSIENT_STATUS or status >= 500):
        if status == 429 and _code(exc) == "insufficient_quota":
            return LLMError(
                f"{where}: quota exhausted (HTTP 429, not retried): {detail}",
                provider=provider,
                model=model,
                status_code=status,
            )
        retry_after = parse_retry_after(_headers_of(exc))
        wait = f"; Retry-After {retry_after:g}s" if retry_after is not None else ""
        return LLMTransientError(
            f"{where}: HTTP {status}{wait}: {detail}",
            provider=provider,
            model=model,
            status_code=status,
            retry_after=retry_after,
        )
    label = f"HTTP {status}" if status is not None else type(exc).__name__
    return LLMError(
        f"{where}: {label} (not retried): {detail}",
        provider=provider,
        model=model,
        status_code=status,
    )
