"""What ``summem inspect`` opens: a store, read-only where the backend allows, and its settings.

``--store`` takes a store URL (``sqlite:///...``, ``redis://...``, ``postgresql://...``), a
SQLite file's path, or a ``summem replay --out`` folder (its ``summem.db``, with the turn of
each reduction from its ``summaries.jsonl``). Read-only by construction:

- SQLite is opened with SQLite's own ``mode=ro`` (any ``?mode=`` given is replaced), so SQLite
  refuses every write whoever runs the process; a file that does not exist is an error, never
  created;
- PostgreSQL connects with ``default_transaction_read_only=on``, so the server refuses writes;
- Redis has no read-only connection: the inspector only ever calls the store's read methods
  (``load``, ``history``, ``summaries``, ``branches``, listings and searches).

The URL shown anywhere is :func:`~summem._secrets.mask_url`'s: its password never appears.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from summem._secrets import mask_url
from summem.errors import ConfigurationError, StoreError
from summem.messages import Message
from summem.stores.base import Store
from summem.stores.url import existing_store_file

__all__ = ["Source", "open_source", "read_only_url", "recorded_settings", "recorded_turns"]

REPLAY_SUMMARIES = "summaries.jsonl"
REPLAY_SETTINGS = "settings.json"  # summem.cli.replay.RECORDED_SETTINGS (not imported: light)


@dataclass
class Source:
    """An opened store and how to name it.

    Attributes:
        store: the store, only read.
        url: the URL it was opened with (may hold a password: never shown).
        shown: the URL as shown (password masked).
        read_only: how the backend keeps it read-only, in words.
        turns: summary id -> turn, when a replay folder recorded them.
        settings: the settings a replay folder recorded (``summem.yaml``'s keys), if any.
        settings_file: the file they were read from.
    """

    store: Store
    url: str
    shown: str
    read_only: str
    turns: dict[str, int] = field(default_factory=dict)
    settings: dict[str, Any] | None = None
    settings_file: Path | None = None

    def close(self) -> None:
        """Close the store."""
        self.store.close()


def read_only_url(url: str) -> tuple[str, str]:
    """``url`` rewritten to open its store read-only, and how, in words.

    Raises:
        ConfigurationError: a SQLite URL naming a file that does not exist, or a bad URL.
    """
    scheme = url.split(":", 1)[0].lower() if "://" in url else ""
    if scheme == "sqlite":
        from summem.stores.url import sqlite_file

        path = Path(sqlite_file(url.split("?", 1)[0]))
        if not path.is_file():
            raise ConfigurationError(
                f"no SQLite database at {path} (summem inspect never creates one)"
            )
        return f"sqlite:///{path.resolve()}?mode=ro", "SQLite mode=ro"
    if scheme in ("postgresql", "postgres"):
        try:
            parts = urlsplit(url)
        except ValueError as exc:
            raise ConfigurationError(f"bad PostgreSQL URL {mask_url(url)}: {exc}") from None
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
        options = dict(parse_qsl(parts.query)).get("options", "")
        options = f"{options} -c default_transaction_read_only=on".strip()
        query.append(("options", options))
        return urlunsplit(parts._replace(query=urlencode(query))), "read-only transactions"
    return url, "read methods only"


def recorded_turns(folder: Path) -> dict[str, int]:
    """Summary id -> turn, from a replay folder's ``summaries.jsonl`` (``{}`` without one).

    Lines that are not a replay's records are skipped: the file is a hint, never trusted.
    """
    path = folder / REPLAY_SUMMARIES
    turns: dict[str, int] = {}
    if not path.is_file():
        return turns
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            sid, turn = record.get("id"), record.get("turn")
            if isinstance(sid, str) and type(turn) is int and turn >= 0:
                turns[sid] = turn
    return turns


def recorded_settings(folder: Path) -> dict[str, Any] | None:
    """The settings a replay folder's ``settings.json`` recorded (``None``: none usable).

    The file is a hint like ``summaries.jsonl``: one that is not a replay's record is ignored
    (the settings themselves are validated as ``summem.yaml`` is, by the caller).
    """
    path = folder / REPLAY_SETTINGS
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    settings = record.get("settings") if isinstance(record, dict) else None
    return settings if isinstance(settings, dict) else None


def open_source(target: str) -> Source:
    """Open what ``--store`` names, read-only (see the module docstring).

    Raises:
        ConfigurationError: nothing usable there (naming it), an unknown scheme or a bad URL.
        StoreError: the store cannot be reached or read.
    """
    from summem.stores import open_store

    turns: dict[str, int] = {}
    settings: dict[str, Any] | None = None
    settings_file: Path | None = None
    secrets: list[str] = []
    url = shown = target  # a path is shown as it was typed, a URL with its ${NAME} references
    if "://" not in target:
        path = existing_store_file(target)
        if Path(target).expanduser().is_dir():  # a replay folder: its turns and settings too
            turns = recorded_turns(path.parent)
            settings = recorded_settings(path.parent)
            settings_file = path.parent / REPLAY_SETTINGS if settings is not None else None
        url = f"sqlite:///{path.resolve()}"
    else:  # a URL: its ${NAME} references from the environment, as summem.yaml's store
        from summem.config.io import expand_env

        url, secrets = expand_env(target, "--store")
    opened, how = read_only_url(url)
    try:
        store = open_store(opened)
    except StoreError as exc:
        if "read-only transaction" in str(exc):
            raise ConfigurationError(
                f"{mask_url(shown)}: the database has no summem schema, or an older one (summem "
                "inspect opens it read-only and never migrates it; any summem writer does)"
            ) from None
        if not secrets:
            raise
        text = str(exc)
        for secret in secrets:  # what the environment gave never appears
            text = text.replace(secret, "***")
        raise StoreError(text) from None
    return Source(
        store=store,
        url=opened,
        shown=mask_url(shown),
        read_only=how,
        turns=turns,
        settings=settings,
        settings_file=settings_file,
    )


def summary_text(summary: Message) -> str | None:
    """The summary's text, ``None`` when the log keeps only its metadata."""
    text = summary.text
    return text if text.strip() else None
