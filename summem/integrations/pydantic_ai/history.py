"""``SummemHistory``: a pydantic-ai run's messages followed into a memory, the view sent.

See :mod:`summem.integrations.pydantic_ai`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from summem.errors import ConfigurationError
from summem.integrations._shared import missing
from summem.integrations._window import RecordedKeys, Window, follow_any, shown
from summem.session.recorded import fingerprint

try:
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.messages import CompactionPart, ModelMessage, ModelRequest, ModelResponse
    from pydantic_ai.tools import RunContext  # at run time: pydantic-ai reads processor() hints
except ImportError as exc:  # pragma: no cover - exercised with the package hidden
    raise missing("pydantic-ai", "pydantic-ai", exc) from exc

from summem.integrations.pydantic_ai.messages import (
    META_KEY,
    SUMMARY_KEY,
    from_pydantic_ai,
    to_pydantic_ai,
)

if TYPE_CHECKING:
    from pydantic_ai.agent import AbstractAgent, AgentRunResult
    from pydantic_ai.models import ModelRequestContext

    from summem.async_memory import AsyncMemory
    from summem.memory import Memory
    from summem.messages import Message
    from summem.session.recorded import Mode

__all__ = ["SummemHistory", "message_key", "refuse_history_rewrites"]

# -- the capability -------------------------------------------------------------------------


def message_key(message: Message) -> tuple[str, Any]:
    """A recorded message's key: pydantic-ai's form of it, and what a provider sees of it.

    pydantic-ai's form carries the timestamps: a response whole, a request's message by its
    own parts (pydantic-ai merges neighbouring requests, which changes their envelope).
    """
    extra = message.meta.get(META_KEY) or {}
    own = extra.get("response", extra.get("parts"))
    return json.dumps(own, sort_keys=True, default=str), fingerprint(message)


_USE_ONE = (
    "both compact the conversation and neither sees the other's; use one of them: "
    "SummemHistory with summem delegating to OpenAI (SummarizationReducer(summem.summarizers."
    "OpenAICompaction(client, model=...)), whose item pydantic-ai sends, with a readable twin "
    "beside it), or pydantic-ai's OpenAICompaction() in its stateful mode (token_threshold: "
    "OpenAI compacts server-side, and SummemHistory keeps the item and writes its twin)"
)


def _stateless_compaction(capability: Any) -> bool:
    """Whether ``capability`` is pydantic-ai's ``OpenAICompaction`` in its stateless mode."""
    try:
        from pydantic_ai.models.openai import OpenAICompaction
    except ImportError:  # pragma: no cover - pydantic-ai without the openai extra
        return False
    return isinstance(capability, OpenAICompaction) and bool(capability.stateless)


def refuse_history_rewrites(messages: Sequence[ModelMessage]) -> None:
    """Refuse a run whose messages another capability compacted (replaced) itself.

    pydantic-ai's stateless ``OpenAICompaction`` replaces the run's messages with the response
    of ``/responses/compact`` (stamped ``provider_details["compaction"]``), and a summary a
    capability writes (Pydantic AI Harness's ``SummarizingCompaction``) is a ``CompactionPart``
    in a request: either way the run's history no longer is the conversation, and following it
    would branch the memory at every compaction. summem's own summary and delegated
    compaction (marked in their ``metadata``) are not refused.

    Raises:
        ConfigurationError: naming the message and both compactors.
    """
    for i, message in enumerate(messages):
        if SUMMARY_KEY in (message.metadata or {}):
            continue
        if isinstance(message, ModelRequest) and any(
            isinstance(p, CompactionPart) for p in message.parts
        ):
            raise ConfigurationError(
                f"message {i} of the run is a summary a capability wrote (a CompactionPart in a "
                "request, as Pydantic AI Harness's SummarizingCompaction writes), which "
                "replaced the run's messages: it and SummemHistory both summarize the "
                "conversation; use one of them"
            )
        if isinstance(message, ModelResponse) and (message.provider_details or {}).get(
            "compaction"
        ):
            raise ConfigurationError(
                f"message {i} of the run is a /responses/compact result that replaced the run's "
                "messages (pydantic-ai's OpenAICompaction in its stateless mode): it and "
                f"SummemHistory {_USE_ONE}"
            )


def _this_run_only(messages: Sequence[ModelMessage], run_id: str | None) -> bool:
    """True when every message came from the run ``run_id`` (it was given no history)."""
    return run_id is not None and all(m.run_id == run_id for m in messages)


