"""Memory around litellm's completion functions (or any function taking ``messages``).

memory = Memory("user-42")
completion = wrap_completion(litellm.completion, memory)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from summem.errors import ConfigurationError
from summem.wrappers.turn import (
    TurnOptions,
    async_call,
    check_memory,
    check_pair,
    clearing_edit,
    is_coroutine_function,
    sync_call,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.reducers.style import ViewStyle
    from summem.session.recorded import Mode
    from summem.wrappers.cache import BreakpointPlace

__all__ = ["wrap_completion"]

FnT = TypeVar("FnT", bound=Callable[..., Any])


def wrap_completion(
    fn: FnT,
    memory: Memory | AsyncMemory,
    *,
    mode: Mode = "auto",
    style: ViewStyle | None = None,
    recall: bool = False,
    cache_breakpoints: Sequence[BreakpointPlace] | None = None,
    reply_as_text: bool | None = None,
    clear_tool_uses: bool | Mapping[str, Any] = False,
) -> FnT:
    """Wrap a completion function: ``litellm.completion`` + ``Memory``, or the async pair.

    Any function taking ``messages`` (by keyword, or in its parameter's position) and
    returning a chat completion works (an async one with ``AsyncMemory``). The result keeps
    ``fn``'s signature for type checkers. ``mode``, ``style``, ``recall`` and
    ``cache_breakpoints`` are as for :func:`~summem.wrappers.openai.wrap_openai`: both habits
    (only the new messages, or the whole conversation each call) work by default. A reply
    stored with only a ``refusal`` or ``audio`` is sent with that text as its content to a
    model litellm routes elsewhere than OpenAI or Azure, or cannot route (the others drop a
    turn with no content; the call's ``custom_llm_provider`` and ``api_base`` count); what is
    stored does not change. ``reply_as_text=True`` always does so, ``False`` never; so does a
    ``style`` (this one, else the memory's) that sets ``ViewStyle(reply_as_text=...)``.

    ``clear_tool_uses``: on calls litellm routes to Anthropic, let the server clear old tool
    results (context editing, ``clear_tool_uses_20250919``; a mapping is the edit's settings,
    e.g. ``{"keep": {"type": "tool_uses", "value": 3}}``) instead of summem's masking: the
    view goes with the stored tool results, which keeps the request's prefix stable for the
    prompt cache, and the edit is added to ``context_management``. Other routes keep summem's
    stubs; history and recall are unchanged either way.

    Raises:
        ConfigurationError: ``fn`` is not callable, ``memory`` is not a summem memory, or an
            async function with a sync memory (or the other way round), or
            ``clear_tool_uses`` is neither a bool nor a mapping.
    """
    if not callable(fn):
        raise ConfigurationError(
            "wrap_completion needs a completion function such as litellm.completion (or "
            f"litellm.acompletion), got {type(fn).__name__}; for an openai client, use "
            "wrap_openai"
        )
    check_memory(memory, wrapper="wrap_completion")
    clearing = clearing_edit(clear_tool_uses)
    is_async = is_coroutine_function(fn)
    check_pair(is_async, memory, fn_name=getattr(fn, "__name__", type(fn).__name__))
    options = TurnOptions(
        mode=mode,
        style=style,
        recall=recall,
        cache_breakpoints=cache_breakpoints,
        reply_text="auto" if reply_as_text is None else reply_as_text,
        routed=True,
        clear_tool_uses=clearing,
    )
    if is_async:
        return cast(FnT, async_call(fn, cast("AsyncMemory", memory), options))
    return cast(FnT, sync_call(fn, cast("Memory", memory), options))
