"""Delegated compaction: the provider compacts the span, summem keeps a readable twin beside it.

:class:`OpenAICompaction` (and :class:`AnthropicCompaction`, below) is a summarizer like any
other, so a reduction that uses it goes through the same plan, compare-and-set commit, events,
spend limit and cost accounting. Each call does two things:

1. the **twin**: the configured summarizer (offline extractive by default) summarizes the span,
   as it would without delegation; its text is the summary's content, what every other
   provider, recall, export and audit read;
2. the **provider's compaction**: ``POST /responses/compact`` with the span as Responses input
   (and the previous compaction, if the summary it replaces holds one). OpenAI answers with the
   user messages followed by one ``compaction`` item; both are kept in the summary's provenance
   (``SummaryInfo.extra[PROVIDER_SUMMARY]``), and ``Memory.items()`` sends them in the summary's
   place, exactly as OpenAI returned them.

The compaction's usage, as OpenAI reports it, is counted in the summary's calls and tokens,
and priced with the bundled price map (:func:`summem.observe.cost.cost_usd`). When the call
fails or its answer holds no compaction item, the twin alone is committed (a summem summary
like any other, ``extra[PROVIDER_SUMMARY]["failed"]`` saying why): a provider outage never
blocks a reduction.

The summary's share of the budget is the larger of the twin and the window, or, for
Anthropic, the twin plus the assistant turn carrying the block (see
:meth:`~summem.reducers.base.BudgetReducer.summary_size`), so ``items()`` and Claude's view
stay within the budget too; a window or a block's turn past the room the budget keeps for a
summary is dropped the same way (``"failed"`` says so), and the twin is sent alone.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Sequence
from typing import Any

from summem._flow import Flow
from summem.clients.errors import map_provider_error
from summem.errors import ConfigurationError, SpendLimitError, SummarizationError
from summem.formats.compaction import (
    ANTHROPIC,
    COMPACTION_BLOCKS,
    OPENAI,
    PROVIDER_SUMMARY,
    Provider,
    anthropic_summary_turn,
    without_provider_items,
)
from summem.formats.responses import item_dict, to_items
from summem.observe.cost import cost_usd
from summem.summarizers.base import SummaryOutput, SummaryRequest, as_flow, cost_of, uses_llm

__all__ = [
    "AnthropicCompaction",
    "CompactCall",
    "CompletionCall",
    "OpenAICompaction",
    "compacted_window",
]

logger = logging.getLogger("summem")


class CompactCall:
    """One ``client.responses.compact(**kwargs)`` call, as a flow step (sync or async)."""

    __slots__ = ("client", "kwargs")

    def __init__(self, client: Any, kwargs: dict[str, Any]) -> None:
        self.client = client
        self.kwargs = kwargs

    def _is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.client.responses.compact)

    def run(self) -> Any:
        """Call the sync client."""
        if self._is_async():
            raise ConfigurationError(
                "OpenAICompaction was given an async client (AsyncOpenAI) but runs under a "
                "sync Memory: give it openai.OpenAI, or use AsyncMemory"
            )
        return self.client.responses.compact(**self.kwargs)

    async def arun(self) -> Any:
        """Call the async client (a sync client is called as is: it blocks the loop)."""
        if self._is_async():
            return await self.client.responses.compact(**self.kwargs)
        return self.client.responses.compact(**self.kwargs)


def compacted_window(output: Sequence[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(window, item)`` from a compact response's ``output``: the items before, and the item.

    Raises:
        SummarizationError: the output does not end with exactly one ``compaction`` item.
    """
    items = [item_dict(i) for i in output]
    kinds = [i.get("type") for i in items]
    if not items or kinds[-1] != "compaction" or kinds.count("compaction") != 1:
        raise SummarizationError(
            f"the compact response's output must end with one compaction item, got {kinds}"
        )
    item = items[-1]
    if not isinstance(item.get("encrypted_content"), str) or not item["encrypted_content"]:
        raise SummarizationError("the compaction item has no encrypted_content")
    return items[:-1], item


