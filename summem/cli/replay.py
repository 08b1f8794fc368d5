"""``summem replay``: a transcript through a real ``Memory``, one message at a time, measured.

Replaying is how a user sees what a configuration would do before trusting it with live
sessions: each message is added to a :class:`~summem.memory.Memory` built from the settings,
exactly as an application would add it, and every reduction is recorded (where it happened,
the view's size before and after, how many messages it evicted, the summary's size, which
summarizer wrote it and how many calls that took). Each assistant message marks a model call:
the view just before it is what the model would have been sent, which gives the cumulative
prompt tokens against sending the full history every time.

Reductions run in the foreground (``background=False``), so the replay is deterministic.
The session stays in the store for ``summem sessions show``, and the final view and the
summary log (with provenance; older summaries as metadata only, as the store keeps them) are
written as ``view.json`` and ``summaries.jsonl``.

Everything a replay keeps is bounded, whatever the transcript's length: the transcript is read
as a stream (:mod:`summem.cli.transcript`), the reductions kept for the report are the first
and the last :data:`KEPT_REDUCTIONS` (the totals count every one), and the view's size per
message is kept only for ``--plot``.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from summem._version import __version__
from summem.cli.common import (
    EXIT_USAGE,
    CliError,
    console,
    display_url,
    import_litellm,
    missing_key_vars,
    model_prices,
    server_model,
)
from summem.errors import ConflictError

if TYPE_CHECKING:
    from rich.console import Console

    from summem.cli.transcript import Transcript
    from summem.config.model import SummemConfig
    from summem.memory import Memory
    from summem.messages import Message
    from summem.reducers.summarization import SummarizationReducer
    from summem.summarizers.base import Summarizer

__all__ = [
    "Reduction",
    "ReplayResult",
    "ReplayRun",
    "is_default_store",
    "recorded_settings",
    "replay",
    "run_replay",
    "write_outputs",
]

LONG_TRANSCRIPT = 200
"""Messages from which a progress bar is shown (shorter replays finish before it helps)."""

KEPT_REDUCTIONS = 50
"""Reductions a replay keeps for its report at each end (the first and the last N)."""


@dataclass
class Reduction:
    """One reduction, as the table shows it.

    Attributes:
        turn: the transcript index of the message whose addition triggered it.
        size_before: the view's size once that message was in, before reducing.
        size_after: the view's size after reducing.
        evicted: how many history messages the new summary took over.
        summary_tokens: the summary message's tokens.
        summarizer: who wrote it (with the model, for an LLM).
        calls: LLM calls the summarizer made (0 offline).
        input_tokens: tokens the summarizer sent to its model.
        output_tokens: tokens the summarizer's model wrote.
        summary_id: the summary message's id (for ``summaries.jsonl``).
        cost_usd: what the summarizer's calls cost (litellm's bundled prices; 0 offline).
    """

    turn: int
    size_before: int
    size_after: int
    evicted: int
    summary_tokens: int
    summarizer: str
    calls: int
    input_tokens: int
    output_tokens: int
    summary_id: str
    cost_usd: float = 0.0


@dataclass
class ReplayResult:
    """What a replay measured.

    Attributes:
        unit: the budget's unit (``tokens`` or ``messages``) for the reduction sizes.
        messages: how many messages were replayed.
        model_calls: assistant messages, each one a call to the model.
        prompt_tokens: the view's tokens summed over the model calls.
        full_context_tokens: the whole history's tokens summed over the same calls.
        history_tokens: the whole history's tokens at the end.
        view_tokens: the final view's tokens.
        peak_size: the largest the view got, in the budget's unit.
        threshold: the budget's threshold, in its unit.
        reductions: the reductions kept for the report, in order: every one, or the first
            and the last :data:`KEPT_REDUCTIONS` of a long replay.
        omitted: reductions left out of ``reductions`` (between the first and the last).
        omitted_usage: the summarizer's calls, tokens and cost in those left out.
        turns: the transcript index that triggered each summary, by summary id.
        view_sizes: the view's tokens after each message (for ``--plot``; empty otherwise).
    """

    unit: str
    threshold: int = 0
    peak_size: int = 0
    messages: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    full_context_tokens: int = 0
    history_tokens: int = 0
    view_tokens: int = 0
    reductions: list[Reduction] = field(default_factory=list)
    omitted: int = 0
    omitted_usage: dict[str, float] = field(default_factory=dict)
    turns: dict[str, int] = field(default_factory=dict)
    view_sizes: list[int] = field(default_factory=list)

    @property
    def reduction_count(self) -> int:
        """Every reduction of the replay, those left out of the report included."""
        return len(self.reductions) + self.omitted

    def _total(self, name: str) -> float:
        kept: float = sum(getattr(r, name) for r in self.reductions)
        return kept + self.omitted_usage.get(name, 0)

    @property
    def summarizer_cost_usd(self) -> float:
        """What the summarizer's calls cost, over all reductions (litellm's bundled prices)."""
        return self._total("cost_usd")

    @property
    def summarizer_calls(self) -> int:
        """LLM calls made by the summarizer, over all reductions."""
        return int(self._total("calls"))

    @property
    def summarizer_input_tokens(self) -> int:
        """Tokens the summarizer sent to its model, over all reductions."""
        return int(self._total("input_tokens"))

    @property
    def summarizer_output_tokens(self) -> int:
        """Tokens the summarizer's model wrote, over all reductions."""
        return int(self._total("output_tokens"))

    @property
    def compression(self) -> float | None:
        """How many times smaller the final view is than the full history."""
        return self.history_tokens / self.view_tokens if self.view_tokens else None

    def cost(self, prices: tuple[float, float] | None) -> dict[str, float] | None:
        """Estimated input cost in USD, with summem and with the full context every call.

        Output tokens of the conversation are the same either way and left out; the
        summarizer's own calls are charged to summem.
        """
        if prices is None:
            return None
        price_in, price_out = prices
        with_summem = (
            self.prompt_tokens + self.summarizer_input_tokens
        ) * price_in + self.summarizer_output_tokens * price_out
        return {"with_summem": with_summem, "full_context": self.full_context_tokens * price_in}

    def totals(self, prices: tuple[float, float] | None) -> dict[str, Any]:
        """The totals as a JSON-ready dict."""
        return {
            "messages": self.messages,
            "model_calls": self.model_calls,
            "reductions": self.reduction_count,
            "summarizer_calls": self.summarizer_calls,
            "summarizer_input_tokens": self.summarizer_input_tokens,
            "summarizer_output_tokens": self.summarizer_output_tokens,
            "summarizer_cost_usd": self.summarizer_cost_usd,
            "prompt_tokens": self.prompt_tokens,
            "full_context_prompt_tokens": self.full_context_tokens,
            "history_tokens": self.history_tokens,
            "final_view_tokens": self.view_tokens,
            "compression": round(self.compression, 3) if self.compression else None,
            "estimated_cost_usd": self.cost(prices),
        }

    def reductions_json(self) -> list[dict[str, Any]]:
        """Every reduction as a JSON-ready dict."""
        return [asdict(r) for r in self.reductions]


