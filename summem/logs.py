"""Keeping API keys out of every log line, the third parties' included.

summem's own errors and logs never carry a key (invariant I6), but other libraries' DEBUG logs
can: httpcore logs request headers, litellm logs whole requests. summem cannot own those
loggers; it can redact what they write. :func:`install_log_redaction` does it for every logger
in the process (it rewrites each log record as it is created); :class:`RedactingFilter` does it
for one handler. Both mask key-shaped tokens, ``Bearer`` and ``api_key=`` values, and the
values of the environment's own secret variables (``OPENAI_API_KEY``...). The ``summem``
command line installs it.

A library must not change logging on import, yet no request summem makes may put a key in any
log: :func:`redacted_logs` does it for summem's own calls, without the application doing
anything. While a call runs (the LLM clients enter it around each request; the wrappers
around each step that drives the SDK, a stream's reads and a stream manager's enter included),
a filter that redacts sits on the loggers of the HTTP and LLM libraries (``httpx``,
``httpcore``, the openai SDK, litellm..., and their ``*2`` successors); it knows the call's
own secrets (its ``api_key``, secret headers, a URL's secret query parameters) besides the
patterns. It never
drops a record, and the last call to finish takes it off again: what those libraries log
outside summem's calls is the application's business, untouched.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from summem._secrets import environment_secrets, redact

__all__ = ["RedactingFilter", "install_log_redaction", "redact_record", "redacted_logs"]

THIRD_PARTY_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai",
    "LiteLLM",
    "LiteLLM Router",  # litellm's three loggers: a space, so not children of "LiteLLM"
    "LiteLLM Proxy",
    "litellm",
    "hpack",
    "h2",
    "aiohttp",
    "urllib3",
)
"""The loggers (with their children) :func:`redacted_logs` filters during summem's calls."""

_installed = False
_lock = threading.Lock()


def redact_record(record: logging.LogRecord, secrets: Iterable[str] = ()) -> logging.LogRecord:
    """Replace ``record``'s message (format applied) with its redacted text.

    A traceback attached to the record (``exc_info``) is formatted and redacted too, so that
    an exception quoting a key does not print it; ``secrets`` are masked besides the patterns.
    """
    known = [*environment_secrets(), *secrets]
    try:
        message = record.getMessage()
    except Exception:  # a broken format: leave it to the handler to report
        return record
    cleaned = redact(message, known)
    if cleaned != message or record.args:
        record.msg, record.args = cleaned, None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text, known)
    if record.stack_info:
        record.stack_info = redact(record.stack_info, known)
    return record


class RedactingFilter(logging.Filter):
    """A handler filter that redacts every record it passes (never drops one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place; always pass it."""
        redact_record(record)
        return True


def install_log_redaction() -> None:
    """Redact every log record created from now on, in every logger (idempotent)."""
    global _installed
    with _lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            return redact_record(previous(*args, **kwargs))

        logging.setLogRecordFactory(factory)
        _installed = True


class _CallRedaction(logging.Filter):
    """The filter :func:`redacted_logs` puts on third-party loggers while summem's calls run."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.calls = 0
        self.counts: Counter[str] = Counter()
        self.secrets: tuple[str, ...] = ()
        """The running calls' secrets: replaced whole (never mutated) for lock-free reads."""
        self.loggers: list[logging.Logger] = []
        self.known = -1
        """How many loggers existed at the last :meth:`attach` (a stream's steps are many)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place with the running calls' secrets; always pass it."""
        redact_record(record, self.secrets)
        return True

    def attach(self) -> None:
        """Put the filter on every third-party logger not yet holding it (children included)."""
        manager = logging.Logger.manager
        if self.loggers and len(manager.loggerDict) == self.known:
            return  # attached, and no logger made since
        self.known = len(manager.loggerDict)
        for name in (*THIRD_PARTY_LOGGERS, *list(manager.loggerDict)):
            if not name.startswith(THIRD_PARTY_LOGGERS) or not _is_family(name):
                continue
            logger = logging.getLogger(name)
            if self not in logger.filters:
                logger.addFilter(self)
                self.loggers.append(logger)

    def detach(self) -> None:
        for logger in self.loggers:
            logger.removeFilter(self)
        self.loggers.clear()
        self.known = -1


def _is_family(name: str) -> bool:
    """``name`` is one of :data:`THIRD_PARTY_LOGGERS` or a child of one (not ``httpxyz``)."""
    return any(name == root or name.startswith(root + ".") for root in THIRD_PARTY_LOGGERS)


_CALLS = _CallRedaction()


@contextlib.contextmanager
def redacted_logs(secrets: Iterable[str | None] = ()) -> Iterator[None]:
    """While the block runs, the HTTP and LLM libraries' log records carry no key.

    For summem's own requests (the LLM clients enter it around each call): nested and
    concurrent calls share one filter, which knows every running call's ``secrets``, and the
    last one out removes it.
    """
    known = [s for s in secrets if s and len(s) >= 4]
    with _CALLS.lock:
        _CALLS.calls += 1
        _CALLS.counts.update(known)
        _CALLS.secrets = tuple(+_CALLS.counts)
        _CALLS.attach()  # on every entry: loggers made since (a library imported late) too
    try:
        yield
    finally:
        with _CALLS.lock:
            _CALLS.calls -= 1
            _CALLS.counts.subtract(known)
            _CALLS.counts = +_CALLS.counts  # drop the counts that reached zero
            _CALLS.secrets = tuple(_CALLS.counts)
            if _CALLS.calls == 0:
                _CALLS.detach()
