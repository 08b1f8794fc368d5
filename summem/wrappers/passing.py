"""Stream proxies that pass a provider's stream through and record its reply once complete.

The wrappers hand the application the stream it asked for, and read along: each item is taken
into account as it goes by, and the reply is recorded once it is complete (see
:mod:`summem.wrappers.stream` for chat-completion chunks, :mod:`summem.wrappers.responses` for
Responses events). What an item means is written once per kind of stream, without I/O
(``_took``); :class:`Passing` and :class:`AsyncPassing` are the two drivers that read the
stream and run the recording an item makes due, and :class:`Managed` / :class:`AsyncManaged`
the two ``with`` blocks around the SDKs' stream managers.

Every step that drives the SDK (reading an item, closing, entering and leaving a manager, the
SDK's ``get_final_*``) runs inside :func:`summem.logs.redacted_logs` with the secrets of the
call that made the stream (``_secrets``, set by :func:`summem.wrappers.quiet.quieted`): the
SDK and its transport log while a stream is read, and a manager sends its request when it is
entered. Each step is a scope of its own, so a stream left unclosed holds no filter.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from summem.logs import redacted_logs

__all__ = ["AsyncManaged", "AsyncPassing", "Managed", "Passing", "Proxy", "Quieted"]


class Quieted:
    """Something that drives the SDK for a call, inside that call's log redaction."""

    _secrets: tuple[str, ...] = ()
    """The secrets of the call (its client's key, secret headers and query parameters...)."""

    def _quiet(self) -> AbstractContextManager[None]:
        """One step driving the SDK: no key in the HTTP and LLM libraries' logs meanwhile."""
        return redacted_logs(self._secrets)


class Proxy(Quieted):
    """Everything not defined here is the wrapped object's (``response``, ``close``...)."""

    _inner: Any

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Passing(Proxy):
    """A sync stream passed through; each item is taken into account as it goes by.

    Subclasses say, without I/O, what an item means (:meth:`_took`: the recording it makes
    due, if any); this class and :class:`AsyncPassing` are the two drivers that read the
    stream and run that recording, so each kind of stream is written once for both.
    """

    _iter: Iterator[Any] | None = None

    def _took(self, item: Any) -> Callable[[], Any] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _cut(self) -> None:
        """The stream failed while it was read (nothing to do by default)."""

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> Any:
        try:
            with self._quiet():
                if self._iter is None:
                    self._iter = iter(self._inner)
                item = next(self._iter)
        except StopIteration:
            self.finish()
            raise
        except BaseException:
            self._cut()
            raise
        recording = self._took(item)
        if recording is not None:
            recording()
        return item

    def finish(self) -> None:  # pragma: no cover - abstract
        """Record what is complete, unless recorded already (once)."""
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the underlying stream, recording what is complete (once)."""
        self.finish()
        close = getattr(self._inner, "close", None)
        if callable(close):
            with self._quiet():
                close()


class AsyncPassing(Proxy):
    """The async twin of :class:`Passing` (the same ``_took`` and ``_cut``)."""

    _iter: AsyncIterator[Any] | None = None

    def _took(self, item: Any) -> Callable[[], Any] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _cut(self) -> None:
        """The stream failed while it was read (nothing to do by default)."""

    def __aiter__(self) -> Any:
        return self

    async def __anext__(self) -> Any:
        try:
            with self._quiet():
                if self._iter is None:
                    self._iter = self._inner.__aiter__()
                item = await self._iter.__anext__()
        except StopAsyncIteration:
            await self.finish()
            raise
        except BaseException:
            self._cut()
            raise
        recording = self._took(item)
        if recording is not None:
            await recording()
        return item

    async def finish(self) -> None:  # pragma: no cover - abstract
        """Record what is complete, unless recorded already (once)."""
        raise NotImplementedError

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the underlying stream, recording what is complete (once)."""
        await self.finish()
        close = getattr(self._inner, "close", None)
        if callable(close):
            with self._quiet():
                result = close()
                if inspect.isawaitable(result):
                    await result

    async def aclose(self) -> None:
        """:meth:`close` (openai's ``AsyncStream.aclose`` is its alias)."""
        await self.close()


class Managed(Quieted):
    """``with manager as stream``: leaving records what is complete, then the SDK's manager.

    ``_open`` makes the recording stream over the SDK's (it sends its request when entered).
    """

    _inner: Any
    _stream: Passing | None = None

    def _open(self, stream: Any) -> Passing:  # pragma: no cover - abstract
        raise NotImplementedError

    def __enter__(self) -> Any:
        with self._quiet():
            inner = self._inner.__enter__()
        self._stream = self._open(inner)
        self._stream._secrets = self._secrets
        return self._stream

    def __exit__(self, *exc: Any) -> Any:
        try:
            if self._stream is not None:
                self._stream.finish()
        finally:
            with self._quiet():
                result = self._inner.__exit__(*exc)
        return result


class AsyncManaged(Quieted):
    """The async twin of :class:`Managed` (``__aenter__`` sets ``_inner`` and ``_stream``)."""

    _inner: Any
    _stream: AsyncPassing | None = None

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            if self._stream is not None:
                await self._stream.finish()
        finally:
            with self._quiet():
                result = await self._inner.__aexit__(*exc)
        return result
