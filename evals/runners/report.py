"""Eval results as files: a JSON report, a Markdown table and a retention-vs-cost plot.

Every eval ends the same way: a JSON file a CI gate or a later run can compare against, a
Markdown table for a pull request, and, for sweeps, a PNG of retention against cost with the
Pareto front marked (the settings no other setting beats on both). matplotlib is imported only
when a plot is drawn, and drawn on an Agg canvas, so no display and no pyplot state are needed.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import sys
import tempfile
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = [
    "markdown_table",
    "pareto_front",
    "plot_pareto",
    "report_metadata",
    "to_jsonable",
    "write_json_report",
]


def report_metadata(**extra: Any) -> dict[str, Any]:
    """What every report records about the run that made it, plus ``extra``."""
    from summem._version import __version__

    return {
        "summem_version": __version__,
        "python": platform.python_version(),
        "platform": sys.platform,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **extra,
    }


def to_jsonable(value: Any) -> Any:
    """``value`` with dataclasses, sets, tuples and paths turned into JSON types.

    Sets become sorted lists so a report is the same from run to run; non-finite floats
    become ``None`` (JSON has no NaN).
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((to_jsonable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_json_report(path: str | Path, report: Mapping[str, Any]) -> Path:
    """Write ``report`` as indented JSON, atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_jsonable(report), indent=2, sort_keys=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only; a report is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _cell(value: Any, floatfmt: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, floatfmt)
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    floatfmt: str = ".3f",
) -> str:
    """A GitHub Markdown table of ``rows``.

    Args:
        rows: one mapping per row.
        columns: keys to show, in order; by default every key, in first-seen order.
        headers: display names for some columns.
        floatfmt: format of float cells; numbers are right-aligned.
    """
    if columns is None:
        columns = list(dict.fromkeys(k for row in rows for k in row))
    headers = headers or {}

    def is_number(v: Any) -> bool:
        return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))

    numeric = [bool(rows) and all(is_number(r.get(c)) for r in rows) for c in columns]
    head = "| " + " | ".join(headers.get(c, c) for c in columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    body = ["| " + " | ".join(_cell(r.get(c), floatfmt) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body]) + "\n"


def pareto_front(costs: Sequence[float], values: Sequence[float]) -> list[int]:
    """Indices of the points no other point beats: lower or equal cost and higher value.

    Cost is minimised and value maximised. The indices come in increasing cost. Of points
    equal in both, the first is kept; points with a NaN are never on the front.
    """
    if len(costs) != len(values):
        raise ValueError(f"{len(costs)} costs for {len(values)} values")
    order = sorted(
        (i for i in range(len(costs)) if not (math.isnan(costs[i]) or math.isnan(values[i]))),
        key=lambda i: (costs[i], -values[i], i),
    )
    front: list[int] = []
    best = -math.inf
    for i in order:
        if values[i] > best:
            front.append(i)
            best = values[i]
    return front


def plot_pareto(
    rows: Sequence[Mapping[str, Any]],
    *,
    x: str,
    y: str,
    path: str | Path,
    label: str | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Path:
    """Plot ``rows[y]`` against ``rows[x]`` (cost) as a PNG, Pareto front highlighted.

    Args:
        rows: one mapping per setting, e.g. a sweep's results.
        x: the cost key (lower is better), e.g. ``"summarizer_tokens"``.
        y: the value key (higher is better), e.g. ``"retention"``.
        path: where to write the PNG.
        label: a key whose value names each point on the front.
        title: the plot's title.
        xlabel: axis label (defaults to ``x``).
        ylabel: axis label (defaults to ``y``).

    Raises:
        MissingDependencyError: when matplotlib is not installed (extra ``evals``).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        from summem.errors import MissingDependencyError

        raise MissingDependencyError("matplotlib", "evals") from exc

    xs = [float(r[x]) for r in rows]
    ys = [float(r[y]) for r in rows]
    front = pareto_front(xs, ys)
    fig = Figure(figsize=(7, 4.5), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    others = [i for i in range(len(rows)) if i not in set(front)]
    ax.scatter([xs[i] for i in others], [ys[i] for i in others], color="0.65", label="settings")
    ax.plot(
        [xs[i] for i in front],
        [ys[i] for i in front],
        color="tab:red",
        marker="o",
        drawstyle="steps-post",
        label="Pareto front",
    )
    if label is not None:
        for i in front:
            ax.annotate(
                str(rows[i].get(label, "")),
                (xs[i], ys[i]),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
            )
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path
