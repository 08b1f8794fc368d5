"""Every error summem raises, under one root.

Catch :class:`SummemError` to handle anything summem raises; catch a subclass to handle one
kind of failure. Errors that are also a builtin kind (``ValueError``, ``KeyError``,
``ImportError``, ``TypeError``, ``RuntimeError``) subclass it too, so existing ``except``
clauses keep working. No message or ``repr`` here ever carries an API key (invariant I6)::

    SummemError
    ├── ConfigurationError            (also ValueError) bad settings, found at construction
    ├── MissingDependencyError        (also ImportError) an optional extra is not installed
    ├── MessageValidationError        (also ValueError) not valid chat-completions input
    │   ├── MessageTypeError          (also TypeError) a value JSON cannot hold (an object...)
    │   └── HistoryMismatchError      a resent list that echoes a summary no longer current
    ├── PromptError                   a prompt file is unreadable or invalid
    ├── DispatchError                 a reduction job is malformed or cannot be published
    ├── LLMError                      a provider call failed (.provider, .model, .status_code)
    │   ├── LLMTransientError         408/409/429/5xx/timeouts: the only thing retried
    │   ├── LLMAuthenticationError    a missing, invalid or refused API key: never retried
    │   ├── LLMRetryError             retries exhausted (.attempts, .last_exception)
    │   └── ContextWindowExceededError  the request did not fit the model's context
    ├── ReductionError                a reduction could not be completed
    │   └── SummarizationError        the summarizer failed or its reply was rejected
    │       ├── InvalidSummaryError   the reply failed validation (empty, truncated, too long...)
    │       └── SpendLimitError       a spend limit is exhausted and no step without an LLM is left
    └── StoreError                    a store could not read or write a session
        ├── SessionNotFoundError      (also KeyError) no such session
        ├── InvalidSessionIdError     (also ValueError) None, empty, or otherwise unusable id
        ├── SessionClosedError        (also RuntimeError) the memory or session was closed
        ├── ConflictError             a compare-and-set lost: the session moved meanwhile
        ├── StoreOutcomeUnknownError  a write may or may not have landed (a reply was lost)
        ├── LeaseHeldError            another worker holds the session's reduction lease
        ├── SchemaVersionError        the stored schema is one this summem cannot use
        └── CorruptRecordError        a stored record cannot be decoded (names the session)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "ConfigurationError",
    "ConflictError",
    "ContextWindowExceededError",
    "CorruptRecordError",
    "DispatchError",
    "HistoryMismatchError",
    "InvalidSessionIdError",
    "InvalidSummaryError",
    "LLMAuthenticationError",
    "LLMError",
    "LLMRetryError",
    "LLMTransientError",
    "LeaseHeldError",
    "MessageTypeError",
    "MessageValidationError",
    "MissingDependencyError",
    "PromptError",
    "ReductionError",
    "SchemaVersionError",
    "SessionClosedError",
    "SessionNotFoundError",
    "SpendLimitError",
    "StoreError",
    "StoreOutcomeUnknownError",
    "SummarizationError",
    "SummemError",
]


class SummemError(Exception):
    """Root of every error summem raises."""


class ConfigurationError(SummemError, ValueError):
    """Settings that cannot work together, found when the object is built."""


class MissingDependencyError(SummemError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(f"{package!r} is required for this feature: pip install 'summem[{extra}]'")


class MessageValidationError(SummemError, ValueError):
    """A message is not valid chat-completions input.

    Attributes:
        index: position of the bad message in the batch (``None`` for a single message).
        field: the offending field, e.g. ``"tool_call_id"`` or ``"content[1].type"``.
    """

    def __init__(self, reason: str, *, index: int | None = None, field: str | None = None) -> None:
        self.index = index
        self.field = field
        self.reason = reason
        where = "message" if index is None else f"message {index}"
        if field:
            where += f", field {field!r}"
        super().__init__(f"{where}: {reason}")


class MessageTypeError(MessageValidationError, TypeError):
    """A message holds a value or key of a type JSON cannot hold (an object, bytes...).

    Also a ``TypeError``, as ``json.dumps`` raises for it.
    """


class HistoryMismatchError(MessageValidationError):
    """A message list passed again cannot tell whether it is the conversation or new messages.

    The list starts like the recorded conversation, then differs from it at ``index`` (its
    position in the list passed, the message's role in the text), but nothing in it shows that
    it is the whole conversation edited or cut short (a model's reply in its place) rather than
    new messages. Nothing was recorded. Pass ``mode="full"`` to take the list as the
    conversation (it branches at the first difference, see ``Memory.branch``) or ``mode="new"``
    to record every message passed as new.
    """


class PromptError(SummemError):
    """A prompt file cannot be loaded: bad YAML, wrong type, missing or unknown placeholder."""


class LLMError(SummemError):
    """A call to a model failed.

    Attributes:
        provider: e.g. ``"openai"``, ``"anthropic"``.
        model: the model name the call used.
        status_code: the HTTP status, when there was a response.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.status_code = status_code
        super().__init__(message)


class LLMTransientError(LLMError):
    """A failure worth retrying: 408, 409, 429, 5xx, connection errors and timeouts.

    Attributes:
        retry_after: seconds the provider asked us to wait (``Retry-After``), if it said.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, provider=provider, model=model, status_code=status_code)
        self.retry_after = retry_after


class LLMAuthenticationError(LLMError):
    """The provider refused the credentials, or none were given: never retried."""


class LLMRetryError(LLMError):
    """Retries are exhausted (attempt limit or deadline).

    Attributes:
        attempts: how many calls were made.
        last_exception: the error of the last attempt.
    """

    def __init__(self, message: str, *, attempts: int, last_exception: BaseException) -> None:
        last = last_exception if isinstance(last_exception, LLMError) else None
        super().__init__(
            message,
            provider=last.provider if last else None,
            model=last.model if last else None,
            status_code=last.status_code if last else None,
        )
        self.attempts = attempts
        self.last_exception = last_exception


class ContextWindowExceededError(LLMError):
    """The request was larger than the model's context window; never retried as is."""


class ReductionError(SummemError):
    """A reduction could not be completed; nothing was committed."""


class SummarizationError(ReductionError):
    """The summarizer failed (after its retries) or its reply was rejected.

    Attributes:
        usage: what the failed attempt spent, summed over its calls: ``calls``,
            ``input_tokens``, ``output_tokens`` (empty when nothing was called).
        cost_usd: what those calls cost, when priced (``None``: not priced yet).
    """

    def __init__(
        self,
        message: str,
        *,
        usage: dict[str, int] | None = None,
        cost_usd: float | None = None,
    ) -> None:
        super().__init__(message)
        self.usage: dict[str, int] = dict(usage or {})
        self.cost_usd = cost_usd


class InvalidSummaryError(SummarizationError):
    """A summary failed validation: empty, truncated, refused, too long or not smaller."""


class SpendLimitError(SummarizationError):
    """A spend limit is exhausted and the summarizer has no step that needs no LLM."""


class StoreError(SummemError):
    """A store could not read or write a session."""


class SessionNotFoundError(StoreError, KeyError):
    """No session with this id exists in the store."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain message.
        return str(self.args[0]) if self.args else "session not found"


class InvalidSessionIdError(StoreError, ValueError):
    """A session id that cannot be used: not a string, empty, too long, control characters."""


class SessionClosedError(StoreError, RuntimeError):
    """A closed memory, session or store refuses a call.

    Also a ``RuntimeError``, as the Agents SDK's own sessions raise once closed.
    """


class ConflictError(StoreError):
    """A compare-and-set lost: the session changed since it was read; nothing was written."""


class StoreOutcomeUnknownError(StoreError):
    """A write may or may not have been applied: its outcome is unknown.

    The store's reply was lost (a dropped connection, a timeout after the command was sent)
    or the commit itself failed. Reading the session tells what happened. Appends are
    idempotent by message id on every store, so adding the same messages again is safe:
    ``Memory.add`` and ``Memory.extend`` put the messages they tried to store, with their ids,
    in ``messages``; pass them again (``memory.extend(error.messages)``) and nothing is stored
    twice.

    Attributes:
        operation: the store operation, e.g. ``"append"`` or ``"commit"``.
        messages: the messages whose append is in doubt, with their ids (may be empty).
    """

    def __init__(self, message: str, *, operation: str, messages: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.operation = operation
        self.messages: list[Any] = list(messages)  # summem.messages.Message (no import here)


class LeaseHeldError(StoreError):
    """Another worker holds this session's reduction lease."""


class SchemaVersionError(StoreError):
    """The store's data has a schema version this summem cannot use as it is.

    Either it is newer than this summem knows and not compatible with it (a rollback past the
    versions a migration declared safe: upgrade summem again, or restore the backup taken
    before the migration), or it is older and must be migrated where that cannot happen (a
    read-only database). The message names both versions and what to do.

    Attributes:
        stored: the schema version of the data.
        known: the newest schema version this summem knows.
        compatible: the oldest schema version that may use the data, as its newest migration
            declared (``None`` when the data does not say).
    """

    def __init__(self, message: str, *, stored: int, known: int, compatible: int | None) -> None:
        super().__init__(message)
        self.stored = stored
        self.known = known
        self.compatible = compatible


class CorruptRecordError(StoreError):
    """A stored record cannot be decoded; the message names the session and the record."""


class DispatchError(SummemError):
    """A reduction job could not be built, read or handed to the task engine.

    Raised for a job that is not a valid :class:`~summem.fleet.ReductionJob` (naming the
    field), or by a dispatcher that cannot publish one. The memory never raises it from a
    turn: a turn that cannot publish says so with a ``DispatchFailed`` event and goes on.
    """
