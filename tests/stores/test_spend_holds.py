"""The holds of a spend ledger, on every store: reserve, settle, release, expire.

A hold is taken atomically with the budget check (see :mod:`summem.observe.ledger`); these
are the contract every store's ledger keeps, sync and async, and the memory's use of it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from summem import AsyncMemory, Memory
from summem.errors import ConfigurationError, SummarizationError
from summem.observe import SpendLimit
from summem.observe.ledger import Hold, Reserved, Spent
from summem.stores import AsyncSQLiteStore, InMemoryStore, SQLiteStore
from summem.summarizers.base import SummaryRequest
from tests.fakes.llm import FakeClock
from tests.fakes.messages import u
from tests.fakes.replies import OPENAI_URL, openai_completion
from tests.observe.harness import settle
from tests.observe.test_spend import chain_reducer
from tests.stores.backends import Backend


def hold(
    hold_id: str,
    tokens: int = 0,
    cost_usd: float = 0.0,
    *,
    at: float = 10.0,
    expires_at: float = 100.0,
    since: float | None = None,
    max_tokens: int | None = 100,
    max_cost_usd: float | None = None,
) -> Hold:
    return Hold(hold_id, at, expires_at, tokens, cost_usd, since, max_tokens, max_cost_usd)


def test_holds_count_until_settled_or_released(backend: Backend) -> None:
    store: Any = backend.make()
    store.record_spend("k", at=1.0, tokens=10, cost_usd=0.0)
    assert store.reserve_spend("k", hold("a", 50)) == Reserved(True, Spent(10, 0.0))
    assert store.reserve_spend("k", hold("b", 50)) == Reserved(True, Spent(60, 0.0))
    other: Any = backend.make()  # another connection sees the holds
    assert other.reserve_spend("k", hold("c", 1)) == Reserved(False, Spent(110, 0.0))
    assert store.spent_since("k") == Spent(10, 0.0)  # holds are not spend
    other.settle_spend("k", "a", at=11.0, tokens=5, cost_usd=0.0)  # what "a" really spent
    assert store.spent_since("k") == Spent(15, 0.0)
    assert store.reserve_spend("k", hold("c", 30)) == Reserved(True, Spent(65, 0.0))
    store.release_spend("k", "b")
    store.release_spend("k", "c")
    store.release_spend("k", "nobody")  # a hold that is gone: nothing to do
    assert store.reserve_spend("k", hold("d", 84)) == Reserved(True, Spent(15, 0.0))
    assert store.reserve_spend("k", hold("e", 1)) == Reserved(True, Spent(99, 0.0))
    assert store.reserve_spend("k", hold("f", 1)) == Reserved(False, Spent(100, 0.0))


def test_a_hold_asked_again_does_not_count_itself(backend: Backend) -> None:
    store: Any = backend.make()  # a retried reservation (a lost reply) holds once
    assert store.reserve_spend("k", hold("a", 60)).granted
    assert store.reserve_spend("k", hold("a", 60)) == Reserved(True, Spent(0, 0.0))
    assert store.reserve_spend("k", hold("b", 1)) == Reserved(True, Spent(60, 0.0))


def test_an_unsettled_hold_lapses_at_its_expiry(backend: Backend) -> None:
    store: Any = backend.make()  # its process died between reserve and settle
    assert store.reserve_spend("k", hold("dead", 100, at=1.0, expires_at=50.0)).granted
    assert not store.reserve_spend("k", hold("x", 1, at=49.0)).granted
    assert store.reserve_spend("k", hold("x", 1, at=50.0)) == Reserved(True, Spent(0, 0.0))
    # a call that outlived its hold is still charged when it settles
    store.settle_spend("k", "dead", at=60.0, tokens=7, cost_usd=0.0)
    assert store.spent_since("k") == Spent(7, 0.0)


def test_every_limit_is_checked_with_the_holds(backend: Backend) -> None:
    store: Any = backend.make()
    both: dict[str, Any] = {"max_tokens": 1000, "max_cost_usd": 1.0}
    assert store.reserve_spend("k", hold("a", 1, 0.6, **both)).granted
    assert store.reserve_spend("k", hold("b", 1, 0.5, **both)) == Reserved(True, Spent(1, 0.6))
    assert store.reserve_spend("k", hold("c", 1, 0.0, **both)) == Reserved(False, Spent(2, 1.1))
    assert store.reserve_spend("k", hold("c", 1, max_tokens=None)).granted  # no limit: held
    assert store.reserve_spend("k2", hold("a", max_tokens=0)) == Reserved(False, Spent(0, 0.0))


def test_the_window_and_the_keys_apply_to_holds(backend: Backend) -> None:
    store: Any = backend.make()
    store.record_spend("k", at=5.0, tokens=100, cost_usd=0.0)
    assert not store.reserve_spend("k", hold("a", 1, since=4.0)).granted
    assert store.reserve_spend("k", hold("a", 100, since=5.0)).granted  # 5.0 left the window
    assert store.reserve_spend("k:b", hold("a", 1)).granted  # another key: its own budget
    assert not store.reserve_spend("k", hold("b", 1, since=5.0)).granted
    store.settle_spend("k", "a", at=12.0, tokens=3, cost_usd=0.25, prune_before=5.0)
    assert store.spent_since("k") == Spent(3, 0.25)  # settled, and 5.0 pruned
    assert store.reserve_spend("k", hold("b", 1)) == Reserved(True, Spent(3, 0.25))


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"hold_id": ""}, "hold_id must be 1 to 64"),
        ({"hold_id": "a:b"}, "hold_id must be 1 to 64"),
        ({"hold_id": "x" * 65}, "hold_id must be 1 to 64"),
        ({"expires_at": 10.0}, "expires_at must be after at"),
        ({"expires_at": math.nan}, "expires_at must be a finite number"),
        ({"at": math.inf}, "at must be a finite number"),
        ({"tokens": -1}, "tokens must be an int >= 0"),
        ({"cost_usd": math.nan}, "cost_usd must be a finite number >= 0"),
        ({"since": math.nan}, "prune_before must be a finite number"),
        ({"max_tokens": -1}, "max_tokens must be an int >= 0"),
        ({"max_tokens": 1.5}, "max_tokens must be an int >= 0"),
        ({"max_cost_usd": -1.0}, "max_cost_usd must be >= 0"),
        ({"max_cost_usd": math.inf}, "max_cost_usd must be a finite number"),
    ],
)
def test_bad_holds_are_refused_and_nothing_is_held(
    backend: Backend, change: dict[str, Any], match: str
) -> None:
    store: Any = backend.make()
    fields = {**hold("a", 100).__dict__, **change}
    with pytest.raises(ConfigurationError, match=match):
        store.reserve_spend("k", Hold(**fields))
    assert store.reserve_spend("k", hold("b", 1)) == Reserved(True, Spent(0, 0.0))


def test_bad_settles_and_releases_are_refused(backend: Backend) -> None:
    store: Any = backend.make()
    with pytest.raises(ConfigurationError, match="hold_id must be"):
        store.settle_spend("k", "a b", at=1.0, tokens=1, cost_usd=0.0)
    with pytest.raises(ConfigurationError, match="tokens must be"):
        store.settle_spend("k", "a", at=1.0, tokens=-1, cost_usd=0.0)
    with pytest.raises(ConfigurationError, match="hold_id must be"):
        store.release_spend("k", None)
    with pytest.raises(ConfigurationError, match="spend key"):
        store.release_spend("", "a")
    with pytest.raises(ConfigurationError, match="hold must be a Hold"):
        store.reserve_spend("k", "a")
    assert store.spent_since("k") == Spent(0, 0.0)


def test_a_corrupt_redis_hold_is_reported(redis_backend: Backend) -> None:
    from summem.errors import CorruptRecordError

    store = redis_backend.native("sync")
    assert store.reserve_spend("k", hold("a", 1)).granted
    client = redis_backend.redis_client()
    assert 0 < client.pttl(store._spend_key("k") + ":holds") <= 90_000  # the hold's TTL
    client.hset(store._spend_key("k") + ":holds", "b", "not-a-hold")
    with pytest.raises(CorruptRecordError, match="a spend entry or hold of 'k' is invalid"):
        store.reserve_spend("k", hold("c", 1))
    store.close()


# -- the memory's holds --------------------------------------------------------------------


def _mock_llm() -> Any:
    reply = openai_completion("A short summary.", usage=(120, 12))
    return respx.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=reply))


def _fill(memory: Memory, n: int) -> None:
    for i in range(n):
        memory.add(u(f"a{i} " + "word " * 6))


@pytest.mark.parametrize("mode", ["sync", "async"])
@respx.mock
async def test_a_hold_left_by_a_dead_process_blocks_the_budget_until_it_lapses(
    tmp_path: Path, mode: str
) -> None:
    route = _mock_llm()
    clock = FakeClock()
    limit = SpendLimit(max_tokens=300, clock=clock, hold_ttl_seconds=120)
    path = tmp_path / "h.db"
    with SQLiteStore(path) as raw:  # another process reserved the whole budget, then died
        raw.reserve_spend("session:s", limit.hold("dead", 300, 0.0))
    store: Any = SQLiteStore(path) if mode == "sync" else AsyncSQLiteStore(path)
    facade: Any = Memory if mode == "sync" else AsyncMemory
    memory = facade("s", store=store, reducer=chain_reducer(), spend_limit=limit)
    for i in range(30):
        await settle(memory.add(u(f"a{i} " + "word " * 6)))
    assert route.call_count == 0  # the hold counts: the chain went on without the LLM
    clock.advance(120)  # the hold lapses
    for i in range(30):
        await settle(memory.add(u(f"b{i} " + "word " * 6)))
    assert route.call_count >= 1
    await settle(memory.close())
    await settle(store.close())


@respx.mock
def test_a_call_that_fails_releases_its_hold() -> None:
    route = respx.post(OPENAI_URL).mock(return_value=httpx.Response(400, json={"error": {}}))
    store = InMemoryStore()
    limit = SpendLimit(max_tokens=300)
    memory = Memory("s", store=store, reducer=chain_reducer(), spend_limit=limit)
    _fill(memory, 30)  # every LLM call fails; the chain goes on with the extractive step
    assert route.call_count >= 2
    # nothing spent, nothing held: the whole budget is there
    assert store.reserve_spend("session:s", limit.hold("probe", 1, 0.0)) == Reserved(
        True, Spent(0, 0.0)
    )
    assert limit.reserve("s", limit.hold("probe", 1, 0.0)) == Reserved(True, Spent(0, 0.0))
    memory.close()


class _Boom:
    """An LLM summarizer whose call fails with an error that is not a summarizer's."""

    model = "gpt-4o-mini"
    name = "boom"

    def summarize(self, request: SummaryRequest) -> Any:
        raise SummarizationError("boom: failed before any call was paid for")


