"""Reading ``summem.yaml`` safely, keeping secrets out of it, and naming what is wrong.

Split from :mod:`summem.config.model` (the schema and the factories) so that module stays about
settings. Everything here raises :class:`~summem.errors.ConfigurationError` with the file
and the key path, and never repeats a value that might be a secret.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from summem._secrets import MASK, is_secret_name, looks_like_key
from summem._yaml import MAX_YAML_BYTES, YAMLFileError, parse_yaml
from summem._yaml import read_capped as _read_capped
from summem.errors import ConfigurationError, MissingDependencyError, SummemError
from summem.reducers.base import budget_problem

__all__ = [
    "EXTRACTIVE",
    "MAX_CONFIG_BYTES",
    "TRUNCATE",
    "api_key_from_env",
    "check_consistency",
    "check_env_names",
    "check_store_url",
    "config_issue",
    "expand_env",
    "format_errors",
    "key_variable",
    "open_with_env",
    "read_capped",
    "read_yaml",
    "reject_secrets",
]

MAX_CONFIG_BYTES = MAX_YAML_BYTES
EXTRACTIVE = "extractive"
TRUNCATE = "truncate"
_ISSUE = "summem_config"
_MAX_REPORTED = 10
_ENV_NAME_RE = re.compile(r"^[A-Z_][A-Z0-9_]*$")
_ENV_REF_RE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}")
_ALLOWED_KEYS = frozenset(("api_key_env",))
_NO_SECRETS = (
    "secrets are not read from the config file; put the key in an environment variable and "
    "name the variable with api_key_env (e.g. api_key_env: OPENAI_API_KEY)"
)


# -- reading --------------------------------------------------------------------------------


def read_capped(path: Path, source: str) -> bytes:
    """The file's bytes, refusing anything larger than :data:`MAX_CONFIG_BYTES`."""
    try:
        return _read_capped(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        raise ConfigurationError(f"{source}: no such file") from None
    except OSError as exc:
        raise ConfigurationError(f"{source}: cannot be read ({exc.strerror})") from None
    except YAMLFileError as exc:
        raise ConfigurationError(f"{source}: {exc}") from None


def read_yaml(text: str | bytes, source: str) -> Any:
    """Parse the file safely (see :mod:`summem._yaml`), naming ``source`` in errors."""
    try:
        return parse_yaml(text, limit=MAX_CONFIG_BYTES)
    except YAMLFileError as exc:
        raise ConfigurationError(f"{source}: {exc}") from None


# -- secrets --------------------------------------------------------------------------------


def reject_secrets(data: Any, source: str, path: str = "") -> None:
    """Refuse secret-named keys and key-shaped values anywhere in the parsed file."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            name = str(key)
            where = f"{path}.{name}" if path else name
            normal = name.lower().replace("-", "_")
            secret_name = normal not in _ALLOWED_KEYS and is_secret_name(normal)
            if secret_name and path != "api_key_env":  # that map's keys are model names
                raise ConfigurationError(f"{source}: {where}: {_NO_SECRETS}")
            reject_secrets(value, source, where)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            reject_secrets(item, source, f"{path}[{i}]")
    elif isinstance(data, str) and looks_like_key(data):
        raise ConfigurationError(f"{source}: {path}: this looks like an API key; {_NO_SECRETS}")


def check_store_url(url: str) -> None:
    """A store URL: known scheme, well-formed ``${VAR}`` references, no literal password."""
    from summem.stores import available_schemes
    from summem.stores.url import parse_store_url

    try:
        scheme = parse_store_url(url).scheme
    except ConfigurationError:
        raise ValueError(
            "must be a store URL such as sqlite:///summem.db, redis://localhost:6379/0 or memory://"
        ) from None
    schemes = available_schemes()
    if scheme not in schemes:
        raise ValueError(f"unknown scheme {scheme!r}; available: {', '.join(schemes)}")
    if "${" in _ENV_REF_RE.sub("", url):
        raise ValueError("environment references are written ${NAME}, NAME in capitals")
    parts = urlsplit(url)
    literal = "a literal password"
    if parts.password and not _ENV_REF_RE.fullmatch(parts.password):
        raise ValueError(
            f"holds {literal}; write it as ${{STORE_PASSWORD}} and set that environment variable"
        )
    for key, value in parse_qsl(parts.query):
        if is_secret_name(key) and not _ENV_REF_RE.fullmatch(value):
            raise ValueError(
                f"holds a literal {key}; write it as ${{STORE_PASSWORD}} and set that "
                "environment variable"
            )


def expand_env(url: str, source: str) -> tuple[str, list[str]]:
    """``url`` with each ``${NAME}`` replaced from the environment, and the values used.

    Raises:
        ConfigurationError: a variable is not set (named; its value never appears).
    """
    values: list[str] = []

    def replace(match: re.Match[str]) -> str:
        value = os.environ.get(match.group(1))
        if not value:
            raise ConfigurationError(
                f"{source}: store: environment variable {match.group(1)} is not set"
            )
        values.append(value)
        return value

    return _ENV_REF_RE.sub(replace, url), values


def open_with_env(opener: Any, url: str, source: str) -> Any:
    """``opener(url)`` with ``${NAME}`` expanded; errors never show the expanded values."""
    expanded, secrets = expand_env(url, source)
    try:
        return opener(expanded)
    except MissingDependencyError:
        raise  # keeps its install hint
    except SummemError as exc:
        text = str(exc)
        for secret in secrets:
            text = text.replace(secret, MASK)
        error = ConfigurationError(f"{source}: store: {text}")
        if secrets:  # the cause would carry the expanded URL
            raise error from None
        raise error from exc


def key_variable(spec: str | Mapping[str, str] | None, model: str) -> str | None:
    """The environment variable ``api_key_env`` names for ``model`` (``None``: it names none)."""
    return spec.get(model) if isinstance(spec, Mapping) else spec


def api_key_from_env(spec: str | Mapping[str, str] | None, model: str, source: str) -> str | None:
    """The key for ``model`` from the variable ``api_key_env`` names; ``None`` if it names none.

    Raises:
        ConfigurationError: the variable is named but not set.
    """
    var = key_variable(spec, model)
    if var is None:
        return None  # litellm reads the provider's usual variable (OPENAI_API_KEY...)
    value = os.environ.get(var)
    if not value:
        where = "api_key_env" + (f".{model}" if isinstance(spec, Mapping) else "")
        raise ConfigurationError(f"{source}: {where}: environment variable {var} is not set")
    return value


def check_env_names(value: Any) -> None:
    """``api_key_env``: a variable's name, or a map model -> name; never a key."""
    if value is None:
        return
    if isinstance(value, dict):
        if not all(isinstance(k, str) and k for k in value):
            raise ValueError("keys must be model names")
        names: list[Any] = list(value.values())
    else:
        names = [value]
    if not all(isinstance(n, str) for n in names):
        raise ValueError("must be an environment variable's name, or a map model -> name")
    for name in names:
        if not _ENV_NAME_RE.match(name):
            raise ValueError(
                "must be the NAME of an environment variable (like OPENAI_API_KEY), "
                "not the key itself"
            )


# -- cross-field checks ---------------------------------------------------------------------


def check_consistency(config: Any) -> None:
    """Settings that are fine alone but not together (a ``SummemConfig``)."""
    b = config.budget
    problem = budget_problem(
        unit=b.unit,
        threshold=b.threshold,
        target=b.effective_target,
        soft_threshold=b.soft_threshold,
        summary_max_tokens=b.summary_max_tokens,
        name=lambda setting: f"budget.{setting}",
        defaults=[
            s
            for s in ("target", "summary_max_tokens")
            if s not in b.model_fields_set or getattr(b, s) is None
        ],
    )
    if problem is not None:
        setting, what = problem
        raise config_issue(f"budget.{setting}", what)
    if b.hard_limit is not None and b.hard_limit < b.threshold:
        raise config_issue(
            "budget.hard_limit",
            f"must be at least the threshold ({b.threshold}), got {b.hard_limit}",
        )
    r = config.retries
    if r.max_backoff < r.initial_backoff:
        raise config_issue(
            "retries.max_backoff",
            f"must not be smaller than retries.initial_backoff ({r.initial_backoff})",
        )
    seen: set[str] = set()
    for i, step in enumerate(config.fallback):
        where = f"fallback[{i}]"
        if not step.strip():
            raise config_issue(where, f"must be a model name, {EXTRACTIVE!r} or {TRUNCATE!r}")
        if step == config.model:
            raise config_issue(where, f"{step!r} is already the main model")
        if step in seen:
            raise config_issue(where, f"{step!r} is listed twice")
        if TRUNCATE in seen:
            raise config_issue(where, f"nothing after {TRUNCATE!r} ever runs (it cannot fail)")
        if config.model is None and step != TRUNCATE:
            raise config_issue(
                where,
                f"{step!r} would only run if the extractive summarizer failed: with no model set, "
                f"it is the main summarizer; set model, or list only {TRUNCATE!r} here",
            )
        seen.add(step)
    if isinstance(config.api_key_env, dict):
        models = set(config.llm_models())
        for model in config.api_key_env:
            if model not in models:
                raise config_issue(f"api_key_env.{model}", "not a model named in model or fallback")


# -- error messages -------------------------------------------------------------------------


def config_issue(path: str, message: str) -> PydanticCustomError:
    """A cross-field error that knows its own key path (raise it from a model validator)."""
    return PydanticCustomError(_ISSUE, "{path}: {message}", {"path": path, "message": message})


def _path(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def format_errors(
    exc: ValidationError, source: str, allowed: Mapping[tuple[str, ...], Sequence[str]]
) -> str:
    """One line per problem: ``source: key.path: what is wrong``.

    Args:
        exc: pydantic's error.
        source: the file, as the user named it.
        allowed: the keys each section accepts, for "unknown key" hints.
    """
    lines = []
    errors = exc.errors(include_input=False, include_url=False)
    for err in errors[:_MAX_REPORTED]:
        loc, kind, msg = tuple(err["loc"]), err["type"], err["msg"]
        ctx = err.get("ctx") or {}
        if kind == _ISSUE:
            lines.append(f"{source}: {ctx['path']}: {ctx['message']}")
            continue
        if kind == "extra_forbidden":
            keys = list(allowed.get(tuple(str(p) for p in loc[:-1]), ()))
            close = difflib.get_close_matches(str(loc[-1]), keys, n=1)
            msg = "unknown key; " + (
                f"did you mean {close[0]!r}?" if close else f"expected one of: {', '.join(keys)}"
            )
        elif kind in ("tuple_type", "list_type"):
            msg = "must be a list"
        elif kind == "model_type":
            msg = "must be a mapping of settings"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        lines.append(f"{source}: {_path(loc)}: {msg}")
    if len(errors) > _MAX_REPORTED:
        lines.append(f"{source}: ... and {len(errors) - _MAX_REPORTED} more problems")
    return "\n".join(lines)
