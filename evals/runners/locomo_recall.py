"""Recall quality on LoCoMo: can the question itself find what the view dropped?

    python -m evals.runners.locomo_recall DATA/locomo10.json --audit DATA/audit-errors.json \
        --budget 4000

Each conversation is replayed through the engine (extractive summarizer) to its end, as in
:mod:`evals.runners.locomo`. Then, for every question, its text is the query of
``memory.recall`` over the evicted history (:class:`summem.recall.RecallIndex`, BM25, or with
``--index sqlite`` the SQLite store's FTS5 index), and:

- **recall@1 / @5 / @10**: of the question's evidence turns that were evicted, the share
  found in the top 1, 5 or 10 results (items with no evicted evidence are left out);
- **answer in reach**: the gold answer (normalised) is in the final view, or in the text of
  the top 5 results; beside **answer in view** alone. Adversarial items have no answer.

Per category and overall. Writes ``locomo-recall.json`` and ``locomo-recall.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.engine.config import EngineConfig
from evals.engine.locomo import run_engine
from evals.families.locomo import CATEGORY_NAMES, Conversation, load_locomo
from evals.runners.report import markdown_table, report_metadata, write_json_report
from evals.text import contains_normalized, normalize_text
from summem.recall import RecallIndex
from summem.stores import SQLiteStore
from summem.tokens.base import resolve_counter

__all__ = ["RecallScore", "main", "recall_scores", "recall_table"]

CUTOFFS = (1, 5, 10)
REACH = 5


@dataclass(frozen=True)
class RecallScore:
    """One question against one conversation's final view and evicted history."""

    category: int
    evicted_evidence: int
    found_at: dict[int, int]
    answer_in_view: bool | None
    answer_in_reach: bool | None


Search = Callable[[str, int, int], list[Any]]
"""``search(query, k, stop)``: hits with ``position`` and ``message``, best first."""

INDEXES = ("memory", "sqlite")


@contextlib.contextmanager
def searcher(kind: str) -> Iterator[Callable[[Conversation], Search]]:
    """Per conversation, a search over its history: the in-process index, or a store's own.

    ``memory`` is :class:`summem.recall.RecallIndex` (what Memory uses on the memory and
    Redis stores); ``sqlite`` writes the history into a throwaway :class:`SQLiteStore` and
    searches its FTS5 index (``SQLiteStore.search``, what Memory uses there).
    """
    if kind == "memory":

        def in_process(conv: Conversation) -> Search:
            index = RecallIndex()
            index.extend(conv.message_objects())
            return lambda query, k, stop: list(index.search(query, k=k, below=stop))

        yield in_process
        return
    with tempfile.TemporaryDirectory() as tmp, SQLiteStore(Path(tmp) / "recall.db") as store:
        count = itertools.count()

        def in_store(conv: Conversation) -> Search:
            sid = f"conv-{next(count)}"
            store.create(sid, history=conv.message_objects())
            return lambda query, k, stop: list(store.search(sid, query, k=k, stop=stop))

        yield in_store


def recall_scores(
    conv: Conversation,
    verbatim: frozenset[str],
    view_text: str,
    search: Search | None = None,
) -> list[RecallScore]:
    """Score every question of ``conv``: ``verbatim`` are the turns the view still holds.

    ``search`` is the index to ask (the in-process one by default, see :func:`searcher`).
    """
    k = len(conv.turns) - len(verbatim)  # the view keeps a tail: turns[k:]
    if search is None:
        index = RecallIndex()
        index.extend(conv.message_objects())
        search = lambda query, n, stop: list(index.search(query, k=n, below=stop))  # noqa: E731
    seen = normalize_text(view_text)
    out: list[RecallScore] = []
    for q in conv.qa:
        hits = search(q.question, max(CUTOFFS), k)
        found = [conv.turns[h.position].dia_id for h in hits]
        evicted = [e for e in q.evidence if e not in verbatim]
        at = {n: sum(1 for e in evicted if e in found[:n]) for n in CUTOFFS}
        answer = q.answer if q.category != 5 and q.answer and normalize_text(q.answer) else None
        in_view = contains_normalized(seen, answer) if answer else None
        reach_text = normalize_text(" ".join(h.message.text for h in hits[:REACH]))
        in_reach = (bool(in_view) or contains_normalized(reach_text, answer)) if answer else None
        out.append(RecallScore(q.category, len(evicted), at, in_view, in_reach))
    return out


def _row(label: str, scores: Sequence[RecallScore]) -> dict[str, Any]:
    with_evicted = [s for s in scores if s.evicted_evidence]
    answered = [s for s in scores if s.answer_in_reach is not None]
    row: dict[str, Any] = {"group": label, "items": len(scores)}
    for n in CUTOFFS:
        row[f"recall@{n}"] = (
            sum(s.found_at[n] / s.evicted_evidence for s in with_evicted) / len(with_evicted)
            if with_evicted
            else None
        )
    row["answer in view"] = (
        sum(bool(s.answer_in_view) for s in answered) / len(answered) if answered else None
    )
    row["answer in reach"] = (
        sum(bool(s.answer_in_reach) for s in answered) / len(answered) if answered else None
    )
    return row


def recall_table(scores: Sequence[RecallScore]) -> list[dict[str, Any]]:
    """One row per category, then ``all``."""
    rows = [
        _row(name, [s for s in scores if s.category == number])
        for number, name in CATEGORY_NAMES.items()
    ]
    return [*rows, _row("all", scores)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.runners.locomo_recall", description=__doc__
    )
    parser.add_argument("dataset", type=Path, help="path to locomo10.json (not shipped here)")
    parser.add_argument("--audit", type=Path, help="locomo-audit's audit-errors.json")
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--summary-budget", type=int, help="default: a quarter of the budget")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--out", type=Path, default=Path("out/locomo"))
    parser.add_argument(
        "--index",
        choices=INDEXES,
        default="memory",
        help="the in-process BM25 index (memory, Redis) or the SQLite store's FTS5 index",
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    conversations = load_locomo(args.dataset, audit_path=args.audit)[: args.conversations]
    counter = resolve_counter(model="gpt-4o")
    config = EngineConfig(
        threshold_tokens=args.budget,
        target_tokens=args.budget * 3 // 4,
        summary_max_tokens=args.summary_budget or args.budget // 4,
    )
    run = run_engine(
        conversations, config, counter=counter, progress=False if args.no_progress else None
    )
    with searcher(args.index) as search_in:
        scores = [
            s
            for conv, view in zip(conversations, run.views, strict=True)
            for s in recall_scores(conv, view.verbatim, view.text, search_in(conv))
        ]
    rows = recall_table(scores)
    meta = report_metadata(
        eval="locomo-recall", budget=args.budget, index=args.index, config=config.to_dict()
    )
    write_json_report(args.out / "locomo-recall.json", {"meta": meta, "rows": rows})
    text = (
        f"Recall over the evicted history, the question as the query ({config.label}, "
        f"{args.index} index):\n\n" + markdown_table(rows, floatfmt=".3f")
    )
    (args.out / "locomo-recall.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    from evals.runners.cli import run_cli

    raise SystemExit(run_cli(main))
