"""The template count's cost per candidate line as one round's candidates grow.

``discount_templates`` (the extractive summarizer's boilerplate discount) runs once a reduction
over the previous summary's lines and the new span's. A long span of one speaker's templated
lines used to cost it a comparison of every line with every other. This benchmark times it on
``n`` candidate lines (500 and 2,000 by default) of three kinds:

- ``plain``: one frame said over and over with new values (a restock log);
- ``update``: one frame with a correction word ("actually ... now ..."), said over and over;
- ``mixed``: sentences drawn from a few frames and a vocabulary of nouns, two speakers.

and prints the cost per line, the cost of only finding each line's frame (``frame_of``, which
the count does once a line: the linear reference, measured in the same run) and their ratio.
The last rows divide the per-line cost at the largest size by that at the smallest: near 1 is
linear, near ``largest / smallest`` quadratic.

    python benchmarks/bench_templates.py [--sizes 500,2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from summem.summarizers.extractive.selection import Fact, make_fact
from summem.summarizers.extractive.templates import discount_templates, frame_of

NOUNS = ("tent", "day pack", "trail runner", "sleeping pad", "stove", "lantern", "poles", "mat")
MIXED = (
    "Batch {v} of the {p} was restocked on {d} by the warehouse team.",
    "I think the {p} we bought in {d} is still in the car.",
    "The {p} costs {v} after the discount on the new price list.",
    "My sister borrowed the {p} for her trip to the lake in {d}.",
    "Please check whether the {p} fits in the boot with the rest.",
)


def lines(kind: str, n: int) -> list[str]:
    """``n`` candidate lines of ``kind`` (deterministic)."""
    rng = random.Random(n)
    out = []
    for k in range(n):
        value, day = f"LV-{10000 + k}", f"{1 + k % 28} May"
        if kind == "plain":
            body = f"Batch {value} of the tent was restocked on {day} by the warehouse team."
            out.append(f"- assistant: {body}")
        elif kind == "update":
            out.append(f"- user: Actually the parcel {value} is now on the wrong truck again.")
        else:
            body = rng.choice(MIXED).format(v=value, p=rng.choice(NOUNS), d=day)
            out.append(f"- {rng.choice(('user', 'assistant'))}: {body}")
    return out


def facts_of(texts: list[str]) -> list[Fact]:
    """One round's candidates: a fifth carried over, the rest new, one line a message."""
    return [
        make_fact(t, None, 5.0, [f"m{k}"], (1 if k < len(texts) // 5 else 2, k, 0), frozenset())
        for k, t in enumerate(texts)
    ]


def best_of(repeat: int, setup: Callable[[], object], fn: Callable[[object], object]) -> float:
    """The best time of ``fn(setup())`` over ``repeat`` runs (``setup`` untimed)."""
    best = float("inf")
    for _ in range(repeat):
        arg = setup()
        start = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_templates.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="500,2000")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{'kind':>7} {'lines':>6} {'count (us/line)':>16} {'frame_of (us/line)':>19} {'ratio':>6}"
    )
    per_line: dict[str, list[float]] = {}
    for kind in ("plain", "update", "mixed"):
        for n in sizes:
            texts = lines(kind, n)
            count = best_of(
                args.repeat, lambda t=texts: facts_of(t), lambda f: discount_templates(f, [], {})
            )
            ref = best_of(
                args.repeat,
                lambda t=texts: t,
                lambda t: [frame_of(x.partition(": ")[2]) for x in t],
            )
            per_line.setdefault(kind, []).append(count / n)
            print(
                f"{kind:>7} {n:>6} {count / n * 1e6:>16.1f} {ref / n * 1e6:>19.2f} "
                f"{count / ref:>6.1f}"
            )
    if len(sizes) > 1:
        for kind, costs in per_line.items():
            print(
                f"{kind} per-line cost scaling {sizes[-1]}/{sizes[0]}: "
                f"{costs[-1] / costs[0]:.2f} (linear 1, quadratic {sizes[-1] / sizes[0]:g})"
            )


if __name__ == "__main__":
    main()
