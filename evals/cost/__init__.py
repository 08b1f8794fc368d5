"""The billed cost of a conversation under each memory, with each provider's prompt caching.

    python -m evals.cost [--seeds 1] [--out out/cost]

What a memory costs depends less on how many tokens it sends than on how much of each request
repeats the one before: providers bill a repeated prefix at a tenth of the price (OpenAI
automatically, Anthropic at ``cache_control`` breakpoints, see :mod:`evals.pricing`). Every
reduction changes the prefix of the next request, and a summarizer given a fresh prompt pays
for all of it. This eval replays conversations through memory configurations, one message at a
time through :class:`~summem.memory.Memory`, and prices every request the assistant and the
summarizer would send:

- the assistant's request before each recorded assistant message: the tool definitions and the
  view (``memory.messages()``), its reply being that recorded message;
- each summarizer request exactly as :class:`~summem.summarizers.llm.LLMSummarizer` builds it
  (same prompt, same transcript), its reply the extractive summary of the same span, so the
  summaries (and the planted-fact retention) are those of the offline summarizer.

Both are billed under OpenAI's rules (``gpt-4.1-mini``) and Anthropic's (``claude-sonnet-4-5``,
breakpoints on the system message, the summary and the last message), with litellm's bundled
prices, offline. Workloads: the planted-fact trajectory families (``plain``, ``realistic``,
``corrections``, ``long``), the tool-heavy trajectories of :mod:`evals.masking_run`
(``tools``), and the same behind a 1,500-token system prompt (``agent``).
Reported per 1,000 user turns: input tokens, cached share, output tokens, the summarizer's
share of the dollars, dollars, beside the share of planted facts the final view carries.
Writes ``cost.json``, ``cost.md`` and ``cost.png`` (dollars against retention).
"""

from __future__ import annotations

__all__: list[str] = []
