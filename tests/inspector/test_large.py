"""A long session costs the page what a short one does: reads do not grow with the history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from summem.inspector.app import create_app
from summem.inspector.settings import Budget
from summem.inspector.source import Source
from summem.messages import Message, SummaryInfo, assistant, user
from summem.stores import SQLiteStore

SPAN = 100
"""Messages each reduction folds in."""


class CountingStore(SQLiteStore):
    """A read-only SQLite store that counts the messages its reads return."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, read_only=True)
        self.read = 0

    def history(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Message]:
        found = super().history(session_id, start, stop)
        self.read += len(found)
        return found

    def load(self, session_id: str) -> Any:
        state = super().load(session_id)
        self.read += len(state.tail)
        return state


def long_session(path: Path, length: int) -> None:
    """``length`` messages, a reduction every :data:`SPAN` messages (the last 150 in view)."""
    with SQLiteStore(path) as store:
        messages = [
            (user if i % 2 == 0 else assistant)(f"message {i} about order BW-{i}")
            for i in range(length)
        ]
        store.create("long", history=messages)
        previous: Message | None = None
        for watermark in range(SPAN, length - 150 + 1, SPAN):
            probed = store.probe("long")
            assert probed is not None
            epoch, version, _ = probed
            info = SummaryInfo(
                covered_ids=tuple(m.id for m in messages[watermark - SPAN : watermark]),
                previous_summary_id=previous.id if previous is not None else None,
                watermark=watermark,
                summarizer="extractive",
                tokens=12,
            )
            summary = user(f"summary up to {watermark}").as_summary(info)
            store.commit(
                "long",
                summary=summary,
                watermark=watermark,
                expected_version=version,
                expected_epoch=epoch,
            )
            previous = summary


def reads(tmp_path: Path, budget: Budget, length: int, **params: str) -> int:
    path = tmp_path / f"long-{length}.db"
    long_session(path, length)
    store = CountingStore(path)
    try:
        source = Source(store=store, url="sqlite:///x", shown="x", read_only="test")
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        store.read = 0
        response = client.get("/session", params={"id": "long", **params})
        assert response.status_code == 200, response.text[:300]
        assert 'class="series"' in response.text
        return store.read
    finally:
        store.close()


@pytest.mark.slow
def test_the_session_page_reads_the_same_at_10k_and_30k_messages(
    tmp_path: Path, budget: Budget
) -> None:
    small = reads(tmp_path, budget, 10_000)
    large = reads(tmp_path, budget, 30_000)
    assert small == large
    assert small < 10_000  # bounded by the chart's window and the page, not the history


@pytest.mark.slow
def test_a_turn_deep_in_a_long_session_reads_around_it_only(tmp_path: Path, budget: Budget) -> None:
    small = reads(tmp_path, budget, 10_000, turn="2000", at="2000")
    large = reads(tmp_path, budget, 30_000, turn="2000", at="2000")
    assert small == large
