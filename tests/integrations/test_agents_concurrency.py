"""``pop_item`` / ``add_items`` / ``clear_session`` / ``get_items`` racing, cancelled at random.

Seeded runs of :mod:`tests.integrations.agents_workload`: several ``SummemSession`` objects,
several event loops in threads, several processes, on one session id; a quarter of the calls
cancelled at a random point. Whatever the interleaving, every acknowledged add ends in the
history or in exactly one branch, nothing is duplicated, every popped item is kept in a branch,
and each instance's view is the store's at the end (no stale view after a cancellation).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integrations import agents_workload as workload
from tests.stores.backends import REDIS_URL, postgres_url, require_redis, unique_prefix

ROOT = Path(__file__).resolve().parents[2]


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'raced.db'}"


@pytest.mark.parametrize("seed", [1, 2])
def test_threads_and_loops_on_one_sqlite_file(tmp_path: Path, seed: int) -> None:
    url = sqlite_url(tmp_path)
    outcome, objects = workload.run(url, seed, ops=120, tag=f"t{seed}", threads=3, sessions=2)
    assert asyncio.run(workload.views_are_fresh(url, objects)) == []
    assert outcome.operations == 3 * 2 * 120
    assert outcome.cancelled > 0 and outcome.popped and outcome.added
    workload.check(outcome, *asyncio.run(workload.stored(url)))


def test_processes_threads_and_loops_on_one_sqlite_file(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    module = "tests.integrations.agents_workload"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", module, url, str(seed), "150", f"p{seed}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (11, 12, 13)
    ]
    local, objects = workload.run(url, 10, ops=150, tag="p10")  # this process races them too
    total = workload.Outcome()
    total.merge(local)
    for proc in procs:
        out, err = proc.communicate()
        assert proc.returncode == 0, err[-2000:]
        total.merge(workload.Outcome(**json.loads(out.strip().splitlines()[-1])))
    assert asyncio.run(workload.views_are_fresh(url, objects)) == []
    assert total.operations == 4 * 2 * 2 * 150
    assert total.cancelled > 0 and total.popped
    workload.check(total, *asyncio.run(workload.stored(url)))


def test_threads_and_loops_on_postgres() -> None:
    url = f"{postgres_url()}?schema={unique_prefix().replace('-', '_')}"
    outcome, objects = workload.run(url, 7, ops=80, tag="pg", threads=2, sessions=2)
    assert asyncio.run(workload.views_are_fresh(url, objects)) == []
    assert outcome.cancelled > 0 and outcome.popped
    workload.check(outcome, *asyncio.run(workload.stored(url)))


def test_threads_and_loops_on_redis() -> None:
    require_redis()
    url = f"{REDIS_URL}#{unique_prefix()}"
    outcome, objects = workload.run(url, 8, ops=80, tag="rd", threads=2, sessions=2)
    assert asyncio.run(workload.views_are_fresh(url, objects)) == []
    assert outcome.cancelled > 0 and outcome.popped
    workload.check(outcome, *asyncio.run(workload.stored(url)))
