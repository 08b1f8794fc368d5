"""The budget, tokenizer and masking the inspector measures a session with.

A store keeps messages and summaries, not the settings the application ran with: the chart's
threshold and target lines, the sizes and the masked stubs come from ``summem.yaml`` (the one
``--config`` names, else ``$SUMMEM_CONFIG`` or ``./summem.yaml``, else summem's defaults), and
the page says which.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from summem.messages import Message

if TYPE_CHECKING:
    from summem.config.model import SummemConfig
    from summem.reducers.masking import ToolMasking
    from summem.reducers.summarization import SummarizationReducer

__all__ = ["Budget", "budget_from_config"]


@dataclass
class Budget:
    """How the inspector sizes views.

    Attributes:
        unit: ``tokens`` or ``messages``.
        threshold: reduce when the view passes this.
        target: ...down to this.
        source: where these settings come from, in words.
        size: a message's size in ``unit``.
        head_size: the size of the system message and summary, request overhead included.
        masking: which tool results the view shows as stubs (``None``: none).
        summary_prefix: the text a summary message starts with before the summarizer's lines.
        count_tokens: a message's tokens (for masking, which counts in tokens).
    """

    unit: str
    threshold: int
    target: int
    source: str
    size: Callable[[Message], int]
    head_size: Callable[[Message | None, Message | None], int]
    masking: ToolMasking | None
    summary_prefix: str
    count_tokens: Callable[[Message], int]

    def masked(self, messages: list[Message]) -> dict[str, str]:
        """Message id -> the stub the view shows for it, among ``messages`` (a view's tail)."""
        if self.masking is None:
            return {}
        from summem.reducers.masking import mask_messages

        shown = mask_messages(messages, self.masking, self.count_tokens)
        return {
            m.id: s.text
            for m, s in zip(messages, shown, strict=True)
            if s is not m and s.text != m.text
        }


def budget_from_config(config: SummemConfig) -> Budget:
    """The budget the config describes (its model's tokenizer; no summarizer is built)."""
    from summem.summarizers.extractive import ExtractiveSummarizer

    reducer: SummarizationReducer = config.build_reducer(summarizer=ExtractiveSummarizer())
    source = config.source if not config.source.startswith("<") else "summem's defaults"
    return Budget(
        unit=reducer.unit,
        threshold=reducer.threshold,
        target=reducer.target,
        source=source,
        size=reducer.size,
        head_size=reducer.head_size,
        masking=reducer.masking,
        summary_prefix=reducer.summary_prefix,
        count_tokens=reducer.token_counter.count_message,
    )