def test_a_summarizer_error_without_usage_leaves_nothing_held() -> None:
    from summem import SummarizationReducer
    from tests.fakes.counters import WordCounter

    store = InMemoryStore()
    limit = SpendLimit(max_tokens=300)
    reducer = SummarizationReducer(
        _Boom(),
        threshold_tokens=100,
        target_tokens=60,
        summary_max_tokens=30,
        token_counter=WordCounter(),
        fail_on_error=False,
    )
    memory = Memory("s", store=store, reducer=reducer, spend_limit=limit)
    _fill(memory, 30)
    assert store.reserve_spend("session:s", limit.hold("probe", 1, 0.0)).spent == Spent(0, 0.0)
    memory.close()


def test_a_spend_limit_checks_its_hold_ttl() -> None:
    for bad in (0, -1.0, math.inf, True, "60"):
        with pytest.raises(ConfigurationError, match="hold_ttl_seconds must be"):
            SpendLimit(max_tokens=1, hold_ttl_seconds=bad)  # type: ignore[arg-type]


def test_a_hold_estimates_the_span_the_prompt_and_the_reply_room() -> None:
    from summem import ExtractiveSummarizer
    from summem.messages import Message
    from summem.observe.cost import cost_usd
    from summem.session.budget import estimate
    from tests.fakes.counters import WordCounter

    reducer = chain_reducer()  # an LLM step (gpt-4o-mini, a YAML prompt), then offline ones
    span = [Message.from_openai(u("one two three")), Message.from_openai(u("four five"))]
    previous = Message.from_openai(u("the summary so far"))
    counter = WordCounter()
    tokens, cost = estimate(span, None, reducer, reducer.summarizer)
    spans_tokens = sum(counter.count_message(m) for m in span)
    reply_room = max(2 * 30, 30 + 256)  # summary_max_tokens=30
    prompt = tokens - spans_tokens - reply_room
    assert prompt > 20  # the prompt's instructions count too
    assert cost == cost_usd("gpt-4o-mini", tokens - reply_room, reply_room) > 0
    with_previous, _ = estimate(span, previous, reducer, reducer.summarizer)
    assert with_previous == tokens + counter.count_message(previous)
    assert estimate(span, None, reducer, ExtractiveSummarizer()) == (spans_tokens + reply_room, 0)


