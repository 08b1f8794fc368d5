"""Store URLs are parsed in one place."""

from __future__ import annotations

import pytest

from summem.exceptions import ConfigurationError
from summem.stores.url import parse_store_url, sqlite_file


def test_parse_store_url() -> None:
    url = parse_store_url("Redis://localhost:6379/0")
    assert (url.scheme, url.rest) == ("redis", "localhost:6379/0")


@pytest.mark.parametrize("bad", ["", "summem.db", "://x", None, 3])
def test_not_a_store_url(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="scheme://"):
        parse_store_url(bad)


def test_sqlite_file() -> None:
    assert sqlite_file("sqlite:///rel/x.db") == "rel/x.db"
    assert sqlite_file("sqlite:////abs/x.db") == "/abs/x.db"
    for bad in ("sqlite://x.db", "sqlite:///", "redis://h/0"):
        with pytest.raises(ConfigurationError, match="sqlite:///relative"):
            sqlite_file(bad)
