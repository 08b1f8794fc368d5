"""The ``summem`` command: replay a transcript, inspect sessions, chat with a model.

A thin click layer over the public API (``summem.yaml``, :class:`~summem.memory.Memory`, the
stores, the wrappers), so that what the CLI shows is what an application gets. Start-up stays
fast: this module imports click and summem's light core only; rich, the stores, tokenizers and
litellm are imported by the command that needs them (litellm only when a model is named).

Every :class:`~summem.errors.SummemError` becomes one ``Error: ...`` line on stderr and a
non-zero exit (2 for bad input or settings, 1 for failures while running), never a traceback.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from summem._version import __version__
from summem.cli.common import (
    EXIT_USAGE,
    CliError,
    console,
    display_url,
    exit_code_for,
    load_settings,
    open_existing_store,
)
from summem.errors import SessionNotFoundError, SummemError

if TYPE_CHECKING:
    from summem.stores.base import Store

__all__ = ["LAZY_COMMANDS", "cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])


class _Group(click.Group):
    """A group whose commands report summem's errors as one line, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SummemError as exc:
            raise CliError(str(exc), exit_code=exit_code_for(exc)) from None
        except OSError as exc:  # a file the command writes: permissions, a full disk
            raise CliError(f"{exc.filename or 'I/O'}: {exc.strerror or exc}") from None


LAZY_COMMANDS = {
    "inspect": (
        "summem.inspector.command:inspect",
        "Open a read-only web page over a store's sessions.",
    ),
}
"""Commands that live in a leaf package above the CLI: name -> (``module:attr``, short help).
Found by name when used, never imported by ``--help`` (nothing in summem imports them; the
import-linter contract keeps it so)."""


