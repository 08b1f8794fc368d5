"""Store URLs, parsed in one place: ``scheme://rest``, and the file a ``sqlite://`` URL names.

:func:`summem.stores.open_store` picks a backend by the scheme, the config checks a URL before
anything is opened, and the CLI needs to know whether a SQLite file exists before it opens it:
all three read URLs through :func:`parse_store_url` and :func:`sqlite_file`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from summem.exceptions import ConfigurationError

__all__ = [
    "DATA_DIR_ENV",
    "StoreURL",
    "data_dir",
    "default_store_url",
    "parse_store_url",
    "sqlite_file",
]

DATA_DIR_ENV = "SUMMEM_DATA_DIR"
"""Environment variable naming the folder of the default SQLite store."""

_SQLITE_FORMS = "use sqlite:///relative/path.db or sqlite:////absolute/path.db"


@dataclass(frozen=True)
class StoreURL:
    """A store URL taken apart.

    Attributes:
        url: the URL as given.
        scheme: its scheme, lower-cased (the backend's name in the registry).
        rest: everything after ``://``.
    """

    url: str
    scheme: str
    rest: str


def data_dir() -> Path:
    """Where the default store lives: ``$SUMMEM_DATA_DIR``, else the user's data folder.

    The platform's own place (``~/.local/share/summem`` on Linux, ``~/Library/Application
    Support/summem`` on macOS, ``%LOCALAPPDATA%/summem`` on Windows), so that programs run from
    different folders share one store on purpose, and unrelated ones never by accident.
    """
    configured = os.environ.get(DATA_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("summem", appauthor=False))


def default_store_url() -> str:
    """The default store: a SQLite file in :func:`data_dir` (created when first opened)."""
    return f"sqlite:///{(data_dir() / 'summem.db').resolve()}"


def parse_store_url(url: object) -> StoreURL:
    """Split ``scheme://rest``.

    Raises:
        ConfigurationError: ``url`` is not a string of that shape.
    """
    if not isinstance(url, str) or "://" not in url:
        raise ConfigurationError(f"a store URL looks like 'scheme://...', got {url!r}")
    scheme, _, rest = url.partition("://")
    if not scheme:
        raise ConfigurationError(f"a store URL looks like 'scheme://...', got {url!r}")
    return StoreURL(url, scheme.lower(), rest)


def sqlite_file(url: str | StoreURL) -> str:
    """The file path in ``sqlite:///relative.db`` or ``sqlite:////absolute/path.db``.

    Raises:
        ConfigurationError: not a SQLite URL of either form.
    """
    parsed = url if isinstance(url, StoreURL) else parse_store_url(url)
    rest = parsed.rest
    if parsed.scheme != "sqlite" or not rest.startswith("/") or len(rest) < 2:
        raise ConfigurationError(f"bad SQLite URL {parsed.url!r}: {_SQLITE_FORMS}")
    return rest[1:]
