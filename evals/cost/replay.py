"""Replay a conversation through a memory and keep every request sent; price them in order."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.cost.pricing import (
    AnthropicPromptCache,
    Bill,
    OpenAIPrefixCache,
    Price,
    Segment,
    price_of,
)
from evals.cost.setups import MODELS, SETUPS, WORKLOADS, Replier, Setup
from evals.families.trajectories import Trajectory
from evals.metrics.retention import fact_retention
from summem.clients.base import ChatRequest
from summem.formats.compaction import PROVIDER_SUMMARY
from summem.formats.responses import to_messages
from summem.memory import Memory
from summem.messages import Message
from summem.stores.memory import InMemoryStore
from summem.summarizers.llm import LLMSummarizer
from summem.tokens.base import TokenCounter, resolve_counter

__all__ = ["Priced", "Replayed", "Sent", "price_run", "replay_requests", "run_cost", "tool_schemas"]

# -- replay and price -----------------------------------------------------------------------


@dataclass
class Sent:
    """One request: its blocks, Anthropic's breakpoints, the reply's size, who sent it.

    ``carried``: the tokens of the provider compaction items among its blocks.
    """

    segments: list[Segment]
    breakpoints: list[int]
    output_tokens: int
    summarizer: bool = False
    carried: int = 0


@dataclass
class Replayed:
    """A conversation replayed through one configuration: its requests and what it kept."""

    requests: list[Sent] = field(default_factory=list)
    turns: int = 0
    facts: int = 0
    kept: int = 0
    compacted: int = 0
    """Summaries the provider compacted whose item went to the assistant (the rest: the twin)."""
    twin_alone: int = 0
    """Summaries whose provider item did not fit the summary room, or failed: the twin alone."""


class _Blocks:
    """Turns sent messages into segments, counting each distinct message once."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.tokens: dict[str, int] = {}

    def segment(self, message: dict[str, Any]) -> Segment:
        text = json.dumps(message, sort_keys=True, ensure_ascii=False)
        tokens = self.tokens.get(text)
        if tokens is None:
            tokens = self.counter.count_message(Message.from_openai(message))
            self.tokens[text] = tokens
        return Segment.of(text, tokens)

    def item(self, item: dict[str, Any]) -> Segment:
        """A Responses input item, counted as summem counts it (a compaction by its payload)."""
        text = json.dumps(item, sort_keys=True, ensure_ascii=False)
        tokens = self.tokens.get(text)
        if tokens is None:
            tokens = sum(self.counter.count_message(m) for m in to_messages([item]))
            self.tokens[text] = tokens
        return Segment.of(text, tokens)

    def tools(self, tools: list[dict[str, Any]]) -> Segment:
        text = json.dumps(tools, sort_keys=True)
        return Segment.of(text, self.counter.count_text(text))


