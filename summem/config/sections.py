"""The sections of ``summem.yaml``: ``budget:``, ``summary:``, ``retries:``, ``observe:``...

Split from :mod:`summem.config.model` (the whole file, loading and the factories), which re-exports
them. Each section is a frozen, strict pydantic model that refuses unknown keys; checks that
span sections live in :func:`summem.config.io.check_consistency`.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    model_validator,
)

from summem.errors import ConfigurationError
from summem.observe.spend import DEFAULT_HOLD_TTL_SECONDS, SpendLimit
from summem.reducers.base import DEFAULT_MASK_MIN_TOKENS, DEFAULT_THRESHOLD, default_target
from summem.reducers.style import ViewStyle
from summem.reducers.summarization import DEFAULT_SUMMARY_MAX_TOKENS
from summem.reducers.view import DEFAULT_SUMMARY_PREFIX
from summem.retry import RetryPolicy
from summem.stores.summary_log import DEFAULT_KEEP_SUMMARIES

if TYPE_CHECKING:
    from summem.observe.hooks import Hook

__all__ = [
    "BROKER_SCHEMES",
    "BudgetConfig",
    "DispatchConfig",
    "MaskingConfig",
    "ObserveConfig",
    "RetriesConfig",
    "Section",
    "SpendLimitConfig",
    "SummaryConfig",
    "ViewConfig",
]

_RETRY = RetryPolicy()


class Section(BaseModel):
    """A part of ``summem.yaml``: strict types, unknown keys refused, immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class BudgetConfig(Section):
    """When to reduce and how far (``budget:``)."""

    unit: Literal["tokens", "messages"] = "tokens"
    threshold: PositiveInt = DEFAULT_THRESHOLD["tokens"]
    """Reduce when the view passes this; 8000 tokens or 40 messages by default."""
    target: PositiveInt | None = None
    """Reduce down to this; three quarters of the threshold when omitted."""
    soft_threshold: PositiveInt | None = None
    """Start a background reduction here (between target and threshold)."""
    hard_limit: PositiveInt | None = None
    """Background mode: turns wait only past this; the model's window less the reply's
    reserve by default (see ``SummarizationReducer(hard_limit_tokens=...)``)."""
    summary_max_tokens: PositiveInt = DEFAULT_SUMMARY_MAX_TOKENS
    keep_last_user_turns: NonNegativeInt = 0
    cut_before_user: bool = False

    @model_validator(mode="before")
    @classmethod
    def _threshold_for_unit(cls, data: Any) -> Any:
        if isinstance(data, dict) and "threshold" not in data:
            unit = data.get("unit", "tokens")
            if unit in DEFAULT_THRESHOLD:
                return {**data, "threshold": DEFAULT_THRESHOLD[unit]}
        return data

    @property
    def effective_target(self) -> int:
        """``target``, or three quarters of the threshold."""
        return self.target if self.target is not None else default_target(self.threshold)


class MaskingConfig(Section):
    """Old tool results shown as compact stubs (``masking:``; see ``summem.reducers.masking``)."""

    after: NonNegativeInt | None = None
    """Keep the results of the last N tool groups whole, mask older ones; ``None``: off."""
    min_tokens: NonNegativeInt = DEFAULT_MASK_MIN_TOKENS
    """Mask only results of at least this many tokens."""
    exempt_tools: tuple[str, ...] = Field(default=(), strict=False)  # YAML gives a list
    """Tools whose results are never masked."""

    def reducer_options(self) -> dict[str, Any]:
        """The reducer's ``mask_*`` keyword arguments."""
        return {
            "mask_tool_results_after": self.after,
            "mask_min_tokens": self.min_tokens,
            "mask_exempt_tools": self.exempt_tools,
        }


class SummaryConfig(Section):
    """How the summary appears in the view (``summary:``)."""

    role: Literal["user", "system", "developer", "assistant"] = "user"
    """``user`` is accepted right after the system message by OpenAI, Anthropic and Gemini."""
    placement: Literal["after_system", "system_suffix", "first_user"] = "after_system"
    prefix: str = DEFAULT_SUMMARY_PREFIX
    reuse_cache: bool = False
    """The model summarizes from the assistant's last request (its prompt cache read) plus one
    instruction; only when ``model`` is the assistant's own (``LLMSummarizer(reuse_cache=)``)."""
    keep_summaries: int | None = Field(default=DEFAULT_KEEP_SUMMARIES, ge=1)
    """Latest summaries the store's log keeps whole (``Memory(keep_summaries=)``); older ones
    are kept as metadata only. ``null``: every one whole (the log then grows with the history)."""


class ViewConfig(Section):
    """How the view is rendered for the model's server or chat template (``view:``).

    ``style`` picks a preset (``compat`` for llama.cpp-like servers, ``strict`` for chat
    templates that require alternation); the switches below override it one by one. See
    :class:`~summem.reducers.style.ViewStyle`.
    """

    style: Literal["plain", "compat", "strict"] = "plain"
    alternating: bool | None = None
    tools_as_text: bool | None = None
    empty_null_content: bool | None = None
    text_content: bool | None = None
    developer_as_system: bool | None = None
    reply_as_text: bool | None = None

    def build(self) -> ViewStyle | None:
        """The :class:`ViewStyle` these settings describe (``None``: render as stored)."""
        base = {"plain": ViewStyle(), "compat": ViewStyle.compat(), "strict": ViewStyle.strict()}
        switches = {k: v for k, v in self.model_dump().items() if k != "style" and v is not None}
        style = replace(base[self.style], **switches)
        # an explicit reply_as_text: false is kept: it overrides the litellm wrapper's default
        return None if style.is_plain and style.reply_as_text is None else style


