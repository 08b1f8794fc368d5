"""How many planted facts the memory still carries after 1, 3 and 10 reduction cycles.

    python -m evals.runners.trajectories --seeds 5 --out out/trajectories
    python -m evals.runners.trajectories --summarizer llm:gpt-4o-mini --record out/traj.jsonl
    python -m evals.runners.trajectories --summarizer llm:gpt-4o-mini --replay out/traj.jsonl

Each seed generates a support-assistant conversation with facts planted at known turns (see
:mod:`evals.families.trajectories`) and replays it through the engine one message at a time.
After every reduction cycle a probe asks, for each fact planted so far, whether the view still
carries it: verbatim in a kept message, or in the summary's text (any accepted surface form).
This works the same for an extractive and an LLM summary. The probes reported are cycles 1, 3
and 10 and the end of the conversation; ``summary recall`` is the same share over the facts
already evicted, the ones only the summary can carry. Writes ``trajectories.json`` and
``trajectories.md``; every run also reports the engine's cost and checks its invariants.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig, add_llm_arguments, build_reducer, open_client
from evals.engine.replay import ReplayState, ReplayTrace, efficiency, replay
from evals.families.catalogue import FAMILIES, GENERATORS, Family
from evals.families.facts import ALL_KINDS, KINDS, PlantedFact, message_text
from evals.families.trajectories import Trajectory, generate_trajectory
from evals.metrics.fragments import FragmentCount, HistoryIndex, summary_fragments
from evals.metrics.retention import fact_retention
from evals.progress import progress_bar
from evals.runners.report import markdown_table, report_metadata, write_json_report
from evals.text import find_normalized, normalize_text
from summem.clients.base import LLMClient
from summem.messages import Message
from summem.reducers.summarization import SummarizationReducer
from summem.summarizers.base import Summarizer
from summem.tokens.base import TokenCounter, resolve_counter

__all__ = ["DEFAULT_CONFIG", "Probe", "main", "probe_rows", "run_trajectories"]

DEFAULT_CONFIG = EngineConfig(threshold_tokens=2000, target_tokens=1500, summary_max_tokens=400)
"""Small enough that a 200-turn trajectory (about 18k tokens) goes through 20-30 cycles."""
PROBES = (1, 3, 10)


@dataclass(frozen=True)
class Probe:
    """One seed's view, checked after one cycle (``cycle == 0`` stands for the end).

    Attributes:
        seed: the trajectory's seed.
        cycle: the cycle number probed, 0 for the end of the conversation.
        facts: facts planted so far.
        kept: of those, facts the view carries.
        verbatim: facts kept in messages.
        evicted: facts whose message has left the view.
        recalled: evicted facts the summary carries.
        by_kind: ``kind -> (kept, facts)``.
        by_role: ``role of the message that stated it -> (kept, facts)``.
        corrected: correction facts asked about (their new value must be in the view).
        stale: of those, facts whose stale value is still in the view.
        stale_unmarked: of those, facts whose stale value is in the view with nothing after
            it saying otherwise: the new value does not follow it in reading order (summary
            first, then the kept messages), so a reader takes the stale value for current.
            A fact corrected more than once counts when any value it replaced is so.
        stale_only: of those, facts whose new value is lost while a value it replaced is
            still in the view.
        choices: facts accepted from options offered (a confirmation: ``rejected`` or
            ``confirm_index`` set).
        choice_unclear: of those, facts whose value is in the view beside an option not
            taken while the acceptance is not: neither the accepting message kept nor its
            words in the summary, so the view does not say which was chosen.
        rejected_only: of those, facts whose value is lost while an option not taken is in
            the view.
        fragments: the summary's dependent-fragment check (:mod:`evals.metrics.fragments`).
    """

    seed: int
    cycle: int
    facts: int
    kept: int
    verbatim: int
    evicted: int
    recalled: int
    by_kind: dict[str, tuple[int, int]]
    by_role: dict[str, tuple[int, int]] = field(default_factory=dict)
    corrected: int = 0
    stale: int = 0
    stale_unmarked: int = 0
    stale_only: int = 0
    choices: int = 0
    choice_unclear: int = 0
    rejected_only: int = 0
    fragments: FragmentCount = field(default_factory=FragmentCount)


def _collect(
    out: list[Probe],
    traj: Trajectory,
    reducer: SummarizationReducer,
    index: HistoryIndex,
    state: ReplayState,
) -> None:
    out.append(_probe(traj, state, None, reducer, index))


def _probe(
    traj: Trajectory,
    state: ReplayState | None,
    trace: ReplayTrace | None,
    reducer: SummarizationReducer,
    index: HistoryIndex | None = None,
) -> Probe:
    if state is not None:
        history, view, summary, cycle = state.history, state.view, state.summary, state.cycle.number
    else:
        assert trace is not None
        history, view, summary, cycle = trace.history, trace.view, trace.summary, 0
    facts = traj.facts_before(len(history))
    summary_text = reducer.summary_text(summary)
    result = fact_retention(facts, view, summary_text)
    in_view = {m.id for m in view}
    evicted = [f for f in facts if history[f.message_index].id not in in_view]
    lost = set(result.missing)
    by_role: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in facts:
        by_role[f.role][1] += 1
        by_role[f.role][0] += f.id not in lost
    reading = " ".join(normalize_text(message_text(m)) for m in _reading_order(view))
    corrected = [f for f in facts if f.stale is not None]
    stale = unmarked = stale_only = 0
    padded = f" {reading} "
    for f in corrected:
        spots = [find_normalized(reading, normalize_text(old)) for old in f.stale_values]
        spots = [at for at in spots if at >= 0]
        if not spots:
            continue
        stale += 1
        unmarked += any(find_normalized(reading, normalize_text(f.value), at) < 0 for at in spots)
        stale_only += f.id in lost
    choices = [f for f in facts if f.rejected or f.confirm_index is not None]
    unclear = rejected_only = 0
    for f in choices:
        offered = any(find_normalized(reading, normalize_text(o)) >= 0 for o in f.rejected)
        if f.id in lost:
            rejected_only += offered
        elif offered and not _accepted(f, history, view, padded):
            unclear += 1
    return Probe(
        seed=traj.seed,
        cycle=cycle,
        facts=result.total,
        kept=result.kept,
        verbatim=result.verbatim,
        evicted=len(evicted),
        recalled=sum(1 for f in evicted if f.id not in lost),
        by_kind=result.by_kind,
        by_role={k: (v[0], v[1]) for k, v in by_role.items()},
        corrected=len(corrected),
        stale=stale,
        stale_unmarked=unmarked,
        stale_only=stale_only,
        choices=len(choices),
        choice_unclear=unclear,
        rejected_only=rejected_only,
        fragments=summary_fragments(summary, summary_text, history, history_index=index),
    )


def _accepted(
    fact: PlantedFact, history: Sequence[Message], view: Sequence[Message], reading: str
) -> bool:
    """Whether the view still says ``fact``'s value was the one accepted.

    The accepting message is kept, or its words are in the view in order (a copied line).
    """
    if fact.confirm_index is None or fact.confirm_index >= len(history):
        return False
    message = history[fact.confirm_index]
    if any(m.id == message.id for m in view):
        return True
    words = normalize_text(message_text(message))
    return bool(words) and f" {words} " in reading


def _reading_order(view: Sequence[Message]) -> list[Message]:
    """The view as a model reads it: the summary (wherever it is placed) first."""
    return sorted(view, key=lambda m: not m.is_summary)


def run_trajectories(
    config: EngineConfig,
    *,
    seeds: Sequence[int],
    turns: int = 200,
    facts: int = 20,
    counter: TokenCounter,
    client: LLMClient | None = None,
    progress: bool | None = None,
    filler: str = "plain",
    corrections: int = 0,
    summarizer: Summarizer | None = None,
    speakers: str = "user",
    style: str = "direct",
) -> tuple[list[Probe], list[ReplayTrace]]:
    """Replay one trajectory per seed; probe after every cycle and at the end.

    ``summarizer`` replaces the one ``config`` names (:func:`evals.engine.config.build_reducer`).
    """
    probes: list[Probe] = []
    traces: list[ReplayTrace] = []
    with progress_bar(len(seeds), f"trajectories {config.label}", enabled=progress) as advance:
        for seed in seeds:
            if style in GENERATORS:  # a family that writes its own trajectories
                traj = GENERATORS[style](seed, turns=turns, facts=facts)
            else:
                traj = generate_trajectory(
                    seed,
                    turns=turns,
                    facts=facts,
                    filler=filler,
                    corrections=corrections,
                    speakers=speakers,
                    style=style,
                )
            reducer = build_reducer(config, counter=counter, client=client, summarizer=summarizer)
            index = HistoryIndex()  # one per replay: a probe indexes only the new messages
            on_cycle = functools.partial(_collect, probes, traj, reducer, index)
            trace = replay(
                traj.messages, reducer, on_cycle=on_cycle, latency_messages=config.latency_messages
            )
            probes.append(_probe(traj, None, trace, reducer, index))
            traces.append(trace)
            advance(1)
    return probes, traces


def _share(kept: int, total: int) -> float | None:
    return kept / total if total else None


def probe_rows(
    probes: Sequence[Probe], seeds: int, cycles: Sequence[int] = PROBES
) -> list[dict[str, Any]]:
    """One row per probed cycle (and ``end``): shares over all seeds that reached it."""
    rows: list[dict[str, Any]] = []
    for cycle in (*cycles, 0):
        chosen = [p for p in probes if p.cycle == cycle]
        total = sum(p.facts for p in chosen)
        evicted = sum(p.evicted for p in chosen)
        row: dict[str, Any] = {
            "probe": f"cycle {cycle}" if cycle else "end",
            "seeds": f"{len(chosen)}/{seeds}",
            "facts": total,
            "retention": _share(sum(p.kept for p in chosen), total),
            "verbatim": _share(sum(p.verbatim for p in chosen), total),
            "evicted": evicted,
            "summary_recall": _share(sum(p.recalled for p in chosen), evicted),
        }
        by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for p in chosen:
            for kind, (kept, n) in p.by_kind.items():
                by_kind[kind][0] += kept
                by_kind[kind][1] += n
        for kind in ALL_KINDS:
            kept, n = by_kind.get(kind, (0, 0))
            if kind in KINDS or n:
                row[kind] = _share(kept, n)
        corrected = sum(p.corrected for p in chosen)
        if corrected:
            row["stale"] = _share(sum(p.stale for p in chosen), corrected)
            row["stale unmarked"] = _share(sum(p.stale_unmarked for p in chosen), corrected)
            row["stale only"] = _share(sum(p.stale_only for p in chosen), corrected)
        choices = sum(p.choices for p in chosen)
        if choices:
            row["choice unclear"] = _share(sum(p.choice_unclear for p in chosen), choices)
            row["rejected only"] = _share(sum(p.rejected_only for p in chosen), choices)
        by_role: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for p in chosen:
            for role, (kept, n) in p.by_role.items():
                by_role[role][0] += kept
                by_role[role][1] += n
        for role in ("user", "assistant", "tool"):
            kept, n = by_role.get(role, (0, 0))
            row[f"from {role}"] = _share(kept, n)
        fragments = FragmentCount()
        for p in chosen:
            fragments.add(p.fragments)
        if fragments.lines:  # a summary with provenance (an LLM summary has none)
            row["summary lines"] = fragments.lines
            row["dependent <8 words"] = fragments.dependent
        rows.append(row)
    return rows


def cycle_curve(probes: Sequence[Probe]) -> list[dict[str, Any]]:
    """Retention and summary recall at every cycle number, over the seeds that reached it."""
    numbers = sorted({p.cycle for p in probes if p.cycle})
    return [
        {
            "cycle": n,
            "seeds": sum(1 for p in probes if p.cycle == n),
            "retention": _share(
                sum(p.kept for p in probes if p.cycle == n),
                sum(p.facts for p in probes if p.cycle == n),
            ),
            "summary_recall": _share(
                sum(p.recalled for p in probes if p.cycle == n),
                sum(p.evicted for p in probes if p.cycle == n),
            ),
        }
        for n in numbers
    ]


EFFICIENCY_COLUMNS = (
    "cycles",
    "view_tokens",
    "compression_ratio",
    "summarizer_read_per_token",
    "llm_input_per_token",
    "summarizer_cost_usd",
    "reductions_per_1k",
    "llm_calls_per_1k",
    "prompt_ratio",
    "waited_share",
    "violations",
)


def build_report(
    config: EngineConfig,
    probes: Sequence[Probe],
    traces: Sequence[ReplayTrace],
    *,
    seeds: Sequence[int],
    turns: int,
    facts: int,
    counter: TokenCounter,
) -> dict[str, Any]:
    """The JSON report of a run: settings, probe rows, the per-cycle curve, efficiency."""
    return {
        "meta": report_metadata(
            eval="trajectories",
            config=config.to_dict(),
            label=config.label,
            seeds=list(seeds),
            turns=turns,
            facts=facts,
            counter=counter.key,
        ),
        "probes": probe_rows(probes, len(seeds)),
        "curve": cycle_curve(probes),
        "efficiency": efficiency(traces),
        "violations": [v for t in traces for v in t.violations][:50],
    }


def render_markdown(report: dict[str, Any]) -> str:
    """The report's two tables: retention per probe, and the engine's cost."""
    probes = markdown_table(report["probes"])
    eff = markdown_table([{k: report["efficiency"][k] for k in EFFICIENCY_COLUMNS}])
    family = report["meta"].get("family")
    title = f"{report['meta']['label']}" + (f", family {family}" if family else "")
    return f"### Planted facts: {title}\n\n{probes}\n{eff}"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    d = DEFAULT_CONFIG
    parser = argparse.ArgumentParser(
        prog="python -m evals.runners.trajectories", description=__doc__
    )
    parser.add_argument("--seeds", type=int, default=5, help="trajectories (seeds 0..N-1)")
    parser.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILIES),
        help="kind of trajectory (repeatable; default: all). "
        + "; ".join(f"{f.name}: {f.about}" for f in FAMILIES.values()),
    )
    parser.add_argument("--turns", type=int, help="override the family's turns")
    parser.add_argument("--facts", type=int, help="override the family's planted facts")
    parser.add_argument("--threshold", type=int, default=d.threshold_tokens)
    parser.add_argument("--target", type=int, default=d.target_tokens)
    parser.add_argument("--summary-budget", type=int, default=d.summary_max_tokens)
    parser.add_argument("--soft-threshold", type=int)
    parser.add_argument(
        "--summary-fill",
        action="store_true",
        help="the summary grows past --summary-budget into the room the kept turns leave "
        "below the target (summary_fill=True)",
    )
    parser.add_argument("--summarizer", default="extractive", help="extractive | llm:MODEL")
    parser.add_argument("--prompt", help="prompt name or YAML file (LLM summarizers)")
    parser.add_argument("--model", default="gpt-4o", help="tokenizer to count with")
    add_llm_arguments(parser)
    parser.add_argument("--out", type=Path, default=Path("out/trajectories"))
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def run_family(
    config: EngineConfig,
    family: Family,
    *,
    seeds: Sequence[int],
    counter: TokenCounter,
    turns: int | None = None,
    facts: int | None = None,
    client: LLMClient | None = None,
    progress: bool | None = None,
    summarizer: Summarizer | None = None,
) -> tuple[list[Probe], list[ReplayTrace]]:
    """:func:`run_trajectories` with every field ``family`` sets (one place, so none is lost).

    ``turns`` and ``facts`` override the family's own when given.
    """
    return run_trajectories(
        config,
        seeds=seeds,
        turns=family.turns if turns is None else turns,
        facts=family.facts if facts is None else facts,
        counter=counter,
        client=client,
        progress=progress,
        filler=family.filler,
        corrections=family.corrections,
        summarizer=summarizer,
        speakers=family.speakers,
        style=family.style,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    config = EngineConfig(
        threshold_tokens=args.threshold,
        target_tokens=args.target,
        summary_max_tokens=args.summary_budget,
        summarizer=args.summarizer,
        prompt=args.prompt,
        soft_threshold_tokens=args.soft_threshold,
        max_tokens=args.max_tokens,
        summary_fill=True if args.summary_fill else None,
    )
    client = (
        open_client(record=args.record, replay=args.replay, base_url=args.base_url)
        if config.is_llm
        else None
    )
    counter = resolve_counter(model=args.model)
    seeds = list(range(args.seeds))
    reports: dict[str, Any] = {}
    texts: list[str] = []
    for name in args.family or list(FAMILIES):
        family = FAMILIES[name]
        turns = args.turns or family.turns
        facts = family.facts if args.facts is None else args.facts
        probes, traces = run_family(
            config,
            family,
            seeds=seeds,
            turns=turns,
            facts=facts,
            counter=counter,
            client=client,
            progress=False if args.no_progress else None,
        )
        report = build_report(
            config, probes, traces, seeds=seeds, turns=turns, facts=facts, counter=counter
        )
        report["meta"].update(
            family=name,
            filler=family.filler,
            corrections=family.corrections,
            style=family.style,
            about=family.about,
        )
        reports[name] = report
        texts.append(render_markdown(report))
    write_json_report(args.out / "trajectories.json", {"families": reports})
    text = "\n".join(texts)
    (args.out / "trajectories.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 1 if any(r["violations"] for r in reports.values()) else 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
