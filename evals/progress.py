"""Progress bars for the eval commands: rich on a terminal, silent in tests, CI and pipes.

Evals run for seconds to minutes; a bar says how far along they are without printing into the
reports they write to stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["progress_bar"]


@contextmanager
def progress_bar(
    total: int, description: str, *, enabled: bool | None = None
) -> Iterator[Callable[[int], None]]:
    """A bar on stderr; yields ``advance(n)``.

    Args:
        total: steps to expect.
        description: what is being done.
        enabled: force the bar on or off; by default on when stderr is a terminal.
    """
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:

        def ignore(n: int = 1) -> None:
            return None

        yield ignore
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task(description, total=total)

        def advance(n: int = 1) -> None:
            progress.advance(task, n)

        yield advance
