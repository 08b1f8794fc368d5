"""summem: a summarizing memory engine for long-running LLM assistants."""

from typing import TYPE_CHECKING, Any

from summem.clients.base import ChatRequest, ChatResponse, LLMClient
from summem.clients.litellm import LiteLLMClient
from summem.config import SummemConfig, load_config
from summem.exceptions import (
    ConfigurationError,
    ConflictError,
    ContextWindowExceededError,
    CorruptRecordError,
    InvalidSessionIdError,
    InvalidSummaryError,
    LeaseHeldError,
    LLMError,
    LLMRetryError,
    LLMTransientError,
    MessageValidationError,
    MissingDependencyError,
    PromptError,
    ReductionError,
    SessionNotFoundError,
    StoreError,
    SummarizationError,
    SummemError,
)
from summem.memory import AsyncMemory, Memory
from summem.messages import Message, SummaryInfo, assistant, system, tool, user
from summem.prompts import PromptTemplate, load_prompt
from summem.reducers.base import ReduceResult
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.retry import RetryPolicy
from summem.stores import (
    AsyncInMemoryStore,
    AsyncRedisStore,
    AsyncSQLiteStore,
    AsyncStore,
    InMemoryStore,
    RedisStore,
    SQLiteStore,
    Store,
    open_async_store,
    open_store,
)
from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
from summem.summarizers.extractive import ExtractiveSummarizer
from summem.summarizers.llm import LLMSummarizer
from summem.tokens import ApproxCounter, TokenCounter, resolve_counter
from summem.wrappers import wrap_completion, wrap_openai

if TYPE_CHECKING:
    from summem.clients.openai import OpenAIClient

__version__ = "0.1.0"

__all__ = [
    "ApproxCounter",
    "AsyncInMemoryStore",
    "AsyncMemory",
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
    "InMemoryStore",
    "InvalidSessionIdError",
    "InvalidSummaryError",
    "LLMClient",
    "LLMError",
    "LLMRetryError",
    "LLMSummarizer",
    "LLMTransientError",
    "LeaseHeldError",
    "LiteLLMClient",
    "Memory",
    "Message",
    "MessageValidationError",
    "MissingDependencyError",
    "OpenAIClient",
    "PromptError",
    "PromptTemplate",
    "RedisStore",
    "ReduceResult",
    "ReductionError",
    "RetryPolicy",
    "SQLiteStore",
    "SessionNotFoundError",
    "Store",
    "StoreError",
    "SummarizationError",
    "SummarizationReducer",
    "Summarizer",
    "SummaryInfo",
    "SummaryOutput",
    "SummaryRequest",
    "SummemConfig",
    "SummemError",
    "TokenCounter",
    "TruncatingSummarizer",
    "TruncationReducer",
    "__version__",
    "assistant",
    "load_config",
    "load_prompt",
    "open_async_store",
    "open_store",
    "resolve_counter",
    "system",
    "tool",
    "user",
    "wrap_completion",
    "wrap_openai",
]


def __getattr__(name: str) -> Any:
    # OpenAIClient imports the openai SDK (half a second); load it only when asked for.
    if name == "OpenAIClient":
        from summem.clients.openai import OpenAIClient

        return OpenAIClient
    raise AttributeError(f"module 'summem' has no attribute {name!r}")
