"""A reducer's budget as a record in a session dict (``to_dict()``), and the reducer it rebuilds.

``Memory.from_dict`` without a ``reducer`` rebuilds the built-in reducer the record names, with
the recorded budget (and the default summarizer and token counter). A session made with a
reducer of the user's own records its class; resuming it needs that reducer passed again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from summem.errors import ConfigurationError
from summem.reducers.base import DEFAULT_THRESHOLD, BudgetReducer, Reducer
from summem.reducers.summarization import DEFAULT_SUMMARY_MAX_TOKENS, SummarizationReducer
from summem.reducers.truncation import TruncationReducer

__all__ = ["default_reducer", "reducer_from_record", "reducer_record"]


def default_reducer() -> SummarizationReducer:
    """The reducer a memory uses when given none: 8000 tokens down to 6000, extractive."""
    return SummarizationReducer(threshold_tokens=DEFAULT_THRESHOLD["tokens"])


def reducer_record(reducer: Reducer) -> dict[str, Any]:
    """What ``to_dict()`` records of ``reducer``."""
    if isinstance(reducer, BudgetReducer):
        return reducer.record()
    cls = type(reducer)
    return {
        "type": "custom",
        "class": f"{cls.__module__}.{cls.__qualname__}",
        "unit": reducer.unit,
        "threshold": reducer.threshold,
        "target": reducer.target,
    }


def reducer_from_record(record: object) -> Reducer:
    """The built-in reducer ``record`` describes (the default one when there is no record).

    Raises:
        ConfigurationError: a custom reducer's record (it cannot be rebuilt), or a bad budget.
    """
    if not isinstance(record, Mapping):
        return default_reducer()
    kind = record.get("type")
    if kind == "custom":
        raise ConfigurationError(
            f"the session was made with a custom reducer ({record.get('class')}); "
            "pass reducer= to resume it"
        )
    unit = record.get("unit", "tokens")
    budget: dict[str, Any] = {
        f"threshold_{unit}": record.get("threshold"),
        f"target_{unit}": record.get("target"),
    }
    for key in ("mask_tool_results_after", "mask_min_tokens", "mask_exempt_tools"):
        if record.get(key) is not None:
            budget[key] = record[key]
    if kind == "truncation":
        return TruncationReducer(**budget)
    if record.get("soft_threshold") is not None:
        budget[f"soft_threshold_{unit}"] = record["soft_threshold"]
    if record.get("hard_limit") is not None:
        budget[f"hard_limit_{unit}"] = record["hard_limit"]
    if record.get("summary_role") is not None:
        budget["summary_role"] = record["summary_role"]
    if record.get("summary_fill") is not None:
        budget["summary_fill"] = record["summary_fill"]
    return SummarizationReducer(
        summary_max_tokens=record.get("summary_max_tokens", DEFAULT_SUMMARY_MAX_TOKENS), **budget
    )
