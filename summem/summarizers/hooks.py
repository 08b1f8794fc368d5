"""The application's say over summaries: vet one before it is committed, redact before summarizing.

A **validator** sees the summary a summarizer wrote (and the request it answered) and may veto
it: it returns ``None`` to accept, or a reason (a string) to reject; nothing is committed on a
reject, as with summem's own checks. It may be a plain function, or an object with
``validate`` and/or an ``async def avalidate`` (for a moderation API, say): the sync driver
calls ``validate``, the async one ``avalidate`` when there is one.

A **redactor** rewrites the text of the evicted messages before any summarizer reads them (to
mask PII, say): the stored history is never changed, only what the summarizer is given.
:func:`redact_pii` is a built-in one for card numbers (Luhn-checked), e-mail addresses and
phone numbers.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from summem._flow import Flow
from summem._message_checks import stored_values
from summem.errors import ConfigurationError
from summem.messages import Message

if TYPE_CHECKING:
    from summem._secrets import redact_pii

__all__ = [
    "AsyncSummaryValidator",
    "Redactor",
    "SummaryValidator",
    "ValidatorLike",
    "redact_messages",
    "redact_on_read",
    "redact_pii",
    "run_validator",
]


@runtime_checkable
class SummaryValidator(Protocol):
    """Vets a summary: ``None`` accepts it, a string is the reason it is rejected."""

    def validate(self, summary: str, request: Any) -> str | None:
        """Check ``summary`` (the text, without summem's prefix) against ``request``."""
        ...


@runtime_checkable
class AsyncSummaryValidator(Protocol):
    """A validator that awaits (a moderation service...); used by the async driver."""

    async def avalidate(self, summary: str, request: Any) -> str | None:
        """See :meth:`SummaryValidator.validate`."""
        ...


ValidatorLike = SummaryValidator | AsyncSummaryValidator | Callable[[str, Any], "str | None"]
Redactor = Callable[[str], str]
"""Rewrites a message's text before a summarizer reads it."""


@dataclass(frozen=True)
class _ValidatorStep:
    """One validator call, as a flow step: ``run`` for the sync driver, ``arun`` for async."""

    validator: ValidatorLike
    summary: str
    request: Any

    def run(self) -> str | None:
        if isinstance(self.validator, SummaryValidator):
            return self.validator.validate(self.summary, self.request)
        if isinstance(self.validator, AsyncSummaryValidator):
            raise ConfigurationError(
                f"validator {self.validator!r} is async only (avalidate): use AsyncMemory or "
                "areduce(), or give it a validate() method"
            )
        return self.validator(self.summary, self.request)

    async def arun(self) -> str | None:
        if isinstance(self.validator, AsyncSummaryValidator):
            verdict: Awaitable[str | None] = self.validator.avalidate(self.summary, self.request)
            return await verdict
        return self.run()


def run_validator(validator: ValidatorLike, summary: str, request: Any) -> Flow[str | None]:
    """The validator's verdict, from whichever driver runs the flow."""
    verdict: str | None = yield _ValidatorStep(validator, summary, request)
    return verdict


def redact_messages(messages: Sequence[Message], redactor: Redactor) -> tuple[Message, ...]:
    """Copies of ``messages`` (same ids) whose text went through ``redactor``."""
    out: list[Message] = []
    for msg in messages:
        data = msg.to_openai()
        content = data.get("content")
        if isinstance(content, str):
            data["content"] = redactor(content)
        elif isinstance(content, list):
            data["content"] = [
                {**p, "text": redactor(str(p["text"]))} if p.get("type") == "text" else p
                for p in content
            ]
        for call in data.get("tool_calls") or []:
            fn = call.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                fn["arguments"] = redactor(fn["arguments"])
        with stored_values():  # only text changed: the rest is what summem holds already
            out.append(Message.from_openai(data, id=msg.id))
    return tuple(out)


class _RedactedOnRead(Sequence[Message]):
    """Messages redacted the first time one of them is read (see :func:`redact_on_read`)."""

    __slots__ = ("_done", "_len", "_lock", "_messages", "_redactor")

    def __init__(self, messages: Sequence[Message], redactor: Redactor) -> None:
        self._messages: tuple[Message, ...] = tuple(messages)
        self._len = len(self._messages)
        self._redactor = redactor
        self._done: tuple[Message, ...] | None = None
        self._lock = threading.Lock()  # two readers at once: one pass, never a half state

    def _redacted(self) -> tuple[Message, ...]:
        done = self._done
        if done is None:
            with self._lock:
                done = self._done
                if done is None:
                    done = self._done = redact_messages(self._messages, self._redactor)
                    self._messages = ()  # the unredacted ones are let go
        return done

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, index: Any) -> Any:
        return self._redacted()[index]

    def __iter__(self) -> Iterator[Message]:
        return iter(self._redacted())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._redacted() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._redacted())

    def __repr__(self) -> str:
        return repr(self._redacted())

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self._redacted(),))  # copied or pickled: the redacted messages


def redact_on_read(messages: Sequence[Message], redactor: Redactor) -> Sequence[Message]:
    """``messages`` as :func:`redact_messages` returns them, redacted only once read.

    The length is known without redacting; the first element read, iteration, comparison,
    ``repr``, copy or pickle redacts them all (once), and nothing unredacted is ever handed
    out. For context a summarizer may ignore (``SummaryRequest.kept``): one that never reads
    it costs no redaction pass.
    """
    return _RedactedOnRead(messages, redactor)


def __getattr__(name: str) -> Any:
    """``redact_pii`` loads on first use (its patterns are not needed to import a memory)."""
    if name == "redact_pii":
        from summem._secrets import redact_pii

        return redact_pii
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
