"""How the CLI shows things: the replay's tables, a session's summary and view, a history.

Kept apart from the commands so that they stay a thin layer over the public API, and so that
rich is imported only when something is actually printed (never for ``--help``). Every piece of
conversation text goes through :func:`escape`: a transcript's ``[bold]`` is text, not markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from summem.cli.replay import Reduction, ReplayResult, ReplayRun
    from summem.messages import Message

__all__ = [
    "dropped_line",
    "escape",
    "message_line",
    "print_history",
    "print_replay",
    "print_replay_run",
    "print_session",
    "print_sessions",
    "print_summaries",
    "print_timeline",
    "provenance_line",
]

SUMMARY_LINES = 6
"""How many of the last summary's lines a replay's report shows."""


def escape(text: str) -> str:
    """``text`` with rich markup neutralised."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def message_line(message: Message, *, width: int = 160) -> str:
    """One message as plain text on one line: its text, or its tool calls, shortened."""
    parts: list[str] = []
    if message.text:
        parts.append(message.text)
    elif message.content is not None and not isinstance(message.content, str):
        parts.append(" ".join(f"[{p.get('type', 'part')}]" for p in message.content))
    for call in message.tool_calls or ():
        fn = call.get("function") or {}
        parts.append(f"-> {fn.get('name', '?')}({fn.get('arguments', '')})")
    if message.role == "tool":
        parts.insert(0, f"({message.tool_call_id})")
    text = " ".join(" ".join(parts).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def provenance_line(summary: Message) -> str:
    """Where a summary comes from: what it covers, who wrote it, with what, when."""
    info = summary.summary_info
    if info is None:
        return "no provenance recorded"
    from summem.stores.summary_log import covered_count

    new = covered_count(summary)
    bits = [
        f"covers history[:{info.watermark}] ({new} new in this summary)",
        f"summarizer {info.summarizer}" + (f" ({info.model})" if info.model else ""),
    ]
    if info.prompt:
        bits.append(f"prompt {info.prompt}")
    bits.append(f"{info.tokens} tokens")
    bits.append(f"created {info.created_at.isoformat(timespec='seconds')}")
    return ", ".join(bits)


def dropped_line(summary: Message) -> str | None:
    """What the summary dropped, when its summarizer records provenance (else ``None``)."""
    info = summary.summary_info
    uncovered = info.extra.get("uncovered_ids") if info is not None else None
    if info is None or not isinstance(uncovered, list):
        return None
    return (
        f"{len(uncovered)} of the {len(info.covered_ids)} new messages cited by no line "
        "(recall finds them)"
    )


TABLE_ENDS = 10
"""Reductions the replay's table shows at each end (the rest as one row with their count)."""


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def print_replay(
    console: Console,
    result: ReplayResult,
    *,
    prices: tuple[float, float] | None,
    model: str | None,
) -> None:
    """The reductions table, then the totals."""
    from rich.table import Table

    unit = result.unit
    table = Table(title=f"Reductions (sizes in {unit})", title_justify="left")
    table.add_column("at message", justify="right")
    table.add_column("before -> after", justify="right")
    table.add_column("evicted", justify="right")
    table.add_column("summary tokens", justify="right")
    table.add_column("summarizer")
    table.add_column("calls", justify="right")
    table.add_column("cost", justify="right")
    kept = result.reductions
    hidden = result.omitted
    shown: list[Reduction | None] = list(kept)
    if len(kept) > 2 * TABLE_ENDS:  # a long replay: the first and the last rows, and a count
        hidden += len(kept) - 2 * TABLE_ENDS
        shown = [*kept[:TABLE_ENDS], None, *kept[-TABLE_ENDS:]]
    elif hidden:
        half = len(kept) // 2
        shown = [*kept[:half], None, *kept[half:]]
    for r in shown:
        if r is None:
            table.add_row("...", f"{hidden:,} more reductions", "", "", "", "", "")
            continue
        table.add_row(
            str(r.turn),
            f"{r.size_before:,} -> {r.size_after:,}",
            str(r.evicted),
            f"{r.summary_tokens:,}",
            escape(r.summarizer),
            str(r.calls),
            _money(r.cost_usd) if r.calls else "-",
        )
    if result.reductions:
        console.print(table)
    else:
        unit = result.unit
        how = (
            f"--threshold-tokens {max(1, result.peak_size * 2 // 3)}"
            if unit == "tokens"
            else "a smaller budget.threshold in the config"
        )
        console.print(
            f"No reduction: the view peaked at {result.peak_size:,} {unit}, under the threshold "
            f"({result.threshold:,} {unit}). To see reductions on this transcript, lower it: "
            f"{how} (or --config examples/summem.yaml)."
        )
    totals = Table(title="Totals", title_justify="left", show_header=False)
    totals.add_column(style="bold")
    totals.add_column(justify="right")
    saved = result.full_context_tokens - result.prompt_tokens
    share = (
        f" ({saved / result.full_context_tokens:.0%} saved)" if result.full_context_tokens else ""
    )
    rows = [
        ("messages", f"{result.messages:,}"),
        ("model calls (assistant turns)", f"{result.model_calls:,}"),
        ("reductions", f"{result.reduction_count:,}"),
        ("summarizer calls", f"{result.summarizer_calls:,}"),
        ("summarizer input tokens", f"{result.summarizer_input_tokens:,}"),
        ("summarizer cost", _money(result.summarizer_cost_usd)),
        ("prompt tokens sent", f"{result.prompt_tokens:,}"),
        ("... with the full context", f"{result.full_context_tokens:,}{share}"),
        ("final view / full history", f"{result.view_tokens:,} / {result.history_tokens:,} tokens"),
        ("compression", f"{result.compression:.1f}x" if result.compression else "n/a"),
        ("estimated cost, summem vs full", _cost_text(result, prices, model)),
    ]
    for key, value in rows:
        totals.add_row(key, value)
    console.print(totals)


def _cost_text(result: ReplayResult, prices: tuple[float, float] | None, model: str | None) -> str:
    cost = result.cost(prices)
    if model is None:
        return "n/a (offline)"
    if cost is None:
        return f"n/a (no price known for {escape(model)})"
    return (
        f"{_money(cost['with_summem'])} vs {_money(cost['full_context'])} "
        f"(at {escape(model)} prices)"
    )


def print_sessions(console: Console, rows: list[dict[str, Any]], where: str) -> None:
    """The ``sessions list`` table."""
    from rich.table import Table

    if not rows:
        console.print(f"No sessions in {escape(where)}.")
        return
    table = Table(title=f"Sessions in {escape(where)}", title_justify="left")
    for name in ("session", "messages", "summarized", "in view", "summaries", "cost"):
        if name == "session":  # whole, so it can be pasted into `sessions show`
            widest = max(len(str(row["session"])) for row in rows)
            room = max(12, console.width - 60)  # what the five number columns leave
            table.add_column(name, overflow="fold", min_width=min(widest, room))
        else:
            table.add_column(name, justify="right")
    for row in rows:
        table.add_row(
            escape(row["session"]),
            str(row["messages"]),
            str(row["summarized"]),
            str(row["in_view"]),
            str(row["summaries"]),
            _money(row.get("summarizer_cost_usd") or 0.0),
        )
    console.print(table)


def print_session(
    console: Console,
    session: str,
    *,
    system: Message | None,
    summary: Message | None,
    view: list[Message],
    length: int,
    timeline: list[dict[str, Any]] | None = None,
) -> None:
    """``sessions show``: the system message, the summary with provenance, the view."""
    from rich.panel import Panel

    console.print(f"[bold]session[/bold] {escape(session)}: {length} messages in history")
    console.print(
        Panel(escape(system.text) if system else "(none)", title="system", title_align="left")
    )
    if summary is not None:
        console.print(Panel(escape(summary.text), title="summary", title_align="left"))
        console.print(f"[dim]{escape(provenance_line(summary))}[/dim]")
        dropped = dropped_line(summary)
        if dropped:
            console.print(f"[dim]{escape(dropped)}[/dim]")
    else:
        console.print("summary: none yet (nothing has been evicted)")
    if timeline:
        print_timeline(console, timeline)
    print_history(console, view, title="view (what the model is sent)")


def print_timeline(console: Console, timeline: list[dict[str, Any]]) -> None:
    """The reductions of a session, oldest first (see ``reduction_timeline``)."""
    from rich.table import Table

    table = Table(title="reductions", title_justify="left")
    for name in ("when", "span", "summary", "tokens in/out", "cost", "summarizer", "dropped"):
        table.add_column(name, justify="left" if name in ("when", "summarizer") else "right")
    for row in timeline:
        who = row["summarizer"] + (f" ({row['model']})" if row["model"] else "")
        if row["fallback_failed"]:
            who += " after " + ", ".join(row["fallback_failed"]) + " failed"
        if row["recomputed"]:
            who += " (recomputed)"
        if row["dropped_ids"] is not None:
            dropped = f"{len(row['dropped_ids'])} uncited"
        elif row["truncated_messages"] is not None:
            dropped = f"{row['truncated_messages']} truncated"
        else:
            dropped = "n/a"
        table.add_row(
            escape(row["at"].replace("T", " ")),
            f"[{row['start']}:{row['end']}] ({row['messages']})",
            f"{row['summary_tokens']:,}",
            f"{row['input_tokens']:,} / {row['output_tokens']:,}" if row["calls"] else "-",
            _money(row["cost_usd"]) if row["calls"] else "-",
            escape(who),
            dropped,
        )
    console.print(table)


def print_history(console: Console, messages: list[Message], *, title: str) -> None:
    """Messages as a table: position, role, text (tool calls inline), shortened.

    Ids are left to ``sessions export``: they would take a third of the width.
    """
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("role")
    table.add_column("content", overflow="fold")
    for i, message in enumerate(messages):
        role = "summary" if message.is_summary else message.role
        table.add_row(str(i), role, escape(message_line(message)))
    console.print(table)


def print_replay_run(
    console: Console, run: ReplayRun, *, model: str | None, session: str, url: str
) -> None:
    """The replay's report: the table, the totals and the last summary's first lines.

    Then the files written, where the session is, and the commands that show it and every
    summary.
    """
    print_replay(console, run.result, prices=run.prices, model=model)
    count = run.result.reduction_count
    if run.last_summary is not None:
        lines = run.last_summary.splitlines()
        console.print(
            f"last summary (of {count}), its first {min(len(lines), SUMMARY_LINES)} "
            f"of {len(lines)} lines:"
        )
        for line in lines[:SUMMARY_LINES]:
            console.print(f"  {escape(line)}", soft_wrap=True)
    if run.files is not None:
        written = [run.files[k] for k in ("view", "summaries", "settings") if k in run.files]
        console.print(  # paths whole on one line, whatever the terminal's width
            f"wrote {', '.join(escape(f) for f in written[:-1])} and {escape(written[-1])}",
            soft_wrap=True,
        )
    if url.startswith("memory://"):
        console.print("store memory:// keeps nothing: the session ended with the replay")
    else:
        show = f"summem sessions show {escape(session)} --store '{escape(url)}'"
        console.print(f"session {escape(session)} saved in {escape(url)}; to inspect it:")
        console.print(f"  {show}", soft_wrap=True)
        if count:
            console.print("every summary, oldest first:")
            console.print(f"  {show} --summaries", soft_wrap=True)


def print_summaries(console: Console, session: str, summaries: list[Message]) -> None:
    """``sessions show --summaries``: every summary of the log, oldest first, with provenance."""
    from rich.panel import Panel

    from summem.stores.summary_log import is_stub

    if not summaries:
        console.print(f"session {escape(session)}: no summary yet (nothing has been evicted)")
        return
    for i, summary in enumerate(summaries, 1):
        title = f"summary {i} of {len(summaries)}"
        if is_stub(summary):  # the bounded log kept its metadata only
            console.print(f"{title}: [dim](text dropped: the log keeps the latest whole)[/dim]")
        else:
            console.print(Panel(escape(summary.text), title=title, title_align="left"))
        console.print(f"[dim]{escape(provenance_line(summary))}[/dim]")


def print_branches(console: Console, session: str, rows: list[dict[str, Any]]) -> None:
    """``sessions branches``: what each edit, regenerate, rewind or pop abandoned."""
    from rich.table import Table

    if not rows:
        console.print(f"session {escape(session)}: no branches (nothing was ever abandoned)")
        return
    table = Table(title=f"branches of {escape(session)}", title_justify="left")
    widest = max(len(row["branch_id"]) for row in rows)
    for name in ("branch", "at", "abandoned", "when", "summary then"):
        if name == "branch":  # whole, so it can be pasted into `sessions show --branch`
            table.add_column(name, no_wrap=True, min_width=min(widest, console.width // 2))
        else:
            table.add_column(name, overflow="fold")
    for row in rows:
        summary = row["summary_id"] or "none"
        table.add_row(
            escape(row["branch_id"]),
            str(row["at"]),
            str(row["abandoned"]),
            escape(row["created_at"].replace("T", " ")),
            escape(f"{summary} (covering {row['watermark']})"),
        )
    console.print(table)
    console.print(
        f"[dim]the messages of one: summem sessions show {escape(session)} --branch ID[/dim]"
    )
