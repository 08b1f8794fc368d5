"""How the inspector places reductions: recorded, estimated, and along the active branch."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from summem.inspector.app import create_app
from summem.inspector.reading import SessionReader, active_chain
from summem.inspector.settings import Budget
from summem.inspector.source import open_source
from summem.memory import Memory
from summem.stores import SQLiteStore
from tests.cli.test_app import run
from tests.inspector.sessions import conversation, reducer, write_session

ROOT = Path(__file__).parents[2]


def test_estimated_turns_agree_with_a_replays_recorded_ones(tmp_path: Path) -> None:
    from summem.cli.common import load_settings
    from summem.inspector.settings import budget_from_config

    config = ROOT / "examples" / "summem.yaml"
    out = tmp_path / "replay"
    transcript = ROOT / "examples" / "support-transcript.json"
    assert run("replay", transcript, "--config", config, "--out", out, "-q").exit_code == 0
    budget = budget_from_config(load_settings(str(config)))
    source = open_source(str(out))
    try:
        assert source.turns

        def turns(recorded: dict[str, int]) -> list[tuple[int, bool]]:
            reader = SessionReader(
                source.store,
                "replay-support-transcript",
                size=budget.size,
                head_size=budget.head_size,
                threshold=budget.threshold,
                recorded_turns=recorded,
            )
            return [(r.turn, r.exact) for r in reader.reductions]

        recorded, estimated = turns(source.turns), turns({})
        assert len(recorded) >= 2
        assert [t for t, _ in recorded] == [t for t, _ in estimated]
        assert all(exact for _, exact in recorded) and not any(exact for _, exact in estimated)
    finally:
        source.close()


def test_summaries_an_edit_abandoned_are_off_the_active_branch(
    tmp_path: Path, budget: Budget
) -> None:
    path = tmp_path / "branched.db"
    with SQLiteStore(path) as store:
        write_session(store, "s", turns=12)
        before = store.summaries("s")
        assert len(before) >= 2
        first = before[0].summary_info
        assert first is not None
        memory = Memory("s", reducer=reducer(), store=store, background=False)
        memory.branch(first.watermark + 1)  # back behind the later summaries
        for message in conversation(6)[:8]:
            memory.add(message)
        memory.close()
        state = store.load("s")
        log = store.summaries("s")
    chain = active_chain(log, state.summary)
    abandoned = [s for s in before[1:] if s.id not in {c.id for c in chain}]
    assert chain[0].id == before[0].id and abandoned
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        text = client.get("/session", params={"id": "s"}).text
        assert "off the active branch" in text
        assert "branched" in text.split('id="timeline"')[1]
        for s in abandoned:
            assert s.id in text
    finally:
        source.close()


def test_a_stubbed_summary_is_placed_and_counted_as_its_whole_self(
    tmp_path: Path, budget: Budget
) -> None:
    """The bounded log keeps a stub's span and count: the inspector shows them, not zero."""
    from summem.inspector.summaries import summary_card
    from summem.stores.summary_log import is_stub

    def read(keep: int | None) -> tuple[list[tuple[int, int]], list[int], int]:
        with SQLiteStore(tmp_path / f"keep-{keep}.db") as store:
            memory = Memory(
                "s", reducer=reducer(), store=store, background=False, keep_summaries=keep
            )
            for message in conversation(14):
                memory.add(message)
            memory.close()
            reader = SessionReader(
                store, "s", size=budget.size, head_size=budget.head_size, threshold=None
            )
            stubs = sum(is_stub(r.summary) for r in reader.reductions)
            spans = [(r.start, r.watermark) for r in reader.reductions]
            covered = [
                summary_card(r.summary, r, current=False, prefix="").covered
                for r in reader.reductions
            ]
            return spans, covered, stubs

    whole, bounded = read(None), read(1)
    assert whole[2] == 0 and bounded[2] == len(bounded[0]) - 1 >= 2
    assert bounded[0] == whole[0] and bounded[1] == whole[1]
    assert all(c > 0 for c in bounded[1])