class _Delegating:
    """What both delegating summarizers share: the twin, then the provider's pass, committed.

    A subclass says how to ask its provider (:meth:`_step`), what in the answer is kept
    (:meth:`_parse`: the held compaction's own fields, or :class:`SummarizationError`), and
    how its answer reports usage (:attr:`_usage`). The flow, the failure path (the twin alone,
    its pass still counted when the provider answered) and the summary's provenance are here.
    """

    provider: Provider
    label: str
    """How the logs name the provider's compaction, e.g. ``"OpenAI compaction"``."""
    _usage: tuple[str, str]
    """The attributes of the answer's ``usage`` holding its input and output tokens."""
    model: str
    twin: Any

    @property
    def name(self) -> str:  # pragma: no cover - each subclass names itself
        raise NotImplementedError

    def _step(self, request: SummaryRequest) -> Any:  # pragma: no cover - abstract
        """The flow step calling the provider on ``request``'s span."""
        raise NotImplementedError

    def _parse(self, response: Any) -> dict[str, Any]:  # pragma: no cover - abstract
        """The fields of the held compaction read from the answer (``id`` and the item).

        Raises:
            SummarizationError: the answer holds no usable compaction.
        """
        raise NotImplementedError

    @property
    def works_offline(self) -> bool:
        """Whether the twin calls no model: past a spend limit it is committed alone."""
        return not uses_llm(self.twin)

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        """The twin, then the provider's compaction of the same span (see the module).

        Past a spend limit (``request.allow_llm`` false) the provider is not asked: an
        offline twin is committed alone, as when the compaction fails.

        Raises:
            SpendLimitError: past a spend limit, with a twin that calls a model.
        """
        if not request.allow_llm and not self.works_offline:
            raise SpendLimitError(f"summarizer {self.name!r}: the spend limit is reached")
        twin = yield from as_flow(self.twin.summarize(request), getattr(self.twin, "name", "twin"))
        if not request.allow_llm:
            reason = "the spend limit is reached: the provider was not asked"
            extra = {**twin.extra, PROVIDER_SUMMARY: {"provider": self.provider, "failed": reason}}
            return dataclasses.replace(twin, extra=extra)
        response: Any = None
        try:
            response = yield self._step(request)
            fields = self._parse(response)
        except ConfigurationError:
            raise
        except Exception as exc:  # the twin stands alone: a provider outage blocks nothing
            if not isinstance(exc, SummarizationError):
                exc = map_provider_error(exc, provider=self.provider, model=self.model)
            reason = f"{type(exc).__name__}: {str(exc)[:200]}"
            logger.warning(
                "%s (%s) failed, the twin summary alone is committed: %s",
                self.label,
                self.model,
                reason,
            )
            extra = {**twin.extra, PROVIDER_SUMMARY: {"provider": self.provider, "failed": reason}}
            alone = dataclasses.replace(twin, extra=extra)
            if response is None:
                return alone
            # the provider answered without a compaction (Claude's empty block is its no-op):
            # it read the span, and billed the pass all the same
            return _with_pass(alone, self.model, *_spent(response, *self._usage))
        spent_in, spent_out = _spent(response, *self._usage)
        held = {
            "provider": self.provider,
            "kind": "compaction",
            **fields,
            "model": self.model,
            "usage": {"input_tokens": spent_in, "output_tokens": spent_out},
            "twin": twin.summarizer,
        }
        return SummaryOutput(
            text=twin.text,
            summarizer=self.name,
            model=self.model,
            prompt=twin.prompt,
            prompt_hash=twin.prompt_hash,
            finish_reason=twin.finish_reason,
            calls=twin.calls + 1,
            input_tokens=twin.input_tokens + spent_in,
            output_tokens=twin.output_tokens + spent_out,
            extra={**twin.extra, PROVIDER_SUMMARY: held},
            cost_usd=cost_of(twin) + cost_usd(self.model, spent_in, spent_out),
        )


