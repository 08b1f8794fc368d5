"""Runs the SDK's session tests (``test_session.py``, vendored) against ``SummemSession``.

Needs the OpenAI Agents SDK (``summem[agents]``, openai>=3): without it the vendored file is not
collected and ``test_sdk_installed.py`` reports the skip. The tests that read SQLiteSession's
internals are expected to fail (strict: a pass would be reported), each for the reason below.
"""

from __future__ import annotations

from importlib.util import find_spec

import pytest

collect_ignore = [] if find_spec("agents") is not None else ["test_session.py"]

_CONNECTIONS = "reads SQLiteSession's per-thread connection pool (_connections)"
_ROWS = "writes corrupt rows into SQLiteSession's own tables (_locked_connection, messages_table)"
_TABLES = "drops or queries SQLiteSession's tables (agent_sessions / agent_messages) by name"
INTERNALS: dict[str, str] = {
    "test_sqlite_session_close_closes_worker_thread_connections": _CONNECTIONS,
    "test_sqlite_session_reaps_connections_from_exited_worker_threads": _CONNECTIONS,
    "test_sqlite_session_closes_retired_connections_before_the_next_allocation": _CONNECTIONS,
    "test_sqlite_session_keeps_connections_of_live_worker_threads": _CONNECTIONS,
    "test_sqlite_session_pop_item_skips_corrupt_most_recent": _ROWS,
    "test_sqlite_session_pop_item_returns_none_after_dropping_only_corrupt_rows": _ROWS,
    "test_sqlite_session_get_items_limit_skips_corrupt_newest_rows": _ROWS,
    "test_sqlite_session_get_items_session_settings_limit_skips_corrupt_rows": _ROWS,
    "test_sqlite_session_file_lock_is_shared_across_instances": (
        "reads SQLiteSession's process-wide file locks (_lock, _file_lock_counts, _file_locks)"
    ),
    "test_sqlite_session_failed_add_items_releases_write_lock": (
        f"{_TABLES} (its TypeError for a non-JSON item is raised: summem's MessageTypeError)"
    ),
    "test_sqlite_session_failed_clear_session_rolls_back": f"{_TABLES}; reads _connections",
    "test_sqlite_session_failed_pop_item_releases_write_lock": f"{_TABLES}; reads _connections",
    "test_sqlite_session_rollback_failure_evicts_connection": (
        "replaces SQLiteSession's connections under its _connections_lock"
    ),
    "test_sqlite_session_close_retries_quarantined_connection": (
        "replaces SQLiteSession's connections under its _connections_lock"
    ),
    "test_sqlite_session_post_commit_cancellation_propagates_after_known_outcome": (
        "pauses SQLiteSession's own COMMIT through its _connections_lock (the same property "
        "for SummemSession: tests/integrations/test_agents_concurrency.py)"
    ),
}
"""Test name (without parameters) -> why it needs SQLiteSession itself (see README.md)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not item.nodeid.startswith("tests/conformance/agents/test_session.py"):
            continue
        name = getattr(item, "originalname", item.name)
        reason = INTERNALS.get(name)
        if reason is not None:
            item.add_marker(
                pytest.mark.xfail(strict=True, reason=f"SQLiteSession internals: {reason}")
            )