class _TopGroup(_Group):
    """The ``summem`` group: its own commands, and :data:`LAZY_COMMANDS` loaded when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in LAZY_COMMANDS:
            import importlib

            module, _, attr = LAZY_COMMANDS[cmd_name][0].partition(":")
            command = getattr(importlib.import_module(module), attr)
            assert isinstance(command, click.Command)
            found = command
        return found

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows: list[tuple[str, str]] = []
        for name in names:
            if name in LAZY_COMMANDS and name not in self.commands:
                rows.append((name, LAZY_COMMANDS[name][1]))  # its help without importing it
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_TopGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="summem")
def cli() -> None:
    """summem: a summarizing memory for long-running LLM assistants.

    Settings come from summem.yaml (--config, $SUMMEM_CONFIG or ./summem.yaml); without one,
    summaries are written offline by the extractive summarizer and sessions are kept in
    summem.db in $SUMMEM_DATA_DIR, else your data folder (~/.local/share/summem on Linux).
    """


def _config_option(fn: F) -> F:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        help="summem.yaml to use (default: $SUMMEM_CONFIG, else ./summem.yaml if present).",
    )(fn)


_STORE_DEFAULT = "(default: the config's, else summem.db in $SUMMEM_DATA_DIR or your data folder)"


def _store_option(fn: F) -> F:
    return click.option("--store", help=f"Store URL {_STORE_DEFAULT}.")(fn)


def _base_url_option(fn: F) -> F:
    return click.option(
        "--base-url",
        help="An OpenAI-compatible server (llama.cpp, vLLM, Ollama...): needs no API key. "
        "Without it, litellm sends OpenAI models to $OPENAI_BASE_URL if set.",
    )(fn)


# -- replay ----------------------------------------------------------------------------------

PLOT_FORMATS = frozenset({".png", ".pdf", ".svg"})
"""What ``--plot`` draws (matplotlib picks the format by the extension)."""


@cli.command(short_help="Replay a transcript and show what was kept, summarized and saved.")
@click.argument("transcript", type=click.Path(path_type=Path))
@_config_option
@click.option(
    "--threshold-tokens", type=click.IntRange(min=1), help="Reduce when the view passes N tokens."
)
@click.option("--target-tokens", type=click.IntRange(min=1), help="...down to N tokens.")
@click.option(
    "--summary-max-tokens", type=click.IntRange(min=1), help="The summary's budget in tokens."
)
@click.option("--model", help="Summarizing model (a litellm name); none: offline extractive.")
@_base_url_option
@click.option("--store", help="Store URL (default: DIR/summem.db with --out, else the config's).")
@click.option("--session", help="Session id (default: replay-<file name>).")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace the session if the store has it (always, in --out's own store).",
)
@click.option("--conversation", help="LoCoMo files: which conversation (index or sample id).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write view.json, summaries.jsonl, settings.json (and summem.db) into this directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document, no table.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Draw the view's tokens per message with reduction markers (.png, .pdf, .svg).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def replay(
    transcript: Path,
    config_path: str | None,
    threshold_tokens: int | None,
    target_tokens: int | None,
    summary_max_tokens: int | None,
    model: str | None,
    base_url: str | None,
    store: str | None,
    session: str | None,
    overwrite: bool,
    conversation: str | None,
    out: Path | None,
    as_json: bool,
    plot: Path | None,
    quiet: bool,
) -> None:
    """Replay TRANSCRIPT through a memory and show what was kept, summarized and saved.

    TRANSCRIPT is OpenAI-format JSON (a list, or {"messages": [...]}), JSONL (one message per
    line), or LoCoMo's locomo10.json (detected; pick one with --conversation).
    """
    from summem.cli.replay import is_default_store, run_replay
    from summem.cli.transcript import read_transcript

    if plot is not None and plot.suffix.lower() not in PLOT_FORMATS:
        raise click.BadParameter(
            f"{plot.name!r}: the plot is drawn as {', '.join(sorted(PLOT_FORMATS))} "
            "(named by the file's extension)",
            param_hint="'--plot'",
        )
    err = console(stderr=True)
    if not (as_json or quiet) and err.is_terminal:  # a long file takes a while to check
        with err.status(f"checking {transcript.name}", spinner="dots"):
            data = read_transcript(transcript, conversation=conversation)
    else:
        data = read_transcript(transcript, conversation=conversation)
    options: dict[str, Any] = {
        "model": model,
        "threshold_tokens": threshold_tokens,
        "target_tokens": target_tokens,
        "summary_max_tokens": summary_max_tokens,
    }
    config = load_settings(config_path, store=store, **options)
    owned = False  # the store is our own file under --out: replaying again replaces the session
    if store is None and out is not None and is_default_store(config):
        out.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{(out / 'summem.db').resolve()}"
        config, owned = load_settings(config_path, store=url, **options), True
    name = session if session is not None else f"replay-{data.name}"  # "" is refused, not default
    run = run_replay(
        data,
        config,
        session=name,
        overwrite=overwrite or owned,
        out=out,
        quiet=quiet,
        progress=not as_json,
        base_url=base_url,
        view_sizes=plot is not None,
    )
    if plot is not None:
        from summem.cli.plot import plot_replay

        target = int(run.document["budget"]["target"])
        run.document["plot"] = str(plot_replay(run.result, plot, target=target, title=name))
    if as_json:
        click.echo(json.dumps(run.document, indent=2, ensure_ascii=False))
    elif not quiet:
        from summem.cli.render import print_replay_run

        print_replay_run(
            console(), run, model=config.model, session=name, url=display_url(config.store)
        )
        if plot is not None:
            console().print(f"plotted the view per message in {plot}", soft_wrap=True)


# -- sessions --------------------------------------------------------------------------------


@cli.group(cls=_Group)
def sessions() -> None:
    """List, show, export and delete the sessions in a store, and their branches."""


def _sessions_store_option(fn: F) -> F:
    """``--store`` of the commands that read a store: a path must hold one already."""
    return click.option(
        "--store",
        help=f"A store URL, a SQLite file or a `summem replay --out` folder {_STORE_DEFAULT}.",
    )(fn)


def _open(config_path: str | None, store: str | None) -> tuple[str, Store | None]:
    if store is not None and "://" not in store:  # a path: an existing file or replay folder
        from summem.stores.url import existing_store_file

        store = f"sqlite:///{existing_store_file(store).resolve()}"
    config = load_settings(config_path, store=store)
    return display_url(config.store), open_existing_store(config)


def _require(store: Store | None, session: str, url: str) -> Store:
    if store is None:  # a mistyped path should say so, as ``sessions list`` does
        raise SessionNotFoundError(
            f"no session {session!r} in {url}: there is no database there (yet)"
        )
    if not store.exists(session):
        raise SessionNotFoundError(f"no session {session!r} in {url}")
    return store


TABLE_ROWS = 100
"""Sessions a ``sessions list`` table shows without ``--limit`` (a page: a table draws about a
millisecond a row, so a whole store of 100k sessions took minutes; ``--json`` lists all)."""


@sessions.command("list")
@_sessions_store_option
@_config_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (every session) instead.")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help=f"At most this many sessions (default: all with --json, else {TABLE_ROWS}).",
)
@click.option("--after", default=None, help="Only the sessions whose ids sort after this one.")
def list_sessions(
    store: str | None,
    config_path: str | None,
    as_json: bool,
    limit: int | None,
    after: str | None,
) -> None:
    """List the sessions with their sizes, in id order (read from an index)."""
    from summem.cli.sessions import session_rows

    url, opened = _open(config_path, store)
    rows: list[dict[str, Any]] = []
    paged = limit is None and not as_json  # a table's first page, one more row to know
    if opened is not None:
        try:
            rows = session_rows(opened, limit=TABLE_ROWS + 1 if paged else limit, after=after)
        finally:
            opened.close()
    more = paged and len(rows) > TABLE_ROWS
    rows = rows[:TABLE_ROWS] if more else rows
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif opened is None:  # a mistyped path should not look like an empty store
        from rich.markup import escape

        console().print(f"No sessions in {escape(url)}: there is no database there (yet).")
    else:
        from summem.cli.render import print_sessions

        print_sessions(console(), rows, url)
        if more:
            import shlex

            from rich.markup import escape

            console().print(
                f"{TABLE_ROWS} sessions shown; the next page: "
                f"--after {escape(shlex.quote(rows[-1]['session']))} "
                "(--limit N for N rows, --json for all)"
            )


@sessions.command(short_help="Show a session's summary, reduction timeline and view.")
@click.argument("session")
@_sessions_store_option
@_config_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document, no tables.")
@click.option(
    "--summaries", is_flag=True, help="Print every summary of the log, oldest first, instead."
)
@click.option(
    "--branch",
    "branch_id",
    metavar="BRANCH_ID",
    help="Print the messages this branch abandoned instead (ids from `sessions branches`).",
)
def show(
    session: str,
    store: str | None,
    config_path: str | None,
    as_json: bool,
    summaries: bool,
    branch_id: str | None,
) -> None:
    """Show SESSION: system message, summary, reduction timeline and view.

    The timeline lists each reduction: when, the span of history it folded in, tokens, cost,
    summarizer, fallbacks, and what was dropped when the summarizer records it. With
    ``--summaries``, every summary the session's log keeps, oldest first, with its provenance;
    with ``--branch BRANCH_ID``, the messages that branch abandoned (an edit, a regenerate, a
    rewind or a pop), in their old order.
    """
    from summem.cli.sessions import (
        branch_document,
        branch_messages,
        reduction_timeline,
        show_document,
    )

    if summaries and branch_id is not None:
        raise click.UsageError("--summaries and --branch show different things: pass one")
    if branch_id is not None and not branch_id.strip():
        raise click.UsageError("--branch needs a branch id (summem sessions branches lists them)")
    url, opened = _open(config_path, store)
    found = _require(opened, session, url)
    try:
        if branch_id is not None:
            doc = branch_document(found, session, branch_id)
            if as_json:
                click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
                return
            from rich.markup import escape

            from summem.cli.render import print_history

            branch = doc["branch"]
            out = console()
            out.print(
                f"branch {escape(branch_id)}: the {branch['abandoned']} message(s) abandoned "
                f"at position {branch['at']}",
                soft_wrap=True,
            )
            messages = branch_messages(found, session, branch_id)
            print_history(out, messages, title="abandoned")
            return
        if summaries:
            from summem.cli.render import print_summaries

            print_summaries(console(), session, found.summaries(session))
            return
        if as_json:
            click.echo(json.dumps(show_document(found, session), indent=2, ensure_ascii=False))
            return
        state = found.load(session)
        timeline = reduction_timeline(found.summaries(session))
    finally:
        found.close()
    from summem.cli.render import print_session

    print_session(
        console(),
        session,
        system=state.system,
        summary=state.summary,
        view=state.view(),
        length=state.length,
        timeline=timeline,
    )


@sessions.command(short_help="List what edits, regenerates, rewinds and pops abandoned.")
@click.argument("session")
@_sessions_store_option
@_config_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def branches(session: str, store: str | None, config_path: str | None, as_json: bool) -> None:
    """List SESSION's branches, oldest first.

    A branch holds what the history no longer does after an edit, a regenerate, a rewind or a
    pop: the messages from position AT on, as they were. `sessions show SESSION --branch ID`
    prints them.
    """
    from summem.cli.sessions import branch_rows

    url, opened = _open(config_path, store)
    found = _require(opened, session, url)
    try:
        rows = branch_rows(found, session)
    finally:
        found.close()
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    from summem.cli.render import print_branches

    print_branches(console(), session, rows)


@sessions.command(short_help="Export a session's full history with ids.")
@click.argument("session")
@_sessions_store_option
@_config_option
@click.option("--format", "fmt", type=click.Choice(["json", "jsonl"]), default="json")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="File.")
def export(
    session: str, store: str | None, config_path: str | None, fmt: str, output: Path | None
) -> None:
    """Export SESSION's full history with ids (to stdout, or --output FILE).

    The messages (system message first) are {"id": ..., "message": {...}} items, so an export
    replays with `summem replay` keeping its ids.
    """
    from summem.cli.sessions import export_text

    url, opened = _open(config_path, store)
    found = _require(opened, session, url)
    try:
        text = export_text(found, session, fmt)
    finally:
        found.close()
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")


@sessions.command(short_help="Delete a session (asks first).")
@click.argument("session")
@_sessions_store_option
@_config_option
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
def delete(session: str, store: str | None, config_path: str | None, yes: bool) -> None:
    """Delete SESSION (its history, summaries and system message) from the store."""
    url, opened = _open(config_path, store)
    found = _require(opened, session, url)
    try:
        length = found.load(session).length
        if not yes:
            click.confirm(f"Delete session {session!r} ({length} messages) from {url}?", abort=True)
        found.delete(session)
    finally:
        found.close()
    click.echo(f"deleted session {session!r} ({length} messages) from {url}")


# -- chat and eval ---------------------------------------------------------------------------


@cli.command(short_help="Chat with a model through a persistent memory.")
@click.option("--model", help="The chat model (a litellm name; default: the config's model).")
@click.option("--session", required=True, help="Session id; the same id resumes the session.")
@click.option("--system", "system_prompt", help="Set the session's system message.")
@_base_url_option
@click.option("--max-tokens", type=click.IntRange(min=1), help="Cap on each reply's tokens.")
@click.option(
    "--temperature", type=click.FloatRange(min=0.0, max=2.0), help="Sampling temperature."
)
@_store_option
@_config_option
def chat(
    model: str | None,
    session: str,
    system_prompt: str | None,
    base_url: str | None,
    max_tokens: int | None,
    temperature: float | None,
    store: str | None,
    config_path: str | None,
) -> None:
    """Chat with a model through a persistent memory (/summary, /history, /exit).

    Lines come from the terminal or from standard input (one message per line); the exit
    status is 1 when the last turn failed.
    """
    from summem.cli.chat import ChatOptions, run_chat
    from summem.stores.base import validate_session_id

    validate_session_id(session)
    config = load_settings(config_path, store=store)
    chat_model = model or config.model
    if not chat_model:
        raise CliError(
            "give a model: --model gpt-4o-mini (or model: in summem.yaml)", exit_code=EXIT_USAGE
        )
    options = ChatOptions(
        model=chat_model,
        session=session,
        system=system_prompt,
        base_url=base_url,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    if not run_chat(config, options, out=console()):
        raise CliError("the last turn failed (see above); the session is saved")


@cli.command(short_help="Run a Celery worker for the fleet's reduction jobs.")
@_config_option
@click.option("--broker", help="Broker URL (default: dispatch.broker in summem.yaml).")
@click.option("--queue", help="Queue to read (default: dispatch.queue, else summem).")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Jobs run at once (processes with --pool prefork).",
)
@click.option(
    "--pool",
    type=click.Choice(["prefork", "solo", "threads"]),
    default="prefork",
    show_default=True,
    help="Celery's execution pool.",
)
@click.option("--loglevel", default="INFO", show_default=True, help="Celery's log level.")
@click.option(
    "--hostname", help="The worker's node name (default: summem-PID@HOST, unique per process)."
)
def worker(
    config_path: str | None,
    broker: str | None,
    queue: str | None,
    concurrency: int,
    pool: str,
    loglevel: str,
    hostname: str | None,
) -> None:
    """Run a Celery worker that runs reduction jobs (needs summem[celery]).

    The settings are the producers' summem.yaml: dispatch: names the broker and the queue,
    store: and the budget and model how to reduce. Jobs are acknowledged late, one prefetched
    at a time: a worker killed mid-job has its job delivered again (running one twice commits
    once). Equivalent to `celery worker` on summem.cli.worker.worker_app(config).
    """
    from summem.cli.worker import check_broker, worker_app

    app = worker_app(load_settings(config_path), broker=broker, queue=queue)
    if pool != "prefork":  # jobs run in this process: open the store now, fail at start
        app.summem_context()
    check_broker(app)  # a broker that is wrong or down: one line now, not retries for an hour
    argv = ["worker", f"--pool={pool}", f"--concurrency={concurrency}", f"--loglevel={loglevel}"]
    argv.append(f"--queues={app.conf.task_default_queue}")
    argv.append(f"--hostname={hostname or f'summem-{os.getpid()}@%h'}")
    status = app.start(argv)  # (app.worker_main drops the worker's exit status)
    if status:  # stopped on an unrecoverable error (Celery logged it): a supervisor sees it
        raise SystemExit(status)


@cli.command(name="eval", short_help="How to run the evals.")
def eval_() -> None:
    """How to run the evals (they live in the source tree's evals/ package)."""
    click.echo(
        "The evals run from a summem source checkout (they are not installed):\n"
        "  python -m evals.runners.trajectories --seeds 5 --out out/trajectories\n"
        "  python -m evals.runners.locomo PATH/locomo10.json --out out/locomo\n"
        "Both run offline by default; see each module's --help. LoCoMo is CC BY-NC 4.0:\n"
        "download it yourself, its path is an argument."
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI (the ``summem`` console script and ``python -m summem``)."""
    from summem.logs import install_log_redaction

    install_log_redaction()  # third-party DEBUG logs (httpcore, litellm) may print keys
    cli.main(args=list(argv) if argv is not None else None, prog_name="summem")


if __name__ == "__main__":  # pragma: no cover
    main()