class OpenAICompaction(_Delegating):
    """A summarizer that has OpenAI compact the span (``/responses/compact``), with a twin.

    Args:
        client: an ``openai.OpenAI`` (for ``Memory``) or ``openai.AsyncOpenAI`` (for
            ``AsyncMemory``) client.
        model: the model that compacts (an OpenAI model; only OpenAI models read the item).
        twin: the summarizer of the readable twin; the offline extractive one by default.
        instructions: passed to ``/responses/compact`` as ``instructions``.
    """

    provider = OPENAI
    label = "OpenAI compaction"
    _usage = ("input_tokens", "output_tokens")

    def __init__(
        self,
        client: Any,
        *,
        model: str,
        twin: Any = None,
        instructions: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ConfigurationError("OpenAICompaction needs a model name, e.g. 'gpt-5.4'")
        responses = getattr(client, "responses", None)
        if not callable(getattr(responses, "compact", None)):
            raise ConfigurationError(
                f"OpenAICompaction needs an openai client with responses.compact, got {client!r}"
            )
        twin = _twin(twin)
        self.client = client
        self.model = model
        self.twin = twin
        self.instructions = instructions

    @property
    def name(self) -> str:
        """``openai-compact:<model>``."""
        return f"openai-compact:{self.model}"

    def _input(self, request: SummaryRequest) -> list[dict[str, Any]]:
        """What OpenAI compacts: the previous compaction (or summary), then the span."""
        before: list[dict[str, Any]] = []
        held = _held(request)
        if isinstance(held, dict) and isinstance(held.get("item"), dict):
            before = [*held.get("window", []), held["item"]]
        elif request.previous_summary:
            before = [{"role": "user", "content": request.previous_summary}]
        return before + to_items(list(request.messages))

    def _step(self, request: SummaryRequest) -> CompactCall:
        kwargs: dict[str, Any] = {"model": self.model, "input": self._input(request)}
        if self.instructions is not None:
            kwargs["instructions"] = self.instructions
        return CompactCall(self.client, kwargs)

    def _parse(self, response: Any) -> dict[str, Any]:
        window, item = compacted_window(getattr(response, "output", None) or [])
        return {"id": item.get("id"), "item": item, "window": window}


class CompletionCall:
    """One ``litellm.completion(**kwargs)`` call (``acompletion`` under an async driver)."""

    __slots__ = ("kwargs",)

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs

    def run(self) -> Any:
        """Call ``litellm.completion``."""
        import litellm

        return litellm.completion(**self.kwargs)

    async def arun(self) -> Any:
        """Call ``litellm.acompletion``."""
        import litellm

        return await litellm.acompletion(**self.kwargs)


def compaction_block(response: Any) -> dict[str, Any]:
    """The one compaction block of an on-demand compaction reply (through litellm).

    Raises:
        SummarizationError: none, several, or an empty one (Anthropic's no-op).
    """
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    fields = getattr(message, "provider_specific_fields", None) or {}
    blocks = fields.get(COMPACTION_BLOCKS) if isinstance(fields, dict) else None
    if not isinstance(blocks, list) or len(blocks) != 1:
        raise SummarizationError(
            f"the reply must hold one compaction block, got {len(blocks or [])}"
        )
    block = blocks[0]
    dump = getattr(block, "model_dump", None)
    block = dump(exclude_none=True) if callable(dump) else block
    if not isinstance(block, dict) or block.get("type") != "compaction":
        raise SummarizationError("the reply's compaction block is not a compaction block")
    if not block.get("content"):
        raise SummarizationError("the compaction block is empty (Anthropic's no-op)")
    return dict(block)


class AnthropicCompaction(_Delegating):
    """A summarizer that has Claude compact the span (on-demand compaction), with a twin.

    The span is sent through litellm with ``compaction={"type": "summarize"}`` (litellm adds
    the ``compact-2026-09-04`` beta); Claude answers with one ``compaction`` block standing for
    exactly the messages sent, which is what a reduction commits: the summary replaces exactly
    ``history[k:k']``, and turns that arrive meanwhile stay after it. The block is kept in the
    summary's provenance (``extra[PROVIDER_SUMMARY]``) and sent back, in an assistant turn
    after the summary, only when the view goes to Anthropic
    (``memory.messages(provider="anthropic")``, which ``wrap_completion`` passes when litellm
    routes there); every other view gets the twin.

    Args:
        model: a litellm Anthropic model, e.g. ``"anthropic/claude-sonnet-4-5"``.
        twin: the summarizer of the readable twin; the offline extractive one by default.
        instructions: the compaction's ``instructions``.
        max_tokens: the reply's cap.
        **litellm_kwargs: passed to litellm (``api_key``, ``api_base``, ``timeout``...).
    """

    provider = ANTHROPIC
    label = "Anthropic compaction"
    _usage = ("prompt_tokens", "completion_tokens")

    def __init__(
        self,
        model: str,
        *,
        twin: Any = None,
        instructions: str | None = None,
        max_tokens: int = 4096,
        **litellm_kwargs: Any,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ConfigurationError(
                "AnthropicCompaction needs a model, e.g. 'anthropic/claude-sonnet-4-5'"
            )
        twin = _twin(twin)
        self.model = model
        self.twin = twin
        self.instructions = instructions
        self.max_tokens = max_tokens
        self.litellm_kwargs = litellm_kwargs

    @property
    def name(self) -> str:
        """``anthropic-compact:<model>``."""
        return f"anthropic-compact:{self.model}"

    def _messages(self, request: SummaryRequest) -> list[dict[str, Any]]:
        """What Claude compacts: the previous summary (and its block), then the span."""
        before: list[dict[str, Any]] = []
        held = _held(request)
        if request.previous_summary:
            before.append({"role": "user", "content": request.previous_summary})
            turn = anthropic_summary_turn(held)
            if turn is not None:
                before.append(turn)
        span, _ = without_provider_items(list(request.messages), ANTHROPIC)
        out = before + [m.to_openai() for m in span]
        if out and out[0].get("role") != "user":  # Claude's first turn is the user's
            out.insert(0, {"role": "user", "content": "(the conversation so far)"})
        return out

    def _step(self, request: SummaryRequest) -> CompletionCall:
        compaction: dict[str, Any] = {"type": "summarize"}
        if self.instructions is not None:
            compaction["instructions"] = self.instructions
        kwargs: dict[str, Any] = {
            **self.litellm_kwargs,
            "model": self.model,
            "messages": self._messages(request),
            "compaction": compaction,
            "max_tokens": self.max_tokens,
        }
        return CompletionCall(kwargs)

    def _parse(self, response: Any) -> dict[str, Any]:
        return {"id": None, "block": compaction_block(response)}


def _spent(response: Any, tokens_in: str, tokens_out: str) -> tuple[int, int]:
    """The input and output tokens a provider's answer reports (0 for what it omits)."""
    usage = getattr(response, "usage", None)
    return int(getattr(usage, tokens_in, 0) or 0), int(getattr(usage, tokens_out, 0) or 0)


def _with_pass(twin: SummaryOutput, model: str, spent_in: int, spent_out: int) -> SummaryOutput:
    """``twin`` counting one more call: a provider's pass that answered but gave no item."""
    return dataclasses.replace(
        twin,
        calls=twin.calls + 1,
        input_tokens=twin.input_tokens + spent_in,
        output_tokens=twin.output_tokens + spent_out,
        cost_usd=cost_of(twin) + cost_usd(model, spent_in, spent_out),
    )


def _twin(twin: Any) -> Any:
    """The readable twin's summarizer: the one given, or the offline extractive one."""
    if twin is None:
        from summem.summarizers.extractive import ExtractiveSummarizer

        return ExtractiveSummarizer()
    if not callable(getattr(twin, "summarize", None)):
        raise ConfigurationError(f"twin must be a summem Summarizer, got {twin!r}")
    return twin


def _held(request: SummaryRequest) -> Any:
    """What the previous summary holds of its provider's compaction (``None``: nothing)."""
    info = request.previous_info
    return getattr(info, "extra", {}).get(PROVIDER_SUMMARY) if info is not None else None
