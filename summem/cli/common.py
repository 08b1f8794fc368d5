"""What every ``summem`` command shares: error reporting, settings, stores, keys and prices.

The CLI answers ``--help`` in a fraction of a second, so this module imports nothing heavy at
import time: the config, the stores and litellm (which takes seconds to import) are loaded
inside the functions that need them, and litellm only when a model is named.

Errors reach the user as one line and an exit code, never a traceback: 2 for what the user can
fix in the command or its input (a bad file, a bad setting, a missing API key), 1 for what
went wrong while running (a store or a provider failing, an unknown session).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from summem._secrets import MASK, environment_secrets, is_secret_name, mask_url
from summem.errors import (
    ConfigurationError,
    InvalidSessionIdError,
    MessageValidationError,
    MissingDependencyError,
    PromptError,
    SummemError,
)

if TYPE_CHECKING:
    from rich.console import Console

    from summem.config.model import SummemConfig
    from summem.stores.base import Store

__all__ = [
    "EXIT_FAILURE",
    "EXIT_USAGE",
    "CliError",
    "console",
    "display_url",
    "exit_code_for",
    "import_litellm",
    "load_settings",
    "missing_key_vars",
    "model_prices",
    "open_existing_store",
    "scrub",
    "server_model",
    "sqlite_path",
]

EXIT_FAILURE = 1
"""Something failed while running: a store, a provider, an unknown session."""
EXIT_USAGE = 2
"""The command or its input is wrong: a bad file, a bad setting, a missing API key."""

_USAGE_ERRORS = (
    ConfigurationError,
    InvalidSessionIdError,
    MessageValidationError,
    MissingDependencyError,
    PromptError,
)


class CliError(click.ClickException):
    """One line on stderr (``Error: ...``) and an exit code; click prints it."""

    def __init__(self, message: str, *, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.code = exit_code

    @property
    def exit_code(self) -> int:  # type: ignore[override]  # a ClassVar in click; ours varies
        """The process's exit status."""
        return self.code


def exit_code_for(exc: SummemError) -> int:
    """2 for errors in the command's input or settings, 1 for failures while running."""
    return EXIT_USAGE if isinstance(exc, _USAGE_ERRORS) else EXIT_FAILURE


def console(*, stderr: bool = False) -> Console:
    """A rich console (imported here, not at start-up); plain text when not a terminal."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def display_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (a URL may be echoed; a secret never)."""
    return mask_url(url)


def scrub(text: str) -> str:
    """``text`` without the value of any ``*_KEY``/``*_TOKEN`` variable set in the environment."""
    for value in environment_secrets():
        text = text.replace(value, MASK)
    return text


# -- settings --------------------------------------------------------------------------------


def load_settings(
    path: str | None,
    *,
    model: str | None = None,
    store: str | None = None,
    threshold_tokens: int | None = None,
    target_tokens: int | None = None,
    summary_max_tokens: int | None = None,
) -> SummemConfig:
    """The settings: ``summem.yaml`` with the command line's options on top.

    The file is ``path``, else ``$SUMMEM_CONFIG``, else ``./summem.yaml`` if present, else the
    defaults; the options replace its keys and the result is validated again as a whole.

    Raises:
        ConfigurationError: naming the file (or ``options``) and the key.
    """
    from summem.config.model import SummemConfig, load_config

    config = load_config(path)
    if all(v is None for v in (model, store, threshold_tokens, target_tokens, summary_max_tokens)):
        return config
    data: dict[str, Any] = config.model_dump()
    if model is not None:
        data["model"] = model
    if store is not None:
        data["store"] = store
    budget = dict(data["budget"])
    if threshold_tokens is not None or target_tokens is not None:
        if budget["unit"] != "tokens" or threshold_tokens is not None:
            # A new threshold (or unit) makes the file's other budget settings stale.
            budget.update(unit="tokens", target=None, soft_threshold=None, hard_limit=None)
        if threshold_tokens is not None:
            budget["threshold"] = threshold_tokens
        if target_tokens is not None:
            budget["target"] = target_tokens
    if summary_max_tokens is not None:
        budget["summary_max_tokens"] = summary_max_tokens
    elif "summary_max_tokens" not in config.budget.model_fields_set:
        del budget["summary_max_tokens"]  # still the default: an error must not blame it
    data["budget"] = budget
    source = config.source if not config.source.startswith("<") else "options"
    base_dir = Path(config.source).parent if not config.source.startswith("<") else None
    flags = {
        key: f"{flag} {value}"
        for key, flag, value in (
            ("budget.summary_max_tokens", "--summary-max-tokens", summary_max_tokens),
            ("budget.threshold", "--threshold-tokens", threshold_tokens),
            ("budget.target", "--target-tokens", target_tokens),
            ("model", "--model", model),
            ("store", "--store", None if store is None else display_url(store)),
        )
        if value is not None
    }
    flags.update(_derived_names(config, budget, threshold_tokens, target_tokens))
    try:
        return SummemConfig.from_dict(data, source=source, base_dir=base_dir)
    except ConfigurationError as exc:
        raise ConfigurationError(_name_flags(str(exc), flags, source)) from None


