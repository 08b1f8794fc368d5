"""Memory around an openai client: ``chat.completions`` through the memory, in two lines.

    memory = Memory("user-42")
    client = wrap_openai(OpenAI(), memory)       # or wrap_completion(litellm.completion, memory)

The application then passes only the *new* messages; summem records them, sends the whole view
(system message, rolling summary, recent turns), records the reply (tool calls included, and
the provider's usage in the reply's ``meta``) and reduces when due. A system message passed
again with the same content is ignored; with new content it replaces the old one.

Streaming works: the reply is recorded once its finishing chunk (and the usage chunk, when
asked for) has been read; a stream abandoned before its finish records nothing (see
:mod:`summem.wrappers.stream`). New messages are recorded before the call: if the call fails
they stay in the session (they were said), the provider's exception reaches the application
unchanged, and calling again with ``messages=[]`` resends the view.

The wrapped client is typed as the client it wraps, so editors and type checkers see the SDK's
own signatures. Through memory go ``chat.completions.create``, ``.parse`` and ``.stream``, and
``responses.create``, ``.parse`` and ``.stream`` (see :mod:`summem.wrappers.responses`), also
after ``with_options(...)``; everything else is the wrapped client's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from summem.errors import ConfigurationError
from summem.wrappers.responses import MemoryResponses
from summem.wrappers.turn import (
    TurnOptions,
    as_coroutine_function,
    async_call,
    check_memory,
    check_pair,
    is_coroutine_function,
    sync_call,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.reducers.style import ViewStyle
    from summem.session.recorded import Mode
    from summem.wrappers.cache import BreakpointPlace

__all__ = ["MemoryClient", "wrap_openai"]

ClientT = TypeVar("ClientT")

_STREAM_HELPER = "stream"  # the SDK's ``chat.completions.stream(...)``: a manager of events


class _Completions:
    def __init__(self, completions: Any, memory: Any, is_async: bool, options: TurnOptions) -> None:
        self._completions = completions
        for name in ("create", "parse", _STREAM_HELPER):
            method = getattr(completions, name, None)
            if method is None:
                continue
            helper = name == _STREAM_HELPER
            if is_async:
                coroutine = method if helper else as_coroutine_function(method)
                wrapped = async_call(coroutine, memory, options, helper=helper)
            else:
                wrapped = sync_call(method, memory, options, helper=helper)
            setattr(self, name, wrapped)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)


class _Chat:
    def __init__(self, chat: Any, memory: Any, is_async: bool, options: TurnOptions) -> None:
        self._chat = chat
        self.completions = _Completions(chat.completions, memory, is_async, options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


class MemoryClient:
    """An openai client whose chat completions go through a memory.

    ``chat.completions.create``, ``.parse`` and ``.stream`` send the view and record the reply;
    so do ``responses.create``, ``.parse`` and ``.stream``, with the view as Responses items
    (see :mod:`summem.wrappers.responses`);
    ``with_options(...)`` and ``copy(...)`` return a client wrapped around the same memory;
    everything else (``models``, ``embeddings``, ``api_key``...) is the wrapped client's.
    """

    def __init__(self, client: Any, memory: Any, options: TurnOptions | None = None) -> None:
        self._client = client
        self.memory = memory
        self._options = options or TurnOptions()
        is_async = _is_async_client(client)
        self.chat = _Chat(client.chat, memory, is_async, self._options)
        if getattr(client, "responses", None) is not None:
            self.responses = MemoryResponses(client.responses, memory, is_async, self._options)

    def with_options(self, *args: Any, **kwargs: Any) -> MemoryClient:
        """The wrapped client's ``with_options``, still around this memory."""
        return MemoryClient(self._client.with_options(*args, **kwargs), self.memory, self._options)

    def copy(self, *args: Any, **kwargs: Any) -> MemoryClient:
        """The wrapped client's ``copy``, still around this memory."""
        return MemoryClient(self._client.copy(*args, **kwargs), self.memory, self._options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"MemoryClient({type(self._client).__name__}, session={self._session()!r})"

    def _session(self) -> Any:
        return getattr(self.memory, "session_id", None)


def wrap_openai(
    client: ClientT,
    memory: Memory | AsyncMemory,
    *,
    mode: Mode = "auto",
    style: ViewStyle | None = None,
    recall: bool = False,
    cache_breakpoints: Sequence[BreakpointPlace] | None = None,
) -> ClientT:
    """Put ``memory`` around an openai client: ``OpenAI`` + ``Memory``, or the async pair.

    The result is a :class:`MemoryClient`, typed as ``client``'s own class so that editors and
    type checkers keep the SDK's signatures.

    Args:
        client: an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (or Azure's) client.
        memory: a ``Memory`` for a sync client, an ``AsyncMemory`` for an async one.
        mode: how the ``messages`` passed are read: ``"auto"`` takes both habits (only the new
            messages, or the whole conversation each time); ``"new"`` records every message
            passed; ``"full"``: the list is the whole conversation (it branches at its first
            difference from the recorded one; see ``Memory.record``).
        style: how the view is rendered for the server (e.g. ``ViewStyle.compat()`` for
            llama.cpp, ``ViewStyle.strict()`` for chat templates that need alternation); the
            memory's own style by default.
        recall: offer the model the recall tool (``memory.recall_tool()``) on every chat
            completions request that is not streamed (not on ``responses``), and answer its
            calls from the history without returning to the application: the call and its
            results are recorded, the model is asked again (at most 3 rounds, the last with
            ``tool_choice="none"``), and the final response is returned. A reply that also
            calls the application's own tools is returned as it is, with the recall calls
            already answered.
        cache_breakpoints: where to put ``cache_control`` prompt-cache breakpoints, among
            ``"system"``, ``"summary"`` and ``"last"`` (recomputed on every request, at most
            four in all); by default all three for Anthropic (``claude``) models and none for
            others; ``()`` turns them off. See :mod:`summem.wrappers.cache`.

    Raises:
        ConfigurationError: not an openai client, not a summem memory, or an async client with
            a sync memory (or the other way round).
    """
    if not callable(
        getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    ):
        raise ConfigurationError(
            "wrap_openai needs an openai.OpenAI or openai.AsyncOpenAI client (an object with "
            f"chat.completions.create), got {type(client).__name__}; for a completion "
            "function such as litellm.completion, use wrap_completion"
        )
    check_memory(memory, wrapper="wrap_openai")
    check_pair(_is_async_client(client), memory, fn_name=type(client).__name__)
    return cast(
        ClientT,
        MemoryClient(
            client,
            memory,
            TurnOptions(
                mode=mode,
                style=style,
                recall=recall,
                cache_breakpoints=tuple(cache_breakpoints)
                if cache_breakpoints is not None
                else None,
            ),
        ),
    )


def _is_async_client(client: Any) -> bool:
    return is_coroutine_function(getattr(client.chat.completions, "create", None))
