"""The hot-path cost of the stores' recall indexes: ``Memory.add`` per turn with and without.

Run from the repository root::

    python benchmarks/bench_recall_index.py                       # 1k and 10k messages
    python benchmarks/bench_recall_index.py --sizes 1000 --rounds 3 --stores sqlite

SQLite keeps an FTS5 table and PostgreSQL a ``tsvector`` column (GIN-indexed) in step with
every append (see docs-notes/recall.md). This measures what that costs a turn: the per-turn
run of bench_stores.py (a reduced session of N messages, then ``--turns`` turns of
``Memory.add`` + ``messages()`` with an instant summarizer) on the same store, once as it is
("with") and once with the index writes replaced by no-ops ("without": SQLite skips the FTS5
insert, PostgreSQL writes an empty ``tsvector``; neither splits the message into terms), which
is what an append cost before the index. Runs alternate, ``--rounds`` of each, and the best
mean of each side is compared (the machine is shared: the best run is the least disturbed).
The ratio with/without is the figure; issue 12 asks for at most 1.10.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.bench_stores import per_turn, place, problem

STORES = ("sqlite", "postgres")

# The index writes, by where the stores look them up (patched by name: benchmarks import the
# public API only).
_NO_INDEX = {
    "sqlite": ("summem.stores.sqlite.index_rows", lambda conn, rows: None),
    "postgres": ("summem.stores._postgres_ops.ts_vector", lambda message: ""),
}


@contextlib.contextmanager
def index_writes(kind: str, on: bool) -> Iterator[None]:
    if on:
        yield
        return
    target, stub = _NO_INDEX[kind]
    with mock.patch(target, stub):
        yield


def measure(kind: str, n: int, turns: int, on: bool) -> tuple[float, float]:
    with place(kind) as spec, index_writes(kind, on):
        return per_turn(spec, n, turns)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="history sizes, e.g. 1000,10000")
    parser.add_argument("--turns", type=int, default=1000, help="turns measured per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side, alternating")
    parser.add_argument("--stores", default=",".join(STORES), help="sqlite,postgres")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print("Recall index, Memory.add + messages() per turn (us; best mean of the runs)")
    print(f"{'store':<10}{'N':>8}{'with':>10}{'without':>10}{'ratio':>8}   (medians)")
    for kind in args.stores.split(","):
        reason = problem(kind)
        if reason is not None:
            print(f"{kind:<10} skipped: {reason}")
            continue
        for n in sizes:
            runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
            for _ in range(args.rounds):
                for on in (False, True):
                    runs[on].append(measure(kind, n, args.turns, on))
            with_mean = min(m for m, _ in runs[True])
            without_mean = min(m for m, _ in runs[False])
            with_med = min(md for _, md in runs[True])
            without_med = min(md for _, md in runs[False])
            print(
                f"{kind:<10}{n:>8}{with_mean:>10.0f}{without_mean:>10.0f}"
                f"{with_mean / without_mean:>8.2f}   ({with_med:.0f} / {without_med:.0f}, "
                f"ratio {with_med / without_med:.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
