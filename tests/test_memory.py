"""Memory: system rules, tool pairing, batches, reductions, resume, recompute, failures."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import summem.session.core as session_mod
from summem.async_memory import AsyncMemory
from summem.errors import (
    ConfigurationError,
    InvalidSessionIdError,
    LeaseHeldError,
    MessageValidationError,
    ReductionError,
    StoreError,
    SummarizationError,
)
from summem.memory import Memory
from summem.messages import Message, user
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.session.core import MAX_SPANS_PER_REDUCTION
from summem.session.readonly import ReadOnlyDict
from summem.stores.memory import InMemoryStore
from summem.stores.sqlite import SQLiteStore
from tests.fakes.counters import WordCounter, words
from tests.fakes.memory import check_session, small_reducer
from tests.fakes.messages import a, call, res, sys, turn, u
from tests.fakes.summarizers import FakeSummarizer, failing

# -- construction -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [None, "", "   ", "a\x00b"])
def test_session_id_is_required_and_validated(bad: Any) -> None:
    with pytest.raises(InvalidSessionIdError):
        Memory(bad)


def test_defaults_are_summarization_8000_6000_in_memory_and_not_background() -> None:
    memory = Memory("s")
    assert isinstance(memory.reducer, SummarizationReducer)
    assert (memory.reducer.threshold, memory.reducer.target) == (8000, 6000)
    assert isinstance(memory.store, InMemoryStore)
    assert memory.background is False


def test_store_url_opens_a_store_and_close_closes_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with Memory("s", reducer=small_reducer(), store=url) as memory:
        memory.add(u("hello"))
    with Memory("s", reducer=small_reducer(), store=url) as again:
        assert [m.text for m in again.history_messages()] == ["hello"]


def test_background_needs_a_soft_threshold() -> None:
    with pytest.raises(ConfigurationError, match="soft threshold"):
        Memory("s", reducer=small_reducer(), background=True)
    with pytest.raises(ConfigurationError, match="soft threshold"):
        Memory("s", reducer=TruncationReducer(threshold_messages=5), background=True)
    assert Memory("s", reducer=small_reducer(soft_threshold_tokens=80)).background is True


def test_an_async_store_is_refused_by_memory() -> None:
    async_store = AsyncMemory("s").store
    with pytest.raises(ConfigurationError, match="sync Store"):
        Memory("s", store=async_store)  # type: ignore[arg-type]


# -- system messages --------------------------------------------------------------------------


def test_system_rules_one_at_a_time_first_same_content_ignored() -> None:
    memory = Memory("s", reducer=small_reducer())
    first = memory.add(sys("Be brief."))
    memory.add(u("hi"))
    again = memory.add(sys("Be brief."))
    assert again.id == first.id  # same content: the stored one stays
    assert memory.history_messages() and all(not m.is_system for m in memory.history_messages())
    assert memory.messages()[0] == {"role": "system", "content": "Be brief."}
    memory.add({"role": "developer", "content": "Be verbose."})
    assert memory.messages()[:2] == [
        {"role": "developer", "content": "Be verbose."},
        {"role": "user", "content": "hi"},
    ]
    assert memory.system is not None and memory.system.text == "Be verbose."
    assert memory.size == 3 + 2 + 3 + 1  # the system message counts against the budget


def test_system_message_survives_a_reload() -> None:
    store = InMemoryStore()
    Memory("s", reducer=small_reducer(), store=store).extend([sys("S1"), u("x")])
    assert Memory("s", store=store).messages()[0]["content"] == "S1"


# -- validation -------------------------------------------------------------------------------


def test_tool_result_answering_no_call_is_rejected_naming_it() -> None:
    memory = Memory("s", reducer=small_reducer())
    with pytest.raises(MessageValidationError, match="'nope'") as info:
        memory.add(res("nope"))
    assert info.value.field == "tool_call_id"
    memory.extend([call("c1"), res("c1")])
    with pytest.raises(MessageValidationError, match="already answered"):
        memory.add(res("c1"))
    assert len(memory.history_messages()) == 2


def test_parallel_calls_answered_in_any_order_across_adds() -> None:
    memory = Memory("s", reducer=small_reducer())
    memory.add(call("x", "y"))
    memory.add(res("y"))
    memory.add(res("x"))
    assert [m.role for m in memory.history_messages()] == ["assistant", "tool", "tool"]
    with pytest.raises(MessageValidationError, match="already pending"):
        memory.extend([call("z"), call("z")])


def test_a_batch_is_validated_whole_and_rejected_whole() -> None:
    memory = Memory("s", reducer=small_reducer())
    memory.add(u("kept"))
    with pytest.raises(MessageValidationError) as info:
        memory.extend([sys("new system"), u("a"), {"role": "user"}])
    assert info.value.index == 2
    with pytest.raises(MessageValidationError) as info:
        memory.extend([u("a"), call("c"), res("c"), res("other")])
    assert info.value.index == 3 and info.value.field == "tool_call_id"
    assert [m.text for m in memory.history_messages()] == ["kept"]
    assert memory.system is None


def test_an_empty_assistant_message_is_refused_at_add_and_nothing_is_stored() -> None:
    memory = Memory("s", reducer=small_reducer())
    memory.add(u("kept"))
    with pytest.raises(MessageValidationError, match="needs content or tool_calls") as info:
        memory.add({"role": "assistant"})
    assert info.value.field == "content"
    with pytest.raises(MessageValidationError, match="needs content or tool_calls") as info:
        memory.extend([u("a"), {"role": "assistant", "content": None}, u("b")])
    assert info.value.index == 1
    assert [m.text for m in memory.history_messages()] == ["kept"]
    memory.add({"role": "assistant", "content": None, "refusal": "I can't help with that."})
    assert memory.history_messages()[-1].to_openai()["refusal"] == "I can't help with that."


def test_summary_messages_cannot_be_added_back_and_adding_an_id_again_is_a_no_op() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(8):
        memory.extend(turn(i))
    assert memory.summary is not None
    with pytest.raises(MessageValidationError, match="summary"):
        memory.add(memory.summary)
    msg = user("twice")
    first, second = memory.add(msg), memory.add(msg)
    assert first is second and memory.history_messages()[-1] is first
    assert memory.history_messages().count(msg) == 1
    evicted = memory.history_messages()[0]  # summarized away: the store skips it
    length = len(memory.history_messages())
    assert memory.add(evicted).id == evicted.id
    assert len(memory.history_messages()) == length
    with pytest.raises(MessageValidationError, match="already stored"):
        memory.add(user("other").with_id(msg.id))
    check_session(memory.store, "s", memory.view())


def test_messages_returns_fresh_copies() -> None:
    """Callers cannot corrupt the memory through what messages() gives back: the list is a
    fresh one of their own, the dicts in it are shared read-only ones (changes raise)."""
    memory = Memory("s", reducer=small_reducer())
    memory.add(call("c"))
    out = memory.messages()
    with pytest.raises(TypeError, match="read-only"):
        out[0]["tool_calls"][0]["id"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        out[0]["content"] = "changed"
    copied = copy.deepcopy(out)
    copied[0]["tool_calls"][0]["id"] = "changed"
    out.append({"role": "user", "content": "the caller's own turn"})
    out.clear()
    assert memory.messages()[0]["tool_calls"][0]["id"] == "c"
    assert len(memory.messages()) == 1
    assert memory.messages() is not memory.messages()


@pytest.mark.parametrize("placement", ["after_system", "system_suffix", "first_user"])
def test_every_placement_renders_read_only_dicts_once(placement: str) -> None:
    memory = Memory("s", reducer=small_reducer(summary_placement=placement))
    memory.add(sys("rules"))
    for i in range(12):
        memory.extend(turn(i))
    assert memory.summary is not None
    first, second = memory.messages(), memory.messages()
    assert first == second and first is not second
    assert all(isinstance(m, ReadOnlyDict) for m in first)
    assert first[-1] is second[-1]  # rendered once, shared
    texts = json.dumps(first)
    assert memory.summary.text.split("\n")[-1] in texts
    with pytest.raises(TypeError):
        first[0]["content"] = "x"


def test_a_placement_changed_to_nonsense_after_construction_is_named() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(12):
        memory.extend(turn(i))
    assert memory.summary is not None
    memory._core.placement = "sideways"  # type: ignore[assignment]  # bypasses the reducer's check
    with pytest.raises(ConfigurationError, match="unknown summary placement 'sideways'"):
        memory.messages()


# -- reduction --------------------------------------------------------------------------------


def test_reduction_at_threshold_brings_the_view_within_target() -> None:
    summarizer = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(summarizer))
    memory.add(sys("sys prompt"))
    sizes = []
    for i in range(12):
        memory.extend(turn(i))
        sizes.append(memory.size)
        assert memory.size <= 100
    assert summarizer.requests, "never reduced"
    assert memory.summary is not None and memory.summary.summary_info is not None
    assert (
        memory.summary.summary_info.watermark
        == len(memory.history_messages()) - len(memory.view()) + 2
    )
    check_session(memory.store, "s", memory.view())
    # every evicted message went to the summarizer exactly once, in order
    k = memory.summary.summary_info.watermark
    assert [m.id for m in summarizer.seen] == [m.id for m in memory.history_messages()[:k]]


def test_hysteresis_one_summarizer_call_per_threshold_minus_target() -> None:
    summarizer = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(summarizer))
    for i in range(40):
        memory.add(u(words(7, f"m{i}")))  # 10 tokens each
    # 400 tokens: the first reduction at 110, then one per 80+ tokens of growth (the view
    # drops to 29: the cut leaves room for the largest summary validation accepts, 26 words
    # plus the prefix, and the summary written takes 9), never one per turn
    assert len(summarizer.requests) == 4


def test_explicit_reduce_goes_to_target_or_returns_none() -> None:
    memory = Memory("s", reducer=small_reducer())
    memory.add(u("short"))
    assert memory.reduce() is None
    for i in range(7):
        memory.add(u(words(7, f"m{i}")))
    assert 60 < memory.size <= 100
    result = memory.reduce()
    assert result is not None and result.reduced and result.tokens_after <= 60
    assert [m.id for m in result.view] == [m.id for m in memory.view()]


def test_truncation_reducer_commits_no_summary() -> None:
    memory = Memory("s", reducer=TruncationReducer(threshold_messages=6, target_messages=4))
    for i in range(20):
        memory.add(u(f"m{i}"))
        assert len(memory.view()) <= 6
    assert memory.summary is None and memory.summaries() == []
    assert [m["content"] for m in memory.messages()][-1] == "m19"
    check_session(memory.store, "s", memory.view())


def test_pending_tool_calls_are_never_evicted() -> None:
    memory = Memory("s", reducer=small_reducer())
    memory.add(call("open"))
    for i in range(12):
        memory.add(u(words(7, f"m{i}")))
    assert memory.view()[1 if memory.summary else 0].tool_call_ids == ("open",)
    memory.add(res("open"))
    check_session(memory.store, "s", memory.view())


# -- failures ---------------------------------------------------------------------------------


def test_failing_summarizer_raises_after_storing_the_message() -> None:
    memory = Memory("s", reducer=small_reducer(failing()))
    with pytest.raises(SummarizationError):
        for i in range(12):
            memory.add(u(words(7, f"m{i}")))
    assert memory.summary is None and memory.summaries() == []
    assert len(memory.history_messages()) == len(memory.view())
    assert isinstance(memory.last_error, SummarizationError)


def test_fail_on_error_false_keeps_the_view_and_backs_off() -> None:
    summarizer = failing()
    memory = Memory("s", reducer=small_reducer(summarizer, fail_on_error=False))
    for i in range(11):
        memory.add(u(words(7, f"m{i}")))  # crosses 100 at the 11th
    assert len(summarizer.requests) == 1
    for i in range(3):
        memory.add(u(words(7, f"n{i}")))  # 30 tokens: less than threshold - target
    assert len(summarizer.requests) == 1, "retried on every turn"
    memory.add(u(words(7, "again")))  # 40 tokens of growth: try again
    assert len(summarizer.requests) == 2
    assert memory.summary is None and memory.summaries() == []
    assert "boom" not in json.dumps(memory.messages())
    summarizer.fail_with = None
    for i in range(4):
        memory.add(u(words(7, f"o{i}")))
    assert memory.summary is not None and memory.size <= 100 and memory.last_error is None


def test_a_background_failure_is_raised_by_wait_once() -> None:
    memory = Memory("s", reducer=small_reducer(failing(), soft_threshold_tokens=80))
    for i in range(9):
        memory.add(u(words(7, f"m{i}")))  # 90: past the soft threshold only, no raise here
    with pytest.raises(SummarizationError):
        memory.wait()
    memory.wait()
    assert memory.summary is None and len(memory.view()) == 9
    memory.close()


class FlakyStore(InMemoryStore):
    """Fails the next ``fail`` commits like a dropped connection (nothing written)."""

    def __init__(self, fail: int = 1) -> None:
        super().__init__()
        self.fail = fail

    def commit(self, session_id: str, **kw: Any) -> int:
        if self.fail:
            self.fail -= 1
            raise StoreError("disk I/O error")
        return super().commit(session_id, **kw)


def test_a_failed_commit_changes_nothing_and_the_session_stays_usable() -> None:
    store = FlakyStore()
    memory = Memory("s", reducer=small_reducer(), store=store)
    with pytest.raises(StoreError, match="disk"):
        for i in range(12):
            memory.add(u(words(7, f"m{i}")))
    assert store.load("s").summary is None and store.load("s").version == 0
    check_session(store, "s", memory.view())
    assert memory.reduce() is not None  # explicit: ignores the back-off
    assert store.load("s").summary is not None
    memory.add(u("after"))
    check_session(store, "s", memory.view())


def test_sqlite_write_failure_during_commit_rolls_back(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    memory = Memory("s", reducer=small_reducer(fail_on_error=False), store=store)
    for i in range(10):
        memory.add(u(words(7, f"m{i}")))
    original = store._log_summary

    def broken(*args: Any, **kw: Any) -> None:
        raise StoreError("simulated write failure after the summary row")

    store._log_summary = broken  # type: ignore[method-assign]
    memory.add(u(words(7, "over")))
    assert isinstance(memory.last_error, StoreError)
    state = store.load("s")
    assert state.summary is None and state.watermark == 0 and state.version == 0
    store._log_summary = original  # type: ignore[method-assign]
    assert memory.reduce() is not None
    check_session(store, "s", memory.view())


def test_lease_held_elsewhere_skips_the_reduction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "LEASE_RETRY_SECONDS", 0.0)
    store = InMemoryStore()
    summarizer = FakeSummarizer()
    memory = Memory("s", reducer=small_reducer(summarizer), store=store)
    assert store.acquire_lease("s", "other-worker", 60)
    for i in range(11):
        memory.add(u(words(7, f"m{i}")))
    assert summarizer.requests == [] and memory.size > 100
    with pytest.raises(LeaseHeldError):
        memory.reduce()
    store.release_lease("s", "other-worker")
    memory.add(u("next"))
    assert memory.size <= 100 and len(summarizer.requests) == 1
    assert store.acquire_lease("s", "third", 60), "the memory kept the lease"


# -- other writers ----------------------------------------------------------------------------


def test_other_writers_appear_on_add_and_on_refresh() -> None:
    store = InMemoryStore()
    one = Memory("s", reducer=small_reducer(), store=store)
    two = Memory("s", reducer=small_reducer(), store=store)
    one.add(u("from one"))
    assert two.messages() == []  # the cached view: no store read
    two.add(u("from two"))
    assert [m["content"] for m in two.messages()] == ["from one", "from two"]
    assert [m["content"] for m in one.messages()] == ["from one"]
    one.refresh()
    assert [m["content"] for m in one.messages()] == ["from one", "from two"]
    two.add(call("c"))
    one.add(res("c"))  # the call came from the other worker: read again, then accepted
    check_session(store, "s", one.view())


def test_a_commit_by_another_worker_is_picked_up_on_conflict() -> None:
    store = InMemoryStore()
    summarizer = FakeSummarizer()
    one = Memory("s", reducer=small_reducer(summarizer), store=store)
    two = Memory("s", reducer=small_reducer(summarizer), store=store)
    for i in range(9):
        one.add(u(words(7, f"m{i}")))
    two.refresh()
    one.add(u(words(7, "one")))  # one reduces
    two.add(u(words(7, "two")))  # stale version: conflict, read again, retry on fresh state
    check_session(store, "s", two.view())
    assert two.summary is not None and two.size <= 100


# -- resume, recompute, rollback, usage -------------------------------------------------------


def test_to_dict_from_dict_resumes_identically(tmp_path: Path) -> None:
    memory = Memory("s", reducer=small_reducer(FakeSummarizer(reply="fixed")))
    memory.add(sys("sys"))
    for i in range(9):
        memory.extend(turn(i))
    memory.add(call("pending"))
    data = json.loads(json.dumps(memory.to_dict()))
    assert data["format"] == "summem.session/1" and data["watermark"] > 0
    resumed = Memory.from_dict(
        data,
        reducer=small_reducer(FakeSummarizer(reply="fixed")),
        store=f"sqlite:///{tmp_path / 'r.db'}",
    )
    assert resumed.messages() == memory.messages()
    assert [m.id for m in resumed.history_messages()] == [m.id for m in memory.history_messages()]
    assert resumed.summary is not None and memory.summary is not None
    assert resumed.summary.id == memory.summary.id
    assert resumed.summary.summary_info == memory.summary.summary_info
    for m in (memory, resumed):
        m.add(res("pending"))
        for i in range(10, 14):
            m.extend(turn(i))
    assert resumed.messages() == memory.messages()
    with pytest.raises(StoreError, match="already exists"):
        Memory.from_dict(data, store=resumed.store)


def test_from_dict_without_reducer_rebuilds_the_recorded_budget() -> None:
    memory = Memory("s", reducer=TruncationReducer(threshold_messages=6, target_messages=4))
    for i in range(10):
        memory.add(u(f"m{i}"))
    resumed = Memory.from_dict(memory.to_dict())
    assert isinstance(resumed.reducer, TruncationReducer)
    assert (resumed.reducer.threshold, resumed.reducer.target) == (6, 4)
    assert resumed.messages() == memory.messages()
    with pytest.raises(StoreError, match="format"):
        Memory.from_dict({"session_id": "x"})


def test_recompute_rebuilds_from_history_in_bounded_spans() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(30):
        memory.extend(turn(i))
    old = memory.summary
    assert old is not None and old.summary_info is not None
    k = old.summary_info.watermark
    fresh = FakeSummarizer(reply="recomputed")
    new = memory.recompute(summarizer=fresh)
    assert new is not None and new.summary_info is not None
    assert new.summary_info.watermark == k and memory.summary is new
    assert new.summary_info.covered_ids == ()  # history[:k] by count and ends: O(1) record
    assert new.summary_info.extra["recomputed"]["messages"] == k
    assert [m.id for m in fresh.seen] == [m.id for m in memory.history_messages()[:k]]
    assert len(fresh.requests) > 1
    assert all(
        sum(WordCounter().count_message(m) for m in r.messages) <= 100 for r in fresh.requests
    )
    assert fresh.requests[0].previous_summary is None
    assert memory.summaries()[-1].id == new.id
    check_session(memory.store, "s", memory.view())
    assert Memory("t", reducer=small_reducer()).recompute() is None
    with pytest.raises(ReductionError, match="SummarizationReducer"):
        Memory("t", reducer=TruncationReducer(threshold_messages=3)).recompute()


def test_rollback_to_a_logged_summary_and_to_none() -> None:
    memory = Memory("s", reducer=small_reducer())
    for i in range(16):
        memory.extend(turn(i))
    logged = memory.summaries()
    assert len(logged) >= 2
    first = logged[0]
    assert first.summary_info is not None
    memory.rollback(first.id)
    assert memory.summary is not None and memory.summary.id == first.id
    check_session(memory.store, "s", memory.view())
    memory.rollback(None)
    assert memory.summary is None and len(memory.view()) == len(memory.history_messages())
    summarizer = memory.reducer.summarizer
    assert isinstance(summarizer, FakeSummarizer)
    before = len(summarizer.requests)
    memory.add(u("next"))  # reduces again, with a bounded number of spans per turn (I7)
    assert len(summarizer.requests) - before == MAX_SPANS_PER_REDUCTION
    assert memory.summary is not None and memory.size > 100
    for _ in range(3):
        memory.add(u("more"))
    assert memory.size <= 100
    check_session(memory.store, "s", memory.view())


def test_usage_sums_meta_usage_over_the_whole_history() -> None:
    store = InMemoryStore()
    memory = Memory("s", reducer=small_reducer(), store=store)
    reply = Message.from_openai(a(words(7))).with_meta(usage={"total_tokens": 10, "x": "skip"})
    for i in range(12):
        memory.add(u(words(7, f"m{i}")))
        memory.add(reply.with_id(f"r{i}"))
    assert memory.summary is not None and memory.usage == {"total_tokens": 120}
    assert Memory("s", store=store).usage == {"total_tokens": 120}  # from the summary
    truncating = Memory("t", reducer=TruncationReducer(threshold_messages=4), store=store)
    for i in range(6):
        truncating.add(reply.with_id(f"t{i}"))
    assert Memory("t", store=store).usage == {"total_tokens": 60}  # reads history[:k] once


def test_closed_memory_refuses_work() -> None:
    memory = Memory("s")
    memory.close()
    memory.close()
    with pytest.raises(StoreError, match="closed"):
        memory.add(u("x"))


def test_an_empty_usage_says_why_it_is_empty() -> None:
    """Offline, with the extractive summarizer, ``usage`` is ``{}``: its repr says why."""
    memory = Memory("offline")
    memory.add({"role": "user", "content": "hello"})
    usage = memory.usage
    assert usage == {} and isinstance(usage, dict)
    said = repr(usage)
    assert said.startswith("{}") and "wrapper" in said and "extractive" in said
    memory.add(
        Message.from_openai({"role": "assistant", "content": "hi"}).with_meta(
            usage={"total_tokens": 9}
        )
    )
    assert repr(memory.usage) == repr({"total_tokens": 9})  # a plain dict's once it has numbers
