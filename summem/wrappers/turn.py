"""One wrapped call is one turn: record the new messages, send the view, record the reply.

Shared by every wrapper (openai clients, litellm's functions), sync and async: the new messages
are found in the call's arguments (``messages=`` or its position), recorded, replaced by the
memory's view, and the reply (tool calls included, with the provider's usage in its ``meta``)
is recorded once the call returns, or once a stream has delivered the whole reply (see
:mod:`summem.wrappers.stream`). New messages are recorded before the call: if the call fails
they stay in the session (they were said), and calling again with ``messages=[]`` resends the
view. The reply, once the provider has sent it, is never lost to the application: a
reduction the recorded reply sets off that fails (``fail_on_error``) does not fail the call (it
is logged and kept in ``memory.last_error``, and a later turn tries again), since the reply is
stored and calling again would pay for a second one.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from summem.errors import ConfigurationError, ReductionError
from summem.logs import redacted_logs
from summem.recall.names import RECALL_TOOL_NAME
from summem.reducers.style import (
    ViewStyle,
    apply_style,
    audio_transcripts,
    expired_audio_as_text,
)
from summem.session.readonly import thaw
from summem.session.recorded import Mode
from summem.wrappers.cache import (
    DEFAULT_BREAKPOINTS,
    BreakpointPlace,
    check_breakpoints,
    is_claude,
    with_breakpoints,
)
from summem.wrappers.pairing import paired_for_provider
from summem.wrappers.quiet import acall_quietly, call_quietly, quieted, secrets_of
from summem.wrappers.stream import (
    AsyncRecord,
    AsyncRecordingEventStreamManager,
    AsyncRecordingStream,
    RecordingEventStreamManager,
    RecordingStream,
    reply_message,
    request_form,
    usage_of,
)

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.formats.compaction import Provider
    from summem.memory import Memory
    from summem.messages import Message

__all__ = [
    "TurnOptions",
    "as_coroutine_function",
    "async_call",
    "check_pair",
    "is_coroutine_function",
    "keep_reply",
    "keep_reply_async",
    "park",
    "reply_text_needed",
    "settle",
    "settle_async",
    "sync_call",
]

logger = logging.getLogger("summem")


def keep_reply(store: Callable[[], object]) -> None:
    """Record a reply the provider sent; a reduction failing after it is stored is not raised.

    The reply is in the session by then: raising would hide the response the application
    paid for, and calling again would record a second reply. The memory logged the failure
    and keeps it in ``last_error``; the next turn tries the reduction again.
    """
    with contextlib.suppress(ReductionError):
        store()


async def keep_reply_async(store: Callable[[], Awaitable[object]]) -> None:
    """The async twin of :func:`keep_reply`."""
    with contextlib.suppress(ReductionError):
        await store()


def _messages_position(fn: Callable[..., Any]) -> int | None:
    """Where ``messages`` sits among ``fn``'s positional parameters (litellm: second)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for i, param in enumerate(params):
        if param.kind not in positional:
            return None
        if param.name == "messages":
            return i
    return None


