"""Store URLs, parsed in one place: ``scheme://rest``, and the file a ``sqlite://`` URL names.

:func:`summem.stores.open_store` picks a backend by the scheme, the config checks a URL before
anything is opened, and the CLI needs to know whether a SQLite file exists before it opens it:
all three read URLs through :func:`parse_store_url` and :func:`sqlite_file`
(:func:`postgres_settings` for ``postgresql://``, :func:`redis_cluster_url` for a Redis Cluster).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from summem.errors import ConfigurationError

__all__ = [
    "DATA_DIR_ENV",
    "REPLAY_DB",
    "PostgresSettings",
    "StoreURL",
    "data_dir",
    "default_store_url",
    "existing_store_file",
    "parse_store_url",
    "postgres_settings",
    "redis_cluster_url",
    "sqlite_file",
    "sqlite_read_only",
]

DATA_DIR_ENV = "SUMMEM_DATA_DIR"
"""Environment variable naming the folder of the default SQLite store."""

_SQLITE_FORMS = "use sqlite:///relative/path.db or sqlite:////absolute/path.db"

REPLAY_DB = "summem.db"
"""The SQLite file a ``summem replay --out`` folder holds."""

_STORE_FORMS = (
    "give a store URL such as sqlite:///summem.db, redis://127.0.0.1:6379/0, "
    "postgresql://..., a SQLite file or a `summem replay --out` folder"
)


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


def existing_store_file(target: str) -> Path:
    """The SQLite file a path names: the file itself, or a ``summem replay --out`` folder's.

    For the commands that read stores (``summem sessions``, ``summem inspect``): a path, not a
    URL, must already exist there, so that a mistyped one is an error rather than a new, empty
    database.

    Raises:
        ConfigurationError: nothing there, or a folder without :data:`REPLAY_DB` (naming it).
    """
    path = Path(target).expanduser()
    if path.is_dir():
        if not (path / REPLAY_DB).is_file():
            raise ConfigurationError(f"{target}: a folder without {REPLAY_DB} ({_STORE_FORMS})")
        return path / REPLAY_DB
    if not path.is_file():
        raise ConfigurationError(f"{target}: no such file or folder ({_STORE_FORMS})")
    return path


def _sqlite_rest(url: str | StoreURL) -> tuple[str, bool | None]:
    """The path of a SQLite URL and its ``?mode=`` (True: ``ro``, False: ``rw``/``rwc``)."""
    parsed = url if isinstance(url, StoreURL) else parse_store_url(url)
    rest = parsed.rest
    if parsed.scheme != "sqlite" or not rest.startswith("/") or len(rest) < 2:
        raise ConfigurationError(f"bad SQLite URL {parsed.url!r}: {_SQLITE_FORMS}")
    path, sep, query = rest[1:].rpartition("?")
    if not sep or not query.startswith("mode="):
        return rest[1:], None  # a "?" elsewhere is part of the file name
    mode = query[len("mode=") :]
    if mode not in ("ro", "rw", "rwc") or not path:
        raise ConfigurationError(
            f"bad SQLite URL {parsed.url!r}: ?mode= takes ro (read-only), rw or rwc"
        )
    return path, mode == "ro"


def sqlite_file(url: str | StoreURL) -> str:
    """The file path in ``sqlite:///relative.db`` or ``sqlite:////absolute/path.db``.

    A trailing ``?mode=ro`` (or ``rw``, ``rwc``) is not part of it: see
    :func:`sqlite_read_only`.

    Raises:
        ConfigurationError: not a SQLite URL of either form.
    """
    return _sqlite_rest(url)[0]


def sqlite_read_only(url: str | StoreURL) -> bool | None:
    """``True`` for a SQLite URL ending in ``?mode=ro``, ``False`` for ``?mode=rw``/``rwc``.

    ``None`` without one: the store decides from the file's permissions.

    Raises:
        ConfigurationError: not a SQLite URL, or an unknown mode.
    """
    return _sqlite_rest(url)[1]


@dataclass(frozen=True)
class PostgresSettings:
    """How to connect: the libpq connection string and summem's own settings."""

    conninfo: str
    schema: str = "summem"
    min_size: int = 1
    max_size: int = 10
    timeout: float = 30.0


_OWN = {"schema", "pool_min_size", "pool_max_size", "pool_timeout"}


def postgres_settings(url: str | StoreURL) -> PostgresSettings:
    """``postgresql://user@host:5432/db?schema=summem&pool_max_size=10`` taken apart.

    ``schema``, ``pool_min_size``, ``pool_max_size`` and ``pool_timeout`` (seconds) are
    summem's; every other query parameter (``sslmode``, ``connect_timeout``...) goes to libpq.

    Raises:
        ConfigurationError: not a ``postgresql://`` / ``postgres://`` URL, or a bad setting.
    """
    parsed = url if isinstance(url, StoreURL) else parse_store_url(url)
    parts = urlsplit(parsed.url)
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise ConfigurationError(
            f"bad PostgreSQL URL: use postgresql://user@host:5432/dbname, got scheme "
            f"{parts.scheme!r}"
        )
    ours: dict[str, str] = {}
    rest: list[tuple[str, str]] = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in _OWN:
            if key in ours:
                raise ConfigurationError(f"PostgreSQL URL sets {key!r} twice")
            ours[key] = value
        else:
            rest.append((key, value))
    query = urlencode(rest, quote_via=quote)  # %20, not "+": libpq does not read "+" as a space
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))
    options = PostgresSettings(conninfo=conninfo, schema=ours.get("schema", "summem"))
    try:
        min_size = int(ours.get("pool_min_size", options.min_size))
        max_size = int(ours.get("pool_max_size", options.max_size))
        timeout = float(ours.get("pool_timeout", options.timeout))
    except ValueError as exc:
        raise ConfigurationError(f"PostgreSQL URL: bad pool setting ({exc})") from None
    return PostgresSettings(conninfo, options.schema, min_size, max_size, timeout)


_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def redis_cluster_url(url: str | StoreURL) -> str | None:
    """The ``redis://`` (``rediss://``) URL of a ``redis+cluster://`` (``rediss+cluster://``) one.

    ``redis+cluster://host:7000`` names one node of a Redis Cluster (redis-py's
    ``RedisCluster`` finds the others from it); any other scheme gives ``None``.
    """
    parsed = url if isinstance(url, StoreURL) else parse_store_url(url)
    plain = _CLUSTER_SCHEMES.get(parsed.scheme)
    return None if plain is None else f"{plain}://{parsed.rest}"
