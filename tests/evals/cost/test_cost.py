"""``python -m evals.runners.cost``: each request of a replay priced under providers' caching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cost.pricing import Price
from evals.cost.replay import price_run, replay_requests, run_cost, tool_schemas
from evals.cost.setups import SETUPS
from evals.families.trajectories import generate_trajectory
from evals.runners.cost import main
from summem.tokens.base import resolve_counter

COUNTER = resolve_counter(model="gpt-4o")
FLAT = Price("flat", input=1.0, cache_read=0.1, cache_write=1.25, output=4.0)


def test_the_assistant_sends_one_request_per_reply_and_the_summarizer_one_per_reduction() -> None:
    traj = generate_trajectory(0, turns=120, facts=5)
    replies = sum(m["role"] == "assistant" for m in traj.messages)
    run = replay_requests(traj, SETUPS["summem 8000/6000"], COUNTER)
    assistant = [r for r in run.requests if not r.summarizer]
    summarizer = [r for r in run.requests if r.summarizer]
    assert len(assistant) == replies
    assert summarizer, "120 turns pass 8,000 tokens"
    # a summarizer request is the prompt's own, which summem sends without breakpoints
    assert all(r.breakpoints == [] for r in summarizer)
    # an assistant request: tools first, then the view; at most 4 breakpoints, last one last
    assert all(
        len(r.breakpoints) <= 4 and r.breakpoints[-1] == len(r.segments) - 1 for r in assistant
    )
    assert run.turns == 120 and run.facts == 5


def test_no_memory_sends_the_whole_history_and_caches_almost_all_of_it() -> None:
    traj = generate_trajectory(0, turns=60, facts=5)
    run = replay_requests(traj, SETUPS["no memory"], COUNTER)
    assert not any(r.summarizer for r in run.requests)
    sizes = [sum(s.tokens for s in r.segments) for r in run.requests]
    assert sizes == sorted(sizes)  # it only grows
    openai = price_run(run, "openai", FLAT)
    # every request repeats the previous one and adds a little: most input is a cache read
    assert openai.cached_tokens > 0.8 * openai.input_tokens
    assert openai.written_tokens == 0
    anthropic = price_run(run, "anthropic", FLAT)
    assert anthropic.cached_tokens + anthropic.written_tokens <= anthropic.input_tokens


def test_a_sliding_window_loses_the_cache_that_hysteresis_keeps() -> None:
    rows = run_cost(["plain"], ["window", "window 8000/6000"], [0], counter=COUNTER)
    by = {(r["config"], r["provider"]): r for r in rows}
    for provider in ("openai", "anthropic"):
        assert (
            by[("window", provider)]["cached_share"]
            < by[("window 8000/6000", provider)]["cached_share"]
        )
    assert by[("window", "anthropic")]["written_share"] > 0.1


def test_every_crossing_calls_the_summarizer_more_and_costs_more_than_summem() -> None:
    rows = run_cost(["plain"], ["summem 8000/6000", "every crossing"], [0], counter=COUNTER)
    by = {(r["config"], r["provider"]): r for r in rows}
    for provider in ("openai", "anthropic"):
        every, summem = by[("every crossing", provider)], by[("summem 8000/6000", provider)]
        assert every["summarizer_calls"] > 2 * summem["summarizer_calls"]
        assert every["dollars"] > summem["dollars"]
        assert 0 < summem["summarizer_share"] < every["summarizer_share"]


def test_tool_schemas_name_each_tool_called_once() -> None:
    traj = generate_trajectory(1, turns=40, facts=5, tool_call_rate=1.0)
    names = [t["function"]["name"] for t in tool_schemas(traj.messages)]
    assert names and names == sorted(set(names))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_main_writes_the_table_the_json_and_the_plot(tmp_path: Path) -> None:
    code = main(
        [
            "--workload",
            "plain",
            "--config",
            "window",
            "--config",
            "summem 8000/6000",
            "--config",
            "summem + cache reuse",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    report = json.loads((tmp_path / "cost.json").read_text())
    assert {r["config"] for r in report["rows"]} == {
        "window",
        "summem 8000/6000",
        "summem + cache reuse",
    }
    text = (tmp_path / "cost.md").read_text()
    assert "$ per 1,000 turns" in text
    assert (tmp_path / "cost.png").stat().st_size > 1000


def test_cache_reuse_repeats_the_assistants_request_and_reads_it_from_the_cache() -> None:
    traj = generate_trajectory(0, turns=120, facts=5)
    run = replay_requests(traj, SETUPS["summem + cache reuse"], COUNTER)
    plain = replay_requests(traj, SETUPS["summem 8000/6000"], COUNTER)
    calls = [(i, r) for i, r in enumerate(run.requests) if r.summarizer]
    assert len(calls) == sum(r.summarizer for r in plain.requests) > 0
    for i, call in calls:
        asked = next(r for r in reversed(run.requests[:i]) if not r.summarizer)
        # the assistant's request, then the instruction
        assert call.segments[: len(asked.segments)] == asked.segments
        assert len(call.segments) >= len(asked.segments) + 1
        assert call.breakpoints == asked.breakpoints
    for provider in ("openai", "anthropic"):
        reused = price_run(run, provider, FLAT)
        prompted = price_run(plain, provider, FLAT)
        assert reused.summarizer_dollars < prompted.summarizer_dollars
    assert (run.facts, run.kept) == (plain.facts, plain.kept)  # the same summaries


def test_the_agent_workload_puts_a_long_system_prompt_before_the_tool_heavy_turns() -> None:
    from evals.cost.setups import WORKLOADS

    agent, tools = WORKLOADS["agent"].make(0), WORKLOADS["tools"].make(0)
    assert agent.messages[1:] == tools.messages[1:]
    assert COUNTER.count_text(agent.messages[0]["content"]) > 1024  # a cacheable prefix alone


def test_the_headline_is_the_readmes_table() -> None:
    from evals.runners.cost import headline

    rows = [
        {"config": c, "provider": p, "workload": w, "dollars": d, "fact_retention": k}
        for c, d, k in (("summem 8000/6000", 2.0, 0.5), ("summem + cache reuse", 1.0, 0.5))
        for p in ("openai", "anthropic")
        for w in ("agent", "long", "plain")
    ]
    (line,) = headline(rows)  # the baselines are missing: their rows are left out
    assert line == {
        "$ / 1,000 turns: agent / 1,000-turn chat": "summem 8000/6000 (with `reuse_cache=True`)",
        "gpt-4.1-mini": "2.00 / 2.00 (1.00 / 1.00)",
        "claude-sonnet-4-5": "2.00 / 2.00 (1.00 / 1.00)",
        "facts kept": 0.5,
    }
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    assert (
        "| $ / 1,000 turns: agent / 1,000-turn chat | gpt-4.1-mini | claude-sonnet-4-5 |" in readme
    )


def test_each_family_workload_is_that_familys_trajectory() -> None:
    """Every field a family sets reaches the priced workload (both-speakers was plain's)."""
    from evals.cost.setups import WORKLOADS
    from evals.families.catalogue import FAMILIES

    families = [n for n in WORKLOADS if n in FAMILIES]
    assert {"plain", "realistic", "corrections", "both-speakers", "long"} <= set(families)
    for name in families:
        assert WORKLOADS[name].make(3) == FAMILIES[name].trajectory(3)
    assert WORKLOADS["both-speakers"].make(3).messages != WORKLOADS["plain"].make(3).messages


def test_provider_compaction_replays_its_pass_and_sends_its_item() -> None:
    """OpenAI compacts each span: the pass is billed, the next requests carry the item."""
    traj = generate_trajectory(0, turns=120, facts=5)
    alone = replay_requests(traj, SETUPS["provider compaction"], COUNTER)
    both = replay_requests(traj, SETUPS["provider compaction + LLM twin"], COUNTER)
    passes = [r for r in alone.requests if r.summarizer]
    assert passes, "120 turns pass 8,000 tokens"
    assert all(r.output_tokens > 0 for r in passes)  # the item OpenAI wrote, billed as output
    sent = [r for r in alone.requests if not r.summarizer]
    carried = [r for r in sent if r.carried]
    assert carried
    # the item is billed at its size, as small as a summary: far below the span it replaced
    assert all(r.carried <= 1200 for r in carried)
    # both: the LLM twin adds its own call per reduction
    assert sum(r.summarizer for r in both.requests) == 2 * len(passes)
    rows = run_cost(["plain"], ["provider compaction"], [0], counter=COUNTER)
    assert [r["provider"] for r in rows] == ["openai"]  # priced under its provider's rules
