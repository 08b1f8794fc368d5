"""The evals' command-line entry: a known failure prints one line, not a traceback.

A missing provider key, a recording that lacks a request (the data, prompt or settings
changed), or a dataset path that does not exist are the user's to fix; they get the message
and exit status 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from summem.errors import SummemError

__all__ = ["run_cli"]


def run_cli(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run an eval's ``main``; report a configuration, replay or missing-file error plainly."""
    try:
        return main(argv)
    except (SummemError, FileNotFoundError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
