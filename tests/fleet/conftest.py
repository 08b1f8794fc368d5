"""Fixtures for the fleet tests: the stores shared by processes (see tests/stores/backends.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stores.backends import MULTIPROCESS_PARAMS, Backend, open_backend


@pytest.fixture(params=MULTIPROCESS_PARAMS)
def shared_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """SQLite, Redis, the local Redis Cluster, PostgreSQL: stores many processes open."""
    yield from open_backend(request.param, tmp_path)
