"""``summem chat``: talk to a model through a persistent memory, from the terminal.

The loop is the two-line integration an application would write: a
:class:`~summem.memory.Memory` over the configured store and
``wrap_completion(litellm.completion, memory)``. Each line typed is a new user message; the
wrapper records it, sends the view (system message, rolling summary, recent turns) and records
the reply. ``/summary``, ``/history`` and ``/exit`` inspect or leave; the session stays in the
store, so ``summem chat`` with the same ``--session`` picks up where it stopped.

The API key is checked before anything is sent: a missing key is one line naming the variable
to set, with no network attempt. A failed call (rate limit, provider down) is reported and the
loop goes on; the user's message stays in the session, as the wrapper documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from summem.cli.common import (
    EXIT_USAGE,
    CliError,
    display_url,
    import_litellm,
    missing_key_vars,
    scrub,
    server_model,
)
from summem.cli.render import escape, print_history, provenance_line
from summem.errors import SummemError

if TYPE_CHECKING:
    from rich.console import Console

    from summem.config.model import SummemConfig
    from summem.memory import Memory

__all__ = ["COMMANDS", "ChatOptions", "run_chat"]

COMMANDS = {
    "/summary": "show the rolling summary and its provenance",
    "/history": "show the full history (every message, with ids)",
    "/help": "show these commands",
    "/exit": "leave (the session stays in the store)",
}


@dataclass(frozen=True)
class ChatOptions:
    """What ``summem chat`` was asked for.

    Attributes:
        model: the chat model (a litellm name; with ``base_url`` the server's model name).
        session: the session id.
        system: a system message to set, if any.
        base_url: an OpenAI-compatible server; its model goes through litellm as
            ``openai/<model>`` and needs no key.
        max_tokens: cap on each reply.
        temperature: sampling temperature.
    """

    model: str
    session: str
    system: str | None = None
    base_url: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None

    def call_kwargs(self, api_key: str | None) -> dict[str, Any]:
        """The keyword arguments of every ``litellm.completion`` call."""
        model, kwargs = server_model(self.model, self.base_url, api_key)
        kwargs["model"] = model
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        return kwargs


def _api_key(config: SummemConfig, options: ChatOptions) -> str | None:
    missing = missing_key_vars(config, options.model, base_url=options.base_url)
    if missing:
        raise CliError(
            f"no API key for {options.model}: set {' or '.join(missing)} in the environment "
            "(or point --base-url at a server of your own)",
            exit_code=EXIT_USAGE,
        )
    return config.api_key(options.model)  # None: litellm reads the provider's own variable


def _open_memory(config: SummemConfig, model: str, session: str) -> Memory:
    from summem.memory import Memory
    from summem.tokens.base import resolve_counter

    reducer = config.build_reducer(token_counter=resolve_counter(model=model))
    return Memory(session, reducer=reducer, store=config.build_store())


def _summarizer_text(config: SummemConfig) -> str:
    if config.model:
        return f"summaries by {config.model}"
    return "summaries by the offline extractive summarizer (no model in the config)"


def run_chat(config: SummemConfig, options: ChatOptions, *, out: Console) -> bool:
    """The interactive loop; returns on ``/exit`` or end of input.

    Returns:
        False when the last turn failed.

    Raises:
        CliError: no API key for the model (exit code 2).
    """
    api_key = _api_key(config, options)
    from summem.wrappers.litellm import wrap_completion

    litellm = import_litellm()
    memory = _open_memory(config, options.model, options.session)
    try:
        if options.system:
            memory.add({"role": "system", "content": options.system})
        send = wrap_completion(litellm.completion, memory)
        kwargs = options.call_kwargs(api_key)
        length = len(memory.history_messages())
        where = f" at {escape(options.base_url)}" if options.base_url else ""
        out.print(
            f"chat with {escape(options.model)}{where}, session {escape(options.session)} in "
            f"{escape(display_url(config.store))} ({length} messages so far); "
            f"{escape(_summarizer_text(config))}. Commands: {', '.join(COMMANDS)}."
        )
        ok = _loop(memory, send, kwargs, out)
        count = len(memory.history_messages())
        plural = "" if count == 1 else "s"
        out.print(f"session {escape(options.session)} saved ({count} message{plural}).")
        return ok
    finally:
        memory.close()


def _loop(memory: Memory, send: Any, kwargs: dict[str, Any], out: Console) -> bool:
    """Read lines until ``/exit`` or the end; False when the last turn failed."""
    ok = True
    while True:
        try:
            line = click.prompt("you", prompt_suffix="> ", default="", show_default=False)
        except (click.Abort, EOFError):
            out.print()
            return ok
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            if not _command(line.split()[0].lower(), memory, out):
                return ok
            continue
        try:
            response = send(messages=[{"role": "user", "content": line}], **kwargs)
        except SummemError as exc:  # the reply was recorded; the reduction after it failed
            out.print(f"[red]summem:[/red] {escape(scrub(str(exc)))}")
            ok = True
            continue
        except Exception as exc:  # any provider failure: report it, keep the session
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            out.print(f"[red]{type(exc).__name__}:[/red] {escape(scrub(first))}")
            ok = False
            continue
        ok = True
        reply = response.choices[0].message
        text = reply.content or ""
        if not text and getattr(reply, "tool_calls", None):
            text = "(the model asked for a tool; summem chat runs no tools)"
        cut = ""
        if getattr(response.choices[0], "finish_reason", None) == "length":
            cap = kwargs.get("max_tokens")
            limit = f"--max-tokens {cap}" if cap else "the model's output limit"
            cut = f" [dim]\\[cut at {limit}][/dim]"
        out.print(f"[bold]{escape(kwargs['model'])}>[/bold] {escape(text)}{cut}")


def _command(name: str, memory: Memory, out: Console) -> bool:
    """Run a ``/command``; False to leave the loop."""
    if name in ("/exit", "/quit"):
        return False
    if name == "/summary":
        summary, error = memory.summary, memory.last_error
        if summary is not None:
            out.print(escape(summary.text))
            out.print(f"[dim]{escape(provenance_line(summary))}[/dim]")
        elif error is None:
            reducer = memory.reducer
            out.print(
                f"no summary yet: the view ({memory.size} {reducer.unit}) has not passed the "
                f"threshold ({reducer.threshold})."
            )
        if error is not None:
            out.print(
                f"[red]the last reduction failed[/red] ({type(error).__name__}: "
                f"{escape(scrub(str(error))[:300])}); the view stays unreduced and the "
                "reduction is tried again as the conversation grows."
            )
    elif name == "/history":
        print_history(out, memory.history_messages(), title=f"history of {memory.session_id}")
    elif name == "/help":
        for cmd, what in COMMANDS.items():
            out.print(f"{cmd:<10} {what}")
    else:
        out.print(f"unknown command {escape(name)}; commands: {', '.join(COMMANDS)}")
    return True
