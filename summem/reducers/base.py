"""What reducers share: the budget, the view's parts, the result object.

A reducer takes a list of chat-completions messages (dicts or :class:`~summem.messages.Message`)
and returns a :class:`ReduceResult`; the input is never mutated. The view it produces is always
``[system] + [summary]? + kept``. Budgets are in tokens (counted with the model's tokenizer,
system message and summary included) or in messages (every message in the view counts one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from summem.exceptions import ConfigurationError, SummemError
from summem.messages import Message, MessageLike, parse_messages
from summem.reducers._cut import CutOptions, choose_cut
from summem.tokens import TokenCounter, TokenCounterFn, resolve_counter

__all__ = [
    "DEFAULT_SUMMARY_PREFIX",
    "BudgetReducer",
    "ReduceResult",
    "SummaryPlacement",
    "ViewParts",
    "apply_system",
    "render_view",
    "split_view",
]

SummaryPlacement = Literal["after_system", "system_suffix"]
DEFAULT_SUMMARY_PREFIX = "Summary of the earlier conversation:\n"


@dataclass(frozen=True)
class ReduceResult:
    """What a reduction produced.

    Attributes:
        view: ``[system] + [summary]? + kept``, as messages (the summary carries its marker).
        summary: the summary in the view (new, or the previous one kept), if any.
        evicted: the messages this call moved out of the view, in order.
        reduced: True when something was evicted.
        tokens_before: size of the input view (in the budget's unit).
        tokens_after: size of the output view (in the budget's unit).
        summarizer_calls: LLM calls the summarizer made (0 for offline summarizers).
        summarizer_input_tokens: tokens the summarizer sent to its model.
        error: the failure, when the summarizer failed and ``fail_on_error=False``.
    """

    view: list[Message]
    summary: Message | None = None
    evicted: list[Message] = field(default_factory=list)
    reduced: bool = False
    tokens_before: int = 0
    tokens_after: int = 0
    summarizer_calls: int = 0
    summarizer_input_tokens: int = 0
    error: SummemError | None = None
    placement: SummaryPlacement = "after_system"

    def messages(self) -> list[dict[str, Any]]:
        """The view as chat-completions dicts, ready for ``chat.completions.create``."""
        system = self.view[0] if self.view and self.view[0].is_system else None
        rest = self.view[1:] if system is not None else self.view
        # The summary carries summem's marker, or was recognised in plain dicts (by its prefix).
        first = rest[0] if rest else None
        is_summary = first is not None and (first.is_summary or first is self.summary)
        summary = first if is_summary else None
        tail = rest[1:] if summary is not None else rest
        return render_view(system, summary, tail, placement=self.placement)


@dataclass
class ViewParts:
    """A view taken apart: system message, previous summary, conversation."""

    system: Message | None
    summary: Message | None
    conversation: list[Message]
    placement: SummaryPlacement = "after_system"
    """Where the input had its summary: its own message, or appended to the system message."""


def apply_system(current: Message | None, new: Message) -> Message:
    """The system message after adding ``new``: same content keeps ``current``, else ``new``."""
    if current is not None and current.same_content(new):
        return current
    return new


def split_view(
    messages: Sequence[Message], *, summary_prefix: str = DEFAULT_SUMMARY_PREFIX
) -> ViewParts:
    """Separate system message, previous summary and conversation.

    The system rules apply in order: a later system (or developer) message with different
    content replaces the earlier one; the result is kept first. The previous summary is the
    message carrying summem's summary marker or, for plain dicts that lost the marker, the
    first message before the conversation whose text starts with ``summary_prefix``, whatever
    its role (a ``system`` summary is not a new system prompt). A summary rendered with
    ``placement="system_suffix"`` is split off the system message it was appended to, so the
    next reduction replaces it instead of keeping it inside the system prompt.
    """
    system: Message | None = None
    summary: Message | None = None
    conversation: list[Message] = []
    placement: SummaryPlacement = "after_system"
    for msg in messages:
        before_conversation = summary is None and not conversation
        if msg.is_summary or (
            before_conversation
            and msg.role != "tool"
            and summary_prefix
            and msg.text.startswith(summary_prefix)
        ):
            summary = msg
        elif msg.is_system:
            suffix = _summary_suffix(msg, summary_prefix) if before_conversation else None
            if suffix is not None:
                msg, summary = suffix
                placement = "system_suffix"
            system = apply_system(system, msg)
        else:
            conversation.append(msg)
    return ViewParts(system, summary, conversation, placement)


def _summary_suffix(message: Message, prefix: str) -> tuple[Message, Message] | None:
    """``(system, summary)`` when ``message`` is a system message with a summary appended."""
    if not prefix or not isinstance(message.content, str):
        return None
    at = message.content.find("\n\n" + prefix)
    if at < 0:
        return None
    system = Message.from_openai({**message.to_openai(), "content": message.content[:at]})
    summary = Message.from_openai({"role": message.role, "content": message.content[at + 2 :]})
    return system, summary


def render_view(
    system: Message | None,
    summary: Message | None,
    tail: Iterable[Message],
    *,
    placement: SummaryPlacement = "after_system",
) -> list[dict[str, Any]]:
    """The provider-ready dicts for ``[system] + [summary]? + tail``.

    With ``placement="system_suffix"`` the summary is appended to the system message's text
    (one system message; useful for providers that want the conversation to start with the
    user) instead of standing as its own message after it.
    """
    out: list[dict[str, Any]] = []
    if placement == "system_suffix" and summary is not None:
        base = system.to_openai() if system is not None else {"role": "system", "content": ""}
        text = system.text if system is not None else ""
        base["content"] = (text + "\n\n" if text else "") + summary.text
        out.append(base)
    else:
        if system is not None:
            out.append(system.to_openai())
        if summary is not None:
            out.append(summary.to_openai())
    out.extend(m.to_openai() for m in tail)
    return out


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
            target = max(1, threshold * 3 // 4)
        if not isinstance(target, int) or target <= 0:
            raise ConfigurationError(f"target_{unit} must be a positive int, got {target!r}")
        if target >= threshold:
            raise ConfigurationError(
                f"target_{unit} ({target}) must be smaller than threshold_{unit} ({threshold})"
            )
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
        return self.size_counter.count_message(message)

    def head_size(self, system: Message | None, summary: Message | None) -> int:
        """Size of what precedes the conversation, plus the request overhead."""
        n = self.size_counter.request_overhead
        if system is not None:
            n += self.size(system)
        if summary is not None:
            n += self.size(summary)
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

    def _parts(self, messages: Iterable[MessageLike], prefix: str) -> ViewParts:
        items = list(messages)
        return split_view(parse_messages(items), summary_prefix=prefix)
