"""The bounded summary log (issue #30), on every backend in both modes.

``commit(..., keep_summaries=N)`` keeps the latest N log entries whole and turns older ones into
stubs (metadata, no text); a rollback to a stub is refused with nothing written, and a branch
that must roll the view back falls back to the latest whole summary of what it keeps.
"""

from __future__ import annotations

from typing import Any

import pytest

from summem.errors import ConfigurationError, StoreError
from summem.messages import Message, SummaryInfo, assistant
from summem.stores.base import Store, encode_message
from summem.stores.summary_log import DROPPED_KEY, is_stub, summary_stub
from tests.stores.helpers import branching, fill, snap, state_of


def bounded(store: Store) -> Any:
    """``store`` as one whose ``commit`` takes ``keep_summaries`` (every built-in store)."""
    return store


def _summary(n: int, watermark: int, previous: str | None) -> Message:
    info = SummaryInfo(
        covered_ids=tuple(f"m_{n}_{i}" for i in range(40)),
        previous_summary_id=previous,
        watermark=watermark,
        summarizer="llm:test",
        model="test-model",
        prompt="summarize@3",
        tokens=100 + n,
        extra={
            "uncovered_ids": [f"m_{n}_0", f"m_{n}_1"],
            "usage": {"calls": 1, "input_tokens": 900, "output_tokens": 100, "cost_usd": 0.01},
            "lines": [{"text": "x" * 200, "ids": [f"m_{n}_{i}" for i in range(40)]}],
        },
    )
    return assistant(f"summary {n}: " + "fact " * 200).as_summary(info)


def _commit_all(store: Store, sid: str, count: int, keep: int | None) -> list[Message]:
    """``count`` summaries at watermarks 2, 4, 6..., each committed with ``keep``."""
    fill(store, sid, 2 * count + 2)
    made: list[Message] = []
    for n in range(count):
        st = store.load(sid)
        summary = _summary(n, 2 * (n + 1), made[-1].id if made else None)
        bounded(store).commit(
            sid,
            summary=summary,
            watermark=2 * (n + 1),
            expected_version=st.version,
            expected_epoch=st.epoch,
            keep_summaries=keep,
        )
        made.append(summary)
    return made


def test_the_log_keeps_the_latest_whole_and_older_ones_as_metadata(store: Store) -> None:
    made = _commit_all(store, "b", 6, keep=2)
    log = store.summaries("b")
    assert [m.id for m in log] == [m.id for m in made]
    assert [is_stub(m) for m in log] == [True] * 4 + [False] * 2
    assert [snap(m) for m in log[4:]] == [snap(m) for m in made[4:]]
    for stub, whole in zip(log[:4], made[:4], strict=True):
        info, was = stub.summary_info, whole.summary_info
        assert info is not None and was is not None
        assert (stub.text, stub.role, info.covered_ids) == ("", "assistant", ())
        for name in ("previous_summary_id", "watermark", "summarizer", "model", "prompt"):
            assert getattr(info, name) == getattr(was, name)
        assert (info.tokens, info.created_at) == (was.tokens, was.created_at)
        assert info.extra["usage"] == was.extra["usage"]
        assert info.extra[DROPPED_KEY] == {"chars": len(whole.text), "covered": 40, "uncovered": 2}
        assert "lines" not in info.extra and "uncovered_ids" not in info.extra
        assert snap(stub) == snap(summary_stub(whole))
    st = store.load("b")  # the current summary is whole, whatever the log keeps
    assert st.summary is not None and snap(st.summary) == snap(made[-1])


def test_the_stored_log_is_bounded_by_keep_not_by_the_count(store: Store) -> None:
    made = _commit_all(store, "n", 12, keep=3)
    log = store.summaries("n")
    whole = sum(len(m.text) for m in log)
    assert whole == sum(len(m.text) for m in made[-3:])
    stubs = [m for m in log if is_stub(m)]
    assert len(stubs) == 9
    assert max(len(encode_message(m)) for m in stubs) < len(encode_message(made[0])) / 4


def test_without_keep_every_entry_stays_whole(store: Store) -> None:
    made = _commit_all(store, "w", 4, keep=None)
    assert [snap(m) for m in store.summaries("w")] == [snap(m) for m in made]


def test_a_smaller_keep_later_stubs_every_entry_past_it(store: Store) -> None:
    _commit_all(store, "s", 5, keep=None)
    st = store.load("s")
    extra = _summary(9, 10, None)
    bounded(store).commit(
        "s",
        summary=extra,
        watermark=10,
        expected_version=st.version,
        expected_epoch=st.epoch,
        keep_summaries=1,
    )
    assert [is_stub(m) for m in store.summaries("s")] == [True] * 5 + [False]


@pytest.mark.parametrize("bad", [0, -1, "3", 2.5, True])
def test_a_bad_keep_is_refused_and_nothing_is_written(store: Store, bad: Any) -> None:
    fill(store, "k", 4)
    before = state_of(store, "k")
    st = store.load("k")
    with pytest.raises(ConfigurationError, match="keep_summaries"):
        bounded(store).commit(
            "k",
            summary=_summary(0, 2, None),
            watermark=2,
            expected_version=st.version,
            expected_epoch=st.epoch,
            keep_summaries=bad,
        )
    assert state_of(store, "k") == before
    assert store.summaries("k") == []


def test_a_rollback_to_a_stub_fails_clearly_and_writes_nothing(store: Store) -> None:
    made = _commit_all(store, "r", 5, keep=2)
    st = store.load("r")
    before = state_of(store, "r")
    with pytest.raises(StoreError, match="metadata only") as err:
        store.rollback("r", summary_id=made[1].id, expected_version=st.version)
    assert made[1].id in str(err.value)
    assert state_of(store, "r") == before
    store.rollback("r", summary_id=made[3].id, expected_version=st.version)
    after = store.load("r")
    assert after.summary is not None and snap(after.summary) == snap(made[3])
    assert after.watermark == 8


def test_a_branch_rolls_back_to_the_latest_whole_summary_it_keeps(store: Store) -> None:
    made = _commit_all(store, "f", 5, keep=3)  # watermarks 2..10; 6, 8, 10 whole
    brancher = branching(store)
    st = store.load("f")
    brancher.rewrite(
        "f",
        keep=9,
        messages=[],
        expected_version=st.version,
        expected_epoch=st.epoch,
        branch_id="b1",
    )
    st = store.load("f")
    assert st.summary is not None and (snap(st.summary), st.watermark) == (snap(made[3]), 8)


def test_a_branch_before_every_whole_summary_drops_the_summary(store: Store) -> None:
    _commit_all(store, "g", 5, keep=2)  # watermarks 2..10; 8 and 10 whole, 2..6 stubs
    brancher = branching(store)
    st = store.load("g")
    brancher.rewrite(
        "g",
        keep=7,
        messages=[],
        expected_version=st.version,
        expected_epoch=st.epoch,
        branch_id="b1",
    )
    st = store.load("g")
    assert (st.summary, st.watermark, st.length, len(st.tail)) == (None, 0, 7, 7)


def test_a_rollback_finds_a_whole_summary_far_back_in_the_log(store: Store) -> None:
    made = _commit_all(store, "far", 130, keep=None)  # Redis reads its log a page at a time
    st = store.load("far")
    store.rollback("far", summary_id=made[4].id, expected_version=st.version)
    after = store.load("far")
    assert after.summary is not None and (snap(after.summary), after.watermark) == (
        snap(made[4]),
        10,
    )
