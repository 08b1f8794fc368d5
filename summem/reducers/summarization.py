"""Summarization: evict the oldest turns and fold them into one rolling summary.

When the view passes the threshold, the reducer plans the smallest cut that brings it under the
target (room for the summary included), hands the evicted span and the previous summary to a
summarizer, validates the reply, and puts one summary message right after the system message.
The previous summary is replaced, never treated as conversation. The summary carries summem's
marker and provenance (covered ids, summarizer, prompt, tokens), which never reach a provider.
On failure nothing changes: the input comes back with the error reported, or the error is
raised (``fail_on_error=True``). An error text never becomes a summary.

The work is written once as a flow (see ``summem._flow``); ``reduce`` and ``areduce`` drive it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from summem._flow import Flow, run_async, run_sync
from summem.errors import (
    ConfigurationError,
    InvalidSummaryError,
    ReductionError,
    SpendLimitError,
    SummarizationError,
    SummemError,
)
from summem.events import SummaryRejected
from summem.formats.compaction import (
    PROVIDER_SUMMARY,
    anthropic_summary_message,
    provider_summary_message,
)
from summem.messages import Message, MessageLike, Role, SummaryInfo
from summem.observe.hooks import announce
from summem.reducers.base import (
    DEFAULT_MASK_MIN_TOKENS,
    BudgetReducer,
    ReduceResult,
    check_budget,
)
from summem.reducers.cut import choose_cut
from summem.reducers.loop_guard import LoopGuard
from summem.reducers.view import DEFAULT_SUMMARY_PREFIX, PLACEMENTS, SummaryPlacement
from summem.summarizers.base import (
    SUMMARY_SLACK,
    VETTED,
    Summarizer,
    SummaryOutput,
    SummaryRequest,
    as_flow,
    cost_of,
    spent_by,
    summary_limit,
    tokens_up_to,
    uses_llm,
    validate_summary,
    works_offline,
)
from summem.summarizers.checks import foreign_links
from summem.summarizers.hooks import (
    Redactor,
    ValidatorLike,
    redact_messages,
    redact_on_read,
    run_validator,
)
from summem.summarizers.sent import SentView
from summem.tokens.base import TokenCounter, TokenCounterFn

RECALL_NOTE = (
    "(Details of the earlier conversation not kept here can be searched with the "
    "recall_conversation tool.)"
)
"""The line ``recall_note=True`` ends each summary with."""

__all__ = [
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "RECALL_NOTE",
    "SummarizationReducer",
]

logger = logging.getLogger("summem")

_SUMMARY_ROLES = ("user", "system", "developer", "assistant")

DEFAULT_SUMMARY_MAX_TOKENS = 512
"""The summary's budget when none is given."""


