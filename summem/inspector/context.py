"""What every page handler is given: the opened store, the budget, the search, the lock.

And the two ways a request goes wrong, each answered with its own status and message.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from summem.inspector.recall import Recall
from summem.inspector.settings import Budget
from summem.inspector.source import Source

__all__ = ["BadRequestError", "Inspector", "NotFoundError"]


class BadRequestError(Exception):
    """A request parameter is wrong (answered with 400 and this message)."""


class NotFoundError(Exception):
    """What the request names does not exist (answered with 404 and this message)."""


@dataclass
class Inspector:
    """What the app serves: the opened store, the budget, the optional token."""

    source: Source
    budget: Budget
    recall: Recall
    token: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Store calls are serialised: one user, and a sync store is not shared across threads."""
