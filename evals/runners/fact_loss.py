"""Which planted facts a family loses by a reduction cycle, and which filler lines beat them.

    python -m evals.runners.fact_loss --family realistic --seeds 30 --cycle 10

Each seed's trajectory is replayed as :mod:`evals.runners.trajectories` does, with the extractive
summarizer. At the probe cycle, for every planted fact the view no longer carries it reports
its kind, the score its sentence gets alone (``score_sentence`` per length, as the summarizer
ranks it) and the cycle after which no summary held it (0: no summary ever did); beside them,
the summary lines at that cycle holding no planted value (filler), with the score their
provenance recorded. A lost fact whose score is below most kept filler lines was outranked;
one above them was lost to something else (the carry-over share, a template discount).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.engine.config import build_reducer
from evals.engine.replay import ReplayState, replay
from evals.families.catalogue import FAMILIES
from evals.families.facts import message_text
from evals.metrics.retention import fact_present
from evals.runners.trajectories import DEFAULT_CONFIG
from summem.summarizers.extractive.facts import score_sentence, split_sentences
from summem.summarizers.extractive.summarizer import length_density
from summem.tokens.base import resolve_counter

__all__ = ["Loss", "LossReport", "analyse", "main", "render"]


@dataclass(frozen=True)
class Loss:
    """A planted fact the view lost by the probe cycle."""

    seed: int
    kind: str
    sentence: str
    score: float
    last_carried: int
    """The last cycle whose summary held the fact's value (0: none did)."""


@dataclass
class LossReport:
    """Facts probed and lost, by kind, and the filler lines kept at the probe cycle."""

    cycle: int
    facts: dict[str, int] = field(default_factory=dict)
    losses: list[Loss] = field(default_factory=list)
    filler: list[tuple[float, str]] = field(default_factory=list)
    """``(recorded score, line)`` of every summary line holding no planted value."""


def _fact_sentence(text: str, values: Sequence[str]) -> str:
    for sentence in split_sentences(text):
        if any(v in sentence for v in values):
            return sentence
    return text[:280]


def analyse(family: str, seeds: Sequence[int], cycle: int = 10) -> LossReport:
    """Replay ``family``'s trajectories for ``seeds``; what is lost by ``cycle``, and why."""
    fam = FAMILIES[family]
    counter = resolve_counter(model="gpt-4o")
    report = LossReport(cycle)
    facts_seen: dict[str, int] = defaultdict(int)
    for seed in seeds:
        traj = fam.trajectory(seed)
        reducer = build_reducer(DEFAULT_CONFIG, counter=counter)
        summaries: list[tuple[str, list[dict[str, Any]]]] = []
        probe: list[ReplayState] = []

        def on_cycle(
            state: ReplayState,
            summaries: Any = summaries,
            probe: Any = probe,
            reducer: Any = reducer,
        ) -> None:
            info = state.summary.summary_info if state.summary is not None else None
            entries = info.extra.get("provenance") if info is not None else None
            text = reducer.summary_text(state.summary) or ""
            summaries.append((text, list(entries) if isinstance(entries, list) else []))
            if state.cycle.number == cycle:
                probe.append(state)

        replay(traj.messages, reducer, on_cycle=on_cycle)
        if not probe:
            continue
        state = probe[0]
        facts = traj.facts_before(len(state.history))
        text, entries = summaries[cycle - 1]
        values = [v for f in facts for v in (f.value, *f.aliases)]
        scores = {e.get("line"): e.get("score") for e in entries if isinstance(e, dict)}
        for i, line in enumerate(text.split("\n")):
            score = scores.get(i)
            filler = not any(v in line for v in values)
            if line.startswith("- ") and isinstance(score, float | int) and filler:
                report.filler.append((float(score), line))
        kept_ids = {m.id for m in state.view if not m.is_summary}
        for f in facts:
            facts_seen[f.kind] += 1
            source = state.history[f.message_index]
            if source.id in kept_ids or fact_present(f, [], text):
                continue
            sentence = _fact_sentence(message_text(source), (f.value, *f.aliases))
            line = f"- {f.role}: {sentence}"
            score = length_density(score_sentence(sentence, f.role), line)
            carried = enumerate(summaries[:cycle], start=1)
            last = max((n for n, (t, _) in carried if fact_present(f, [], t)), default=0)
            report.losses.append(Loss(seed, f.kind, sentence, round(score, 2), last))
    report.facts = dict(facts_seen)
    return report


def render(report: LossReport, examples: int = 8) -> str:
    """The report as markdown: losses by kind, then the filler kept, best first."""
    by_kind: dict[str, list[Loss]] = defaultdict(list)
    for loss in report.losses:
        by_kind[loss.kind].append(loss)
    filler = sorted(report.filler, reverse=True)
    fill_scores = [s for s, _ in filler]
    median = statistics.median(fill_scores) if fill_scores else 0.0
    out = [
        f"### Facts lost by cycle {report.cycle}",
        "",
        "| kind | facts | lost | lost, mean score | lost below the kept filler's median |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind, total in sorted(report.facts.items()):
        lost = by_kind.get(kind, [])
        mean = statistics.fmean(x.score for x in lost) if lost else 0.0
        below = sum(1 for x in lost if x.score < median)
        out.append(f"| {kind} | {total} | {len(lost)} | {mean:.2f} | {below} |")
    out += [
        "",
        f"Filler lines in the summaries at cycle {report.cycle}: {len(filler)}, "
        f"median score {median:.2f}.",
        "",
        "| score | filler line kept |",
        "|---:|---|",
        *(f"| {s:.2f} | {line[:120]} |" for s, line in filler[:examples]),
        "",
        "| score | last carried | lost fact |",
        "|---:|---:|---|",
        *(
            f"| {x.score:.2f} | {x.last_carried} | {x.sentence[:120]} |"
            for x in sorted(report.losses, key=lambda x: -x.score)[:examples]
        ),
    ]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.runners.fact_loss", description=__doc__)
    parser.add_argument("--family", default="realistic", choices=sorted(FAMILIES))
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--cycle", type=int, default=10)
    parser.add_argument("--examples", type=int, default=8)
    args = parser.parse_args(argv)
    report = analyse(args.family, range(args.seeds), args.cycle)
    print(render(report, args.examples), end="")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
