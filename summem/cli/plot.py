"""``summem replay --plot``: the view's tokens after each message, with reduction markers.

matplotlib comes with the ``evals`` extra; it is imported only here, with the ``Agg`` backend
(a file, never a window).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from summem.errors import MissingDependencyError

if TYPE_CHECKING:
    from summem.cli.replay import ReplayResult

__all__ = ["plot_replay"]


def plot_replay(result: ReplayResult, path: Path, *, target: int, title: str) -> Path:
    """Draw ``result.view_sizes`` per message, the threshold, the target, and each reduction.

    Raises:
        MissingDependencyError: matplotlib is not installed (``summem[evals]``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingDependencyError("matplotlib", "evals") from exc
    fig, ax = plt.subplots(figsize=(10, 4.5))
    try:
        turns = range(len(result.view_sizes))
        ax.plot(turns, result.view_sizes, color="tab:blue", linewidth=1.2, label="view tokens")
        if result.unit == "tokens":
            ax.axhline(result.threshold, color="tab:red", linestyle="--", label="threshold")
            ax.axhline(target, color="tab:green", linestyle=":", label="target")
        for i, r in enumerate(result.reductions):
            label = "reduction" if i == 0 else None
            ax.axvline(r.turn, color="tab:orange", alpha=0.35, linewidth=1, label=label)
        ax.set_xlabel("message")
        ax.set_ylabel("view tokens")
        ax.set_title(title)
        ax.legend(loc="upper left")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)
    return path