def _reduction(turn: int, before: int, after: int, summary: Message) -> Reduction:
    info = summary.summary_info
    assert info is not None  # a summary in a memory's view always carries its provenance
    found = info.extra.get("usage")
    usage: dict[str, Any] = found if isinstance(found, dict) else {}
    author = info.summarizer if not info.model or info.model in info.summarizer else None
    return Reduction(
        turn=turn,
        size_before=before,
        size_after=after,
        evicted=len(info.covered_ids),
        summary_tokens=info.tokens,
        summarizer=author or f"{info.summarizer} ({info.model})",
        calls=int(usage.get("calls") or 0),
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        summary_id=summary.id,
        cost_usd=float(usage.get("cost_usd") or 0.0),
    )


def replay(
    memory: Memory,
    reducer: SummarizationReducer,
    messages: Iterable[Message],
    *,
    step: Callable[[], None] | None = None,
    view_sizes: bool = True,
) -> ReplayResult:
    """Add ``messages`` to ``memory`` one by one and measure every reduction.

    Nothing kept grows with the transcript but ``turns`` (a number per reduction) and, with
    ``view_sizes``, one number per message: the reductions kept are the first and the last
    :data:`KEPT_REDUCTIONS`, the others summed in ``omitted_usage``.

    Args:
        memory: an empty session, with ``background=False``.
        reducer: the memory's reducer (its sizes and token counter).
        messages: validated messages, in order (a stream is read once).
        step: called after each message (a progress bar).
        view_sizes: keep the view's size after each message (for ``--plot``).
    """
    counter = reducer.token_counter
    result = ReplayResult(unit=reducer.unit, threshold=reducer.threshold)
    last: deque[Reduction] = deque()
    history = 0  # tokens of every non-system message so far
    system_tokens = 0
    count = 0
    for turn, message in enumerate(messages):
        count += 1
        if message.role == "assistant":
            result.model_calls += 1
            result.prompt_tokens += _view_tokens(reducer, memory)
            result.full_context_tokens += counter.request_overhead + system_tokens + history
        size, old_system, old_summary = memory.size, memory.system, memory.summary
        added = memory.add(message)
        if added.is_system:
            system_tokens = counter.count_message(added)
            before = size + reducer.size(added) - (reducer.size(old_system) if old_system else 0)
        else:
            history += counter.count_message(added)
            before = size + reducer.size(added)
        result.peak_size = max(result.peak_size, before)
        summary = memory.summary
        if summary is not None and (old_summary is None or summary.id != old_summary.id):
            _keep(result, last, _reduction(turn, before, memory.size, summary))
        if view_sizes:
            result.view_sizes.append(_view_tokens(reducer, memory))
        if step is not None:
            step()
    result.reductions.extend(last)
    result.messages = count
    result.history_tokens = counter.request_overhead + system_tokens + history
    result.view_tokens = _view_tokens(reducer, memory)
    return result