class RetriesConfig(Section):
    """How LLM calls are retried (``retries:``); see :class:`~summem.retry.RetryPolicy`."""

    max_attempts: PositiveInt = _RETRY.max_attempts
    initial_backoff: NonNegativeFloat = _RETRY.initial_backoff
    max_backoff: NonNegativeFloat = _RETRY.max_backoff
    retry_after_cap: NonNegativeFloat = _RETRY.retry_after_cap
    deadline_seconds: PositiveFloat | None = _RETRY.deadline_seconds

    def policy(self) -> RetryPolicy:
        """The :class:`~summem.retry.RetryPolicy` these settings describe."""
        return RetryPolicy(**self.model_dump())


class SpendLimitConfig(Section):
    """A budget for summarization (``observe: spend_limit:``).

    See :class:`~summem.observe.SpendLimit`.
    """

    max_tokens: NonNegativeInt | None = None
    """Summarizer tokens (in + out) allowed per window."""
    max_cost_usd: NonNegativeFloat | None = None
    """Summarizer cost allowed per window, at litellm's bundled prices."""
    window_seconds: PositiveFloat | None = None
    """The sliding window; none: since the process started."""
    scope: Literal["session", "prefix"] = "session"
    """One budget per session, or per tenant (the session id up to ``separator``)."""
    separator: str = ":"
    hold_ttl_seconds: PositiveFloat = DEFAULT_HOLD_TTL_SECONDS
    """How long a summarizer call's hold on the budget lasts if its process dies."""

    @model_validator(mode="after")
    def _some_limit(self) -> SpendLimitConfig:
        if self.max_tokens is None and self.max_cost_usd is None:
            raise ValueError("set max_tokens, max_cost_usd, or both")
        if not self.separator:
            raise ValueError("separator must not be empty")
        return self

    def build(self) -> SpendLimit:
        """The :class:`~summem.observe.SpendLimit` these settings describe."""
        return SpendLimit(**self.model_dump())


class DispatchConfig(Section):
    """Reduce on a fleet's workers through a task engine (``dispatch:``; ``docs-notes/fleet.md``).

    The memories this config builds publish a job when a reduction is due, and ``summem
    worker`` (with the same file) runs them.
    """

    engine: Literal["celery"] = "celery"
    """The task engine (others are a few lines of Python: see ``summem.fleet``)."""
    broker: str
    """The broker URL: ``amqp://guest:guest@127.0.0.1:5672//`` (RabbitMQ) or ``redis://...``;
    a password only as ``${VARIABLE}``, expanded from the environment."""
    queue: str = "summem"
    """The queue jobs go to and workers read."""
    redispatch_seconds: PositiveFloat = 60.0
    """A job whose session did not move in this long is given up and planned again."""
    lease_ttl_seconds: PositiveFloat = 120.0
    """A worker's reduction lease: how long a killed worker's lease outlives it."""
    retry_seconds: PositiveFloat = 2.0
    """A job finding another job reducing its session runs again after this long."""
    visibility_timeout_seconds: PositiveFloat | None = None
    """Redis brokers: a job a killed worker took is delivered again after this long (Celery's
    default: an hour); set it above the longest job. RabbitMQ needs none."""

    @model_validator(mode="after")
    def _broker_url(self) -> DispatchConfig:
        from urllib.parse import urlsplit

        if not self.queue.strip():
            raise ValueError("queue must not be empty")
        scheme = self.broker.partition("://")[0]
        if not scheme or scheme not in BROKER_SCHEMES:
            raise ValueError(
                f"broker must be a URL with one of the schemes {', '.join(BROKER_SCHEMES)}, "
                f"got {self.broker!r}"
            )
        password = urlsplit(self.broker).password
        if password and not _ENV_REF.fullmatch(password) and password != "guest":
            raise ValueError(
                "broker holds a literal password; write it as ${BROKER_PASSWORD} and set that "
                "environment variable"
            )
        return self


_ENV_REF = re.compile(r"\$\{[A-Z_][A-Z0-9_]*\}")
"""A ``${VARIABLE}`` reference, as ``store:`` takes them."""
BROKER_SCHEMES = ("amqp", "amqps", "pyamqp", "redis", "rediss", "sqs", "memory")
"""The broker URL schemes ``dispatch.broker`` (and ``summem worker --broker``) take."""


class ObserveConfig(Section):
    """Who hears a memory's events, and what summarization may spend (``observe:``)."""

    hooks: tuple[str, ...] = Field(default=(), strict=False)  # YAML gives a list
    """Import paths of hooks, ``package.module:name``: a function, or a class built with no
    arguments (``summem.observe.otel:OpenTelemetryHook`` reports to OpenTelemetry)."""
    spend_limit: SpendLimitConfig | None = None

    def build_hooks(self) -> list[Hook]:
        """Import each hook.

        Raises:
            ConfigurationError: a path that does not import, or names nothing callable.
        """
        return [_import_hook(path) for path in self.hooks]


def _import_hook(path: str) -> Hook:
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ConfigurationError(f"observe.hooks: {path!r} is not 'package.module:name'")
    try:
        found: Any = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigurationError(f"observe.hooks: cannot import {path!r}: {exc}") from exc
    if isinstance(found, type):
        found = found()
    if not callable(found):
        raise ConfigurationError(f"observe.hooks: {path!r} is not callable")
    hook: Hook = found
    return hook