class SummarizationReducer(BudgetReducer):
    """Threshold-and-target reduction with a rolling summary.

    Args:
        summarizer: writes the summary; the offline :class:`ExtractiveSummarizer` by default.
        threshold_tokens: reduce when the view passes this many tokens...
        target_tokens: ...down to this many (room for the summary included).
        threshold_messages: the same budget in messages (every view message counts one).
        target_messages: see ``threshold_messages``.
        soft_threshold_tokens: where ``Memory`` starts a background reduction (below the
            threshold; the turn never waits for it).
        soft_threshold_messages: the same in messages.
        hard_limit_tokens: in background mode, the size past which a turn waits for the
            reduction in flight (or runs one): below it, the view may run over the threshold
            while a summary is being written. By default the model's context window less the
            reply's reserve (litellm's bundled model info), or twice the threshold for a model
            it does not know; never below the threshold.
        hard_limit_messages: the same in messages (twice the threshold by default).
        summary_max_tokens: the summary's budget; longer replies are rejected.
        token_counter: a counter or a callable; the model's tokenizer by default.
        model: the model the view is sent to, to pick its tokenizer.
        keep_last_user_turns: never evict the last N user messages.
        cut_before_user: only cut right before a user message.
        mask_tool_results_after: show tool results older than the last N tool groups as
            compact stubs (the call, key values, the message id to recall), before any
            summarizing; ``None`` (default) turns masking off. See
            :mod:`summem.reducers.masking`.
        mask_min_tokens: mask only results of at least this many tokens.
        mask_exempt_tools: names of tools whose results are never masked.
        summary_role: the summary message's role; ``"user"`` is accepted after the system
            message by OpenAI, Anthropic and Gemini alike.
        summary_placement: ``"after_system"`` (own message), ``"system_suffix"`` (appended to
            the system message) or ``"first_user"`` (merged into the first user message).
        summary_prefix: text before the summary, telling the model what it is.
        focus: optional instruction for the summarizer.
        must_keep: items the summary must carry.
        fail_on_error: raise on a failed reduction (True) or return the input unchanged with
            the error in ``ReduceResult.error`` (False).
        validators: the application's checks, run on every summary before it is committed
            (see :mod:`summem.summarizers.hooks`); any veto rejects it.
        redactor: rewrites the evicted messages' text before any summarizer reads it (e.g.
            :func:`~summem.summarizers.hooks.redact_pii`); the history is never changed.
        allow_foreign_links: accept markdown images, and links to URLs the summarized
            messages never mentioned (refused by default: rendered, they can leak data).
        recall_note: end the summary with a line saying that older details it leaves out can
            be searched with the recall tool (see ``Memory.recall_tool``).
        loop_guard: when ``Memory`` pauses automatic reductions that achieve nothing (see
            :mod:`summem.reducers.loop_guard`); ``None`` never pauses.
        summary_fill: let each new summary grow into the room the kept turns leave below the
            target (see :meth:`summary_budget`): the cut keeps ``summary_reserve()`` for the
            summary and stops at a group boundary, so a summary of ``summary_max_tokens``
            leaves the view short of the target by its slack and the group's edge. Never more
            than keeps the summary message within half the target (the loop guard's growth
            cap), never less than ``summary_max_tokens``. With an offline summarizer the cut
            makes room for all of that allowance (see :meth:`fills_exactly`). ``None``
            (default): on when
            ``summary_max_tokens`` is left at its default, off when it is set (then it is a
            hard cap, as the application asked).

    What was dropped: when the summarizer records provenance (the extractive one does), the
    summary's ``summary_info.extra["uncovered_ids"]`` lists the evicted messages no summary line
    comes from (``Memory.recall`` still finds them); without provenance it is absent.
    """

    def __init__(
        self,
        summarizer: Summarizer | None = None,
        *,
        threshold_tokens: int | None = None,
        target_tokens: int | None = None,
        threshold_messages: int | None = None,
        target_messages: int | None = None,
        soft_threshold_tokens: int | None = None,
        soft_threshold_messages: int | None = None,
        hard_limit_tokens: int | None = None,
        hard_limit_messages: int | None = None,
        summary_max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS,
        token_counter: TokenCounter | TokenCounterFn | None = None,
        model: str | None = None,
        keep_last_user_turns: int = 0,
        cut_before_user: bool = False,
        mask_tool_results_after: int | None = None,
        mask_min_tokens: int = DEFAULT_MASK_MIN_TOKENS,
        mask_exempt_tools: Iterable[str] = (),
        summary_role: Role = "user",
        summary_placement: SummaryPlacement = "after_system",
        summary_prefix: str = DEFAULT_SUMMARY_PREFIX,
        focus: str | None = None,
        must_keep: Sequence[str] = (),
        fail_on_error: bool = True,
        validators: Sequence[ValidatorLike] = (),
        redactor: Redactor | None = None,
        allow_foreign_links: bool = False,
        recall_note: bool = False,
        loop_guard: LoopGuard | None = LoopGuard(),  # noqa: B008 - frozen, shared safely
        summary_fill: bool | None = None,
    ) -> None:
        super().__init__(
            threshold_tokens=threshold_tokens,
            target_tokens=target_tokens,
            threshold_messages=threshold_messages,
            target_messages=target_messages,
            token_counter=token_counter,
            model=model,
            keep_last_user_turns=keep_last_user_turns,
            cut_before_user=cut_before_user,
            mask_tool_results_after=mask_tool_results_after,
            mask_min_tokens=mask_min_tokens,
            mask_exempt_tools=mask_exempt_tools,
        )
        if summarizer is not None and not callable(getattr(summarizer, "summarize", None)):
            raise ConfigurationError(
                f"summarizer must have a summarize(request) method, got {summarizer!r}"
            )
        if not isinstance(summary_max_tokens, int) or summary_max_tokens <= 0:
            raise ConfigurationError(
                f"summary_max_tokens must be a positive int, got {summary_max_tokens!r}"
            )
        if summary_role not in _SUMMARY_ROLES:
            raise ConfigurationError(
                f"summary_role must be one of {_SUMMARY_ROLES}, got {summary_role!r}"
            )
        if summary_placement not in PLACEMENTS:
            raise ConfigurationError(
                f"summary_placement must be one of {', '.join(map(repr, PLACEMENTS))}, "
                f"got {summary_placement!r}"
            )
        soft = soft_threshold_tokens if self.unit == "tokens" else soft_threshold_messages
        other_soft = soft_threshold_messages if self.unit == "tokens" else soft_threshold_tokens
        if other_soft is not None:
            raise ConfigurationError("the soft threshold must use the same unit as the budget")
        check_budget(
            self.unit,
            self.threshold,
            self.target,
            soft_threshold=soft,
            summary_max_tokens=summary_max_tokens,
            defaults=[
                setting
                for setting, unset in (
                    (
                        "target",
                        (target_tokens if self.unit == "tokens" else target_messages) is None,
                    ),
                    ("summary_max_tokens", summary_max_tokens == DEFAULT_SUMMARY_MAX_TOKENS),
                )
                if unset
            ],
        )
        hard = hard_limit_tokens if self.unit == "tokens" else hard_limit_messages
        other_hard = hard_limit_messages if self.unit == "tokens" else hard_limit_tokens
        if other_hard is not None:
            raise ConfigurationError("the hard limit must use the same unit as the budget")
        if hard is not None and (not isinstance(hard, int) or hard < self.threshold):
            raise ConfigurationError(
                f"hard_limit_{self.unit} must be an int >= threshold_{self.unit} "
                f"({self.threshold}), got {hard!r}"
            )
        self._hard_limit = hard
        self._hard_limit_given = hard is not None
        self._summarizer = summarizer  # None: the extractive one, made on first use
        self.soft_threshold = soft
        self.summary_max_tokens = summary_max_tokens
        if summary_fill is not None and not isinstance(summary_fill, bool):
            raise ConfigurationError(f"summary_fill must be a bool or None, got {summary_fill!r}")
        self.summary_fill = (
            summary_max_tokens == DEFAULT_SUMMARY_MAX_TOKENS
            if summary_fill is None
            else summary_fill
        )
        """Whether a summary may grow past ``summary_max_tokens`` into room below the target."""
        self.summary_role: Role = summary_role
        self.summary_placement: SummaryPlacement = summary_placement
        self.summary_prefix = summary_prefix
        self.focus = focus
        self.must_keep = tuple(must_keep)
        self.fail_on_error = fail_on_error
        self.validators = tuple(validators)
        self.redactor = redactor
        self.allow_foreign_links = allow_foreign_links
        self.recall_note = recall_note
        if loop_guard is not None and not isinstance(loop_guard, LoopGuard):
            raise ConfigurationError(f"loop_guard must be a LoopGuard or None, got {loop_guard!r}")
        self.loop_guard = loop_guard
        if recall_note:
            note = self.token_counter.count_text("\n" + RECALL_NOTE)
            if note * 2 > self.summary_max_tokens:
                raise ConfigurationError(
                    f"recall_note takes {note} tokens, more than half of summary_max_tokens "
                    f"({self.summary_max_tokens}"
                    f"{', its default' if summary_max_tokens == DEFAULT_SUMMARY_MAX_TOKENS else ''}"
                    f"): set summary_max_tokens to {note * 2} or more, or leave the note out"
                )
        self._reserve: int | None = None

    kind = "summarization"

    @property
    def hard_limit(self) -> int:
        """Where a turn waits in background mode (see ``hard_limit_tokens``)."""
        if self._hard_limit is None:
            if self.unit == "tokens":
                from summem.tokens.windows import default_hard_limit

                self._hard_limit = default_hard_limit(self._model, self.threshold)
            else:
                self._hard_limit = 2 * self.threshold
        return self._hard_limit

    def record(self) -> dict[str, Any]:
        """The budget as a record, with the soft threshold and the summary's budget."""
        record = {
            **super().record(),
            "soft_threshold": self.soft_threshold,
            "summary_max_tokens": self.summary_max_tokens,
        }
        if self._hard_limit_given:
            record["hard_limit"] = self._hard_limit
        if self.summary_fill != (self.summary_max_tokens == DEFAULT_SUMMARY_MAX_TOKENS):
            record["summary_fill"] = self.summary_fill  # not what the default would rebuild
        if self.summary_role != "user":  # from_dict checks the summary's role against it
            record["summary_role"] = self.summary_role
        return record

    @property
    def summarizer(self) -> Summarizer:
        """Writes the summaries: by default the offline :class:`ExtractiveSummarizer`.

        The default one is made on first use: its modules load when a memory first
        summarizes, not when it starts.
        """
        summarizer = self._summarizer
        if summarizer is None:
            from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

            summarizer = self._summarizer = ExtractiveSummarizer()
        return summarizer

    @summarizer.setter
    def summarizer(self, summarizer: Summarizer) -> None:
        self._summarizer = summarizer

    def with_summarizer(self, summarizer: Summarizer) -> SummarizationReducer:
        """A copy of this reducer that summarizes with ``summarizer`` (for ``recompute``)."""
        clone = copy.copy(self)
        clone.summarizer = summarizer
        return clone

    def within_room(self, room: int) -> SummarizationReducer | None:
        """A copy whose summaries fit ``room`` (the summary message, in the budget's unit).

        ``self`` when its own allowance fits; ``None`` when not even a one-token summary
        does. The hard-limit fallback of a paused memory uses it, so the view keeps a
        (smaller) summary rather than none.
        """
        if room >= self.summary_reserve():
            return self
        if self.unit != "tokens":
            return None
        # the message's own overhead, as counted: the reserve's margin would waste the room
        most = room - self.size(Message(role="user", content=self.summary_prefix))
        if most < 1:
            return None
        clone = copy.copy(self)
        clone.summary_max_tokens = most
        clone._reserve = None
        return clone

    @property
    def summarizer_name(self) -> str:
        """The summarizer's name, for provenance."""
        return str(getattr(self.summarizer, "name", type(self.summarizer).__name__))

    def summary_reserve(self) -> int:
        """Room for the new summary: the most validation accepts, plus prefix and overhead.

        Reserving the accepted limit (not just ``summary_max_tokens``) keeps the view within
        the target even when the summary uses its slack.
        """
        if self._reserve is None:
            self._reserve = (
                summary_limit(self.summary_max_tokens)
                + self.token_counter.count_text(self.summary_prefix)
                + 8
                if self.unit == "tokens"
                else 1
            )
        return self._reserve

    def summary_budget(
        self, room: int | None = None, *, exact: bool = False, floor: bool = True
    ) -> int:
        """The new summary's ``max_tokens`` when the reduction leaves it ``room``.

        ``room`` is what the view has below the target for the summary message once the cut's
        turns are gone (``None``: unknown). With :attr:`summary_fill` the summary takes it,
        its prefix and overhead included, and the slack validation accepts on top unless
        ``exact`` (an offline summarizer, whose reply is checked against the room instead),
        never past the loop guard's growth cap (half the target, or the summary's own
        allowance when larger) nor, with ``floor``, below ``summary_max_tokens``; otherwise,
        and in a message budget, ``summary_max_tokens``.
        """
        most = self.summary_max_tokens
        if room is None or not self.summary_fill or self.unit != "tokens":
            return most
        fixed = self.summary_reserve() - summary_limit(most)  # prefix and overhead
        room = min(room, max(self.target // 2, fixed + most)) - fixed
        if exact:
            return max(most, room) if floor else max(1, room)
        # the largest budget whose accepted limit fits: summary_limit(m) <= room
        grown = max(room - 16, int(room / (1 + SUMMARY_SLACK)))
        while grown > 1 and summary_limit(grown) > room:
            grown -= 1
        return max(most, grown) if floor else max(1, grown)

    def fills_exactly(self) -> bool:
        """Whether summaries fill their room exactly (offline, with :attr:`summary_fill`).

        That is :attr:`summary_fill`, a token budget and an offline summarizer: its reply is
        checked against the room, and one that runs past it is asked again within the room,
        the validation's slack reserved. The cut then keeps all the room the summary may take
        (:meth:`plan_cut`), half the target (or ``summary_max_tokens`` when larger), and no
        more: a summary that cannot grow past ``summary_max_tokens`` (its allowance is already
        half the target or more) leaves the slack to the kept turns.

        Why the cut makes room for the whole allowance rather than ``summary_max_tokens``:
        measured on LoCoMo at 8,000 tokens, the offline summary's lines hold three times the
        answers per token of the verbatim turns they displace (13.5 against 4.3 per 1,000
        tokens; its weakest fifth of lines still 8.9), so the room is worth more to the
        summary; the reductions are as frequent as before (the view after one still sits at
        the target). See ``docs-notes/budget-use.md``, "Third round".
        """
        return self.summary_fill and self.unit == "tokens" and not uses_llm(self.summarizer)

    def plan_cut(
        self, system: Message | None, tail: Sequence[Message], sizes: Sequence[int]
    ) -> int:
        """How many leading messages of ``tail`` to evict to fit the target.

        See :meth:`fills_exactly` for the room the cut keeps for the summary.
        """
        reserve = self.summary_reserve()
        if self.fills_exactly():  # all the summary may take (summary_budget's cap), no more
            most = self.summary_max_tokens
            fixed = reserve - summary_limit(most)
            reserve = max(self.target // 2, fixed + most)
        fixed = self.head_size(system, None) + reserve
        return choose_cut(tail, sizes, fixed=fixed, target=self.target, options=self.cut_options)

    # -- the flow -------------------------------------------------------------------------

    def summary_text(self, summary: Message | None) -> str | None:
        """The summary's own text, without the prefix."""
        if summary is None:
            return None
        text = summary.text
        return text[len(self.summary_prefix) :] if text.startswith(self.summary_prefix) else text

    def summarize_flow(
        self,
        evicted: Sequence[Message],
        previous: Message | None,
        *,
        watermark: int,
        allow_llm: bool = True,
        sent: SentView | None = None,
        then: Sequence[Message] = (),
        room: int | None = None,
        offline_exact: bool = True,
        kept: Sequence[Message] = (),
    ) -> Flow[tuple[Message, SummaryOutput]]:
        """Summarize ``evicted`` with ``previous``; return the validated summary message.

        ``room``: what the view has below the target for this summary once ``evicted`` is gone
        (see :meth:`summary_budget`); ``None`` gives it ``summary_max_tokens``. An offline
        summarizer is asked for all of it (``offline_exact``) and its reply checked against
        it; one that runs past it is asked again with the validation's slack reserved.

        ``then``: the spans the same reduction folds after this one. This summary is a step
        (the next span's replaces it), so it must be smaller than all it will stand for, not
        than ``evicted`` alone.

        With ``allow_llm=False`` (a spend limit is exhausted) no LLM is called: a fallback
        chain skips its LLM steps; a summarizer that is an LLM raises ``SpendLimitError``.

        ``sent``, the request the assistant last sent, is passed on to the summarizer (a
        cache-reusing one repeats it), unless a ``redactor`` is set: that request holds the
        messages unredacted.

        ``kept``: the turns the view keeps after this reduction, passed on as read-only
        context (``SummaryRequest.kept``; redacted like the span when a ``redactor`` is set,
        when the summarizer first reads them: one that never does costs no redaction pass).

        Raises:
            SummarizationError: the summarizer failed or its reply failed validation.
            SpendLimitError: ``allow_llm`` is false and the summarizer has only LLM steps.
        """
        previous_text = self.summary_text(previous)
        if previous_text and previous_text.endswith(RECALL_NOTE):
            previous_text = previous_text[: -len(RECALL_NOTE)].rstrip()
        counter = self.token_counter
        note = counter.count_text("\n" + RECALL_NOTE) if self.recall_note else 0
        # the budget is min(summary_max_tokens, replaced - 1): no need to count further (with
        # later spans, up to the most a summary may take: validation compares with this count)
        # an offline summarizer is asked for all the room, and its reply checked against it
        exact = offline_exact and room is not None and self.fills_exactly()
        most = self.summary_budget(room, exact=exact, floor=offline_exact)
        enough = (summary_limit(most) if then else most) + 1
        replaced = tokens_up_to(counter, [*evicted, *then], previous_text, enough)
        request = SummaryRequest(
            messages=redact_messages(evicted, self.redactor) if self.redactor else tuple(evicted),
            previous_summary=previous_text,
            # A summary must be smaller than what it replaces; a short span gets a short budget.
            max_tokens=max(1, min(most, replaced - 1) - note),
            token_counter=self.token_counter,
            focus=self.focus,
            must_keep=self.must_keep,
            previous_info=previous.summary_info if previous is not None else None,
            checks=self._vet,
            allow_llm=allow_llm,
            sent=sent if self.redactor is None else None,
            replaces=replaced if then else 0,
            kept=redact_on_read(kept, self.redactor) if self.redactor else tuple(kept),
        )
        name = self.summarizer_name
        if not allow_llm and uses_llm(self.summarizer) and not works_offline(self.summarizer):
            raise SpendLimitError(f"summarizer {name!r}: the spend limit is reached")
        try:
            output = yield from as_flow(self.summarizer.summarize(request), name)
        except ReductionError:
            raise
        except Exception as exc:
            raise SummarizationError(f"summarizer {name!r} failed: {exc}") from exc
        try:
            validate_summary(output, request)
            if not output.extra.get(VETTED):
                yield from self._vet(output, request)
        except SummarizationError as exc:
            exc.usage = spent_by(output)  # the rejected summary's calls were spent all the same
            exc.cost_usd = cost_of(output)
            yield from announce(
                SummaryRejected(
                    "",
                    summarizer=output.summarizer,
                    error_type=type(exc).__name__,
                    reason=str(exc),
                    next="fail",
                )
            )
            raise
        text = output.text.strip()
        if exact and counter.count_text(text) > request.max_tokens:
            # past the room the reduction left: ask again with the slack reserved
            return (
                yield from self.summarize_flow(
                    evicted,
                    previous,
                    watermark=watermark,
                    allow_llm=allow_llm,
                    sent=sent,
                    then=then,
                    room=room,
                    offline_exact=False,
                    kept=kept,
                )
            )
        if self.recall_note:
            text += "\n" + RECALL_NOTE
        message = Message.from_openai(
            {"role": self.summary_role, "content": self.summary_prefix + text}
        )
        info = SummaryInfo(
            covered_ids=tuple(m.id for m in evicted),
            previous_summary_id=previous.id if previous is not None else None,
            watermark=watermark,
            summarizer=output.summarizer,
            model=output.model,
            prompt=output.prompt,
            prompt_hash=output.prompt_hash,
            tokens=self.token_counter.count_message(message),
            extra=self._within_allowance(message, _extra(output, evicted)),
        )
        return message.as_summary(info), output

    def _within_allowance(self, message: Message, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra``, without a provider's item that would not fit the summary's room.

        ``items()`` sends a delegated summary's OpenAI window and item in its place, and
        Claude's view sends the Anthropic block in an assistant turn after it; when the
        window, or the block's turn, alone is larger than the room the budget keeps for a
        summary (:meth:`summary_reserve`), sending it would put that view over the budget.
        The twin goes alone instead, as when the provider's compaction fails: the item is
        dropped and ``extra[PROVIDER_SUMMARY]["failed"]`` says why (the pass's usage stays
        counted).
        """
        summary = message.as_summary(SummaryInfo(extra=extra))
        window, turn = provider_summary_message(summary), anthropic_summary_message(summary)
        if window is not None:
            what, size = "the compacted window", self.size(window)
        elif turn is not None:
            what, size = "the compaction block's turn", self.size(turn)
        else:
            return extra
        room = self.summary_reserve()
        if size <= room:
            return extra
        reason = (
            f"{what} is {size} {self.unit}, more than the {room} the budget "
            "keeps for a summary: the twin is sent in its place"
        )
        logger.warning("%s: %s", self.summarizer_name, reason)
        failed = {"provider": extra[PROVIDER_SUMMARY].get("provider"), "failed": reason}
        return {**extra, PROVIDER_SUMMARY: failed}

    def _vet(self, output: SummaryOutput, request: SummaryRequest) -> Flow[None]:
        """The link check, then the application's validators; a veto rejects the summary."""
        where = f"summarizer {output.summarizer!r}"
        if not self.allow_foreign_links:
            sources = [m.text for m in request.messages] + [request.previous_summary or ""]
            sources += [str(c) for m in request.messages for c in m.tool_calls or ()]
            links = foreign_links(output.text, sources)
            if links:
                raise InvalidSummaryError(
                    f"{where}: rejected, it holds markdown images or links to URLs the "
                    f"conversation never mentioned ({'; '.join(links[:3])})"
                )
        for validator in self.validators:
            try:
                verdict = yield from run_validator(validator, output.text, request)
            except SummarizationError:
                raise
            except Exception as exc:
                # our own errors explain themselves; an application's may quote content
                why = (
                    f"{type(exc).__name__}: {exc}"
                    if isinstance(exc, SummemError)
                    else (type(exc).__name__)
                )
                raise InvalidSummaryError(
                    f"{where}: the validator {validator!r} failed: {why}"
                ) from exc
            if verdict:
                raise InvalidSummaryError(f"{where}: rejected by a validator: {verdict[:200]}")

    def reduce_flow(self, messages: Iterable[MessageLike]) -> Flow[ReduceResult]:
        """The reduction of a list of messages, as a flow."""
        parts = self._parts(messages, self.summary_prefix)
        conversation = parts.conversation
        shown = self.shown(conversation)
        sizes = [self.size(m) for m in shown]
        head = self.head_size(parts.system, parts.summary)
        before = head + sum(sizes)
        unchanged = [m for m in (parts.system, parts.summary) if m is not None] + shown
        cut = self.plan_cut(parts.system, conversation, sizes) if before > self.threshold else 0
        if cut == 0:
            return self._result(unchanged, parts.summary, before, before)
        previous = parts.summary
        covered = previous.summary_info.watermark if previous and previous.summary_info else 0
        room = self.target - self.head_size(parts.system, None) - sum(sizes[cut:])
        try:
            summary, output = yield from self.summarize_flow(
                conversation[:cut],
                previous,
                watermark=covered + cut,
                room=room,
                kept=conversation[cut:],
            )
        except ReductionError as exc:
            if self.fail_on_error:
                raise
            logger.warning("reduction failed, view left unchanged: %s", exc)
            return self._result(unchanged, parts.summary, before, before, error=exc)
        view = [m for m in (parts.system, summary) if m is not None] + shown[cut:]
        after = self.head_size(parts.system, summary) + sum(sizes[cut:])
        return ReduceResult(
            view=view,
            summary=summary,
            evicted=conversation[:cut],
            reduced=True,
            size_before=before,
            size_after=after,
            summarizer_calls=output.calls,
            summarizer_input_tokens=output.input_tokens,
            placement=self.summary_placement,
        )

    def _result(
        self,
        view: list[Message],
        summary: Message | None,
        before: int,
        after: int,
        *,
        error: ReductionError | None = None,
    ) -> ReduceResult:
        return ReduceResult(
            view=view,
            summary=summary,
            size_before=before,
            size_after=after,
            error=error,
            placement=self.summary_placement,
        )

    def reduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        """Reduce ``messages`` if the view passes the threshold; the input is not changed."""
        return run_sync(self.reduce_flow(messages))

    async def areduce(self, messages: Iterable[MessageLike]) -> ReduceResult:
        """Async :meth:`reduce` (the summarizer's calls are awaited)."""
        return await run_async(self.reduce_flow(messages))


def _extra(output: SummaryOutput, evicted: Sequence[Message]) -> dict[str, Any]:
    extra = {k: v for k, v in output.extra.items() if k != VETTED}
    provenance = extra.get("provenance")
    if isinstance(provenance, list):  # what no summary line comes from: dropped, recallable
        cited = {i for e in provenance if isinstance(e, dict) for i in e.get("ids") or ()}
        extra["uncovered_ids"] = [m.id for m in evicted if m.id not in cited]
    usage = {
        "calls": output.calls,
        "input_tokens": output.input_tokens,
        "output_tokens": output.output_tokens,
        "finish_reason": output.finish_reason,
        "cost_usd": cost_of(output),
    }
    extra["usage"] = usage
    return extra
