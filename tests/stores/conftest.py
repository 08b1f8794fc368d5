"""Fixtures for the store tests: one per family of backends (see backends.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from summem.stores.base import Store
from tests.stores.backends import (
    BACKEND_PARAMS,
    MULTIPROCESS_PARAMS,
    PERSISTENT_PARAMS,
    POSTGRES_PARAMS,
    REDIS_PARAMS,
    SYNC_PARAMS,
    Backend,
    open_backend,
)
from tests.stores.redis_cluster import LocalCluster, local_cluster


def _backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from open_backend(request.param, tmp_path)


@pytest.fixture(params=BACKEND_PARAMS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Every backend, sync and async."""
    yield from _backend(request, tmp_path)


@pytest.fixture
def store(backend: Backend) -> Store:
    return backend.make()


@pytest.fixture(params=PERSISTENT_PARAMS)
def persistent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Backends whose records can be corrupted and whose writes can fail (not memory)."""
    yield from _backend(request, tmp_path)


@pytest.fixture(params=MULTIPROCESS_PARAMS)
def multiprocess(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Backends shared between processes (the children open the sync store)."""
    yield from _backend(request, tmp_path)


@pytest.fixture(params=REDIS_PARAMS)
def redis_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Redis only, sync and async (for what only Redis does, e.g. staging a long create)."""
    yield from _backend(request, tmp_path)


@pytest.fixture(params=SYNC_PARAMS)
def sync_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Every backend, sync only (for what Memory and AsyncMemory share as one flow)."""
    yield from _backend(request, tmp_path)


@pytest.fixture(params=POSTGRES_PARAMS)
def postgres_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """PostgreSQL only, sync and async (schemas, migrations, lost connections)."""
    yield from _backend(request, tmp_path)


@pytest.fixture(scope="session")
def redis_cluster() -> LocalCluster:
    """A real three-node Redis Cluster on loopback ports, one per test process (an xdist
    worker), started on first use and stopped at the end of the run (tests/conftest.py);
    skipped (failed under CI=true) without redis-server."""
    return local_cluster()
