"""One engine configuration, as every eval names it, and the summarizer and client it needs.

Each eval (trajectories, LoCoMo, sweeps, the CI gate) replays conversations through the same
thing: a :class:`~summem.reducers.summarization.SummarizationReducer` built from an
:class:`EngineConfig`. The summarizer is named by a short spec, ``"extractive"`` (offline) or
``"llm:MODEL"`` (any litellm model name). An LLM summarizer talks through the client of
:func:`open_client`: live (with a provider key in the environment) and optionally recorded, or
replayed from a recording with no key and no network.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from summem.clients.base import LLMClient
from summem.errors import ConfigurationError
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.base import Summarizer
from summem.tokens.base import TokenCounter

__all__ = [
    "KEY_ENV_VARS",
    "EngineConfig",
    "add_llm_arguments",
    "build_reducer",
    "build_summarizer",
    "has_provider_key",
    "open_client",
    "provenance_ids",
]

KEY_ENV_VARS = (
    "OPENAI_API_KEY",
    "AZURE_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "TOGETHERAI_API_KEY",
)
"""Environment variables that make an eval live (any one of them)."""


@dataclass(frozen=True)
class EngineConfig:
    """The settings a replay runs with.

    Attributes:
        threshold_tokens: reduce when the view passes this many tokens (the view's budget).
        target_tokens: reduce down to this many.
        summary_max_tokens: the summary's own budget.
        summarizer: ``"extractive"`` or ``"llm:MODEL"``.
        prompt: a prompt name or YAML path, for LLM summarizers.
        soft_threshold_tokens: start reductions in the background from here (simulated; see
            :mod:`evals.engine.replay`).
        latency_messages: messages appended while a background reduction runs.
        max_tokens: the output cap of every LLM call (by default the summarizer's own).
        summary_fill: the reducer's ``summary_fill`` (``None``: its default, off with a
            ``summary_max_tokens`` given): the summary grows into the room the kept turns
            leave below the target.
    """

    threshold_tokens: int
    target_tokens: int
    summary_max_tokens: int
    summarizer: str = "extractive"
    prompt: str | None = None
    soft_threshold_tokens: int | None = None
    latency_messages: int = 1
    max_tokens: int | None = None
    summary_fill: bool | None = None

    def __post_init__(self) -> None:
        if not 0 < self.summary_max_tokens < self.target_tokens < self.threshold_tokens:
            raise ConfigurationError(
                "need 0 < summary_max_tokens < target_tokens < threshold_tokens, got "
                f"{self.summary_max_tokens}, {self.target_tokens}, {self.threshold_tokens}"
            )
        if self.summarizer not in ("extractive", "extractive-flat") and not self.is_llm:
            raise ConfigurationError(
                "summarizer must be 'extractive' or 'llm:MODEL' (or 'extractive-flat': tables "
                f"flattened), got {self.summarizer!r}"
            )

    @property
    def is_llm(self) -> bool:
        """True for ``llm:MODEL`` summarizers."""
        return self.summarizer.startswith("llm:") and len(self.summarizer) > 4

    @property
    def label(self) -> str:
        """A short name for tables and plots, e.g. ``extractive 4000/3000/1000``."""
        name = self.summarizer
        if self.prompt:
            name += f"[{Path(self.prompt).stem}]"
        label = f"{name} {self.threshold_tokens}/{self.target_tokens}/{self.summary_max_tokens}"
        if self.soft_threshold_tokens is not None:
            label += f" soft {self.soft_threshold_tokens}"
        if self.summary_fill:
            label += " fill"
        return label

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (``max_tokens`` only when set, as reports had it)."""
        data = asdict(self)
        for key in ("max_tokens", "summary_fill"):
            if data[key] is None:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EngineConfig:
        """Rebuild a configuration written by :meth:`to_dict`."""
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def has_provider_key() -> bool:
    """Whether any of :data:`KEY_ENV_VARS` is set: a live eval is possible."""
    return any(os.environ.get(name) for name in KEY_ENV_VARS)


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every eval with LLM calls takes: live, recorded, replayed, or local."""
    parser.add_argument("--record", type=Path, help="record every LLM reply to this JSONL")
    parser.add_argument("--replay", type=Path, help="replay LLM replies from this JSONL")
    parser.add_argument(
        "--base-url",
        help="an OpenAI-compatible server (llama.cpp, vLLM, Ollama...): no API key needed",
    )
    parser.add_argument(
        "--max-tokens", type=int, help="output cap of every LLM call (default: per call)"
    )


def open_client(
    *,
    record: str | Path | None = None,
    replay: str | Path | None = None,
    base_url: str | None = None,
) -> LLMClient:
    """The client LLM steps of an eval call through.

    Args:
        record: append every reply to this JSONL recording (live runs).
        replay: serve replies from this recording instead: offline, no key needed.
        base_url: an OpenAI-compatible server of one's own (no key needed); the model names
            in ``llm:MODEL`` are the server's.

    Raises:
        ConfigurationError: both given, or a live run with no provider key in the environment.
    """
    from evals.engine.recording import RecordingClient, ReplayingClient

    if record is not None and replay is not None:
        raise ConfigurationError("--record and --replay exclude each other")
    if replay is not None:
        return ReplayingClient(replay)
    if base_url is not None:
        import openai

        from summem.clients.openai import OpenAIClient

        key = os.environ.get("OPENAI_API_KEY") or "not-needed"  # a local server checks none
        local: LLMClient = OpenAIClient(
            openai.OpenAI(base_url=base_url, api_key=key),
            openai.AsyncOpenAI(base_url=base_url, api_key=key),
        )
        return RecordingClient(local, record) if record is not None else local
    if not has_provider_key():
        raise ConfigurationError(
            "a live LLM eval needs a provider key (one of "
            + ", ".join(KEY_ENV_VARS)
            + "); to run offline, pass a recording with --replay FILE, or point --base-url "
            "at a server of your own"
        )
    from summem.clients.litellm import LiteLLMClient

    client: LLMClient = LiteLLMClient()
    return RecordingClient(client, record) if record is not None else client


def build_summarizer(
    spec: str,
    *,
    prompt: str | None = None,
    client: LLMClient | None = None,
    max_tokens: int | None = None,
) -> Summarizer:
    """The summarizer named by ``spec``: ``"extractive"``, ``"extractive-flat"``, ``"llm:MODEL"``.

    ``extractive-flat`` is the extractive summarizer with ``tables=False`` (a table flattened
    field by field, as before issue #29), for comparisons.

    Raises:
        ConfigurationError: an unknown spec, or an LLM summarizer without a client.
    """
    if spec == "extractive":
        from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

        return ExtractiveSummarizer()
    if spec == "extractive-flat":
        from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

        return ExtractiveSummarizer(tables=False)
    if spec.startswith("llm:") and len(spec) > 4:
        if client is None:
            raise ConfigurationError(f"{spec} needs a client (live, recorded or replayed)")
        from summem.summarizers.llm import LLMSummarizer

        extra: dict[str, Any] = {"max_tokens": max_tokens} if max_tokens is not None else {}
        return LLMSummarizer(spec[4:], client=client, prompt=prompt or "summarize", **extra)
    raise ConfigurationError(
        f"summarizer must be 'extractive' or 'llm:MODEL' (or 'extractive-flat'), got {spec!r}"
    )


def build_reducer(
    config: EngineConfig,
    *,
    counter: TokenCounter,
    client: LLMClient | None = None,
    summarizer: Summarizer | None = None,
) -> SummarizationReducer:
    """A reducer with ``config``'s budget, counting with ``counter``.

    ``summarizer`` replaces the one ``config`` names (an ablated extractive summarizer, say).

    The extractive summarizer's errors are raised (they are bugs); an LLM summary that is
    rejected, or an LLM call that fails, leaves the view unreduced and is counted, as a memory
    with ``fail_on_error=False`` would do: one weak reply does not end the eval.
    """
    if summarizer is None:
        summarizer = build_summarizer(
            config.summarizer, prompt=config.prompt, client=client, max_tokens=config.max_tokens
        )
    return SummarizationReducer(
        summarizer,
        threshold_tokens=config.threshold_tokens,
        target_tokens=config.target_tokens,
        soft_threshold_tokens=config.soft_threshold_tokens,
        summary_max_tokens=config.summary_max_tokens,
        token_counter=counter,
        fail_on_error=not config.is_llm,
        summary_fill=config.summary_fill,
    )


def provenance_ids(summary: Message | None) -> list[str]:
    """Message ids the summary's lines came from (an extractive summary's provenance).

    An LLM summary records none: what it carries is judged by its text instead.
    """
    info = summary.summary_info if summary is not None else None
    entries = info.extra.get("provenance") if info is not None else None
    if not isinstance(entries, list):
        return []
    ids: list[str] = []
    for entry in entries:
        if isinstance(entry, Mapping):
            ids.extend(str(i) for i in entry.get("ids") or () if isinstance(i, str))
    return list(dict.fromkeys(ids))
