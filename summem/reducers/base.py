"""What a reducer is: the protocols ``Memory`` runs any reducer through, and the shared parts.

A reducer takes a list of chat-completions messages (dicts or :class:`~summem.messages.Message`)
and returns a :class:`ReduceResult`; the input is never mutated. The view it produces is always
``[system] + [summary]? + kept``. Budgets are in tokens (counted with the model's tokenizer,
system message and summary included) or in messages (every message in the view counts one).

``Memory`` needs less than a whole reduction from a reducer: the size of each message in the
budget's unit, the threshold that triggers a reduction and the target it goes down to, and how
many leading messages to evict (:class:`Reducer`). A reducer that also writes a summary of what
it evicts is a :class:`SummarizingReducer`. Any object with these members works, so users can
bring their own; :class:`BudgetReducer` is the base the built-in reducers share.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from summem.errors import ConfigurationError, SummemError
from summem.formats.compaction import anthropic_summary_message, provider_summary_message
from summem.messages import Message, MessageLike, parse_messages
from summem.reducers.cut import CutOptions, choose_cut
from summem.reducers.masking import ToolMasking, mask_messages
from summem.reducers.style import ViewStyle, apply_style
from summem.reducers.view import SummaryPlacement, ViewParts, render_view, split_view
from summem.tokens.base import TokenCounter, TokenCounterFn, resolve_counter

if TYPE_CHECKING:
    from summem._flow import Flow
    from summem.summarizers.base import Summarizer, SummaryOutput
    from summem.summarizers.sent import SentView

__all__ = [
    "DEFAULT_MASK_MIN_TOKENS",
    "DEFAULT_THRESHOLD",
    "BudgetReducer",
    "ReduceResult",
    "Reducer",
    "SummarizingReducer",
    "budget_problem",
    "check_budget",
    "default_target",
]


@runtime_checkable
class Reducer(Protocol):
    """What ``Memory`` needs from any reducer: a budget, sizes, and where to cut.

    ``Memory`` reduces when the view's size passes ``threshold`` and evicts the leading
    messages :meth:`plan_cut` names, moving the watermark; a reducer that is not a
    :class:`SummarizingReducer` leaves no summary in their place (plain truncation).
    """

    @property
    def unit(self) -> str:
        """The budget's unit, e.g. ``"tokens"`` or ``"messages"`` (for records and errors)."""
        ...

    @property
    def threshold(self) -> int:
        """Reduce when the view's size passes this."""
        ...

    @property
    def target(self) -> int:
        """Reduce down to this (smaller than ``threshold``)."""
        ...

    def size(self, message: Message) -> int:
        """A message's size in the budget's unit (cheap: called once per message)."""
        ...

    def head_size(self, system: Message | None, summary: Message | None) -> int:
        """The size of what precedes the conversation (system message, summary, overhead)."""
        ...

    def plan_cut(
        self, system: Message | None, tail: Sequence[Message], sizes: Sequence[int]
    ) -> int:
        """How many leading messages of ``tail`` to evict (0: none); never splits a group."""
        ...


@runtime_checkable
class SummarizingReducer(Reducer, Protocol):
    """A :class:`Reducer` that folds what it evicts into a rolling summary."""

    @property
    def soft_threshold(self) -> int | None:
        """Where a background reduction starts (between target and threshold), if anywhere."""
        ...

    @property
    def summary_placement(self) -> SummaryPlacement:
        """Where the summary goes in the rendered view."""
        ...

    @property
    def summary_prefix(self) -> str:
        """The text the summary message starts with (how a summary is told from a turn)."""
        ...

    @property
    def fail_on_error(self) -> bool:
        """Raise a failed reduction (True), or keep the view unreduced and report it."""
        ...

    def summarize_flow(
        self,
        evicted: Sequence[Message],
        previous: Message | None,
        *,
        watermark: int,
        allow_llm: bool = True,
        sent: SentView | None = None,
        kept: Sequence[Message] = (),
    ) -> Flow[tuple[Message, SummaryOutput]]:
        """The validated summary of ``previous`` plus ``evicted`` (``history[:watermark]``).

        ``allow_llm=False``: a spend limit is exhausted; call no LLM.

        ``sent`` is the request the assistant last sent (for a cache-reusing summarizer).

        ``kept``: the turns the view keeps after this reduction, read-only context for the
        summarizer (``SummaryRequest.kept``).
        """
        ...

    def with_summarizer(self, summarizer: Summarizer) -> SummarizingReducer:
        """A copy of this reducer that summarizes with ``summarizer`` (for ``recompute``)."""
        ...


