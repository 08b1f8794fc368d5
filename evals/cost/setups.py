"""What the cost model replays: the memory configurations, the workloads, the models."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evals.families.catalogue import FAMILIES, tool_heavy
from evals.families.trajectories import Trajectory
from summem.clients.base import ChatRequest, ChatResponse
from summem.reducers.base import Reducer
from summem.reducers.summarization import SummarizationReducer
from summem.reducers.truncation import TruncationReducer
from summem.summarizers.base import Flow, SummaryOutput, SummaryRequest
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.llm import LLMSummarizer
from summem.tokens.base import TokenCounter

__all__ = [
    "MASKING",
    "MODELS",
    "NO_MEMORY_WINDOW",
    "SETUPS",
    "SUMMARY_MAX",
    "TARGET",
    "THRESHOLD",
    "WORKLOADS",
    "PricedSummarizer",
    "Replier",
    "Setup",
    "Workload",
]

MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5"}
"""The model each provider's rules are priced with (assistant and summarizer alike)."""
THRESHOLD, TARGET, SUMMARY_MAX = 8000, 6000, 1000
"""The budget every configuration shares, unless its name says otherwise (summem's README)."""
MASKING: dict[str, Any] = {"mask_tool_results_after": 3, "mask_min_tokens": 100}


# -- what is replayed -----------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """A memory configuration: a name and how to build its reducer.

    Attributes:
        name: for tables and plots.
        make: builds the reducer from the token counter and the (pricing) summarizer.
        about: one line for the report.
        cache_reuse: the summarizer reuses the assistant's cached prefix.
    """

    name: str
    make: Callable[[TokenCounter, LLMSummarizer | None], Reducer]
    about: str
    cache_reuse: bool = False


def _summem(
    target: int = TARGET, *, placement: str = "after_system", **extra: Any
) -> Callable[[TokenCounter, LLMSummarizer | None], Reducer]:
    def make(counter: TokenCounter, summarizer: LLMSummarizer | None) -> Reducer:
        return SummarizationReducer(
            PricedSummarizer(summarizer) if summarizer is not None else None,
            threshold_tokens=THRESHOLD,
            target_tokens=target,
            summary_max_tokens=SUMMARY_MAX,
            summary_placement=placement,  # type: ignore[arg-type]
            token_counter=counter,
            **extra,
        )

    return make


def _truncation(threshold: int, target: int) -> Callable[[TokenCounter, Any], Reducer]:
    def make(counter: TokenCounter, _: Any) -> Reducer:
        return TruncationReducer(
            threshold_tokens=threshold, target_tokens=target, token_counter=counter
        )

    return make


NO_MEMORY_WINDOW = 200_000
"""The context window of the no-memory baseline: the smaller of the two models' (Sonnet's)."""

SETUPS: dict[str, Setup] = {
    s.name: s
    for s in (
        Setup(
            "no memory",
            _truncation(NO_MEMORY_WINDOW - 8000, NO_MEMORY_WINDOW - 16000),
            "the whole history each turn; past the context window (200k, less 8k for the "
            "reply) the oldest turns are dropped to fit",
        ),
        Setup(
            "window",
            _truncation(THRESHOLD, THRESHOLD - 200),
            "the most recent turns within 8,000 tokens, dropping just enough each turn",
        ),
        Setup(
            "window 8000/6000",
            _truncation(THRESHOLD, TARGET),
            "a window with hysteresis: drop down to 6,000 once past 8,000",
        ),
        Setup("summem 8000/6000", _summem(), "summem's defaults: summary after the system"),
        Setup(
            "summem, system_suffix",
            _summem(placement="system_suffix"),
            "the summary appended to the system message",
        ),
        Setup(
            "summem, first_user",
            _summem(placement="first_user"),
            "the summary merged into the first user message",
        ),
        Setup("summem 8000/4000", _summem(4000), "hysteresis of 4,000 tokens"),
        Setup("summem 8000/7000", _summem(7000), "hysteresis of 1,000 tokens"),
        Setup("summem + masking", _summem(**MASKING), "tool results masked after 3 groups"),
        Setup(
            "summem + cache reuse",
            _summem(),
            "summem's defaults, the summarizer resending the assistant's request (reuse_cache)",
            cache_reuse=True,
        ),
        Setup(
            "summem 8000/4000 + cache reuse",
            _summem(4000),
            "hysteresis of 4,000 tokens, the summarizer resending the assistant's request",
            cache_reuse=True,
        ),
        Setup(
            "every crossing",
            _summem(THRESHOLD - 200),
            "summarize at every threshold crossing, evicting only what must go (no hysteresis, "
            "as LangChain's SummarizationMiddleware)",
        ),
    )
}
"""The configurations compared (all at an 8,000-token budget, 1,000-token summaries)."""


@dataclass(frozen=True)
class Workload:
    """Conversations of one kind."""

    name: str
    make: Callable[[int], Trajectory]


def _family(name: str) -> Workload:
    return Workload(name, FAMILIES[name].trajectory)


AGENT_RULES = 35
"""Rules in the ``agent`` workload's system prompt (about 1,500 tokens, as agents' prompts are)."""


def _agent(seed: int) -> Trajectory:
    """The tool-heavy trajectory behind a long system prompt (the prefix a cache keeps)."""
    traj = tool_heavy(seed, 120)
    rules = "\n".join(
        f"{i}. When a customer asks about topic {i}, check the order, the invoice and the "
        f"delivery record first, quote the policy section {i}.{i % 7}, and never promise a "
        "date the carrier has not confirmed."
        for i in range(1, AGENT_RULES + 1)
    )
    system = {"role": "system", "content": f"{traj.messages[0]['content']}\n\nRules:\n{rules}"}
    messages = (system, *traj.messages[1:])
    return Trajectory(traj.seed, messages, traj.facts, traj.turn_starts, traj.params)


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        # The families that plant facts another way (``indirect``, ``nested-tool``) probe
        # fidelity (evals.runners.trajectories); the priced ones state their facts directly.
        *(_family(n) for n, f in FAMILIES.items() if f.style == "direct"),
        Workload("tools", lambda s: tool_heavy(s, 120)),
        Workload("agent", _agent),
    )
}
"""The trajectory families, the tool-heavy trajectories of :mod:`evals.families.catalogue`, and
``agent``: the same tool-heavy ones behind a 1,500-token system prompt."""


# -- the pricing summarizer -----------------------------------------------------------------


class Replier:
    """An LLM client that answers each request with the text it is given, and keeps them."""

    def __init__(self) -> None:
        self.reply = ""
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return ChatResponse(text=self.reply, finish_reason="stop", usage_reported=False)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:  # pragma: no cover
        return self.complete(request)

    def max_input_tokens(self, model: str) -> int | None:
        return None


class PricedSummarizer:
    """The LLM summarizer's requests, answered with the extractive summary of the same span."""

    def __init__(self, llm: LLMSummarizer) -> None:
        self.llm = llm
        self.extractive = ExtractiveSummarizer()
        assert isinstance(llm.client, Replier)
        self.replier: Replier = llm.client

    @property
    def name(self) -> str:
        return self.llm.name

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        offline = yield from self.extractive.summarize(request)
        self.replier.reply = offline.text
        output = yield from self.llm.summarize(request)
        return output
