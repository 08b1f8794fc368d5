"""The table reader's cost on texts of every length, beside the readers of known programs alone.

``text_table`` reads a tool result's text as a table: first the parsers of shapes a program
prints (pipes, a delimiter, padded columns), then, when none reads it, the readers of shapes
no parser names (columns one space apart, a report grouped under headings). Those cut rows
into cells and are bounded (rows, characters, steps). Each text below is read twice in the same
run: with every reader on, and with the known programs' parsers alone (``on=frozenset()``,
the reader before the new shapes); the ratio is the new readers' cost, whatever the machine.

Texts, generated (seeded): ``listing`` columns one space apart (``print(*row)``: a name, a
size, a date, an owner); ``notes`` columns one space apart with names and a free-text note
(the costliest to cut); ``soup`` twelve names over rows of thirty words and a number;
``capitals`` twelve names over rows of capitalised words and codes (read as nothing, at the
most cost: the step bound); ``numbers`` nine names over rows of 33 numbers; ``prose``
sentences under a title; ``markdown`` a pipe table, which the parsers read at once. Sizes are
rows.

    python benchmarks/bench_text_tables.py [--sizes 10,60,2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from summem.summarizers.extractive.text_tables import text_table

_WORDS: tuple[str, ...] = ("north", "south", "river", "stone", "quick", "brown", "lamp", "desk")
_WORDS += ("chair", "window", "garden", "fence", "roof", "gate", "barn", "field", "copper", "amber")
_NAMES = ("Ana Ruiz", "Tom Reid", "Yusuf Aydin", "Mei Lin", "Olu Bello", "Kai Berg")


def _listing(rows: int, rng: random.Random) -> str:
    body = (
        f"file{i}.txt {rng.randint(1, 99999)} "
        f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.choice(('root', 'ana'))}"
        for i in range(rows)
    )
    return "name size modified owner\n" + "\n".join(body)


def _notes(rows: int, rng: random.Random) -> str:
    body = (
        f"{rng.choice(_NAMES)} {rng.choice(('greyhound', 'tabby cat', 'spaniel'))} VR-{1000 + i} "
        f"{rng.randint(20, 90)}.00 "
        + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 9)))
        for i in range(rows)
    )
    return "owner animal visit_ref fee note\n" + "\n".join(body)


def _soup(rows: int, rng: random.Random) -> str:
    head = " ".join(f"Field{j}" for j in range(12))
    body = (" ".join(rng.choice(_WORDS) for _ in range(30)) + f" {i}" for i in range(rows))
    return head + "\n" + "\n".join(body)


def _capitals(rows: int, rng: random.Random) -> str:
    words = ("Cd", "Lee", "Kim", "Ab", "7", "2026-01-02", "Bob", "QA-1")
    head = " ".join(f"c{j}" for j in range(12))
    body = (" ".join(rng.choice(words) for _ in range(26)) for _ in range(rows))
    return head + "\n" + "\n".join(body)


def _numbers(rows: int, rng: random.Random) -> str:
    head = " ".join(f"col{j}" for j in range(9))
    body = (" ".join(str(rng.randint(1, 97)) for _ in range(33)) for _ in range(rows))
    return head + "\n" + "\n".join(body)


def _prose(rows: int, rng: random.Random) -> str:
    body = (
        f"The {rng.choice(_WORDS)} team finished {rng.randint(2, 40)} tasks near the "
        f"{rng.choice(_WORDS)} this week."
        for _ in range(rows)
    )
    return "Weekly Status Update\n" + "\n".join(body)


def _markdown(rows: int, rng: random.Random) -> str:
    body = (
        f"| {rng.choice(_NAMES)} | {rng.randint(1, 999)} | {rng.choice(_WORDS)} |"
        for _ in range(rows)
    )
    return "| name | count | place |\n|---|---|---|\n" + "\n".join(body)


SHAPES: dict[str, Callable[[int, random.Random], str]] = {
    "listing": _listing,
    "notes": _notes,
    "soup": _soup,
    "capitals": _capitals,
    "numbers": _numbers,
    "prose": _prose,
    "markdown": _markdown,
}


def _best(text: str, repeat: int, **kwargs: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        text_table(text, **kwargs)  # type: ignore[arg-type]
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench_text_tables.py", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sizes", default="10,60,2000", help="rows of each text")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many reads")
    args = parser.parse_args(argv)
    print(
        f"{'shape':>9} {'rows':>6} {'KB':>7} {'read':>6} {'all (ms)':>9} "
        f"{'parsers (ms)':>13} {'ratio':>6}"
    )
    for name, make in SHAPES.items():
        for rows in [int(s) for s in args.sizes.split(",")]:
            text = make(rows, random.Random(rows))
            read = text_table(text) is not None
            every = _best(text, args.repeat)
            known = _best(text, args.repeat, on=frozenset())
            print(
                f"{name:>9} {rows:>6} {len(text) / 1024:>7.1f} {'yes' if read else 'no':>6} "
                f"{every * 1e3:>9.2f} {known * 1e3:>13.2f} {every / known:>6.2f}"
            )


if __name__ == "__main__":
    main()
