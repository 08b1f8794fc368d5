"""The warning that a reducer's hard limit leaves no room for background reduction.

In background mode the view may run over the threshold while a summary is being written, up to
the hard limit; a turn past the hard limit waits for the summarizer. When the hard limit is
less than one typical turn above the threshold (a model whose context window barely exceeds
the threshold: gpt-4's 8,192 tokens with an 8,000 threshold), the turn that crosses the
threshold crosses the hard limit too, and waits the whole summarizer call: background mode
then buys nothing. That is right (the model cannot take more), but worth saying once:
:func:`warn_if_no_headroom` logs a WARNING on the ``summem`` logger, once per reducer, naming
the model's window and the setting to change.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

__all__ = ["TYPICAL_TURN", "headroom_problem", "warn_if_no_headroom"]

logger = logging.getLogger("summem")

TYPICAL_TURN = {"tokens": 1_000, "messages": 2}
"""One typical turn, by budget unit: a user message and a reply with a tool call or two."""


def headroom_problem(reducer: Any) -> str | None:
    """Why ``reducer``'s hard limit is less than one typical turn above its threshold.

    ``None`` when it leaves enough, or when the reducer has no hard limit.
    """
    hard = getattr(reducer, "hard_limit", None)
    unit = getattr(reducer, "unit", None)
    if not isinstance(hard, int) or unit not in TYPICAL_TURN:
        return None
    threshold, turn = reducer.threshold, TYPICAL_TURN[unit]
    if hard - threshold >= turn:
        return None
    room = f"leaves {hard - threshold} {unit} above threshold_{unit}={threshold}"
    waits = (
        f"less than one typical turn ({turn} {unit}): in background mode the turn that crosses "
        "the threshold waits for the whole summarizer call"
    )
    if getattr(reducer, "_hard_limit_given", False):
        return (
            f"hard_limit_{unit}={hard} {room}, {waits}; raise hard_limit_{unit} (budget.hard_limit "
            f"in a config file) to at least {threshold + turn}, or lower threshold_{unit}"
        )
    from summem.tokens.windows import context_window

    model = getattr(reducer, "_model", None)
    found = context_window(model) if unit == "tokens" and model else None
    if found is None:
        where = f"the hard limit ({hard}, twice the threshold)"
    else:
        window, _ = found
        where = (
            f"the hard limit ({hard}: model {model!r} has a context window of {window} tokens, "
            "less a reserve for the reply)"
        )
    return (
        f"{where} {room}, {waits}; lower threshold_{unit} (budget.threshold in a config file) "
        f"to at most {max(1, hard - turn)}, with its target and soft threshold below it, or "
        "use a model with a larger window"
    )


def warn_if_no_headroom(reducer: Any) -> None:
    """Log :func:`headroom_problem` as a WARNING, once per reducer."""
    if getattr(reducer, "_headroom_checked", False):
        return
    with contextlib.suppress(AttributeError):  # one that takes no attributes: every time
        reducer._headroom_checked = True
    problem = headroom_problem(reducer)
    if problem is not None:
        logger.warning("%s", problem)