def _derived_names(
    config: SummemConfig,
    budget: dict[str, Any],
    threshold_tokens: int | None,
    target_tokens: int | None,
) -> dict[str, str]:
    """How to name a budget setting the user typed neither as a flag nor in the file.

    A target derived from the threshold is "the target (75: three quarters of
    --threshold-tokens 100; ...)", not ``budget.target``, which nobody typed; a threshold
    left at its default (no file) says so and which flag sets it.
    """
    from summem.reducers.base import default_target

    names: dict[str, str] = {}
    threshold = budget["threshold"]
    if threshold_tokens is not None:
        origin = f"--threshold-tokens {threshold}"
    elif config.source.startswith("<"):  # no file: the default
        origin = f"the default threshold {threshold}"
        names["budget.threshold"] = (
            f"the default threshold ({threshold}; --threshold-tokens sets it)"
        )
    else:
        origin = f"budget.threshold {threshold}"
    if "summary_max_tokens" not in budget and config.source.startswith("<"):
        names["budget.summary_max_tokens"] = (
            f"the default summary_max_tokens ({config.budget.summary_max_tokens}; "
            "--summary-max-tokens sets it)"
        )
    if target_tokens is None and budget["target"] is None:
        names["budget.target"] = (
            f"the target ({default_target(threshold)}: three quarters of {origin}; "
            "--target-tokens sets it)"
        )
    return names


def _name_flags(message: str, flags: dict[str, str], source: str) -> str:
    """A settings error in the words the user typed: ``budget.target`` -> ``--target-tokens N``.

    Keys that did not come from the command line keep their ``summem.yaml`` names.
    """
    if source == "options" and message.startswith("options: "):
        message = message.removeprefix("options: ")
    lead = "" if source == "options" else re.escape(f"{source}: ")
    for key, flag in flags.items():
        k = re.escape(key)
        # where a key is named, not prose that contains it: a line's "key:" slot, "than key
        # (N)", "between key (N) and key (M)"
        message = re.sub(rf"(?m)^({lead}){k}(?=:)", _Literal(flag, keep_group=True), message)
        named = rf"(?<=than |ween | and ){k}(?: \([^)]*\))?(?![\w.])"
        message = re.sub(named, _Literal(flag), message)
    for key, name in _FLAG_NAMES.items():  # "set KEY below N, or KEY above M": the flag alone
        if key in flags or source == "options":
            for before in ("set ", "or "):
                message = re.sub(
                    rf"(?<={before}){re.escape(key)}(?= (?:below|above) )", _Literal(name), message
                )
    return message


_FLAG_NAMES = {
    "budget.summary_max_tokens": "--summary-max-tokens",
    "budget.threshold": "--threshold-tokens",
    "budget.target": "--target-tokens",
}


class _Literal:
    """A ``re.sub`` replacement taken as is (a backslash in a typed value is not an escape)."""

    def __init__(self, text: str, *, keep_group: bool = False) -> None:
        self.text, self.keep_group = text, keep_group

    def __call__(self, match: re.Match[str]) -> str:
        return (match.group(1) if self.keep_group else "") + self.text


# -- stores ----------------------------------------------------------------------------------


def sqlite_path(url: str) -> Path | None:
    """The file a ``sqlite:///`` URL names, else ``None``."""
    from summem.stores.url import sqlite_file

    if "${" in url:
        return None
    try:
        return Path(sqlite_file(url))
    except ConfigurationError:
        return None


def open_existing_store(config: SummemConfig) -> Store | None:
    """The configured store, or ``None`` for a SQLite file that does not exist.

    Inspecting sessions must not create an empty database where there was none.
    """
    path = sqlite_path(config.store)
    if path is not None and not path.exists():
        return None
    return config.build_store()


# -- models: keys and prices (litellm is imported only here, and only for a named model) ------


def import_litellm() -> Any:
    """litellm, imported quietly: no cost-map download, no debug banners.

    The command line owns its process: the banners go off for good (a library user's own
    ``suppress_debug_info`` is left alone, see :func:`summem.clients.litellm.import_litellm`).
    """
    from summem.clients.litellm import import_litellm as quiet_import

    litellm = quiet_import()
    setattr(litellm, "suppress_debug_info", True)  # noqa: B010 - not in its stubs
    return litellm


def server_model(
    model: str, base_url: str | None, api_key: str | None
) -> tuple[str, dict[str, Any]]:
    """``model`` and litellm's keyword arguments for it, at ``base_url`` when given.

    A server of one's own (``--base-url``) is OpenAI-compatible: its model goes through litellm
    as ``openai/<model>`` and needs no key.
    """
    if base_url is not None:
        model = model if "/" in model else f"openai/{model}"
        return model, {"api_base": base_url, "api_key": api_key or "not-needed"}
    return model, ({"api_key": api_key} if api_key is not None else {})


def missing_key_vars(config: SummemConfig, model: str, *, base_url: str | None = None) -> list[str]:
    """The environment variables ``model`` needs that are not set (none needed: ``[]``).

    ``api_key_env`` in the config wins; then the common providers' own variables (known
    without importing litellm, which takes seconds); otherwise litellm says what the provider
    reads. Only credentials count: an unset ``*_API_BASE`` has a default (e.g. a local
    Ollama). A server of one's own (``base_url``) needs no key.
    """
    var = config.api_key_variable(model)
    if var is not None:
        return [] if os.environ.get(var) else [var]
    if base_url is not None:
        return []
    from summem.clients.keys import key_variable

    var = key_variable(model)
    if var is not None:
        return [] if os.environ.get(var) else [var]
    try:
        found = import_litellm().validate_environment(model=model)
    except Exception:  # an unknown provider: let the call itself say what is wrong
        return []
    return [k for k in found.get("missing_keys") or [] if is_secret_name(k)]


def model_prices(model: str) -> tuple[float, float] | None:
    """(input, output) USD per token for ``model`` from litellm's bundled cost map."""
    try:
        info = import_litellm().get_model_info(model)
    except Exception:
        return None
    price_in, price_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if not isinstance(price_in, (int, float)) or not isinstance(price_out, (int, float)):
        return None
    return float(price_in), float(price_out)
