"""The registration point of the store tests (``KINDS`` in backends.py) covers every backend."""

from __future__ import annotations

import pkgutil
from typing import Any

import pytest

import summem.stores
from tests.stores.backends import KINDS, Kind

NOT_BACKENDS = {"base", "url", "summary_log", "common", "adapter"}
"""The children of summem.stores that every backend shares (not backends themselves)."""


def test_every_backend_under_stores_has_a_registered_kind() -> None:
    backends = {
        m.name for m in pkgutil.iter_modules(summem.stores.__path__) if m.name not in NOT_BACKENDS
    }
    assert backends, "no backend found under summem/stores/"
    missing = sorted(backends - set(KINDS))
    assert not missing, (
        f"summem/stores/ backends without a Kind registered in tests/stores/backends.py KINDS "
        f"(the Kind's name is the module's): {missing}"
    )


def test_a_kind_without_a_failure_hook_skips_naming_the_backend_and_the_hook() -> None:
    class NewKind(Kind):
        name = "new"

    backend: Any = None
    with pytest.raises(pytest.skip.Exception, match=r"new backend has no Kind\.fail_create_midway"):
        NewKind().fail_create_midway(backend, backend, pytest.MonkeyPatch())
