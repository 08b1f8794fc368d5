"""``summem.yaml``: one validated file that drives the Python API, the wrappers and the CLI.

A deployment tunes summem in one place: which model summarizes (none means the offline
extractive summarizer), the budget, how the summary appears in the view, the prompt, the
store, the retries and the fallback chain. :func:`load_config` finds and validates the file;
the ``build_*`` methods turn it into the objects the rest of summem takes::

    config = load_config()                      # ./summem.yaml, else the defaults
    memory = config.build_memory("user-42")     # Memory(reducer=..., store=...)

Every problem is a :class:`~summem.errors.ConfigurationError` naming the file and the key
path, e.g. ``summem.yaml: budget.target: must be smaller than budget.threshold (8000)``.

**Secrets never live in the file.** A key such as ``api_key``, ``token`` or ``password``, or a
value shaped like a provider key, is rejected; ``api_key_env`` names the environment variable
that holds the key, read when the summarizer is built. A store URL may carry a password only
as ``${VARIABLE}``, expanded from the environment when the store is opened. The file is read
with a size cap and parsed with a safe YAML loader (duplicate keys are errors).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from summem.config.io import (
    EXTRACTIVE,
    TRUNCATE,
    api_key_from_env,
    check_consistency,
    check_env_names,
    check_store_url,
    expand_env,
    format_errors,
    key_variable,
    open_with_env,
    read_capped,
    read_yaml,
    reject_secrets,
)
from summem.config.sections import (
    BudgetConfig,
    DispatchConfig,
    MaskingConfig,
    ObserveConfig,
    RetriesConfig,
    Section,
    SpendLimitConfig,
    SummaryConfig,
    ViewConfig,
)
from summem.errors import ConfigurationError, PromptError
from summem.observe.spend import SpendLimit
from summem.stores.base import validate_session_id
from summem.stores.url import data_dir, default_store_url

if TYPE_CHECKING:
    from summem.async_memory import AsyncMemory
    from summem.fleet.dispatcher import Dispatcher
    from summem.memory import Memory
    from summem.prompts import PromptTemplate
    from summem.reducers.summarization import SummarizationReducer
    from summem.stores.base import AsyncStore, Store
    from summem.summarizers.base import Summarizer
    from summem.tokens.base import TokenCounter, TokenCounterFn

__all__ = [
    "CONFIG_ENV",
    "DEFAULT_CONFIG_FILE",
    "DEFAULT_STORE",
    "BudgetConfig",
    "RetriesConfig",
    "SummaryConfig",
    "SummemConfig",
    "load_config",
    "parse_config",
]

logger = logging.getLogger("summem.config")

DEFAULT_CONFIG_FILE = "summem.yaml"
DEFAULT_STORE = "sqlite:///summem.db"
"""Where sessions were kept before the default moved to the user's data folder (for users
who want the old place back: ``store: sqlite:///summem.db``); see ``default_store_url()``."""
CONFIG_ENV = "SUMMEM_CONFIG"
"""Environment variable naming the config file when no path is given."""


