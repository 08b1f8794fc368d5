"""summem: a summarizing memory engine for long-running LLM assistants.

Everything public is importable from here. Names are loaded on first use, so ``import summem``
stays light: the stores, the summarizers, the CLI and the SDKs they use load only when asked.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from summem._version import __version__

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.clients.base import ChatRequest, ChatResponse, LLMClient
    from summem.clients.litellm import LiteLLMClient
    from summem.clients.openai import OpenAIClient
    from summem.config import SummemConfig, load_config
    from summem.exceptions import (
        ConfigurationError,
        ConflictError,
        ContextWindowExceededError,
        CorruptRecordError,
        HistoryMismatchError,
        InvalidSessionIdError,
        InvalidSummaryError,
        LeaseHeldError,
        LLMAuthenticationError,
        LLMError,
        LLMRetryError,
        LLMTransientError,
        MessageValidationError,
        MissingDependencyError,
        PromptError,
        ReductionError,
        SchemaVersionError,
        SessionNotFoundError,
        SpendLimitError,
        StoreError,
        StoreOutcomeUnknownError,
        SummarizationError,
        SummemError,
    )
    from summem.integrations.agents import SummemSession
    from summem.logs import install_log_redaction
    from summem.memory import Memory
    from summem.messages import Message, SummaryInfo, assistant, system, tool, user
    from summem.observe.events import (
        MemoryEvent,
        ReductionCommitted,
        ReductionFailed,
        ReductionPlanned,
        ReductionSkipped,
        ReductionStarted,
        SessionCleared,
        SpendLimitReached,
        StoreConflictRetried,
        SummarizerCalled,
        SummaryRecomputed,
        SummaryRejected,
        SummaryRolledBack,
    )
    from summem.observe.otel import OpenTelemetryHook
    from summem.observe.spend import SpendLimit
    from summem.prompts import PromptTemplate, load_prompt
    from summem.recall import RecallHit, RecallTool
    from summem.reducers.base import ReduceResult
    from summem.reducers.loop_guard import LoopGuard, ReductionsPaused
    from summem.reducers.style import ViewStyle
    from summem.reducers.summarization import SummarizationReducer
    from summem.reducers.truncation import TruncationReducer
    from summem.retry import RetryPolicy
    from summem.stores import (
        AsyncInMemoryStore,
        AsyncPostgresStore,
        AsyncRedisStore,
        AsyncSQLiteStore,
        AsyncStore,
        InMemoryStore,
        PostgresStore,
        RedisStore,
        SQLiteStore,
        Store,
        open_async_store,
        open_store,
    )
    from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
    from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
    from summem.summarizers.extractive import ExtractiveSummarizer
    from summem.summarizers.hooks import redact_pii
    from summem.summarizers.llm import LLMSummarizer
    from summem.tokens import ApproxCounter, TokenCounter, resolve_counter
    from summem.wrappers import wrap_completion, wrap_openai

__all__ = [
    "ApproxCounter",
    "AsyncInMemoryStore",
    "AsyncMemory",
    "AsyncPostgresStore",
    "AsyncRedisStore",
    "AsyncSQLiteStore",
    "AsyncStore",
    "ChatRequest",
    "ChatResponse",
    "ConfigurationError",
    "ConflictError",
    "ContextWindowExceededError",
    "CorruptRecordError",
    "ExtractiveSummarizer",
    "FallbackSummarizer",
    "HistoryMismatchError",
    "InMemoryStore",
    "InvalidSessionIdError",
    "InvalidSummaryError",
    "LLMAuthenticationError",
    "LLMClient",
    "LLMError",
    "LLMRetryError",
    "LLMSummarizer",
    "LLMTransientError",
    "LeaseHeldError",
    "LiteLLMClient",
    "LoopGuard",
    "Memory",
    "MemoryEvent",
    "Message",
    "MessageValidationError",
    "MissingDependencyError",
    "OpenAIClient",
    "OpenTelemetryHook",
    "PostgresStore",
    "PromptError",
    "PromptTemplate",
    "RecallHit",
    "RecallTool",
    "RedisStore",
    "ReduceResult",
    "ReductionCommitted",
    "ReductionError",
    "ReductionFailed",
    "ReductionPlanned",
    "ReductionSkipped",
    "ReductionStarted",
    "ReductionsPaused",
    "RetryPolicy",
    "SQLiteStore",
    "SchemaVersionError",
    "SessionCleared",
    "SessionNotFoundError",
    "SpendLimit",
    "SpendLimitError",
    "SpendLimitReached",
    "Store",
    "StoreConflictRetried",
    "StoreError",
    "StoreOutcomeUnknownError",
    "SummarizationError",
    "SummarizationReducer",
    "Summarizer",
    "SummarizerCalled",
    "SummaryInfo",
    "SummaryOutput",
    "SummaryRecomputed",
    "SummaryRejected",
    "SummaryRequest",
    "SummaryRolledBack",
    "SummemConfig",
    "SummemError",
    "SummemSession",
    "TokenCounter",
    "TruncatingSummarizer",
    "TruncationReducer",
    "ViewStyle",
    "__version__",
    "assistant",
    "install_log_redaction",
    "load_config",
    "load_prompt",
    "open_async_store",
    "open_store",
    "redact_pii",
    "resolve_counter",
    "system",
    "tool",
    "user",
    "wrap_completion",
    "wrap_openai",
]

_WHERE: dict[str, str] = {
    "ApproxCounter": "summem.tokens",
    "AsyncInMemoryStore": "summem.stores",
    "AsyncMemory": "summem.async_memory",
    "AsyncPostgresStore": "summem.stores",
    "AsyncRedisStore": "summem.stores",
    "AsyncSQLiteStore": "summem.stores",
    "AsyncStore": "summem.stores",
    "ChatRequest": "summem.clients.base",
    "ChatResponse": "summem.clients.base",
    "ConfigurationError": "summem.exceptions",
    "ConflictError": "summem.exceptions",
    "ContextWindowExceededError": "summem.exceptions",
    "CorruptRecordError": "summem.exceptions",
    "ExtractiveSummarizer": "summem.summarizers.extractive",
    "FallbackSummarizer": "summem.summarizers.chain",
    "HistoryMismatchError": "summem.exceptions",
    "InMemoryStore": "summem.stores",
    "InvalidSessionIdError": "summem.exceptions",
    "InvalidSummaryError": "summem.exceptions",
    "LLMAuthenticationError": "summem.exceptions",
    "LLMClient": "summem.clients.base",
    "LLMError": "summem.exceptions",
    "LLMRetryError": "summem.exceptions",
    "LLMSummarizer": "summem.summarizers.llm",
    "LLMTransientError": "summem.exceptions",
    "LeaseHeldError": "summem.exceptions",
    "LiteLLMClient": "summem.clients.litellm",
    "Memory": "summem.memory",
    "MemoryEvent": "summem.observe.events",
    "Message": "summem.messages",
    "MessageValidationError": "summem.exceptions",
    "MissingDependencyError": "summem.exceptions",
    "OpenAIClient": "summem.clients.openai",
    "OpenTelemetryHook": "summem.observe.otel",
    "PostgresStore": "summem.stores",
    "PromptError": "summem.exceptions",
    "PromptTemplate": "summem.prompts",
    "RecallHit": "summem.recall",
    "RecallTool": "summem.recall",
    "RedisStore": "summem.stores",
    "ReduceResult": "summem.reducers.base",
    "ReductionCommitted": "summem.observe.events",
    "ReductionsPaused": "summem.reducers.loop_guard",
    "LoopGuard": "summem.reducers.loop_guard",
    "ReductionError": "summem.exceptions",
    "ReductionFailed": "summem.observe.events",
    "ReductionPlanned": "summem.observe.events",
    "ReductionSkipped": "summem.observe.events",
    "ReductionStarted": "summem.observe.events",
    "RetryPolicy": "summem.retry",
    "SQLiteStore": "summem.stores",
    "SessionCleared": "summem.observe.events",
    "SchemaVersionError": "summem.exceptions",
    "SessionNotFoundError": "summem.exceptions",
    "SpendLimit": "summem.observe.spend",
    "SpendLimitError": "summem.exceptions",
    "SpendLimitReached": "summem.observe.events",
    "Store": "summem.stores",
    "StoreConflictRetried": "summem.observe.events",
    "StoreError": "summem.exceptions",
    "StoreOutcomeUnknownError": "summem.exceptions",
    "SummarizationError": "summem.exceptions",
    "SummarizationReducer": "summem.reducers.summarization",
    "Summarizer": "summem.summarizers.base",
    "SummarizerCalled": "summem.observe.events",
    "SummaryInfo": "summem.messages",
    "SummaryOutput": "summem.summarizers.base",
    "SummaryRecomputed": "summem.observe.events",
    "SummaryRejected": "summem.observe.events",
    "SummaryRequest": "summem.summarizers.base",
    "SummaryRolledBack": "summem.observe.events",
    "SummemConfig": "summem.config",
    "SummemError": "summem.exceptions",
    "TokenCounter": "summem.tokens",
    "TruncatingSummarizer": "summem.summarizers.chain",
    "TruncationReducer": "summem.reducers.truncation",
    "ViewStyle": "summem.reducers.style",
    "assistant": "summem.messages",
    "install_log_redaction": "summem.logs",
    "load_config": "summem.config",
    "load_prompt": "summem.prompts",
    "open_async_store": "summem.stores",
    "open_store": "summem.stores",
    "redact_pii": "summem.summarizers.hooks",
    "resolve_counter": "summem.tokens",
    "system": "summem.messages",
    "tool": "summem.messages",
    "user": "summem.messages",
    "wrap_completion": "summem.wrappers",
    "wrap_openai": "summem.wrappers",
    "SummemSession": "summem.integrations.agents",
}
"""Where each public name lives (loaded by :func:`__getattr__` on first use)."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'summem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
