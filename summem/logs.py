"""Keeping API keys out of every log line, the third parties' included.

summem's own errors and logs never carry a key (invariant I6), but other libraries' DEBUG logs
can: httpcore logs request headers, litellm logs whole requests. summem cannot own those
loggers; it can redact what they write. :func:`install_log_redaction` does it for every logger
in the process (it rewrites each log record as it is created); :class:`RedactingFilter` does it
for one handler. Both mask key-shaped tokens, ``Bearer`` and ``api_key=`` values, and the
values of the environment's own secret variables (``OPENAI_API_KEY``...). The ``summem``
command line installs it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from summem._secrets import environment_secrets, redact

__all__ = ["RedactingFilter", "install_log_redaction", "redact_record"]

_installed = False
_lock = threading.Lock()


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Replace ``record``'s message (format applied) with its redacted text."""
    try:
        message = record.getMessage()
    except Exception:  # a broken format: leave it to the handler to report
        return record
    cleaned = redact(message, environment_secrets())
    if cleaned != message or record.args:
        record.msg, record.args = cleaned, None
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