class SummemConfig(Section):
    """The contents of ``summem.yaml``; every key is optional.

    Build it with :func:`load_config` or :func:`parse_config` (which raise
    :class:`~summem.errors.ConfigurationError`); ``SummemConfig()`` is the defaults.
    """

    model: str | None = None
    """The summarizing model (a litellm name). ``None``: the offline extractive summarizer."""
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    summary: SummaryConfig = Field(default_factory=SummaryConfig)
    view: ViewConfig = Field(default_factory=ViewConfig)
    masking: MaskingConfig = Field(default_factory=MaskingConfig)
    prompt: str = "summarize"
    """A shipped prompt's name or a YAML file's path (relative to the config file)."""
    store: str = Field(default_factory=default_store_url)
    """A store URL; ``${VARIABLE}`` is expanded from the environment when it is opened."""
    retries: RetriesConfig = Field(default_factory=RetriesConfig)
    fallback: tuple[str, ...] = Field(default=(), strict=False)  # YAML gives a list
    """Tried in order when the model fails: model names, ``extractive``, ``truncate``."""
    api_key_env: str | dict[str, str] | None = None
    """Environment variable holding the API key: one name for every model, or per model."""
    observe: ObserveConfig = Field(default_factory=ObserveConfig)
    dispatch: DispatchConfig | None = None
    """Reduce on a fleet's workers (``summem worker``) instead of in the memory's process."""

    _source: str = PrivateAttr(default="<defaults>")
    _base_dir: Path | None = PrivateAttr(default=None)
    _spend_limit: SpendLimit | None = PrivateAttr(default=None)
    _dispatcher: Dispatcher | None = PrivateAttr(default=None)

    # -- checks ---------------------------------------------------------------------------

    @field_validator("model", "prompt")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("store")
    @classmethod
    def _store_url(cls, value: str) -> str:
        check_store_url(value)
        return value

    @field_validator("api_key_env", mode="before")
    @classmethod
    def _env_names_only(cls, value: Any) -> Any:
        check_env_names(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SummemConfig:
        check_consistency(self)
        return self

    # -- loading --------------------------------------------------------------------------

    @classmethod
    def from_dict(
        cls, data: Any, *, source: str = "<dict>", base_dir: Path | None = None
    ) -> SummemConfig:
        """Validate parsed YAML (``None`` is the defaults).

        Raises:
            ConfigurationError: naming ``source`` and the key path.
        """
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigurationError(f"{source}: expected a mapping of settings at the top level")
        reject_secrets(data, source)
        try:
            config = cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigurationError(format_errors(exc, source, _ALLOWED_KEYS)) from None
        config._source = source
        config._base_dir = base_dir
        config.prompt_template()  # fail now, not at the first reduction
        return config

    @property
    def source(self) -> str:
        """Where the settings came from: the file's path, ``<defaults>`` or ``<dict>``."""
        return self._source

    def llm_models(self) -> list[str]:
        """Every model the summarizer may call: the model, then fallback models."""
        head = [self.model] if self.model else []
        return head + [s for s in self.fallback if s not in (EXTRACTIVE, TRUNCATE)]

    def prompt_source(self) -> str | Path:
        """The prompt's name, or its path resolved against the config file's directory."""
        prompt = self.prompt
        if not ("/" in prompt or "\\" in prompt or prompt.endswith((".yaml", ".yml"))):
            return prompt  # a shipped prompt's name (as load_prompt tells them apart)
        path = Path(prompt).expanduser()
        return path if path.is_absolute() or self._base_dir is None else self._base_dir / path

    def prompt_template(self) -> PromptTemplate:
        """The loaded prompt.

        Raises:
            ConfigurationError: the prompt cannot be loaded.
        """
        from summem.prompts import load_prompt

        try:
            return load_prompt(self.prompt_source())
        except PromptError as exc:
            raise ConfigurationError(f"{self._source}: prompt: {exc}") from exc

    def describe(self) -> list[str]:
        """What these settings do, one line each (for the CLI and logs; never a secret)."""
        b = self.budget
        soft = f", background from {b.soft_threshold}" if b.soft_threshold else ""
        if b.soft_threshold and b.hard_limit:
            soft += f" (turns wait past {b.hard_limit})"
        chain = " > ".join(self.fallback)
        summarizer = (
            f"LLM {self.model} (prompt {self.prompt})"
            if self.model
            else "extractive, offline (no model configured)"
        )
        return [
            f"config: {self._source}",
            f"summarizer: {summarizer}" + (f", falling back to {chain}" if chain else ""),
            f"budget: reduce past {b.threshold} {b.unit} down to {b.effective_target}{soft}",
            f"summary: {self.summary.role} message, {self.summary.placement}",
            f"store: {self.store}",
            *([f"hooks: {', '.join(self.observe.hooks)}"] if self.observe.hooks else []),
            *(["spend limit: " + _limit_text(self.observe)] if self.observe.spend_limit else []),
            *([_dispatch_text(self.dispatch)] if self.dispatch is not None else []),
        ]

    # -- factories ------------------------------------------------------------------------

    def build_summarizer(self, *, primary: Summarizer | None = None) -> Summarizer:
        """The summarizer: the model (or the extractive one), wrapped in the fallback chain.

        Args:
            primary: replaces the model's own summarizer at the head of the chain (e.g. one
                built for a server of one's own); the ``fallback:`` steps still follow it.

        Raises:
            ConfigurationError: an ``api_key_env`` variable is not set.
        """
        from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

        if primary is not None:
            pass
        elif self.model is None:
            logger.info(
                "%s: no model configured; summaries are written offline by the extractive "
                "summarizer",
                self._source,
            )
        if primary is None:
            reuse = self.summary.reuse_cache
            primary = (
                self._step(self.model, reuse_cache=reuse) if self.model else ExtractiveSummarizer()
            )
        if not self.fallback:
            return primary
        from summem.summarizers.chain import FallbackSummarizer

        return FallbackSummarizer([primary, *(self._step(s) for s in self.fallback)])

    def _step(self, name: str, *, reuse_cache: bool = False) -> Summarizer:
        if name == EXTRACTIVE:
            from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

            return ExtractiveSummarizer()
        if name == TRUNCATE:
            from summem.summarizers.chain import TruncatingSummarizer

            return TruncatingSummarizer()
        from summem.summarizers.llm import LLMSummarizer

        key = self.api_key(name)
        extra: dict[str, Any] = {"api_key": key} if key is not None else {}
        if reuse_cache:
            extra["reuse_cache"] = True
        return LLMSummarizer(
            name, prompt=self.prompt_template(), retry=self.retries.policy(), **extra
        )

    def api_key_variable(self, model: str) -> str | None:
        """The environment variable ``api_key_env`` names for ``model``, if any."""
        return key_variable(self.api_key_env, model)

    def api_key(self, model: str) -> str | None:
        """The key for ``model`` from that variable (``None``: the provider's own variable).

        Raises:
            ConfigurationError: ``api_key_env`` names a variable that is not set.
        """
        return api_key_from_env(self.api_key_env, model, self._source)

    def build_reducer(
        self,
        *,
        summarizer: Summarizer | None = None,
        token_counter: TokenCounter | TokenCounterFn | None = None,
    ) -> SummarizationReducer:
        """The :class:`SummarizationReducer` for the budget and summary settings.

        Args:
            summarizer: replaces :meth:`build_summarizer`'s.
            token_counter: replaces the model's tokenizer (``gpt-4o``'s without a model).
        """
        from summem.reducers.summarization import SummarizationReducer

        b = self.budget
        tokens = b.unit == "tokens"
        try:
            return SummarizationReducer(
                summarizer if summarizer is not None else self.build_summarizer(),
                threshold_tokens=b.threshold if tokens else None,
                target_tokens=b.target if tokens else None,
                soft_threshold_tokens=b.soft_threshold if tokens else None,
                threshold_messages=None if tokens else b.threshold,
                target_messages=None if tokens else b.target,
                soft_threshold_messages=None if tokens else b.soft_threshold,
                hard_limit_tokens=b.hard_limit if tokens else None,
                hard_limit_messages=None if tokens else b.hard_limit,
                summary_max_tokens=b.summary_max_tokens,
                token_counter=token_counter,
                model=self.model,
                keep_last_user_turns=b.keep_last_user_turns,
                cut_before_user=b.cut_before_user,
                summary_role=self.summary.role,
                summary_placement=self.summary.placement,
                summary_prefix=self.summary.prefix,
                **self.masking.reducer_options(),
            )
        except ConfigurationError as exc:
            raise ConfigurationError(f"{self._source}: {exc}") from exc

    def build_store(self) -> Store:
        """The store the ``store`` URL names (``${VARIABLE}`` expanded).

        The default store's folder (the user's data folder) is created when first needed.
        """
        from summem.stores import open_store

        self._prepare_default_store()
        return open_with_env(open_store, self.store, self._source)  # type: ignore[no-any-return]

    def _prepare_default_store(self) -> None:
        if self.store == default_store_url():
            data_dir().mkdir(parents=True, exist_ok=True)

    def build_async_store(self) -> AsyncStore:
        """The async twin of :meth:`build_store`."""
        from summem.stores import open_async_store

        self._prepare_default_store()
        return open_with_env(open_async_store, self.store, self._source)  # type: ignore[no-any-return]

    def build_memory(self, session_id: str, *, store: Store | None = None) -> Memory:
        """A :class:`~summem.memory.Memory` with this reducer, over ``store`` if given.

        Without ``store`` the memory opens the configured one and closes it on ``close()``;
        many sessions in one process should share one store: ``store=config.build_store()``.
        """
        from summem.memory import Memory

        return self._memory(Memory, session_id, store)  # type: ignore[no-any-return]

    def build_async_memory(
        self, session_id: str, *, store: AsyncStore | Store | None = None
    ) -> AsyncMemory:
        """The :class:`~summem.async_memory.AsyncMemory` twin of :meth:`build_memory`."""
        from summem.async_memory import AsyncMemory

        return self._memory(AsyncMemory, session_id, store)  # type: ignore[no-any-return]

    def spend_limit(self) -> SpendLimit | None:
        """The configured spend limit, one object shared by every memory this config builds."""
        if self.observe.spend_limit is None:
            return None
        if self._spend_limit is None:
            self._spend_limit = self.observe.spend_limit.build()
        return self._spend_limit

    def broker_url(self) -> str:
        """The ``dispatch.broker`` URL with ``${VARIABLE}`` expanded from the environment.

        Raises:
            ConfigurationError: no ``dispatch:`` section, or a variable is not set.
        """
        if self.dispatch is None:
            raise ConfigurationError(f"{self._source}: no dispatch: section (a broker to use)")
        return expand_env(self.dispatch.broker, self._source)[0]

    def build_dispatcher(self) -> Dispatcher | None:
        """The ``dispatch:`` section's dispatcher, one shared by every memory built here."""
        if self.dispatch is None:
            return None
        if self._dispatcher is None:
            from summem.fleet.celery import CeleryDispatcher

            self._dispatcher = CeleryDispatcher(
                self.broker_url(),
                queue=self.dispatch.queue,
                redispatch_seconds=self.dispatch.redispatch_seconds,
            )
        return self._dispatcher

    def _memory(self, cls: Any, session_id: str, store: Any) -> Any:
        validate_session_id(session_id)  # so that errors below are about the store
        self._prepare_default_store()
        options: dict[str, Any] = {
            "reducer": self.build_reducer(),
            "style": self.view.build(),
            "hooks": self.observe.build_hooks(),
            "spend_limit": self.spend_limit(),
            "keep_summaries": self.summary.keep_summaries,
        }
        if self.dispatch is not None:
            options["dispatcher"] = self.build_dispatcher()
        if store is not None:
            return cls(session_id, store=store, **options)
        return open_with_env(
            lambda url: cls(session_id, store=url, **options),
            self.store,
            self._source,
        )


_ALLOWED_KEYS: dict[tuple[str, ...], list[str]] = {
    (): sorted(SummemConfig.model_fields),
    ("budget",): list(BudgetConfig.model_fields),
    ("summary",): list(SummaryConfig.model_fields),
    ("view",): list(ViewConfig.model_fields),
    ("masking",): list(MaskingConfig.model_fields),
    ("retries",): list(RetriesConfig.model_fields),
    ("observe",): list(ObserveConfig.model_fields),
    ("dispatch",): list(DispatchConfig.model_fields),
    ("observe", "spend_limit"): list(SpendLimitConfig.model_fields),
}


def _limit_text(observe: ObserveConfig) -> str:
    limit = observe.spend_limit
    assert limit is not None
    parts = [f"{limit.max_tokens} tokens"] if limit.max_tokens is not None else []
    parts += [f"${limit.max_cost_usd}"] if limit.max_cost_usd is not None else []
    window = f"per {limit.window_seconds:g} s" if limit.window_seconds else "per process"
    return f"{' and '.join(parts)} {window}, per {limit.scope}"


def _dispatch_text(dispatch: DispatchConfig) -> str:
    from summem._secrets import mask_url

    return (
        f"dispatch: reductions run on {dispatch.engine} workers "
        f"({mask_url(dispatch.broker)}, queue {dispatch.queue})"
    )


def parse_config(
    text: str | bytes, *, source: str = "<string>", base_dir: Path | None = None
) -> SummemConfig:
    """Validate the text of a ``summem.yaml``.

    Raises:
        ConfigurationError: naming ``source`` and the key path.
    """
    return SummemConfig.from_dict(read_yaml(text, source), source=source, base_dir=base_dir)


def load_config(path: str | os.PathLike[str] | None = None) -> SummemConfig:
    """Load ``path``; else ``$SUMMEM_CONFIG``; else ``./summem.yaml`` if present; else defaults.

    Relative paths in the file (the prompt) are resolved against the file's directory.

    Raises:
        ConfigurationError: the file is missing (when named), too large, not YAML, or invalid.
    """
    if path is None:
        path = os.environ.get(CONFIG_ENV) or None
        if path is None:
            if not Path(DEFAULT_CONFIG_FILE).is_file():
                return SummemConfig()
            path = DEFAULT_CONFIG_FILE
    file = Path(path)
    source = os.fspath(path)
    return parse_config(read_capped(file, source), source=source, base_dir=file.parent)
