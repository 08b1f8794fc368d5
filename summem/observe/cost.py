"""What a summarizer call cost, from the price map litellm ships inside its package.

The map (``model_prices_and_context_window_backup.json``) is read from litellm's installed
files, never downloaded, and without importing litellm (which takes seconds): it is parsed
once, the first time a call with a model is priced. A model the map does not know costs
``0.0`` (and :func:`price_per_token` says ``None``).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import os
from typing import Any

__all__ = ["PRICE_MAP_FILE", "cost_usd", "price_per_token"]

logger = logging.getLogger("summem")

PRICE_MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.lru_cache(maxsize=1)
def _price_map() -> dict[str, Any]:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = os.path.join(folder, PRICE_MAP_FILE)  # not pathlib: off the import path
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as file:
                    data = json.loads(file.read())
            except (OSError, ValueError) as exc:
                logger.warning("litellm's price map %s is unreadable: %s", path, exc)
                return {}
            return data if isinstance(data, dict) else {}
    logger.warning("litellm's price map was not found: summarizer costs are reported as 0")
    return {}


@functools.lru_cache(maxsize=256)
def price_per_token(model: str) -> tuple[float, float] | None:
    """``(input, output)`` USD per token for ``model``, or ``None`` if the map lacks it.

    ``provider/model`` names are tried whole, then without the provider.
    """
    prices = _price_map()
    names = [model]
    if "/" in model:
        names.append(model.split("/", 1)[1])
    for name in names:
        entry = prices.get(name)
        if isinstance(entry, dict):
            inp = entry.get("input_cost_per_token")
            out = entry.get("output_cost_per_token")
            if isinstance(inp, (int, float)) or isinstance(out, (int, float)):
                return float(inp or 0.0), float(out or 0.0)
    return None


def cost_usd(model: str | None, input_tokens: int, output_tokens: int) -> float:
    """What ``input_tokens`` in and ``output_tokens`` out cost on ``model`` (0 if unknown)."""
    if not model or not (input_tokens or output_tokens):
        return 0.0
    prices = price_per_token(model)
    if prices is None:
        return 0.0
    return input_tokens * prices[0] + output_tokens * prices[1]