def _keep(result: ReplayResult, last: deque[Reduction], reduction: Reduction) -> None:
    """Keep ``reduction`` among the first or the last ones; sum the one it pushes out."""
    result.turns[reduction.summary_id] = reduction.turn
    if len(result.reductions) < KEPT_REDUCTIONS:
        result.reductions.append(reduction)
        return
    last.append(reduction)
    if len(last) > KEPT_REDUCTIONS:
        out = last.popleft()
        result.omitted += 1
        usage = result.omitted_usage
        for name in ("calls", "input_tokens", "output_tokens", "cost_usd"):
            usage[name] = usage.get(name, 0) + getattr(out, name)


def _view_tokens(reducer: SummarizationReducer, memory: Memory) -> int:
    if reducer.unit == "tokens":
        return memory.size  # the running total, never recounted
    counter = reducer.token_counter  # a message budget: count the (bounded) view's tokens
    return counter.request_overhead + sum(counter.count_message(m) for m in memory.view())


RECORDED_SETTINGS = "settings.json"
"""The settings a replay ran with, in its ``--out`` folder (``summem inspect`` sizes views so)."""

UNRECORDED = ("store", "dispatch", "observe")
"""Settings left out of :data:`RECORDED_SETTINGS`: where things live, never how views are sized
(a URL may carry a password)."""


def recorded_settings(config: SummemConfig) -> dict[str, Any]:
    """The settings a replay ran with, as :data:`RECORDED_SETTINGS` keeps them.

    A prompt file is named by its absolute path, so the record means the same from anywhere.
    """
    settings = config.model_dump(mode="json", exclude=set(UNRECORDED))
    prompt = config.prompt_source()
    if isinstance(prompt, Path):
        settings["prompt"] = str(prompt.resolve())
    return {"summem_version": __version__, "source": config.source, "settings": settings}