def test_a_reduction_closed_during_its_call_drops_every_hold() -> None:
    """A flow closed mid-call (an interrupt, a generator dropped) cannot yield a store step:
    the store's hold is dropped at once all the same, not left to lapse."""
    from summem._flow import run_sync
    from summem.session.budget import Budget
    from summem.session.steps import SyncStoreSteps

    limit = SpendLimit(max_tokens=100)
    store = InMemoryStore()
    budget = Budget(limit, SyncStoreSteps(store))
    ticket = run_sync(budget.reserve("s", 100, 0.0))
    assert ticket.granted
    budget.forget("s", ticket)
    assert limit.reserve("s", limit.hold("again", 1, 0.0)) == Reserved(True, Spent(0, 0.0))
    assert store.reserve_spend("session:s", limit.hold("x", 1, 0.0)) == Reserved(
        True, Spent(0, 0.0)
    )


def test_a_settle_repeated_charges_once(backend: Backend) -> None:
    """A settle retried (its reply was lost) is charged once: the hold id keys the entry."""
    store: Any = backend.make()
    assert store.reserve_spend("k", hold("a", 50)).granted
    store.settle_spend("k", "a", at=11.0, tokens=7, cost_usd=0.5)
    store.settle_spend("k", "a", at=12.0, tokens=7, cost_usd=0.5)
    assert store.spent_since("k") == Spent(7, 0.5)
    store.record_spend("k", at=13.0, tokens=1, cost_usd=0.0)  # plain entries are not keyed
    store.record_spend("k", at=13.0, tokens=1, cost_usd=0.0)
    store.settle_spend("k", "b", at=14.0, tokens=2, cost_usd=0.0)  # another hold: its own
    assert store.spent_since("k") == Spent(11, 0.5)
    assert store.spent_since("other") == Spent(0, 0.0)


