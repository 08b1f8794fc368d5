"""What each memory keeps of LoCoMo at one token budget: summem's engine beside two baselines.

    python -m evals.runners.locomo DATA/locomo10.json --audit DATA/audit-errors.json --budget 4000
    python -m evals.runners.locomo DATA --budget 4000 --summarizer llm:gpt-4o-mini \
        --record rec.jsonl
    python -m evals.runners.locomo DATA --budget 4000 --summarizer llm:gpt-4o-mini \
        --replay rec.jsonl

Methods (``--summarizer``, repeatable; default extractive, observations and window):

- ``extractive`` / ``llm:MODEL``: each conversation replayed through the engine one message at
  a time, threshold ``--budget``, target ``--target``, summary budget ``--summary-budget``;
- ``observations``: LoCoMo's LLM-written observation facts as the summary (at most
  ``--summary-budget`` tokens), recent turns in the rest of the budget;
- ``window``: the most recent turns that fit the budget;
- ``full``: the whole conversation, no budget (the ceiling, for ``--qa``).

For each QA item, at the end of its conversation: are its evidence turns carried by the view
(verbatim, or by the summary's provenance; an LLM summary has none, so it is judged by answer
containment and, with ``--qa``, by the LLM judge), and is its gold answer's text in the view,
beside the full-text ceiling. Engine runs add their cost and invariant checks. With ``--qa``,
a model answers categories 1-4 from each view and an LLM judge grades the replies; every reply
is recorded with ``--record`` and replayed offline with ``--replay``.

The dataset path is an argument because LoCoMo is CC BY-NC 4.0 and never lives in this
repository (recordings of LoCoMo runs contain its text: keep them out too). Writes
``locomo.json`` and ``locomo.md`` (and ``locomo.png`` with several budgets).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.baselines.observations import observation_baseline, observations_even
from evals.baselines.session_summaries import session_summaries
from evals.baselines.tfidf import tfidf_baseline
from evals.baselines.window import window_baseline
from evals.engine.config import EngineConfig, add_llm_arguments, open_client
from evals.engine.locomo import run_engine, view_stats
from evals.engine.replay import efficiency
from evals.families.locomo import CATEGORY_NAMES, Conversation, load_locomo, locomo_file
from evals.metrics.evidence import CarriedView, aggregate, carried_view, score_items
from evals.metrics.misses import miss_breakdown
from evals.metrics.qa import answer_and_judge, judge_accuracy, prompt_refs
from evals.runners.report import markdown_table, plot_pareto, report_metadata, write_json_report
from summem.clients.base import LLMClient
from summem.tokens.base import TokenCounter, resolve_counter

__all__ = [
    "baseline_rows",
    "main",
    "method_rows",
    "placement_table",
    "score_views",
    "wording_table",
]

MISS_REFERENCE = "observations-even"
"""The baseline the engine's misses are counted against (the best at most budgets)."""
DEFAULT_METHODS = (
    "extractive",
    "observations",
    "observations-even",
    "session-summaries",
    "tfidf",
    "window",
)
BASELINES = ("window", "observations", "observations-even", "session-summaries", "tfidf", "full")
GROUPS = (*CATEGORY_NAMES.values(), "all")
SIDES = ("user side", "assistant side")
EFFICIENCY_COLUMNS = (
    "cycles",
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


def score_views(
    conversations: Sequence[Conversation], views: Sequence[CarriedView]
) -> tuple[list[Any], dict[str, float]]:
    """Score one view per conversation; also return view-size statistics."""
    scores = [
        s for conv, view in zip(conversations, views, strict=True) for s in score_items(conv, view)
    ]
    return scores, view_stats(views)


def method_rows(
    method: str,
    conversations: Sequence[Conversation],
    views: Sequence[CarriedView],
    *,
    budget_tokens: int,
    summary_budget: int,
    extra: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One row per group (category, ``all``, ``all-but-adversarial``) for one method."""
    scores, stats = score_views(conversations, views)
    return [
        {
            "method": method,
            "budget_tokens": budget_tokens,
            "summary_budget": summary_budget,
            "group": group,
            **score.as_dict(),
            **stats,
            **(extra or {}),
        }
        for group, score in aggregate(scores).items()
    ]


def baseline_views(
    conversations: Sequence[Conversation],
    method: str,
    *,
    budget_tokens: int,
    summary_budget: int,
    counter: TokenCounter,
) -> list[CarriedView]:
    """The final views of a baseline (one of :data:`BASELINES`)."""
    if method == "window":
        return [window_baseline(c.turns, budget_tokens, counter) for c in conversations]
    build = {
        "observations": observation_baseline,
        "observations-even": observations_even,
        "session-summaries": session_summaries,
        "tfidf": tfidf_baseline,
    }.get(method)
    if build is not None:
        return [build(c, budget_tokens, summary_budget, counter) for c in conversations]
    if method == "full":
        return [carried_view(c.turns, 0, counter) for c in conversations]
    raise ValueError(f"unknown baseline {method!r}")


def baseline_rows(
    conversations: Sequence[Conversation],
    *,
    budget_tokens: int,
    summary_budget: int,
    counter: TokenCounter,
) -> list[dict[str, Any]]:
    """Rows of the window and observation baselines at one budget."""
    if not 0 <= summary_budget < budget_tokens:
        raise ValueError(f"need 0 <= summary_budget < budget_tokens, got {summary_budget}")
    rows: list[dict[str, Any]] = []
    for method in ("window", "observations", "observations-even", "session-summaries", "tfidf"):
        views = baseline_views(
            conversations,
            method,
            budget_tokens=budget_tokens,
            summary_budget=summary_budget,
            counter=counter,
        )
        rows += method_rows(
            method, conversations, views, budget_tokens=budget_tokens, summary_budget=summary_budget
        )
    return rows


def _judged(
    conversations: Sequence[Conversation],
    views: Sequence[CarriedView],
    args: argparse.Namespace,
    client: LLMClient,
) -> dict[str, float | None]:
    judgements = [
        j
        for conv, view in zip(conversations, views, strict=True)
        for j in answer_and_judge(
            conv,
            view.messages,
            client=client,
            answer_model=args.answer_model,
            judge_model=args.judge_model,
            limit=args.qa_limit,
            max_tokens=args.max_tokens or 256,
        )
    ]
    return judge_accuracy(judgements)


def run_methods(
    conversations: Sequence[Conversation],
    args: argparse.Namespace,
    *,
    budget: int,
    counter: TokenCounter,
    client: LLMClient | None,
    misses: list[dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """Rows for every method at ``budget``, the engine runs' cost rows, and any violations.

    When ``misses`` is given and the even observations are among the methods, each engine
    run's items missed against them, by kind (:mod:`evals.metrics.misses`), are appended to it.
    """
    rows: list[dict[str, Any]] = []
    engine_views: dict[str, list[CarriedView]] = {}
    reference: list[CarriedView] | None = None
    costs: list[dict[str, Any]] = []
    violations: list[str] = []
    target = args.target or budget * 3 // 4
    summary_budget = args.summary_budget or budget // 4
    for method in args.summarizer or DEFAULT_METHODS:
        extra: dict[str, Any] = {}
        if method in BASELINES:
            views = baseline_views(
                conversations,
                method,
                budget_tokens=budget,
                summary_budget=summary_budget,
                counter=counter,
            )
            extra["provenance"] = method not in ("window", "session-summaries")
            if method == MISS_REFERENCE:
                reference = views
        else:
            config = EngineConfig(
                threshold_tokens=budget,
                target_tokens=target,
                summary_max_tokens=summary_budget,
                summarizer=method,
                prompt=args.prompt,
                soft_threshold_tokens=args.soft_threshold,
                max_tokens=args.max_tokens,
                summary_fill=True if args.summary_fill else None,
            )
            run = run_engine(
                conversations,
                config,
                counter=counter,
                client=client,
                timestamps=args.timestamps,
                progress=False if args.no_progress else None,
                through_memory=False if args.bare_reducer else None,
            )
            views = engine_views[method] = run.views
            cost = efficiency(run.traces)
            ends = {
                "through_memory": run.through_memory,
                "memory_paused": run.paused,
                "memory_summaryless": run.summaryless,
                "memory_differs": run.differ,
            }
            extra = {"provenance": run.provenance, "config": config.label, **cost, **ends}
            fragments = run.fragments.as_dict()
            costs.append(
                {
                    "method": method,
                    "budget_tokens": budget,
                    **cost,
                    **ends,
                    "summary_lines": fragments["lines"],
                    "short_lines": fragments["short"],
                    "dependent_fragments": fragments["dependent"],
                    "fragment_reasons": fragments["reasons"],
                }
            )
            violations += [f"{method}: {v}" for t in run.traces for v in t.violations]
        if args.qa:
            assert client is not None
            judged = _judged(conversations, views, args, client)
            extra.update({f"judge_{k}": v for k, v in judged.items()})
        rows += method_rows(
            method,
            conversations,
            views,
            budget_tokens=budget,
            summary_budget=summary_budget,
            extra=extra,
        )
    if misses is not None and reference is not None and engine_views:
        window = [window_baseline(c.turns, budget, counter) for c in conversations]
        for method, views in engine_views.items():
            breakdown = miss_breakdown(
                conversations,
                views,
                reference,
                window,
                method=method,
                reference_name=MISS_REFERENCE,
                budget_tokens=budget,
            )
            misses.append(breakdown.as_dict())
    return rows, costs, violations


def _keyed(rows: Sequence[dict[str, Any]]) -> list[tuple[tuple[str, int], dict[str, Any]]]:
    out = []
    for key in dict.fromkeys((r["method"], r["budget_tokens"]) for r in rows):
        out.append((key, {r["group"]: r for r in rows if (r["method"], r["budget_tokens"]) == key}))
    return out


def answer_table(rows: Sequence[dict[str, Any]]) -> str:
    """The headline: answer in view per category and per speaker side, beside the ceiling."""
    table: list[dict[str, Any]] = []
    for (method, budget), by_group in _keyed(rows):
        overall = by_group["all"]
        row: dict[str, Any] = {"method": method, "budget": budget}
        row["summary budget"] = overall["summary_budget"]
        row["view tokens"] = overall["view_tokens_mean"]
        row.update({g: by_group[g]["answer_in_view"] for g in GROUPS if g != "adversarial"})
        row.update({s: by_group[s]["answer_in_view"] for s in SIDES if s in by_group})
        row["ceiling"] = overall["answer_ceiling"]
        if "judge_all" in overall:
            row.update({f"judge {g}": overall.get(f"judge_{g}") for g in (*GROUPS[:4], "all")})
        table.append(row)
    return markdown_table(table, floatfmt=".3f")


def evidence_table(rows: Sequence[dict[str, Any]]) -> str:
    """Evidence retention counted three ways, overall and per speaker side."""
    table: list[dict[str, Any]] = []
    for (method, budget), by_group in _keyed(rows):
        overall = by_group["all"]
        row: dict[str, Any] = {"method": method, "budget": budget}
        row["whole turns"] = overall["evidence_whole"]
        row["answer-bearing part"] = overall["evidence_answer"]
        row["cited (may have lost the answer)"] = overall["evidence_all"]
        row["verbatim"] = overall["evidence_verbatim"]
        row.update({f"answer-bearing, {s}": by_group[s]["evidence_answer"] for s in SIDES})
        table.append(row)
    return markdown_table(table, floatfmt=".3f")


def placement_table(rows: Sequence[dict[str, Any]]) -> str:
    """Where each view's answers sit: only in the summary, only in the kept turns, in both.

    The three shares add up to the answer in view (less an answer split across the two,
    rare). Read beside the view and summary sizes, it says whether a method loses in its
    summary or in the turns it keeps (``docs-notes/budget-use.md``, session 14).
    """
    return _overall_table(
        rows,
        {
            "view tokens": "view_tokens_mean",
            "summary tokens": "summary_tokens_mean",
            "all": "answer_in_view",
            "summary only": "answer_summary_only",
            "turns only": "answer_turns_only",
            "both": "answer_both",
        },
    )


def wording_table(rows: Sequence[dict[str, Any]]) -> str:
    """Answer in view by how the gold answer is worded against the evidence.

    ``literal``: items whose answer some evidence turn holds word for word (a summary that
    keeps the speakers' sentences can hold them); ``reworded``: the rest (a third-person or
    merged paraphrase: "her faith" for the speaker's "my faith"), which a view holds only by
    a rewrite in the same words or by chance. ``pronouns folded``: the answer in view with
    personal pronouns folded on both sides (:func:`evals.text.person_neutral`), a diagnostic
    beside the headline, never instead of it (``docs-notes/locomo-half-budget.md``).
    """
    return _overall_table(
        rows,
        {
            "all": "answer_in_view",
            "literal items": "answer_literal_items",
            "literal": "answer_in_view_literal",
            "reworded": "answer_in_view_reworded",
            "pronouns folded": "answer_in_view_neutral",
        },
    )


def _overall_table(rows: Sequence[dict[str, Any]], columns: dict[str, str]) -> str:
    """One row per method and budget: ``column -> overall score`` (``None`` where absent)."""
    table = [
        {
            "method": method,
            "budget": budget,
            **{name: by_group["all"].get(key) for name, key in columns.items()},
        }
        for (method, budget), by_group in _keyed(rows)
    ]
    return markdown_table(table, floatfmt=".3f")


def render_markdown(
    rows: Sequence[dict[str, Any]],
    costs: Sequence[dict[str, Any]],
    misses: Sequence[dict[str, Any]] = (),
) -> str:
    """The report: answer in view, evidence retention, the engine runs' cost, their misses."""
    parts = [
        "Answer in view (share of QA items whose normalised gold answer the final view holds, "
        "summary included; adversarial items have none):\n",
        answer_table(rows),
        "\nEvidence retention (share of QA items whose every evidence turn the view keeps: "
        "whole; with its answer-bearing part; or only cited by a summary line, which may have "
        "lost the answer):\n",
        evidence_table(rows),
        "\nWhere the answers sit (share of QA items whose answer is only in the summary's text, "
        "only in the kept turns', or in both; mean view and summary tokens):\n",
        placement_table(rows),
        "\nHow the gold answer is worded (answer in view of the items whose answer an evidence "
        "turn holds word for word, and of the reworded rest; and with personal pronouns folded, "
        "a diagnostic):\n",
        wording_table(rows),
    ]
    if costs:
        cost_rows = [
            {
                "method": c["method"],
                "budget": c["budget_tokens"],
                **{k: c[k] for k in EFFICIENCY_COLUMNS},
                "scored": "Memory" if c.get("through_memory") else "reducer",
                "paused": c.get("memory_paused", 0),
                "no summary at the end": c.get("memory_summaryless", 0),
                "differs from reducer": c.get("memory_differs", 0),
            }
            for c in costs
        ]
        parts += [
            "\nEngine cost (per conversation token; see evals/README.md). The view scored is a "
            "Memory's (its loop guard included: conversations paused, ended without a summary, "
            "or whose view differs from the bare reducer's replay), unless `--bare-reducer`:\n",
            markdown_table(cost_rows),
        ]
        fragment_rows = [
            {
                "method": c["method"],
                "budget": c["budget_tokens"],
                "summary lines": c["summary_lines"],
                "under 8 words": c["short_lines"],
                "dependent on a dropped sentence": c["dependent_fragments"],
                **c["fragment_reasons"],
            }
            for c in costs
            if c.get("summary_lines")
        ]
        if fragment_rows:
            parts += [
                "\nFinal summaries' lines under 8 words that depend on a sentence the summary "
                "dropped (evals/metrics/fragments.py; summed over the conversations):\n",
                markdown_table(fragment_rows),
            ]
    if misses:
        parts += [
            f"\nItems whose answer the {MISS_REFERENCE} view holds and the engine's does not, by "
            "what became of their evidence (not carried at all; the turn holding the answer "
            "cited by the summary, which kept another part of it; that turn evicted while "
            "another evidence turn is carried; no evidence turn holding the answer's text), how "
            "many of them a window keeps, and the reverse (gained):\n",
            markdown_table([dict(m) for m in misses]),
        ]
    return "\n".join(parts)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m evals.runners.locomo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dataset", type=Path, help="path to locomo10.json (not shipped here)")
    parser.add_argument("--audit", type=Path, help="locomo-audit's audit-errors.json")
    parser.add_argument("--budget", type=int, action="append", help="view budget (tokens)")
    parser.add_argument("--target", type=int, help="engine target (default 3/4 of the budget)")
    parser.add_argument(
        "--summary-budget", type=int, help="summary tokens (default: a quarter of the budget)"
    )
    parser.add_argument("--soft-threshold", type=int, help="background reductions from here")
    parser.add_argument(
        "--summary-fill",
        action="store_true",
        help="the engine's summary grows past --summary-budget into the room the kept turns "
        "leave below the target (summary_fill=True; the view stays within the same budget)",
    )
    parser.add_argument(
        "--summarizer",
        action="append",
        help="extractive | observations | window | full | llm:MODEL (repeatable)",
    )
    parser.add_argument("--prompt", help="prompt name or YAML file for llm:MODEL")
    parser.add_argument(
        "--bare-reducer",
        action="store_true",
        help="score the bare reducer's replay, not the view a Memory (with its loop guard) "
        "ends with (the default for an offline summarizer)",
    )
    parser.add_argument("--timestamps", action="store_true", help="session dates as extras")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--model", default="gpt-4o", help="tokenizer to count with")
    parser.add_argument("--qa", action="store_true", help="answer and judge with an LLM")
    parser.add_argument("--answer-model", default="gpt-4o-mini")
    parser.add_argument("--judge-model", default="gpt-4o-mini")
    parser.add_argument("--qa-limit", type=int, help="questions per conversation, at most")
    add_llm_arguments(parser)
    parser.add_argument("--out", type=Path, default=Path("out/locomo"))
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    budgets = args.budget or [4000]
    methods = args.summarizer or list(DEFAULT_METHODS)
    needs_llm = args.qa or any(m.startswith("llm:") for m in methods)
    client = (
        open_client(record=args.record, replay=args.replay, base_url=args.base_url)
        if needs_llm
        else None
    )
    counter = resolve_counter(model=args.model)
    conversations = load_locomo(args.dataset, audit_path=args.audit)[: args.conversations]
    rows: list[dict[str, Any]] = []
    costs: list[dict[str, Any]] = []
    violations: list[str] = []
    misses: list[dict[str, Any]] = []
    for budget in budgets:
        r, c, v = run_methods(
            conversations, args, budget=budget, counter=counter, client=client, misses=misses
        )
        rows, costs, violations = rows + r, costs + c, violations + v
    meta = report_metadata(
        eval="locomo",
        dataset=locomo_file(args.dataset).name,
        dataset_sha256=hashlib.sha256(locomo_file(args.dataset).read_bytes()).hexdigest(),
        audit_applied=args.audit is not None,
        conversations=len(conversations),
        counter=counter.key,
        budgets=budgets,
        target=args.target,
        summary_budget=args.summary_budget,
        methods=methods,
        timestamps=args.timestamps,
        qa={"answer_model": args.answer_model, "judge_model": args.judge_model, **prompt_refs()}
        if args.qa
        else None,
        evidence_rule=(
            "headline: answer in view (normalised gold answer in the final view). Evidence: "
            "whole = every evidence turn's text in the view; answer-bearing = kept verbatim, or "
            "carried by the summary with the answer still in the view (a turn that does not "
            "hold the answer literally counts only whole); cited = kept verbatim or named by "
            "the summary's provenance (extractive, observations, tfidf), which may have lost "
            "the answer"
        ),
    )
    out: Path = args.out
    write_json_report(
        out / "locomo.json",
        {"meta": meta, "rows": rows, "costs": costs, "misses": misses, "violations": violations},
    )
    text = render_markdown(rows, costs, misses)
    (out / "locomo.md").write_text(text, encoding="utf-8")
    if len(budgets) > 1:
        overall = [
            dict(r, point=f"{r['method']}@{r['budget_tokens']}")
            for r in rows
            if r["group"] == "all"
        ]
        plot_pareto(
            overall,
            x="view_tokens_mean",
            y="answer_in_view",
            label="point",
            path=out / "locomo.png",
            title="LoCoMo answer in view vs view size",
        )
    sys.stdout.write(text)
    for line in violations[:20]:
        sys.stderr.write(f"invariant violated: {line}\n")
    return 1 if violations else 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