def _split(
    args: tuple[Any, ...], kwargs: dict[str, Any], position: int | None
) -> tuple[list[Any], Callable[[list[dict[str, Any]]], tuple[tuple[Any, ...], dict[str, Any]]]]:
    """The new messages, and how to put the view in their place (positional or keyword)."""
    positional = position is not None and len(args) > position
    new = args[position] if positional and position is not None else kwargs.get("messages", [])
    if not isinstance(new, (list, tuple)):
        raise ConfigurationError("messages must be a list of the new chat-completions messages")

    def with_view(view: list[dict[str, Any]]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if positional and position is not None:
            return (*args[:position], view, *args[position + 1 :]), kwargs
        return args, {**kwargs, "messages": view}

    return list(new), with_view


@dataclass(frozen=True)
class TurnOptions:
    """How a wrapped call reads its messages and renders the view.

    Attributes:
        mode: how the list passed is read (see :meth:`summem.memory.Memory.record`).
        style: how the view is rendered for the provider (the memory's own by default).
    """

    mode: Mode = "auto"
    style: ViewStyle | None = None
    recall: bool = False
    recall_rounds: int = 3
    cache_breakpoints: Sequence[BreakpointPlace] | None = None
    """Where ``cache_control`` goes (see :mod:`summem.wrappers.cache`): ``None``, the system
    message, the summary and the last message for Anthropic models and nothing for others;
    ``()`` never."""
    reply_text: bool | Literal["auto"] = False
    """Send a reply carrying only a refusal or audio with it as its content: always, never, or
    (``"auto"``) unless litellm routes the call to OpenAI or Azure (see
    :func:`reply_text_needed`)."""
    clear_tool_uses: dict[str, Any] | None = None
    """The context-editing edit Anthropic routes get instead of summem's masking
    (:func:`clearing_edit`); ``None``: summem masks for every route."""
    routed: bool = False
    """The call goes through litellm: the provider it routes to decides which provider
    items (Anthropic's compaction blocks) the view keeps (see :func:`view_provider`)."""
    clock: Callable[[], float] = field(default=time.time, compare=False, repr=False)
    """Seconds since the epoch: an audio reply past its ``expires_at`` is sent as its
    transcript (see :func:`summem.reducers.style.expired_audio_as_text`). Tests inject it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_breakpoints", check_breakpoints(self.cache_breakpoints))
        if self.mode not in ("auto", "new", "full"):
            raise ConfigurationError(f"mode must be 'auto', 'new' or 'full', got {self.mode!r}")
        if not isinstance(self.recall_rounds, int) or self.recall_rounds < 1:
            raise ConfigurationError(f"recall_rounds must be at least 1: {self.recall_rounds!r}")


def _with_recall_tool(
    kwargs: dict[str, Any], schema: dict[str, Any], *, last_round: bool
) -> dict[str, Any]:
    """``kwargs`` offering the recall tool; on the last round, asking for no more tool calls."""
    tools = list(kwargs.get("tools") or [])
    if not any((t.get("function") or {}).get("name") == RECALL_TOOL_NAME for t in tools):
        tools.append(schema)
    out = {**kwargs, "tools": tools}
    if last_round and "tool_choice" not in kwargs:
        out["tool_choice"] = "none"
    return out


def _recall_calls(reply: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """The reply's calls to the recall tool, and whether it made no other calls."""
    calls = reply.get("tool_calls") or []
    ours = [c for c in calls if (c.get("function") or {}).get("name") == RECALL_TOOL_NAME]
    return ours, len(ours) == len(calls)


def _model_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The model a call names (``model=``, or litellm's first positional argument)."""
    model = kwargs.get("model", args[0] if args and isinstance(args[0], str) else None)
    return model if isinstance(model, str) else None


_KEEPS_REPLY_FIELDS = frozenset(("openai", "azure"))
"""litellm providers that take an assistant message's ``refusal`` and ``audio`` as they are."""
_TEXT_REPLIES = ViewStyle(reply_as_text=True)
_QUIET = threading.Lock()


def reply_text_needed(
    model: str | None, *, provider: str | None = None, api_base: str | None = None
) -> bool:
    """True unless litellm routes ``model`` to a provider known to take a reply with no content.

    litellm's Anthropic and Gemini routes (and other providers' that only read ``content``)
    drop an assistant turn that carries only a ``refusal`` or an ``audio`` reply; OpenAI and
    Azure take those fields. ``provider`` and ``api_base`` are the call's
    ``custom_llm_provider`` and ``api_base``, which litellm routes by too. A model litellm
    cannot route is taken to need it (text as content is accepted everywhere). Asked of
    litellm only when it is already imported (the wrapped function is litellm's); with no
    litellm, or no model, it is left alone. litellm's "Provider List" banner is not printed.
    """
    if sys.modules.get("litellm") is None or not isinstance(model, str):
        return False
    return _routed_elsewhere(
        model,
        provider if isinstance(provider, str) else None,
        api_base if isinstance(api_base, str) else None,
    )


@functools.lru_cache(maxsize=256)
def _routed_elsewhere(model: str, provider: str | None, api_base: str | None) -> bool:
    routed = _litellm_route(model, provider, api_base)
    return not (isinstance(routed, str) and routed in _KEEPS_REPLY_FIELDS)


CLEAR_TOOL_USES = "clear_tool_uses_20250919"
"""Anthropic's context-editing edit that clears old tool results server-side."""


def clearing_edit(setting: Any) -> dict[str, Any] | None:
    """The ``context_management`` edit ``clear_tool_uses=`` asks for (``None``: off).

    Raises:
        ConfigurationError: not a bool nor a mapping.
    """
    if setting is False:
        return None
    if setting is True:
        return {"type": CLEAR_TOOL_USES}
    if isinstance(setting, Mapping):
        return {**dict(setting), "type": CLEAR_TOOL_USES}
    raise ConfigurationError(
        f"clear_tool_uses must be True, False or a mapping of the edit's settings, got {setting!r}"
    )


def with_clearing(kwargs: dict[str, Any], edit: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with ``edit`` added to its Anthropic ``context_management`` edits."""
    current = kwargs.get("context_management")
    if isinstance(current, Mapping):
        edits = [*(current.get("edits") or ()), edit]
        return {**kwargs, "context_management": {**current, "edits": edits}}
    if isinstance(current, list):  # the OpenAI form (compaction entries): litellm maps it
        mapped = [
            {"type": "compact_20260112", **{k: v for k, v in e.items() if k != "type"}}
            if isinstance(e, Mapping) and e.get("type") == "compaction"
            else e
            for e in current
        ]
        for e in mapped:
            if isinstance(e, dict) and "compact_threshold" in e:
                e["trigger"] = {"type": "input_tokens", "value": e.pop("compact_threshold")}
        return {**kwargs, "context_management": {"edits": [*mapped, edit]}}
    return {**kwargs, "context_management": {"edits": [edit]}}


def view_provider(
    options: TurnOptions, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Provider | None:
    """Whose provider items the call's view keeps: ``"anthropic"`` when litellm routes it there.

    Anthropic's compaction blocks go back to Anthropic (litellm sends them first in their
    turn); any other route, and the openai client's chat completions, take none
    (:meth:`summem.Memory.messages`).
    """
    model = _model_of(args, kwargs)
    if not options.routed or sys.modules.get("litellm") is None or not isinstance(model, str):
        return None
    provider, api_base = kwargs.get("custom_llm_provider"), kwargs.get("api_base")
    routed = _litellm_route(
        model,
        provider if isinstance(provider, str) else None,
        api_base if isinstance(api_base, str) else None,
    )
    return "anthropic" if routed == "anthropic" else None


@functools.lru_cache(maxsize=256)
def _litellm_route(model: str, provider: str | None, api_base: str | None) -> str | None:
    """The provider litellm routes ``model`` to (``None``: it cannot route it)."""
    litellm = sys.modules["litellm"]
    with _QUIET:  # litellm prints its banner for a model it cannot route unless told not to
        quiet = litellm.suppress_debug_info
        setattr(litellm, "suppress_debug_info", True)  # noqa: B010 - not in its stubs
        try:
            routed = litellm.get_llm_provider(
                model=model, custom_llm_provider=provider, api_base=api_base
            )[1]
        except Exception:  # a model litellm cannot route: litellm will say so when called
            routed = None
        finally:
            setattr(litellm, "suppress_debug_info", quiet)  # noqa: B010
    return routed if isinstance(routed, str) else None


def _to_send(
    memory: Memory | AsyncMemory,
    view: list[dict[str, Any]],
    messages: list[Message],
    options: TurnOptions,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[list[dict[str, Any]], bool]:
    """The view as it goes out: plain copies, calls paired, ``cache_control`` if configured.

    ``messages``: the view's messages (``view`` is them rendered, perhaps styled). Each tool
    call goes out followed by its results (see :mod:`summem.wrappers.pairing`); the flag says
    whether that moved or left out a message (then the request no longer corresponds one to
    one with the view).
    """
    plain = expired_audio_as_text(thaw(view), messages, options.clock())
    model = _model_of(args, kwargs)
    style = options.style if options.style is not None else memory.style
    if options.reply_text is True or (
        options.reply_text == "auto"
        and (style is None or style.reply_as_text is None)  # a style that sets it wins
        and reply_text_needed(
            model, provider=kwargs.get("custom_llm_provider"), api_base=kwargs.get("api_base")
        )
    ):
        plain = apply_style(plain, _TEXT_REPLIES, transcripts=audio_transcripts(messages))
    sent = paired_for_provider(plain)
    repaired = len(sent) != len(plain) or any(a is not b for a, b in zip(sent, plain, strict=True))
    if repaired:
        logger.debug(
            "session %r: tool calls re-paired in the request (%d messages stored, %d sent)",
            memory.session_id,
            len(plain),
            len(sent),
        )
    places = options.cache_breakpoints
    if places is None:
        places = DEFAULT_BREAKPOINTS if is_claude(model) else ()
    if not places:
        return sent, repaired
    summary = memory.summary
    marked = with_breakpoints(sent, places, summary_text=summary.text if summary else None)
    return marked, repaired


def _note_sent(
    memory: Memory | AsyncMemory,
    view: list[Message],
    sent: list[dict[str, Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    one_to_one: bool,
) -> None:
    """Tell the memory which request goes out (a cache-reusing summarizer repeats it).

    ``one_to_one``: the request is the view message for message. A repaired one is not
    (see :mod:`summem.wrappers.pairing`): noted with no view, so no summarizer finds a span
    of the view in it by position.
    """
    model = _model_of(args, kwargs)
    if model is None:
        return
    memory.note_sent(
        sent,
        model=model,
        view=view if one_to_one else [],
        tools=kwargs.get("tools"),
        tool_choice=kwargs.get("tool_choice"),
        prompt_cache_key=kwargs.get("prompt_cache_key"),
    )


def park(memory: Memory | AsyncMemory) -> Callable[[Any], None]:
    """Where a stream puts its reply once complete (see ``stream``; ``responses`` too)."""
    return memory._parked_replies.append


def settle(memory: Memory) -> None:
    """Record the parked replies of streams (those that came to a finish, the rest stay out).

    The wrapped call after such a stream records its reply first (with the usage it got, or
    estimated), so that it comes before the new messages; a reply already recorded (its stream
    was read to the end or closed) is not recorded again.
    """
    for reply in memory._take_parked():
        reply.finish()


async def settle_async(memory: AsyncMemory) -> None:
    """The async twin of :func:`settle`."""
    for reply in memory._take_parked():
        await reply.finish()


def _asks_usage(kwargs: dict[str, Any]) -> bool:
    """Whether a streamed request asked for a usage chunk after the finishing one."""
    options = kwargs.get("stream_options")
    return isinstance(options, dict) and bool(options.get("include_usage"))


def _reply(message: dict[str, Any], usage: dict[str, Any] | None) -> Message:
    from summem.messages import MODEL_REPLY, Message

    message, meta = request_form(message)
    if usage:
        meta["usage"] = usage
    meta[MODEL_REPLY] = True  # proof, for record(), that a list resending it is the conversation
    return Message.from_openai(message).with_meta(**meta)


def sync_call(
    fn: Callable[..., Any], memory: Memory, options: TurnOptions, *, helper: bool = False
) -> Any:
    """``fn`` as one turn of ``memory`` (``helper``: ``fn`` returns a stream manager)."""
    position = _messages_position(fn)

    def call(*args: Any, **kwargs: Any) -> Any:
        new, with_view = _split(args, kwargs, position)
        settle(memory)
        memory.record(new, mode=options.mode)
        recall = options.recall and not helper and not kwargs.get("stream")
        tool = memory.recall_tool() if recall else None
        for round_no in range(1, options.recall_rounds + 2):
            view = memory.view()
            # plain copies: the provider's SDK may change what it is given (the view
            # is read-only)
            target = view_provider(options, args, kwargs)
            clearing = options.clear_tool_uses if target == "anthropic" else None
            rendered = memory.messages(
                style=options.style, provider=target, masked=clearing is None
            )
            sent, repaired = _to_send(memory, rendered, view, options, args, kwargs)
            repaired = repaired or memory.has_provider_items or clearing is not None
            call_args, call_kwargs = with_view(sent)
            if clearing is not None:
                call_kwargs = with_clearing(call_kwargs, clearing)
            if tool is not None:
                last = round_no > options.recall_rounds
                call_kwargs = _with_recall_tool(call_kwargs, tool.schema, last_round=last)
            _note_sent(memory, view, sent, call_args, call_kwargs, one_to_one=not repaired)

            def record(
                message: dict[str, Any], usage: dict[str, Any] | None, view: Any = view
            ) -> None:
                reply = _reply(message, usage or memory.estimate_usage(view, message))
                keep_reply(partial(memory.add, reply))

            response = call_quietly(fn, call_args, call_kwargs)
            expect_usage = _asks_usage(call_kwargs)
            if helper:
                manager = RecordingEventStreamManager(response, record, expect_usage=expect_usage)
                return quieted(manager, fn, call_kwargs)
            if call_kwargs.get("stream"):
                stream = RecordingStream(
                    response, record, expect_usage=expect_usage, on_waiting=park(memory)
                )
                return quieted(stream, fn, call_kwargs)
            reply = reply_message(response)
            if reply is not None:
                record(reply, usage_of(response))
            ours, only = _recall_calls(reply or {}) if tool is not None else ([], False)
            for c in ours:  # answered here, from history: the application never sees them
                answer = tool((c.get("function") or {}).get("arguments") or "{}")  # type: ignore[misc]
                result = {"role": "tool", "tool_call_id": c.get("id"), "content": answer}
                keep_reply(partial(memory.add, result))
            if not ours or not only:
                return response
        return response

    return call


def async_call(
    fn: Callable[..., Awaitable[Any]],
    memory: AsyncMemory,
    options: TurnOptions,
    *,
    helper: bool = False,
) -> Any:
    """The async twin of :func:`sync_call`."""
    position = _messages_position(fn)
    noted: list[tuple[list[Message], list[dict[str, Any]], bool]] = []  # the last view sent

    async def with_view_now(
        with_view: Callable[[list[dict[str, Any]]], tuple[tuple[Any, ...], dict[str, Any]]],
    ) -> tuple[tuple[Any, ...], dict[str, Any], AsyncRecord]:
        view = await memory.view()
        call_args, call_kwargs = with_view([])
        target = view_provider(options, call_args, call_kwargs)
        clearing = options.clear_tool_uses if target == "anthropic" else None
        rendered = await memory.messages(
            style=options.style, provider=target, masked=clearing is None
        )
        sent, repaired = _to_send(memory, rendered, view, options, call_args, call_kwargs)
        repaired = repaired or memory.has_provider_items or clearing is not None
        args, kwargs = with_view(sent)
        if clearing is not None:
            kwargs = with_clearing(kwargs, clearing)
        _note_sent(memory, view, sent, args, kwargs, one_to_one=not repaired)
        noted[-1:] = [(view, sent, not repaired)]

        async def record(message: dict[str, Any], usage: dict[str, Any] | None) -> None:
            reply = _reply(message, usage or memory.estimate_usage(view, message))
            await keep_reply_async(partial(memory.add, reply))

        return args, kwargs, record

    async def prepare(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any], AsyncRecord]:
        new, with_view = _split(args, kwargs, position)
        await settle_async(memory)
        await memory.record(new, mode=options.mode)
        return await with_view_now(with_view)

    async def acall(*args: Any, **kwargs: Any) -> Any:
        recall = options.recall and not kwargs.get("stream")
        tool = memory.recall_tool() if recall else None
        new, with_view = _split(args, kwargs, position)
        await settle_async(memory)
        await memory.record(new, mode=options.mode)
        for round_no in range(1, options.recall_rounds + 2):
            call_args, call_kwargs, record = await with_view_now(with_view)
            if tool is not None:
                last = round_no > options.recall_rounds
                call_kwargs = _with_recall_tool(call_kwargs, tool.schema, last_round=last)
                shown, sent, one_to_one = noted[-1]
                _note_sent(memory, shown, sent, call_args, call_kwargs, one_to_one=one_to_one)
            response = await acall_quietly(fn, call_args, call_kwargs)
            if call_kwargs.get("stream"):
                astream = AsyncRecordingStream(
                    response,
                    record,
                    expect_usage=_asks_usage(call_kwargs),
                    on_waiting=park(memory),
                )
                return quieted(astream, fn, call_kwargs)
            reply = reply_message(response)
            if reply is not None:
                await record(reply, usage_of(response))
            ours, only = _recall_calls(reply or {}) if tool is not None else ([], False)
            for c in ours:
                answer = await tool.acall((c.get("function") or {}).get("arguments") or "{}")  # type: ignore[union-attr]
                result = {"role": "tool", "tool_call_id": c.get("id"), "content": answer}
                await keep_reply_async(partial(memory.add, result))
            if not ours or not only:
                return response
        return response

    if not helper:
        return acall

    def open_stream(*args: Any, **kwargs: Any) -> _LazyManager:
        # ``AsyncCompletions.stream`` is a plain method returning an async context manager;
        # the memory is only touched once it is entered.
        return _LazyManager(fn, args, kwargs, prepare)

    return open_stream


class _LazyManager:
    """``async with``: record the new messages, then open the SDK's stream over the view."""

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        prepare: Callable[..., Awaitable[tuple[tuple[Any, ...], dict[str, Any], AsyncRecord]]],
    ) -> None:
        self._fn, self._args, self._kwargs, self._prepare = fn, args, kwargs, prepare
        self._manager: Any = None

    async def __aenter__(self) -> Any:
        args, kwargs, record = await self._prepare(self._args, self._kwargs)
        secrets = secrets_of(self._fn, kwargs)
        with redacted_logs(secrets):  # the SDK's manager, then its request, sent when entered
            inner = self._fn(*args, **kwargs)
        self._manager = AsyncRecordingEventStreamManager(
            inner, record, expect_usage=_asks_usage(kwargs)
        )
        self._manager._secrets = secrets
        return await self._manager.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._manager.__aexit__(*exc)


def check_memory(memory: Any, *, wrapper: str) -> None:
    """Refuse anything but a summem ``Memory`` or ``AsyncMemory`` (named by its type)."""
    if not (callable(getattr(memory, "record", None)) and callable(getattr(memory, "add", None))):
        raise ConfigurationError(
            f"{wrapper} needs a summem Memory or AsyncMemory as its memory, got "
            f"{type(memory).__name__}"
        )


def check_pair(is_async: bool, memory: Any, *, fn_name: str) -> None:
    """Refuse an async client with a sync memory, or the other way round."""
    if is_async != is_coroutine_function(getattr(memory, "add", None)):
        raise ConfigurationError(
            "a sync client needs a Memory and an async one an AsyncMemory (OpenAI with Memory, "
            f"AsyncOpenAI with AsyncMemory); got {fn_name} with {type(memory).__name__}"
        )


def is_coroutine_function(fn: Any) -> bool:
    """True for an ``async def`` function, also under the SDK's decorators."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(inspect.unwrap(fn))


def as_coroutine_function(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``fn`` as a plain ``async def`` function (SDK methods hide theirs under decorators)."""

    async def call(*args: Any, **kwargs: Any) -> Any:
        return await fn(*args, **kwargs)

    call.__wrapped__ = fn  # type: ignore[attr-defined]  # the SDK method's client, for its secrets
    return call
