"""What the framework integrations share: the view taken apart, tool arguments as JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from summem._message_checks import check_values, load_json
from summem.errors import MessageValidationError, MissingDependencyError

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message
    from summem.reducers.view import SummaryPlacement

__all__ = ["dump_arguments", "load_arguments", "missing", "placement_of", "split_head"]


def missing(package: str, extra: str, exc: ImportError) -> MissingDependencyError:
    """The error raised when an integration's framework is not installed."""
    err = MissingDependencyError(package, extra)
    err.__cause__ = exc
    return err


def split_head(view: list[Message]) -> tuple[Message | None, Message | None, list[Message]]:
    """``(system, summary, tail)`` of a memory's view (``[system] + [summary]? + tail``)."""
    rest = list(view)
    system = rest.pop(0) if rest and rest[0].is_system else None
    summary = rest.pop(0) if rest and rest[0].is_summary else None
    return system, summary, rest


def placement_of(memory: Memory | AsyncMemory) -> SummaryPlacement:
    """Where the memory's reducer puts its summary (its own message when it has no say)."""
    placement = getattr(memory.reducer, "summary_placement", "after_system")
    return placement if isinstance(placement, str) else "after_system"  # type: ignore[return-value]


def dump_arguments(args: Any, *, field: str = "arguments") -> str:
    """A tool call's arguments as the JSON text chat-completions carries.

    Raises:
        MessageValidationError: the arguments (the model's) are not a value summem accepts:
            too deep, an integer too long, not JSON (``field`` names them).
    """
    check_values({field: args}, None)
    return json.dumps(args, ensure_ascii=False)


def load_arguments(text: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """``(arguments, None)`` for a JSON object, else ``(None, why not)``."""
    try:
        value = load_json(text or "{}", field="arguments")
    except MessageValidationError as exc:
        return None, f"arguments are not JSON: {exc.reason}"
    if not isinstance(value, dict):
        return None, "arguments are not a JSON object"
    return value, None
