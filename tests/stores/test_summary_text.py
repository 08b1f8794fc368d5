"""A summarizer's bad text is a rejected summary on every store, never a raw error in add()."""

from __future__ import annotations

from summem import Memory
from summem.errors import InvalidSummaryError
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import turn
from tests.fakes.summarizers import FakeSummarizer, offline_or_none
from tests.stores.backends import Backend


def test_a_summary_with_a_lone_surrogate_is_rejected_and_nothing_commits(
    sync_backend: Backend,
) -> None:
    store = sync_backend.native()
    bad = FakeSummarizer(reply="bad \ud800 text")
    memory = Memory("s", reducer=small_reducer(bad, fail_on_error=False), store=store)
    for i in range(12):
        memory.extend(turn(i))  # the reductions fail; the turns are all stored
    assert offline_or_none(memory.summary, "\ud800")  # past the hard limit: the offline fold
    assert isinstance(memory.last_error, InvalidSummaryError)
    assert "not valid Unicode" in str(memory.last_error)
    assert len(memory.history_messages()) == 48
    check_session(store, "s", memory.view())
    memory.close()
    store.close()