@dataclass
class SummemHistory(AbstractCapability[Any]):
    """A pydantic-ai capability that sends the model a summem memory's bounded view.

    Args:
        memory: the session's :class:`~summem.Memory` (its calls run in a worker thread) or
            :class:`~summem.AsyncMemory`; both work with ``run`` and ``run_sync``.
        resume: a run given no ``message_history`` (pydantic-ai passes ``[]`` for both
            ``None`` and ``[]``, so they cannot be told apart) continues the memory's
            conversation, the memory supplying the past: on by default, it is what the memory
            is for. A new conversation is explicit: ``resume=False`` (such a run then starts
            one, as in plain pydantic-ai, the recorded conversation kept as a branch at 0),
            ``memory.branch(0)`` before the run, or a new session id. A non-empty
            ``message_history`` is read as the conversation either way: an earlier one
            (a regenerate, an edit) branches.
        mode: ``None`` (default): the run's messages are the conversation, and a history
            that differs from what is recorded branches the session (see the module).
            ``"auto"``, ``"new"`` or ``"full"``: read them by content as
            :meth:`summem.Memory.record` does instead.
    """

    memory: Memory | AsyncMemory
    resume: bool = field(default=True, kw_only=True)
    mode: Mode | None = field(default=None, kw_only=True)
    _recorded: RecordedKeys = field(default_factory=RecordedKeys, init=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(getattr(self.memory, "view", None)):
            raise ConfigurationError(f"SummemHistory needs a summem Memory, got {self.memory!r}")

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not part of agent specs: it holds a live memory."""
        return None

    def for_agent(self, agent: AbstractAgent[Any, Any]) -> SummemHistory:
        """Refuse, when the agent is built, a capability that compacts the run's messages itself.

        Raises:
            ConfigurationError: pydantic-ai's ``OpenAICompaction`` in its stateless mode is
                among the agent's capabilities (its server-side mode is welcome: see the
                module).
        """
        found: list[Any] = []
        root = getattr(agent, "root_capability", None)
        if root is not None:
            root.apply(lambda c: found.append(c) if _stateless_compaction(c) else None)
        if found:
            raise ConfigurationError(
                "pydantic-ai's OpenAICompaction in its stateless mode (message_count_threshold "
                "or trigger) replaces the run's messages with a /responses/compact result, and "
                f"SummemHistory sends summem's view instead of them: they {_USE_ONE}"
            )
        return self

    async def _follow(self, messages: Sequence[ModelMessage], run_id: str | None) -> Window | None:
        refuse_history_rewrites(messages)
        incoming = _without_summary(from_pydantic_ai(messages), self.memory)
        if self.mode is not None:
            await _record(self.memory, incoming, self.mode)
            return None
        resumed = self.resume and _this_run_only(messages, run_id)
        return await follow_any(self.memory, self._recorded, incoming, message_key, resume=resumed)

    async def bound(
        self, messages: list[ModelMessage], run_id: str | None = None
    ) -> list[ModelMessage]:
        """Record ``messages`` (a run's, ``run_id``); return the view as pydantic-ai messages.

        Messages the list no longer holds from its start on (a processor before this one
        dropped them) are not in what it returns.
        """
        window = await self._follow(messages, run_id)
        view = await _view(self.memory)
        return to_pydantic_ai(view if window is None else shown(view, window))

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """Send the view instead of the run's messages (the run keeps its own)."""
        messages = list(request_context.messages)
        request_context.messages = await self.bound(messages, ctx.run_id)
        return request_context

    async def after_run(
        self, ctx: RunContext[Any], *, result: AgentRunResult[Any]
    ) -> AgentRunResult[Any]:
        """Record the run's last response (the others came back with the next request)."""
        await self._follow(result.all_messages(), ctx.run_id)
        return result

    def processor(
        self,
    ) -> Callable[[RunContext[Any], list[ModelMessage]], Awaitable[list[ModelMessage]]]:
        """The same as a history processor, for ``ProcessHistory(history.processor())``."""

        async def process(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
            return await self.bound(messages, ctx.run_id)

        return process


def _without_summary(incoming: list[Message], memory: Memory | AsyncMemory) -> list[Message]:
    """``incoming`` without summem's summary, when a view came back as a run's history.

    pydantic-ai merges the summary's request with its neighbour (its ``metadata`` mark is then
    lost), so the summary is recognised as the first user message after the system messages
    that starts with the reducer's summary prefix, as :meth:`summem.Memory.record` does.
    """
    prefix = getattr(memory.reducer, "summary_prefix", None)
    lead = 0
    while lead < len(incoming) and incoming[lead].is_system:
        lead += 1
    if (
        isinstance(prefix, str)
        and prefix
        and lead < len(incoming)
        and incoming[lead].role == "user"
        and incoming[lead].text.startswith(prefix)
    ):
        return incoming[:lead] + incoming[lead + 1 :]
    return incoming


async def _view(memory: Memory | AsyncMemory) -> list[Message]:
    from summem.async_memory import AsyncMemory

    if isinstance(memory, AsyncMemory):
        return await memory.view()
    return await asyncio.to_thread(memory.view)


async def _record(memory: Memory | AsyncMemory, incoming: list[Message], mode: Mode) -> None:
    from summem.async_memory import AsyncMemory

    if isinstance(memory, AsyncMemory):
        await memory.record(incoming, mode=mode)
    else:
        await asyncio.to_thread(memory.record, incoming, mode=mode)