def write_outputs(
    memory: Memory, result: ReplayResult, out: Path, config: SummemConfig | None = None
) -> dict[str, str]:
    """Write ``view.json`` (the final view, ready to send) and ``summaries.jsonl``.

    Each ``summaries.jsonl`` line is one summary committed during the replay, oldest first:
    its id, the transcript index that triggered it, the message as sent, and its provenance
    (covered ids, previous summary, watermark, summarizer, model, prompt, tokens, time). As
    the store keeps it: the latest ``keep_summaries`` whole, older ones as metadata only
    (``"message"`` empty, ``provenance.extra.text_dropped`` with their sizes).

    With ``config``, also ``settings.json``: the settings the replay ran with (see
    :func:`recorded_settings`), so ``summem inspect --store FOLDER`` sizes views as it did.

    Returns:
        ``{"view": path, "summaries": path}`` (and ``"settings": path`` with ``config``).
    """
    out.mkdir(parents=True, exist_ok=True)
    view_path, summaries_path = out / "view.json", out / "summaries.jsonl"
    files: dict[str, str] = {}
    if config is not None:
        settings_path = out / RECORDED_SETTINGS
        settings_path.write_text(
            json.dumps(recorded_settings(config), ensure_ascii=False, indent=2) + "\n",
            encoding="utf-8",
        )
        files["settings"] = str(settings_path)
    view_path.write_text(
        json.dumps(memory.messages(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    turns = result.turns or {r.summary_id: r.turn for r in result.reductions}
    with summaries_path.open("w", encoding="utf-8") as fh:
        for summary in memory.summaries():
            info = summary.summary_info
            record = {
                "id": summary.id,
                "turn": turns.get(summary.id),
                "message": summary.to_openai(),
                "provenance": info.model_dump(mode="json") if info is not None else None,
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return {"view": str(view_path), "summaries": str(summaries_path), **files}


# -- the command ------------------------------------------------------------------------------


def is_default_store(config: SummemConfig) -> bool:
    """True when the store is the default one (not chosen in the file or on the line)."""
    from summem.stores.url import default_store_url

    return config.store == default_store_url()


def _summarizer(
    config: SummemConfig, base_url: str | None = None
) -> tuple[Summarizer | None, str | None]:
    """The summarizer to replace the configured one with (``None``: keep it), and why.

    The why is a warning when a configured model is not used (no API key): ``-q`` shows it.

    Raises:
        CliError: ``--base-url`` without a model (exit code 2).
    """
    if config.model is None:
        if base_url is not None:
            raise CliError(
                f"--base-url {base_url} needs a model: give the server's model name with --model "
                "(or model: in summem.yaml)",
                exit_code=EXIT_USAGE,
            )
        return None, "no model configured: using the offline extractive summarizer"
    missing = missing_key_vars(config, config.model, base_url=base_url)
    if not missing:
        if base_url is None:
            return None, None
        from summem.clients.litellm import LiteLLMClient
        from summem.summarizers.llm import LLMSummarizer

        import_litellm()  # quiet for the whole command
        model, kwargs = server_model(config.model, base_url, config.api_key(config.model))
        server = LLMSummarizer(
            model,
            client=LiteLLMClient(**kwargs),
            prompt=config.prompt_template(),
            retry=config.retries.policy(),
            reuse_cache=config.summary.reuse_cache,
        )
        return config.build_summarizer(primary=server), None  # the file's fallback: follows
    from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

    return ExtractiveSummarizer(), (
        f"warning: no API key for {config.model} ({' or '.join(missing)} not set): "
        "using the offline extractive summarizer"
    )


@dataclass
class ReplayRun:
    """A finished ``summem replay``: what happened, and what to report.

    Attributes:
        result: the reductions and totals.
        document: the ``--json`` report.
        files: the files written (``--out``), if any.
        prices: the model's (input, output) USD per token, when known.
        last_summary: the text of the summary in the final view, if any.
    """

    result: ReplayResult
    document: dict[str, Any]
    files: dict[str, str] | None
    prices: tuple[float, float] | None
    last_summary: str | None = None


def run_replay(
    data: Transcript,
    config: SummemConfig,
    *,
    session: str,
    overwrite: bool,
    out: Path | None,
    quiet: bool,
    progress: bool,
    base_url: str | None = None,
    view_sizes: bool = True,
) -> ReplayRun:
    """Replay ``data`` into ``session`` of the configured store.

    Notes and a progress bar (``progress``) go to stderr unless ``quiet``; a warning (a
    configured model not used, for want of its API key) goes there even with ``quiet``. The
    report is the caller's to print. ``base_url``: the model's OpenAI-compatible server.
    ``view_sizes``: keep the view's size per message (for ``--plot``).

    Raises:
        CliError: the session exists and ``overwrite`` is off (exit code 2).
    """
    from summem.memory import Memory

    summarizer, why = _summarizer(config, base_url)
    notes = [*data.notes, *([why] if why else [])]
    warning = why is not None and summarizer is not None  # a configured model is not used
    reducer = config.build_reducer(summarizer=summarizer)
    store = config.build_store()
    url = display_url(config.store)
    err = console(stderr=True)
    try:
        if store.exists(session):
            if not overwrite:
                raise CliError(
                    f"session {session!r} already exists in {url}: pass --overwrite to replace "
                    "it, or choose another --session",
                    exit_code=EXIT_USAGE,
                )
            replaced = store.load(session).length
            store.delete(session)
            if not quiet:
                err.print(f"replaced session {session!r} ({replaced} messages) in {url}")
        try:  # claimed in one atomic write: a replay running beside this one cannot share it
            store.create(session, history=[])
        except ConflictError:
            raise CliError(
                f"session {session!r} was created in {url} by someone else meanwhile (another "
                "replay?): choose another --session",
                exit_code=EXIT_USAGE,
            ) from None
        for note in notes:
            if not quiet or (warning and note == why):
                err.print(note)
        show = progress and not quiet and data.count >= LONG_TRANSCRIPT
        keep = config.summary.keep_summaries
        try:
            with Memory(
                session, reducer=reducer, store=store, background=False, keep_summaries=keep
            ) as memory:
                result = _with_progress(
                    err,
                    lambda step: replay(
                        memory, reducer, data.stream(), step=step, view_sizes=view_sizes
                    ),
                    total=data.count if show else 0,
                )
                files = write_outputs(memory, result, out, config) if out is not None else None
                last = memory.summary.text if memory.summary is not None else None
        except BaseException:  # this run's partial session would only block the next run
            try:
                store.delete(session)
            except Exception as exc:  # the original error is the one to report
                err.print(f"replay failed; its partial session {session!r} is left: {exc}")
            raise
    finally:
        store.close()
    prices = model_prices(config.model) if config.model else None
    document = {
        "summem_version": __version__,
        "input": {"path": str(data.path), "format": data.format, "messages": result.messages},
        "session": session,
        "store": url,
        "config": config.source,
        "model": config.model,
        "summarizer": reducer.summarizer_name,
        "budget": {
            "unit": reducer.unit,
            "threshold": reducer.threshold,
            "target": reducer.target,
            "summary_max_tokens": reducer.summary_max_tokens,
        },
        "notes": notes,
        "reductions": result.reductions_json(),
        "reductions_omitted": result.omitted,
        "totals": result.totals(prices),
        "files": files,
    }
    return ReplayRun(result, document, files, prices, last)


def _with_progress(
    err: Console, work: Callable[[Callable[[], None] | None], ReplayResult], *, total: int
) -> ReplayResult:
    """``work(step)`` with a progress bar on a terminal (``total=0``: never)."""
    if not (total and err.is_terminal):
        return work(None)
    from rich.progress import Progress

    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("replaying", total=total)
        return work(lambda: progress.advance(task))
