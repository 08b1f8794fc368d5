from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")  # summem[inspect]; the dev extra installs it

from starlette.testclient import TestClient

from summem.cli.common import load_settings
from summem.inspector.app import create_app
from summem.inspector.settings import Budget, budget_from_config
from summem.inspector.source import Source, open_source
from summem.stores import SQLiteStore
from tests.inspector.sessions import Written, config_text, write_session

SESSION = "support-1"


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "summem.yaml"
    path.write_text(config_text(), encoding="utf-8")
    return path


@pytest.fixture
def budget(config_path: Path) -> Budget:
    return budget_from_config(load_settings(str(config_path)))


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, Written]:
    path = tmp_path / "sessions.db"
    with SQLiteStore(path) as store:
        written = write_session(store, SESSION)
        write_session(store, "other-session", turns=2)
    return path, written


@pytest.fixture
def source(db: tuple[Path, Written]) -> Iterator[Source]:
    opened = open_source(str(db[0]))
    yield opened
    opened.close()


@pytest.fixture
def client(source: Source, budget: Budget) -> TestClient:
    return TestClient(create_app(source, budget), base_url="http://127.0.0.1")
