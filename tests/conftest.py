"""Shared fixtures: no network, a clean environment, offline tokenizers.

The network guard refuses every socket connection that is not to this machine (Redis and
PostgreSQL run on 127.0.0.1), so an HTTP request that respx did not intercept fails the test
instead of reaching a provider, whichever HTTP stack sent it (httpx or httpx2: both end in
``socket``). respx intercepts both stacks (:mod:`tests.fakes.transport`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from tests.fakes.transport import route_httpx2_too

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Property tests (hypothesis) take their example count from a profile, not from the test:
# "default" keeps the everyday suite quick; "thorough" (SUMMEM_HYPOTHESIS=thorough, or
# `--hypothesis-profile=thorough`) is for a scheduled or explicit deep run. A test that needs a
# share of it (the stateful machines, each example a new store) scales the loaded profile's count.
settings.register_profile("default", max_examples=50)
settings.register_profile("thorough", max_examples=1000, stateful_step_count=100)
settings.load_profile(os.environ.get("SUMMEM_HYPOTHESIS", "default"))

# LLM HTTP fixtures (respx routes, a fake clock, backends) for the client and summarizer tests.
pytest_plugins = ["tests.fakes.fixtures"]
# respx's routers intercept openai 3.x's httpx2 requests too, not only httpx's.
route_httpx2_too()

_LOCAL_HOSTS = {"127.0.0.1", "::1", "localhost", "0.0.0.0"}
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


class NetworkBlockedError(RuntimeError):
    """A test tried to reach the network without a respx mock."""


def _host_of(address: Any) -> str | None:
    if isinstance(address, tuple) and address:
        return str(address[0])
    return None  # unix sockets are local


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = _host_of(address)
    if host is not None and host not in _LOCAL_HOSTS:
        raise NetworkBlockedError(f"unmocked network access to {address!r} in a test")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    host = _host_of(address)
    if host is not None and host not in _LOCAL_HOSTS:
        raise NetworkBlockedError(f"unmocked network access to {address!r} in a test")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and str(host) not in _LOCAL_HOSTS and not str(host).startswith("127."):
        raise NetworkBlockedError(f"unmocked DNS lookup of {host!r} in a test")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("live"):
        return
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)


@pytest.fixture(autouse=True)
def _clean_environ(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "SUMMEM_", "ANTHROPIC_", "GEMINI_", "AZURE_OPENAI")):
            monkeypatch.delenv(name)
    # the default store lives in the user's data folder: never the real one in a test
    monkeypatch.setenv("SUMMEM_DATA_DIR", str(tmp_path_factory.mktemp("summem-data")))
    yield


@pytest.fixture(scope="session", autouse=True)
def _drop_postgres_test_database() -> Iterator[None]:
    """Drop the throwaway PostgreSQL database of this run, if a test created one, and stop
    the local Redis Cluster, if one was started."""
    yield
    import sys

    backends = sys.modules.get("tests.stores.backends")
    if backends is not None:
        backends.drop_postgres_databases()
        backends.drop_redis_keys()
    cluster = sys.modules.get("tests.stores.redis_cluster")
    if cluster is not None:
        cluster.stop_local_cluster()
