"""``python -m evals.cost``."""

from evals._cli import run_cli
from evals.cost.report import main

raise SystemExit(run_cli(main))
