"""The offline, deterministic summarizer: the facts an assistant needs later, with provenance.

:mod:`~summem.summarizers.extractive.summarizer` is the summarizer itself; the other modules are
its parts: sentence splitting and scoring (``facts``, ``lexicon``), choosing what fits
(``selection``), the summary's layout (``layout``) and the key values of tool calls and results
(``tool_facts``).
"""

from summem.summarizers.extractive.summarizer import FORMAT, ExtractiveSummarizer

__all__ = ["FORMAT", "ExtractiveSummarizer"]
