"""What the cost model replays: the memory configurations, the workloads, the models."""

from __future__ import annotations

import dataclasses
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
from summem.summarizers.provider import OpenAICompaction
from summem.tokens.base import TokenCounter
from summem.tokens.provider import BYTES_PER_TOKEN

__all__ = [
    "COMPACTION_ROOM",
    "MASKING",
    "MODELS",
    "NO_MEMORY_WINDOW",
    "SETUPS",
    "SUMMARY_MAX",
    "TARGET",
    "THRESHOLD",
    "WORKLOADS",
    "Compacted",
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
        view: what the assistant sends: ``"messages"`` (chat completions, every provider) or
            ``"items"`` (OpenAI's Responses input, ``memory.items()``: a provider's
            compaction item in place of what it compacted).
        providers: whose rules it is priced under (provider compaction: its provider only).
    """

    name: str
    make: Callable[[TokenCounter, LLMSummarizer | None], Reducer]
    about: str
    cache_reuse: bool = False
    view: str = "messages"
    providers: tuple[str, ...] = ("openai", "anthropic")


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


COMPACTION_ROOM = 3000
"""The summary room of the provider compaction setups: OpenAI's answer is every user message
of what it compacted, then the item, and that window must fit where a summary goes (at
:data:`SUMMARY_MAX` it rarely does, and the twin is sent in its place)."""


def _compaction(*, llm_twin: bool) -> Callable[[TokenCounter, LLMSummarizer | None], Reducer]:
    """OpenAI compacts each span (``/responses/compact``); summem writes the twin beside it.

    The twin is the offline extractive summary (free: the cost of provider compaction alone)
    or the LLM summarizer's (both, each paying for its pass). The twin is capped at
    :data:`SUMMARY_MAX` as every summary is; OpenAI's window and item at
    :data:`COMPACTION_ROOM`.
    """

    def make(counter: TokenCounter, summarizer: LLMSummarizer | None) -> Reducer:
        assert summarizer is not None and isinstance(summarizer.client, Replier)
        replier = summarizer.client
        replier.counter = counter
        twin: Any = PricedSummarizer(summarizer) if llm_twin else _Offline(replier)
        return SummarizationReducer(
            OpenAICompaction(replier, model=MODELS["openai"], twin=_Capped(twin)),
            threshold_tokens=THRESHOLD,
            target_tokens=TARGET,
            summary_max_tokens=COMPACTION_ROOM,
            token_counter=counter,
        )

    return make


def _summem_in_room() -> Callable[[TokenCounter, LLMSummarizer | None], Reducer]:
    """The summem summaries (capped at :data:`SUMMARY_MAX`) in the compaction setups' room.

    The planner evicts down to the target with the room kept for a summary, so the room
    alone changes how much each reduction evicts: this is the like-for-like baseline of the
    provider compaction setups.
    """

    def make(counter: TokenCounter, summarizer: LLMSummarizer | None) -> Reducer:
        assert summarizer is not None
        return SummarizationReducer(
            _Capped(PricedSummarizer(summarizer)),
            threshold_tokens=THRESHOLD,
            target_tokens=TARGET,
            summary_max_tokens=COMPACTION_ROOM,
            token_counter=counter,
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
            "summem, compaction's room",
            _summem_in_room(),
            "summem's summaries (up to 1,000 tokens) with the provider compaction setups' "
            "3,000-token summary room: their like-for-like baseline",
        ),
        Setup(
            "provider compaction",
            _compaction(llm_twin=False),
            "OpenAI compacts each span (/responses/compact) and the assistant is sent its item "
            "(items()); summem's twin is the offline extractive one: the cost of provider "
            "compaction alone",
            view="items",
            providers=("openai",),
        ),
        Setup(
            "provider compaction + LLM twin",
            _compaction(llm_twin=True),
            "both: OpenAI compacts each span, and summem's LLM summarizer writes its twin",
            view="items",
            providers=("openai",),
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


@dataclass
class Compacted:
    """One ``/responses/compact`` call as sent: its input items, and the item it returned."""

    input: list[dict[str, Any]]
    output_tokens: int


class _Usage:
    def __init__(self, input_tokens: int, output_tokens: int) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


class _Response:
    def __init__(self, output: list[dict[str, Any]], usage: _Usage) -> None:
        self.output = output
        self.usage = usage


class _Responses:
    """``client.responses.compact``: OpenAI's documented answer, its item sized as the summary.

    What OpenAI's pass writes is opaque; it is taken to be as long as a summary of the same
    span (the text the replier was given: the extractive summary, the LLM summarizer's reply
    in this model), and its ``encrypted_content`` is sized so that summem counts it at that
    many tokens (:func:`summem.tokens.provider.encrypted_tokens`), as the next requests bill it.
    """

    def __init__(self, replier: Replier) -> None:
        self.replier = replier

    def compact(self, **kwargs: Any) -> _Response:
        replier = self.replier
        counter = replier.counter
        assert counter is not None
        tokens = max(1, counter.count_text(replier.reply))
        payload = "A" * (tokens * BYTES_PER_TOKEN * 4 // 3)
        replier.compactions += 1
        item = {
            "type": "compaction",
            "id": f"cmp_{replier.compactions}",
            "encrypted_content": payload,
        }
        sent = [dict(i) for i in kwargs["input"]]
        replier.compacted.append(Compacted(sent, tokens))
        users = [i for i in sent if i.get("role") == "user" and i.get("type") != "compaction"]
        return _Response([*users, item], _Usage(0, tokens))


class Replier:
    """An LLM client that answers each request with the text it is given, and keeps them.

    Its ``responses.compact`` answers as OpenAI's compaction endpoint does (see
    :class:`_Responses`), keeping each call in :attr:`compacted`.
    """

    def __init__(self) -> None:
        self.reply = ""
        self.requests: list[ChatRequest] = []
        self.compacted: list[Compacted] = []
        self.compactions = 0
        self.counter: TokenCounter | None = None
        self.responses = _Responses(self)

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return ChatResponse(text=self.reply, finish_reason="stop", usage_reported=False)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:  # pragma: no cover
        return self.complete(request)

    def max_input_tokens(self, model: str) -> int | None:
        return None


class _Capped:
    """A twin summarizing as if the summary room were :data:`SUMMARY_MAX`, as every summary."""

    def __init__(self, twin: Any) -> None:
        self.twin = twin
        self.name = twin.name

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        capped = dataclasses.replace(request, max_tokens=min(request.max_tokens, SUMMARY_MAX))
        output: SummaryOutput = yield from self.twin.summarize(capped)
        return output


class _Offline:
    """The extractive twin, free; its text is what the provider's compaction is sized as."""

    def __init__(self, replier: Replier) -> None:
        self.extractive = ExtractiveSummarizer()
        self.replier = replier
        self.name = self.extractive.name

    def summarize(self, request: SummaryRequest) -> Flow[SummaryOutput]:
        offline = yield from self.extractive.summarize(request)
        self.replier.reply = offline.text
        return offline


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
