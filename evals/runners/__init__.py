"""The evals' commands, one module each: ``python -m evals.runners.<name>``.

Each has a ``main(argv)`` that returns an exit status; :mod:`evals.runners.cli` turns a known
failure into one line, :mod:`evals.runners.report` writes the JSON reports, Markdown tables and
plots. ``gate.json`` holds the figures the CI gate (:mod:`evals.runners.gate`) compares with.
"""

from __future__ import annotations

__all__: list[str] = []
