"""Summarizers: what writes the summary, and the protocol they share.

:class:`LLMSummarizer` (any model), :class:`ExtractiveSummarizer` (offline),
:class:`FallbackSummarizer` (a chain with a circuit breaker), :class:`TruncatingSummarizer`
(the last resort), :class:`OpenAICompaction` and :class:`AnthropicCompaction` (the provider
compacts, with a readable twin); the protocol (:class:`Summarizer`, :class:`SummaryRequest`,
:class:`SummaryOutput`) for writing your own; :func:`redact_pii`, a ``redactor=`` for what is
sent. The names below load on first use (see :mod:`summem.recall` for why lazily).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from summem._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from summem.summarizers.base import Summarizer, SummaryOutput, SummaryRequest
    from summem.summarizers.chain import FallbackSummarizer, TruncatingSummarizer
    from summem.summarizers.extractive import ExtractiveSummarizer
    from summem.summarizers.hooks import redact_pii
    from summem.summarizers.llm import LLMSummarizer
    from summem.summarizers.provider import AnthropicCompaction, OpenAICompaction

__all__ = [
    "AnthropicCompaction",
    "ExtractiveSummarizer",
    "FallbackSummarizer",
    "LLMSummarizer",
    "OpenAICompaction",
    "Summarizer",
    "SummaryOutput",
    "SummaryRequest",
    "TruncatingSummarizer",
    "redact_pii",
]

_HOMES = {
    "AnthropicCompaction": ".provider",
    "ExtractiveSummarizer": ".extractive",
    "FallbackSummarizer": ".chain",
    "LLMSummarizer": ".llm",
    "OpenAICompaction": ".provider",
    "Summarizer": ".base",
    "SummaryOutput": ".base",
    "SummaryRequest": ".base",
    "TruncatingSummarizer": ".chain",
    "redact_pii": ".hooks",
}

__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