def _ambiguous(base: type, method: str, *, lands: bool) -> Any:
    """``base`` whose first ``method`` call fails with an unknown outcome (applied or not)."""
    from summem.errors import StoreOutcomeUnknownError

    class Ambiguous(base):  # type: ignore[misc]
        failed = False

        def _fail_once(self, *args: Any, **kwargs: Any) -> Any:
            real = getattr(super(), method)
            if type(self).failed:
                return real(*args, **kwargs)
            type(self).failed = True
            if lands:
                real(*args, **kwargs)
            raise StoreOutcomeUnknownError("reply lost", operation=method)

    setattr(Ambiguous, method, Ambiguous._fail_once)
    return Ambiguous


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("lands", [True, False])
def test_a_settle_of_unknown_outcome_is_retried_and_charged_once(
    tmp_path: Path, kind: str, lands: bool
) -> None:
    from summem._flow import run_sync
    from summem.session.budget import Budget
    from summem.session.steps import SyncStoreSteps

    base = InMemoryStore if kind == "memory" else SQLiteStore
    cls = _ambiguous(base, "settle_spend", lands=lands)
    store = cls() if kind == "memory" else cls(tmp_path / "s.db")
    limit = SpendLimit(max_tokens=100)
    budget = Budget(limit, SyncStoreSteps(store))
    ticket = run_sync(budget.reserve("s", 50, 0.0))
    run_sync(budget.settle("s", ticket, 7, 0.0))
    assert store.spent_since("session:s") == Spent(7, 0.0)  # not lost, not twice
    assert store.reserve_spend("session:s", limit.hold("x", 1, 0.0)).spent == Spent(7, 0.0)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_reservation_of_unknown_outcome_leaves_nothing_held(tmp_path: Path, kind: str) -> None:
    """The store took the hold but its reply was lost: the hold is released before the
    error goes on, or it would block the budget until it lapses."""
    from summem._flow import run_sync
    from summem.errors import StoreOutcomeUnknownError
    from summem.session.budget import Budget
    from summem.session.steps import SyncStoreSteps

    base = InMemoryStore if kind == "memory" else SQLiteStore
    cls = _ambiguous(base, "reserve_spend", lands=True)
    store = cls() if kind == "memory" else cls(tmp_path / "s.db")
    limit = SpendLimit(max_tokens=100)
    budget = Budget(limit, SyncStoreSteps(store))
    with pytest.raises(StoreOutcomeUnknownError):
        run_sync(budget.reserve("s", 100, 0.0))
    assert store.reserve_spend("session:s", limit.hold("x", 1, 0.0)) == Reserved(
        True, Spent(0, 0.0)
    )
    assert limit.reserve("s", limit.hold("y", 1, 0.0)) == Reserved(True, Spent(0, 0.0))


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@respx.mock
async def test_a_reduction_cancelled_during_its_call_leaves_nothing_held(
    tmp_path: Path, kind: str
) -> None:
    import asyncio

    from summem.stores import AsyncInMemoryStore

    started, never = asyncio.Event(), asyncio.Event()

    async def hang(request: httpx.Request) -> httpx.Response:
        started.set()
        await never.wait()
        raise AssertionError("unreachable")  # pragma: no cover

    respx.post(OPENAI_URL).mock(side_effect=hang)
    limit = SpendLimit(max_tokens=100_000)
    store: Any = AsyncInMemoryStore() if kind == "memory" else AsyncSQLiteStore(tmp_path / "c.db")
    memory = AsyncMemory("s", store=store, reducer=chain_reducer(), spend_limit=limit)

    async def fill() -> None:
        for i in range(30):
            await memory.add(u(f"a{i} " + "word " * 6))

    task = asyncio.create_task(fill())
    await asyncio.wait_for(started.wait(), timeout=30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await memory.close()  # the release runs in a task of its own: close waits for it
    probe = await store.reserve_spend("session:s", limit.hold("probe", 1, 0.0))
    assert probe == Reserved(True, Spent(0, 0.0))
    await store.close()


class _OldLedgerStore(InMemoryStore):
    """A plugin store written for the ledger before holds: record_spend and spent_since."""

    reserve_spend = settle_spend = release_spend = None  # type: ignore[assignment]


def test_a_store_with_the_old_ledger_is_refused_with_a_spend_limit() -> None:
    """It would silently stop sharing the budget (the process's own ledger instead)."""
    limit = SpendLimit(max_tokens=100)
    for facade in (Memory, AsyncMemory):
        with pytest.raises(ConfigurationError, match="reserve_spend, settle_spend, release_spend"):
            facade("s", store=_OldLedgerStore(), spend_limit=limit)
        facade("s", store=_OldLedgerStore())  # no limit: its ledger is not used
