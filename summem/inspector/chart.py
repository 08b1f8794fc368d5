"""The view-size chart, drawn on the server as SVG geometry (no JavaScript, no library).

:func:`view_chart` turns ``(turn, size)`` points, the budget and the reductions into numbers
the template places: a polyline, the threshold and target lines, a marker per reduction,
axis ticks, and one link area per slice of turns (clicking the chart picks a turn). Every
value is a number or a label the template escapes; nothing here is markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Chart", "Marker", "Tick", "view_chart"]

WIDTH = 960
HEIGHT = 280
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 36, 40
MAX_POINTS = 600
"""Points drawn at most: beyond, each slice of turns keeps its largest size (peaks stay)."""
LINK_SLICES = 120
"""Clickable slices across the chart (each picks the turn in its middle)."""


@dataclass(frozen=True)
class Tick:
    """An axis tick: where, and its label."""

    at: float
    label: str


@dataclass(frozen=True)
class Marker:
    """A reduction on the chart: an x position, its label and the turn it links to."""

    x: float
    label: str
    turn: int
    exact: bool


@dataclass
class Chart:
    """Everything the template draws (coordinates in the SVG's user units)."""

    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    points: str = ""
    threshold_y: float | None = None
    target_y: float | None = None
    threshold: int | None = None
    target: int | None = None
    unit: str = "tokens"
    markers: list[Marker] = field(default_factory=list)
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    links: list[tuple[float, float, int]] = field(default_factory=list)
    selected_x: float | None = None
    first: int = 0
    last: int = 0
    peak: int = 0


def _nice(value: float) -> float:
    """A round step near ``value`` (1, 2 or 5 times a power of ten)."""
    import math

    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return float(step * power)
    return float(10 * power)


def view_chart(
    points: list[tuple[int, int]],
    *,
    threshold: int | None,
    target: int | None,
    unit: str,
    reductions: list[tuple[int, str, bool]],
    selected: int | None = None,
) -> Chart:
    """The chart's geometry.

    Args:
        points: ``(turn, view size)``, turns ascending.
        threshold: the budget's threshold (``None``: not drawn).
        target: the budget's target (``None``: not drawn).
        unit: ``tokens`` or ``messages``.
        reductions: ``(turn, label, exact)`` for each reduction to mark.
        selected: the turn picked, marked if in range.
    """
    chart = Chart(threshold=threshold, target=target, unit=unit)
    if not points:
        return chart
    first, last = points[0][0], points[-1][0]
    chart.first, chart.last = first, last
    peak = max(size for _, size in points)
    chart.peak = peak
    top_value = max([peak, threshold or 0, target or 0, 1]) * 1.08
    span = max(last - first, 1)
    plot_w = chart.right - chart.left
    plot_h = chart.bottom - chart.top

    def x(turn: float) -> float:
        return round(chart.left + (turn - first) / span * plot_w, 1)

    def y(value: float) -> float:
        return round(chart.bottom - value / top_value * plot_h, 1)

    drawn = points
    if len(points) > MAX_POINTS:
        per = len(points) / MAX_POINTS
        drawn = []
        for i in range(MAX_POINTS):
            chunk = points[int(i * per) : int((i + 1) * per)] or points[-1:]
            drawn.append(max(chunk, key=lambda p: p[1]))
    chart.points = " ".join(f"{x(t)},{y(v)}" for t, v in drawn)
    if threshold is not None:
        chart.threshold_y = y(threshold)
    if target is not None:
        chart.target_y = y(target)
    chart.markers = [Marker(x(t), label, t, exact) for t, label, exact in reductions]
    step = _nice(top_value / 5)
    chart.y_ticks = [
        Tick(y(v), f"{int(v):,}") for v in (step * i for i in range(6)) if v <= top_value
    ]
    x_step = max(1, int(_nice(span / 8)))
    start = first - first % x_step + (x_step if first % x_step else 0)
    chart.x_ticks = [Tick(x(t), f"#{t}") for t in range(start, last + 1, x_step)]
    slices = min(LINK_SLICES, last - first + 1)
    for i in range(slices):
        lo = first + (last - first + 1) * i / slices
        hi = first + (last - first + 1) * (i + 1) / slices
        turn = min(last, int((lo + hi) / 2))
        chart.links.append((x(lo), max(x(hi) - x(lo), 1.0), turn))
    if selected is not None and first <= selected <= last:
        chart.selected_x = x(selected)
    return chart