DEFAULT_MASK_MIN_TOKENS = 200
"""Tool results smaller than this (in tokens) are never masked, by default."""

DEFAULT_THRESHOLD: dict[str, int] = {"tokens": 8000, "messages": 40}
"""The threshold when none is configured, by unit."""


def default_target(threshold: int) -> int:
    """The target when only a threshold is given: three quarters of it (hysteresis)."""
    return max(1, threshold * 3 // 4)


def budget_problem(
    *,
    unit: str,
    threshold: int,
    target: int,
    soft_threshold: int | None = None,
    summary_max_tokens: int | None = None,
    name: Callable[[str], str],
    defaults: Collection[str] = (),
) -> tuple[str, str] | None:
    """The first rule a budget breaks, as ``(setting, what is wrong)``; ``None`` if it is sound.

    The rules, shared by the reducers and ``summem.yaml``: the target is below the threshold,
    a soft threshold lies between them, and (in tokens) the summary is smaller than the target.
    ``name`` gives each setting's name as the caller spells it (``target_tokens`` or
    ``budget.target``), for the message. ``defaults`` names the settings the caller did not
    set: a setting left at its default is never the one blamed when one that was set can be,
    the message says which values are defaults, and it says what to set instead.
    """

    def shown(setting: str, value: int) -> str:
        return f"{name(setting)} ({value}{', its default' if setting in defaults else ''})"

    if target >= threshold:
        return "target", f"must be smaller than {name('threshold')} ({threshold})"
    if soft_threshold is not None and not target < soft_threshold < threshold:
        return "soft_threshold", (
            f"must lie between {name('target')} ({target}) and {name('threshold')} ({threshold})"
        )
    if unit == "tokens" and summary_max_tokens is not None and summary_max_tokens >= target:
        summary, goal = name("summary_max_tokens"), name("target")
        if "summary_max_tokens" in defaults and "target" not in defaults:
            return "target", (
                f"must be larger than {shown('summary_max_tokens', summary_max_tokens)}: set "
                f"{goal} above {summary_max_tokens}, or {summary} below {target}"
            )
        return "summary_max_tokens", (
            f"must be smaller than {shown('target', target)}: set {summary} below {target}, "
            f"or {goal} above {summary_max_tokens}"
        )
    return None


def check_budget(
    unit: str,
    threshold: int,
    target: int,
    *,
    soft_threshold: int | None = None,
    summary_max_tokens: int | None = None,
    defaults: Collection[str] = (),
) -> None:
    """Raise the first rule a reducer's budget breaks (see :func:`budget_problem`).

    Raises:
        ConfigurationError: naming the setting and its value, e.g. ``target_tokens (9)``.
    """

    def name(setting: str) -> str:
        return setting if setting == "summary_max_tokens" else f"{setting}_{unit}"

    values = {
        "target": target,
        "soft_threshold": soft_threshold,
        "summary_max_tokens": summary_max_tokens,
    }
    problem = budget_problem(
        unit=unit,
        threshold=threshold,
        target=target,
        soft_threshold=soft_threshold,
        summary_max_tokens=summary_max_tokens,
        name=name,
        defaults=defaults,
    )
    if problem is not None:
        setting, what = problem
        note = ", its default" if setting in defaults else ""
        raise ConfigurationError(f"{name(setting)} ({values[setting]}{note}) {what}")


@dataclass(frozen=True)
class ReduceResult:
    """What a reduction produced.

    Attributes:
        view: ``[system] + [summary]? + kept``, as messages (the summary carries its marker).
        summary: the summary in the view (new, or the previous one kept), if any.
        evicted: the messages this call moved out of the view, in order.
        reduced: True when something was evicted.
        size_before: size of the input view, in the budget's unit (tokens or messages).
        size_after: size of the output view, in the budget's unit.
        summarizer_calls: LLM calls the summarizer made (0 for offline summarizers).
        summarizer_input_tokens: tokens the summarizer sent to its model.
        error: the failure, when the summarizer failed and ``fail_on_error=False``.
    """

    view: list[Message]
    summary: Message | None = None
    evicted: list[Message] = field(default_factory=list)
    reduced: bool = False
    size_before: int = 0
    size_after: int = 0
    summarizer_calls: int = 0
    summarizer_input_tokens: int = 0
    error: SummemError | None = None
    placement: SummaryPlacement = "after_system"

    @property
    def tokens_before(self) -> int:
        """Alias of :attr:`size_before` (kept for compatibility; in the budget's unit)."""
        return self.size_before

    @property
    def tokens_after(self) -> int:
        """Alias of :attr:`size_after` (kept for compatibility; in the budget's unit)."""
        return self.size_after

    def messages(self, style: ViewStyle | None = None) -> list[dict[str, Any]]:
        """The view as chat-completions dicts, ready for ``chat.completions.create``.

        Args:
            style: render for a provider or chat template (see :class:`ViewStyle`).
        """
        system = self.view[0] if self.view and self.view[0].is_system else None
        rest = self.view[1:] if system is not None else self.view
        # The summary carries summem's marker, or was recognised in plain dicts (by its prefix).
        first = rest[0] if rest else None
        is_summary = first is not None and (first.is_summary or first is self.summary)
        summary = first if is_summary else None
        tail = rest[1:] if summary is not None else rest
        rendered = render_view(system, summary, tail, placement=self.placement)
        return apply_style(rendered, style) if style is not None else rendered


class _MessageCounter:
    """Every message counts one: the counter behind message budgets."""

    key = "messages"
    request_overhead = 0

    def count_message(self, message: Message) -> int:
        return 1

    def count_text(self, text: str) -> int:
        return 1


_MESSAGE_COUNTER = _MessageCounter()


class BudgetReducer:
    """Budget, token counting and cut planning shared by the reducers.

    Exactly one unit is used: ``threshold_tokens``/``target_tokens`` or
    ``threshold_messages``/``target_messages``. With only a threshold, the target defaults to
    three quarters of it (hysteresis: reductions happen once per quarter of growth).
    ``mask_tool_results_after`` (with ``mask_min_tokens`` and ``mask_exempt_tools``) shows old
    tool results as stubs, sizes counted on the stubs (see :mod:`summem.reducers.masking`).
    """

    def __init__(
        self,
        *,
        threshold_tokens: int | None = None,
        target_tokens: int | None = None,
        threshold_messages: int | None = None,
        target_messages: int | None = None,
        token_counter: TokenCounter | TokenCounterFn | None = None,
        model: str | None = None,
        keep_last_user_turns: int = 0,
        cut_before_user: bool = False,
        mask_tool_results_after: int | None = None,
        mask_min_tokens: int = DEFAULT_MASK_MIN_TOKENS,
        mask_exempt_tools: Iterable[str] = (),
    ) -> None:
        by_tokens = threshold_tokens is not None or target_tokens is not None
        by_messages = threshold_messages is not None or target_messages is not None
        if by_tokens and by_messages:
            raise ConfigurationError(
                "give a budget in tokens or in messages, not both "
                "(threshold_tokens/target_tokens or threshold_messages/target_messages)"
            )
        if not by_tokens and not by_messages:
            raise ConfigurationError(
                "a budget is required: threshold_tokens (and target_tokens) "
                "or threshold_messages (and target_messages)"
            )
        unit: Literal["tokens", "messages"] = "tokens" if by_tokens else "messages"
        threshold = threshold_tokens if by_tokens else threshold_messages
        target = target_tokens if by_tokens else target_messages
        if threshold is None:
            raise ConfigurationError(f"threshold_{unit} is required when target_{unit} is set")
        if not isinstance(threshold, int) or threshold <= 0:
            raise ConfigurationError(f"threshold_{unit} must be a positive int, got {threshold!r}")
        if target is None:
            target = default_target(threshold)
        if not isinstance(target, int) or target <= 0:
            raise ConfigurationError(f"target_{unit} must be a positive int, got {target!r}")
        check_budget(unit, threshold, target)
        if keep_last_user_turns < 0:
            raise ConfigurationError("keep_last_user_turns must be >= 0")
        self.unit = unit
        self.threshold = threshold
        self.target = target
        self._counter_spec = token_counter
        self._model = model
        self._token_counter: TokenCounter | None = None
        self.cut_options = CutOptions(
            keep_last_user_turns=keep_last_user_turns, cut_before_user=cut_before_user
        )
        self.masking: ToolMasking | None = None
        """Which old tool results the view shows as stubs (``None``: masking is off)."""
        if mask_tool_results_after is not None:
            self.masking = ToolMasking(
                mask_tool_results_after, mask_min_tokens, frozenset(mask_exempt_tools)
            )

    kind = "budget"
    """The reducer's kind in a session record (``to_dict()``)."""

    def record(self) -> dict[str, Any]:
        """The budget as a JSON-serialisable record (rebuilt by ``reducer_from_record``)."""
        record: dict[str, Any] = {
            "type": self.kind,
            "unit": self.unit,
            "threshold": self.threshold,
            "target": self.target,
        }
        if self.masking is not None:
            record.update(self.masking.record())
        return record

    # -- sizes ----------------------------------------------------------------------------

    @property
    def token_counter(self) -> TokenCounter:
        """The tokenizer's counter (resolved on first use: loading an encoding takes time)."""
        if self._token_counter is None:
            self._token_counter = resolve_counter(self._counter_spec, model=self._model)
        return self._token_counter

    @property
    def size_counter(self) -> TokenCounter:
        """Counts in the budget's unit: the token counter, or one per message."""
        return self.token_counter if self.unit == "tokens" else _MESSAGE_COUNTER

    def size(self, message: Message) -> int:
        """A message's size in the budget's unit (cached on the message)."""
        # size_counter without its two property calls: this runs for every message added
        if self.unit != "tokens":
            return 1  # _MESSAGE_COUNTER's count, without the call
        counter = self._token_counter
        return (counter or self.token_counter).count_message(message)

    def head_size(self, system: Message | None, summary: Message | None) -> int:
        """Size of what precedes the conversation, plus the request overhead."""
        n = self.size_counter.request_overhead
        if system is not None:
            n += self.size(system)
        if summary is not None:
            n += self.summary_size(summary)
        return n

    def summary_size(self, summary: Message, *, bound: bool = False) -> int:
        """A summary's share of the budget: the most any view sends for it.

        Chat views send the summary's text; ``items()`` sends a delegated summary's OpenAI
        window and item instead (:func:`~summem.formats.compaction.provider_summary_message`,
        counted as the same item in the history is); Claude's view sends the text and then
        the assistant turn carrying an Anthropic block
        (:func:`~summem.formats.compaction.anthropic_summary_message`, counted as the same
        turn in the history is). The largest counts, so every view is within the budget.
        ``bound``: measured with :meth:`size_bound`.
        """
        measure = self.size_bound if bound else self.size
        n = measure(summary)
        sent = provider_summary_message(summary)
        if sent is not None:
            n = max(n, measure(sent))
        turn = anthropic_summary_message(summary)
        return n if turn is None else n + measure(turn)

    def size_bound(self, message: Message) -> int:
        """At least :meth:`size`, cheaper while the tokenizer is not loaded; never less.

        A session measures its view with this while the view is far below its limits: no
        decision depends on an exact count there, and the tokenizer's encoding (about 0.3 s
        to load) waits until one does (see :meth:`summem.session.core.SessionCore.exact`).
        Counters without ``bound_message`` count exactly.
        """
        if self.unit != "tokens":
            return 1
        counter = self._token_counter or self.token_counter
        bound = getattr(counter, "bound_message", None)
        return bound(message) if bound is not None else counter.count_message(message)

    def head_bound(self, system: Message | None, summary: Message | None) -> int:
        """At least :meth:`head_size` (see :meth:`size_bound`)."""
        n = self.size_counter.request_overhead
        if system is not None:
            n += self.size_bound(system)
        if summary is not None:
            n += self.summary_size(summary, bound=True)
        return n

    def summary_reserve(self) -> int:
        """Room a future summary needs in the view (in the budget's unit)."""
        return 1

    def plan_cut(
        self, system: Message | None, tail: Sequence[Message], sizes: Sequence[int]
    ) -> int:
        """How many leading messages of ``tail`` to evict to fit the target."""
        fixed = self.head_size(system, None) + self.summary_reserve()
        return choose_cut(tail, sizes, fixed=fixed, target=self.target, options=self.cut_options)

    def shown(self, conversation: Sequence[Message]) -> list[Message]:
        """``conversation`` as the view shows it: old tool results masked, when configured."""
        if self.masking is None:
            return list(conversation)
        return mask_messages(conversation, self.masking, self.token_counter.count_message)

    def _parts(self, messages: Iterable[MessageLike], prefix: str) -> ViewParts:
        items = list(messages)
        return split_view(parse_messages(items), summary_prefix=prefix)
