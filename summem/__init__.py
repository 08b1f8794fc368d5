"""summem: a summarizing memory engine for long-running LLM assistants.

The top level holds what a first program needs: the memories, the reducers, the summarizers,
the wrappers, the config and the store opener, and the root of every error. The rest lives
where it belongs: errors in :mod:`summem.errors`, events in :mod:`summem.events`, stores in
:mod:`summem.stores`, spend limits and OpenTelemetry in :mod:`summem.observe`, message helpers
in :mod:`summem.messages`, integrations in :mod:`summem.integrations`.

Names are loaded on first use, so ``import summem`` stays light: the stores, the summarizers,
the CLI and the SDKs they use load only when asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names
from summem._version import __version__

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.config import load_config
    from summem.errors import SummemError
    from summem.memory import Memory
    from summem.reducers.style import ViewStyle
    from summem.reducers.summarization import SummarizationReducer
    from summem.reducers.truncation import TruncationReducer
    from summem.retry import RetryPolicy
    from summem.stores import open_store
    from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
    from summem.summarizers.extractive import ExtractiveSummarizer
    from summem.summarizers.llm import LLMSummarizer
    from summem.wrappers import wrap_completion, wrap_openai

__all__ = [
    "AsyncMemory",
    "ExtractiveSummarizer",
    "FallbackSummarizer",
    "LLMSummarizer",
    "Memory",
    "RetryPolicy",
    "SummarizationReducer",
    "SummemError",
    "TruncatingSummarizer",
    "TruncationReducer",
    "ViewStyle",
    "__version__",
    "load_config",
    "open_store",
    "wrap_completion",
    "wrap_openai",
]

_WHERE: dict[str, str] = {
    "AsyncMemory": "summem.async_memory",
    "ExtractiveSummarizer": "summem.summarizers.extractive",
    "FallbackSummarizer": "summem.summarizers.chain",
    "LLMSummarizer": "summem.summarizers.llm",
    "Memory": "summem.memory",
    "RetryPolicy": "summem.retry",
    "SummarizationReducer": "summem.reducers.summarization",
    "SummemError": "summem.errors",
    "TruncatingSummarizer": "summem.summarizers.chain",
    "TruncationReducer": "summem.reducers.truncation",
    "ViewStyle": "summem.reducers.style",
    "load_config": "summem.config",
    "open_store": "summem.stores",
    "wrap_completion": "summem.wrappers",
    "wrap_openai": "summem.wrappers",
}
"""Where each public name lives (loaded by :func:`__getattr__` on first use)."""

__getattr__, __dir__ = _lazy_names(globals(), _WHERE)
