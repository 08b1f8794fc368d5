"""Store URLs are parsed in one place."""

from __future__ import annotations

import pytest

from summem.errors import ConfigurationError
from summem.stores.url import parse_store_url, redis_cluster_url, sqlite_file, sqlite_read_only


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


def test_sqlite_mode_at_the_end_of_the_url() -> None:
    assert (sqlite_file("sqlite:///x.db?mode=ro"), sqlite_read_only("sqlite:///x.db?mode=ro")) == (
        "x.db",
        True,
    )
    assert sqlite_read_only("sqlite:////abs/x.db?mode=rw") is False
    assert sqlite_read_only("sqlite:///x.db?mode=rwc") is False
    assert sqlite_read_only("sqlite:///x.db") is None
    # any other "?" is part of the file name, as it always was
    assert sqlite_file("sqlite:///odd?name.db") == "odd?name.db"
    assert sqlite_read_only("sqlite:///odd?name.db") is None
    for bad in ("sqlite:///x.db?mode=memory", "sqlite:///?mode=ro"):
        with pytest.raises(ConfigurationError, match="mode= takes ro"):
            sqlite_file(bad)


def test_the_default_store_is_in_the_users_data_folder(monkeypatch, tmp_path) -> None:
    from summem.stores.url import data_dir, default_store_url

    monkeypatch.setenv("SUMMEM_DATA_DIR", str(tmp_path / "here"))
    assert default_store_url() == f"sqlite:///{tmp_path / 'here' / 'summem.db'}"
    monkeypatch.delenv("SUMMEM_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    assert data_dir() == tmp_path / "xdg" / "summem"  # platformdirs, not the working folder


def test_a_redis_cluster_url_names_one_node_for_redis_py() -> None:
    assert redis_cluster_url("redis+cluster://h:7000") == "redis://h:7000"
    assert redis_cluster_url("REDISS+Cluster://:pw@h:7000/0") == "rediss://:pw@h:7000/0"
    assert redis_cluster_url("redis://h:6379/0") is None
    assert redis_cluster_url(parse_store_url("memory://")) is None
