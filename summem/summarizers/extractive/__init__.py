"""The offline, deterministic summarizer: the facts an assistant needs later, with provenance.

:mod:`~summem.summarizers.extractive.summarizer` is the summarizer itself; the other modules are
its parts: sentence splitting and scoring (``facts``, ``lexicon``), choosing what fits
(``selection``), the summary's layout (``layout``) and the key values of tool calls and results
(``tool_facts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summem.summarizers.extractive.summarizer import FORMAT, ExtractiveSummarizer

__all__ = ["FORMAT", "ExtractiveSummarizer"]


def __getattr__(name: str) -> Any:
    """The summarizer, loaded on first use.

    Its parts (``tool_facts``, which masking uses) are imported with every memory; the
    summarizer itself pulls in the prompts and YAML, which a memory needs only to summarize.
    """
    if name in __all__:
        from summem.summarizers.extractive import summarizer

        return getattr(summarizer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