def tool_schemas(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A function definition for each tool the conversation calls (what the assistant sends)."""
    names = sorted(
        {
            (c.get("function") or {}).get("name", "")
            for m in messages
            for c in m.get("tool_calls") or ()
        }
    )
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"Call {name.replace('_', ' ')} in the support back-office and "
                "return its JSON record.",
                "parameters": {
                    "type": "object",
                    "properties": {"id": {"type": "string", "description": "the record's id"}},
                    "required": ["id"],
                },
            },
        }
        for name in names
        if name
    ]


def _breakpoints(view: list[dict[str, Any]], summary_at: int | None) -> list[int]:
    """View indices of the system message, the summary and the last message."""
    marks = {len(view) - 1}
    if view and view[0].get("role") in ("system", "developer"):
        marks.add(0)
    if summary_at is not None:
        marks.add(summary_at)
    return sorted(marks)


def replay_requests(
    traj: Trajectory, setup: Setup, counter: TokenCounter, model: str = MODELS["openai"]
) -> Replayed:
    """Replay ``traj`` through ``setup``; every request sent, and the facts the view kept."""
    replier = Replier()
    llm = LLMSummarizer(model, client=replier, reuse_cache=setup.cache_reuse)
    reducer = setup.make(counter, llm)
    blocks = _Blocks(counter)
    tools = tool_schemas(traj.messages)
    tool_block = [blocks.tools(tools)] if tools else []
    out = Replayed()
    seen: str | None = None
    with Memory("cost", reducer=reducer, store=InMemoryStore()) as memory:
        for message in traj.messages:
            if message["role"] == "user":
                out.turns += 1
            if message["role"] == "assistant":
                reply = counter.count_message(Message.from_openai(message))
                if setup.view == "items":  # OpenAI's Responses input: its item, not the span
                    items = [blocks.item(i) for i in memory.items()]
                    kinds = [i.get("type") for i in memory.items()]
                    carried = sum(
                        b.tokens for b, k in zip(items, kinds, strict=True) if k == "compaction"
                    )
                    asked = Sent(tool_block + items, [], reply, carried=carried)
                else:
                    view = memory.messages()
                    memory.note_sent(view, model=model, view=memory.view(), tools=tools or None)
                    segments = tool_block + [blocks.segment(m) for m in view]
                    marks = _breakpoints(view, _summary_index(memory, view))
                    asked = Sent(segments, [m + len(tool_block) for m in marks], reply)
                out.requests.append(asked)
            memory.add(message)
            for chat in replier.requests:
                reply_tokens = counter.count_text(replier.reply)
                out.requests.append(
                    _summarizer_request(chat, blocks, tool_block, asked, reply_tokens)
                )
            replier.requests.clear()
            for compacted in replier.compacted:  # the provider's pass, on the assistant's model
                segments = [blocks.item(i) for i in compacted.input]
                out.requests.append(Sent(segments, [], compacted.output_tokens, summarizer=True))
            replier.compacted.clear()
            if memory.summary is not None and memory.summary.id != seen:
                seen = memory.summary.id
                info = memory.summary.summary_info
                held = info.extra.get(PROVIDER_SUMMARY) if info is not None else None
                if isinstance(held, dict):
                    out.compacted += "item" in held
                    out.twin_alone += "failed" in held
        last = memory.summary
        retention = fact_retention(traj.facts, memory.view(), last.text if last else None)
        out.facts, out.kept = retention.total, retention.verbatim + retention.summary
    return out


def _summarizer_request(
    chat: ChatRequest, blocks: _Blocks, tool_block: list[Segment], asked: Sent, reply_tokens: int
) -> Sent:
    """A summarizer request as sent: its own prompt, or the assistant's last one repeated.

    Its own prompt carries no breakpoint (summem marks none: a new transcript each time is
    not worth a cache write). Repeating the assistant's request, it repeats its breakpoints
    (the prefix is the same, so is its cache).
    """
    head = tool_block if chat.parameters.get("tools") else []
    segments = head + [blocks.segment(m) for m in chat.messages]
    if head and segments[: len(asked.segments)] == asked.segments:
        return Sent(segments, list(asked.breakpoints), reply_tokens, summarizer=True)
    return Sent(segments, [], reply_tokens, summarizer=True)


def _summary_index(memory: Memory, view: list[dict[str, Any]]) -> int | None:
    """Where the summary sits in the rendered view (``None``: none, or inside the system)."""
    if memory.summary is None:
        return None
    reducer = memory.reducer
    placement = getattr(reducer, "summary_placement", "after_system")
    if placement == "system_suffix":
        return 0
    return 1 if view and view[0].get("role") in ("system", "developer") else 0


@dataclass
class Priced:
    """What one replay costs under one provider's rules."""

    input_tokens: int = 0
    cached_tokens: int = 0
    written_tokens: int = 0
    output_tokens: int = 0
    dollars: float = 0.0
    summarizer_dollars: float = 0.0
    summarizer_calls: int = 0

    def add(self, bill: Bill, price: Price, *, summarizer: bool) -> None:
        self.input_tokens += bill.input_tokens
        self.cached_tokens += bill.cache_read_tokens
        self.written_tokens += bill.cache_write_tokens
        self.output_tokens += bill.output_tokens
        dollars = bill.dollars(price)
        self.dollars += dollars
        if summarizer:
            self.summarizer_dollars += dollars
            self.summarizer_calls += 1


def price_run(run: Replayed, provider: str, price: Price) -> Priced:
    """Bill every request of ``run``, in order, under ``provider``'s caching rules."""
    priced = Priced()
    if provider == "openai":
        openai = OpenAIPrefixCache()
        for sent in run.requests:
            bill = openai.bill(sent.segments, sent.output_tokens)
            priced.add(bill, price, summarizer=sent.summarizer)
    else:
        anthropic = AnthropicPromptCache()
        for sent in run.requests:
            bill = anthropic.bill(sent.segments, sent.breakpoints, sent.output_tokens)
            priced.add(bill, price, summarizer=sent.summarizer)
    return priced


def run_cost(
    workloads: Sequence[str],
    setups: Sequence[str],
    seeds: Sequence[int],
    *,
    counter: TokenCounter | None = None,
) -> list[dict[str, Any]]:
    """One row per workload, configuration and provider, summed over ``seeds``."""
    counter = counter or resolve_counter(model="gpt-4o")
    prices = {p: price_of(m) for p, m in MODELS.items()}
    rows: list[dict[str, Any]] = []
    for wname in workloads:
        trajectories = [WORKLOADS[wname].make(seed) for seed in seeds]
        for sname in setups:
            runs = [replay_requests(t, SETUPS[sname], counter) for t in trajectories]
            turns = sum(r.turns for r in runs) or 1
            facts = sum(r.facts for r in runs)
            kept = sum(r.kept for r in runs)
            for provider, price in prices.items():
                if provider not in SETUPS[sname].providers:
                    continue
                total = Priced()
                for run in runs:
                    p = price_run(run, provider, price)
                    for name in vars(total):
                        setattr(total, name, getattr(total, name) + getattr(p, name))
                per = 1000 / turns
                rows.append(
                    {
                        "workload": wname,
                        "config": sname,
                        "provider": provider,
                        "input_tokens": round(total.input_tokens * per),
                        "cached_share": total.cached_tokens / (total.input_tokens or 1),
                        "written_share": total.written_tokens / (total.input_tokens or 1),
                        "output_tokens": round(total.output_tokens * per),
                        "summarizer_calls": round(total.summarizer_calls * per, 1),
                        "summarizer_share": total.summarizer_dollars / (total.dollars or 1),
                        "dollars": total.dollars * per,
                        "fact_retention": kept / facts if facts else 0.0,
                    }
                )
    return rows
