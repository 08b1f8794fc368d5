"""Each summary as the session page shows it: provenance, spend, what it dropped, its lines.

A summary's lines are links: the extractive summarizer records, for each line, the messages it
came from (``extra["provenance"]``), so a click shows them. A summarizer that records none (an
LLM) is shown with the span it folded in instead. The summaries log may keep only the latest
summaries whole and older ones as metadata: a summary without text says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from summem.inspector.reading import Reduction
from summem.messages import Message
from summem.stores.summary_log import covered_count

__all__ = ["SummaryCard", "line_sources", "summary_card"]


@dataclass
class SummaryLine:
    """One line of a summary, and whether a click can show its sources."""

    number: int | None
    text: str
    sources: int


@dataclass
class SummaryCard:
    """One summary, ready for a template (see :func:`summary_card`)."""

    id: str
    reduction: Reduction | None
    current: bool
    start: int
    watermark: int
    covered: int
    created_at: str
    summarizer: str
    model: str | None
    prompt: str | None
    prompt_hash: str | None
    tokens: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    fallback_used: str | None
    fallback_failed: list[str]
    fallback_reasons: list[str]
    uncovered: list[str] | None
    truncated: int | None
    recomputed: bool
    has_text: bool
    header: list[str] = field(default_factory=list)
    lines: list[SummaryLine] = field(default_factory=list)
    line_provenance: bool = False

    @property
    def index(self) -> int | None:
        """Its number on the active chain (``None``: off the active branch)."""
        return self.reduction.index if self.reduction is not None else None

    @property
    def turn(self) -> int | None:
        """When it became current (estimated on first use: see :mod:`.reading`)."""
        return self.reduction.turn if self.reduction is not None else None

    @property
    def exact(self) -> bool:
        """Whether :attr:`turn` was recorded rather than estimated."""
        return self.reduction.exact if self.reduction is not None else False


def _usage(extra: dict[str, Any]) -> dict[str, Any]:
    found = extra.get("usage")
    return found if isinstance(found, dict) else {}


def _number(value: object) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else 0.0  # type: ignore[arg-type]


def _provenance(extra: dict[str, Any]) -> dict[int, list[str]]:
    """Line number -> the message ids it came from (well-formed entries only)."""
    found = extra.get("provenance")
    lines: dict[int, list[str]] = {}
    if not isinstance(found, list):
        return lines
    for entry in found:
        if not isinstance(entry, dict):
            continue
        line, ids = entry.get("line"), entry.get("ids")
        if type(line) is int and isinstance(ids, list):
            lines[line] = [i for i in ids if isinstance(i, str)]
    return lines


def summary_card(
    summary: Message, reduction: Reduction | None, *, current: bool, prefix: str
) -> SummaryCard:
    """The card of one summary (``reduction``: where it sits on the active chain, if it does)."""
    info = summary.summary_info
    extra: dict[str, Any] = dict(info.extra) if info is not None else {}
    usage = _usage(extra)
    fallback = extra.get("fallback") if isinstance(extra.get("fallback"), dict) else {}
    assert isinstance(fallback, dict)
    uncovered = extra.get("uncovered_ids")
    truncated = extra.get("dropped_messages")
    watermark = info.watermark if info is not None else 0
    covered = covered_count(summary)  # a stub of the bounded log keeps the count
    recomputed = isinstance(extra.get("recomputed"), dict)
    text = summary.text
    card = SummaryCard(
        id=summary.id,
        reduction=reduction,
        current=current,
        start=reduction.start if reduction is not None else watermark - covered,
        watermark=watermark,
        covered=covered,
        created_at=info.created_at.isoformat(timespec="seconds") if info is not None else "",
        summarizer=info.summarizer if info is not None else "unknown",
        model=info.model if info is not None else None,
        prompt=info.prompt if info is not None else None,
        prompt_hash=info.prompt_hash if info is not None else None,
        tokens=info.tokens if info is not None else 0,
        calls=int(_number(usage.get("calls"))),
        input_tokens=int(_number(usage.get("input_tokens"))),
        output_tokens=int(_number(usage.get("output_tokens"))),
        cost_usd=_number(usage.get("cost_usd")),
        fallback_used=str(fallback["used"]) if fallback.get("used") else None,
        fallback_failed=[str(f) for f in fallback.get("failed") or []],
        fallback_reasons=[str(r) for r in fallback.get("reasons") or []],
        uncovered=[str(i) for i in uncovered] if isinstance(uncovered, list) else None,
        truncated=truncated if type(truncated) is int else None,
        recomputed=recomputed,
        has_text=bool(text.strip()),
    )
    body = text
    if prefix and text.startswith(prefix):
        card.header = prefix.rstrip("\n").split("\n")
        body = text[len(prefix) :]
    provenance = _provenance(extra)
    card.line_provenance = bool(provenance)
    if card.has_text:
        for i, line in enumerate(body.split("\n")):
            card.lines.append(SummaryLine(i, line, len(provenance.get(i, []))))
    return card


def line_sources(summary: Message, line: int) -> list[str] | None:
    """The message ids line ``line`` came from (``None``: the summary records no such line)."""
    info = summary.summary_info
    if info is None:
        return None
    return _provenance(dict(info.extra)).get(line)
