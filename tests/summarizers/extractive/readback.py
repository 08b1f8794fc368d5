"""Reading an extractive summary back the way the next round does, for the tests' assertions."""

from __future__ import annotations

from summem.summarizers.extractive.layout import summary_lines


def full_lines(text: str) -> list[str]:
    """The summary's lines, each fact line with its label (a run of one speaker's lines
    carries it once: :func:`~summem.summarizers.extractive.layout.summary_lines`)."""
    lines = text.splitlines()
    for index, _day, line, _body in summary_lines(text, shared_labels=True):
        lines[index] = line
    return lines
