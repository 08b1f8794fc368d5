"""Whether the SQLite store opens its file read-write or read-only, and how.

A database may be readable but not writable: a file without write permission (``chmod 444``),
a folder the process cannot write to, a read-only mount, or one the caller asks to open
read-only (``read_only=True``, ``sqlite:///app.db?mode=ro``, ``file:app.db?mode=ro``).
Inspecting such a file (``summem sessions list``) must work and must never change it, so it is
opened with SQLite's ``mode=ro``: SQLite itself then refuses every write, whoever runs the
process. Whether the process can write is what the kernel says (``os.access``), as before
read-only support existed: root may write a ``chmod 444`` file, so root keeps writing it.

A WAL database needs its ``-shm`` file even to be read. In a folder the process cannot write
to, SQLite cannot create that file, and ``mode=ro`` fails when it is missing (a cleanly closed
database leaves none). The file is then opened ``immutable=1`` (no shared memory, no locks),
which is only right when no ``-wal`` file holds commits not yet merged into the database: with
one, :func:`immutable_fallback` says why it cannot be read that way. An immutable reader cannot
see another process's writes, so :func:`fingerprint` records the files it read; before every
read the store compares them and, when anything changed, opens the file again (``mode=ro`` if a
writer's ``-shm`` now allows it, else immutable if no ``-wal`` holds commits, else an error).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from summem.errors import ConfigurationError

__all__ = [
    "Target",
    "fingerprint",
    "immutable_fallback",
    "read_only_reason",
    "read_only_uri",
    "target",
]

_MEMORY_HINT = "use InMemoryStore ('memory://') for a store that is not persisted"


@dataclass(frozen=True)
class Target:
    """The file to open and how.

    Attributes:
        path: the database file.
        read_only: True or False when the caller said so, ``None`` to decide from the file's
            permissions when it is opened.
        immutable: the caller promised nothing changes the file (``immutable=1``).
    """

    path: str
    read_only: bool | None = None
    immutable: bool = False


def target(path: str | os.PathLike[str], read_only: bool | None = None) -> Target:
    """The :class:`Target` a store argument names: a path, or a ``file:`` URI.

    A ``file:`` URI may carry ``mode=ro`` (read-only), ``mode=rw`` or ``mode=rwc``
    (read-write) and ``immutable=1``; nothing else. ``read_only`` overrides the URI's mode.

    Raises:
        ConfigurationError: no path, an in-memory database, or a URI parameter summem does
            not support.
    """
    text = os.fspath(path)
    if not text or text == ":memory:":
        raise ConfigurationError(f"SQLiteStore needs a file path, got {text!r}; {_MEMORY_HINT}")
    if not text.startswith("file:"):
        return Target(text, read_only)
    parts = urlsplit(text)
    if parts.netloc not in ("", "localhost") or not parts.path:
        raise ConfigurationError(
            f"SQLiteStore needs a file path, got the URI {text!r}; use file:relative.db or "
            "file:/absolute/path.db"
        )
    uri_read_only: bool | None = None
    immutable = False
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key == "mode" and value == "memory":
            raise ConfigurationError(f"SQLiteStore needs a file path, got {text!r}; {_MEMORY_HINT}")
        if key == "mode" and value in ("ro", "rw", "rwc"):
            uri_read_only = value == "ro"
        elif key == "immutable" and value in ("0", "1"):
            immutable = value == "1"
        else:
            raise ConfigurationError(
                f"SQLite URI {text!r}: {key}={value} is not supported; summem reads "
                "mode=ro|rw|rwc and immutable=1"
            )
    if immutable:
        if uri_read_only is False or read_only is False:
            raise ConfigurationError(
                f"SQLite URI {text!r}: immutable=1 reads the file as it is and never writes "
                "it; it cannot be opened read-write (drop immutable=1 or the read-write mode)"
            )
        uri_read_only = True
    return Target(unquote(parts.path), uri_read_only if read_only is None else read_only, immutable)


def _writable(path: str) -> bool:
    """The process may write ``path`` (what the kernel says: root may write a 444 file)."""
    if not os.path.exists(path):
        return True  # gone: let SQLite say what is wrong
    return os.access(path, os.W_OK)


def _folder(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def read_only_reason(path: str) -> str | None:
    """Why an existing database must be opened read-only, or ``None`` when it can be written."""
    if not os.path.exists(path):
        return None  # a new database is created: SQLite reports a folder it cannot write
    if not _writable(path):
        return "the file is not writable"
    if not _writable(_folder(path)):
        return "its folder is not writable"
    return None


def immutable_fallback(path: str) -> str | None:
    """Why ``path`` cannot be opened ``immutable=1`` after ``mode=ro`` failed, or ``None``.

    Only a folder the process cannot write to explains the failure (SQLite could not create
    the ``-shm`` file), and only a missing or empty ``-wal`` file makes the fallback exact.
    An empty string: the folder is writable, so SQLite's own error says what is wrong.
    """
    if _writable(_folder(path)):
        return ""
    try:
        wal = os.path.getsize(path + "-wal")
    except OSError:
        return None
    if wal > 0:
        return (
            "its folder is not writable and its -wal file holds commits not yet merged into "
            "the database; open it once where it can be written (or copy the database, its "
            "-wal and -shm files to a writable folder)"
        )
    return None


def read_only_uri(path: str, *, immutable: bool) -> str:
    """The ``file:`` URI that opens ``path`` read-only (``immutable=1`` as well when asked)."""
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro"
    return uri + "&immutable=1" if immutable else uri


Fingerprint = tuple[tuple[int, int, int, int, int] | None, ...]


def fingerprint(path: str) -> Fingerprint:
    """What identifies the database's state on disk, to notice another process writing it.

    Its file, ``-wal`` and ``-shm`` files: device, inode, size, mtime and ctime of each
    (``None`` for one that is missing).
    """
    out: list[tuple[int, int, int, int, int] | None] = []
    for name in (path, path + "-wal", path + "-shm"):
        try:
            st = os.stat(name)
        except OSError:
            out.append(None)
        else:
            out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)
