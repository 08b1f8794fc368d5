"""Fixtures for the evals' tests: the LoCoMo file, found once, skipped when absent.

The path comes from ``SUMMEM_LOCOMO`` or defaults to ``../shared/data/locomo/locomo10.json``
next to the repository. It is read when this module is imported, because the suite's autouse
fixture clears every ``SUMMEM_*`` variable before each test runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evals.families.locomo import Conversation, load_locomo

_ROOT = Path(__file__).resolve().parents[2]
LOCOMO_PATH = Path(
    os.environ.get("SUMMEM_LOCOMO") or _ROOT.parent / "shared" / "data" / "locomo" / "locomo10.json"
)
AUDIT_PATH = LOCOMO_PATH.with_name("audit-errors.json")


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    if not LOCOMO_PATH.is_file():
        pytest.skip(f"LoCoMo not found at {LOCOMO_PATH} (set SUMMEM_LOCOMO to its locomo10.json)")
    return LOCOMO_PATH


@pytest.fixture(scope="session")
def audit_path(locomo_path: Path) -> Path:
    if not AUDIT_PATH.is_file():
        pytest.skip(f"locomo-audit's audit-errors.json not found next to {locomo_path}")
    return AUDIT_PATH


@pytest.fixture(scope="session")
def locomo(locomo_path: Path) -> list[Conversation]:
    return load_locomo(locomo_path)
