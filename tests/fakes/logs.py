"""Every log record at DEBUG, captured: what a debugging application's logging shows."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager

# the loggers of the SDKs and HTTP stacks summem drives (both majors of openai's HTTP stack)
NAMES = (
    "LiteLLM",
    "LiteLLM Router",
    "LiteLLM Proxy",
    "litellm",
    "openai",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "hpack",
)


@contextmanager
def every_log_at_debug() -> Iterator[io.StringIO]:
    """A root handler at DEBUG and those loggers at DEBUG; levels and handlers restored after."""
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    before = root.level
    levels = {name: logging.getLogger(name).level for name in NAMES}
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for name in NAMES:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield buf
    finally:
        root.removeHandler(handler)
        root.setLevel(before)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
