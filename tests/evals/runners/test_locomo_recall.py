"""Recall quality on LoCoMo-shaped data: the question finds the evicted evidence turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.runners.locomo_recall import main, recall_scores, recall_table
from tests.evals.baselines.test_baselines import CONV


def test_the_question_finds_the_evicted_evidence() -> None:
    # the view keeps the last two turns; "Rex" (D1:1) and "Oslo" (D1:3) were evicted
    verbatim = frozenset({"D2:2", "D2:3"})
    scores = recall_scores(CONV, verbatim, view_text="Cool\\nThanks a lot")
    q1 = scores[0]  # evidence D1:1 ("I adopted a dog named Rex"), the question is "?"
    assert q1.evicted_evidence == 1 and q1.found_at[10] == 0  # "?" finds nothing
    rows = {r["group"]: r for r in recall_table(scores)}
    assert rows["all"]["items"] == 4
    assert rows["all"]["answer in view"] == 0.0


def test_a_real_question_reaches_its_answer() -> None:
    from dataclasses import replace

    conv = replace(
        CONV, qa=tuple(replace(q, question="What is the name of Ann's dog?") for q in CONV.qa[:1])
    )
    (score,) = recall_scores(conv, frozenset({"D2:2", "D2:3"}), view_text="Cool")
    assert score.found_at[1] == 1  # D1:1 is the top result
    assert score.answer_in_view is False and score.answer_in_reach is True


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_the_store_index_reaches_the_same_answer(kind: str) -> None:
    from dataclasses import replace

    from evals.runners.locomo_recall import searcher

    # FTS5's IDF gives no weight to a word in half the file's messages or more ("Ann" here),
    # so the question names something rarer, as real ones do
    question = "Which dog has Ann adopted?"
    conv = replace(CONV, qa=tuple(replace(q, question=question) for q in CONV.qa[:1]))
    with searcher(kind) as search_in:
        (score,) = recall_scores(conv, frozenset({"D2:2", "D2:3"}), "Cool", search_in(conv))
        again = recall_scores(CONV, frozenset({"D2:2", "D2:3"}), "Cool", search_in(CONV))
    assert score.found_at[1] == 1 and score.answer_in_reach is True
    assert again[0].found_at[10] == 0  # "?" has no words: nothing, on either index


def test_command_on_the_dataset(locomo_path: Path, tmp_path: Path) -> None:
    args = [str(locomo_path), "--conversations", "1", "--budget", "4000", "--out", str(tmp_path)]
    assert main([*args, "--no-progress", "--index", "sqlite"]) == 0
    table = (tmp_path / "locomo-recall.md").read_text()
    assert "sqlite index" in table
    assert "| group | items | recall@1 | recall@5 | recall@10 | answer in view |" in table
    assert (tmp_path / "locomo-recall.json").is_file()


def test_bad_dataset_path_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evals.runners.cli import run_cli

    assert run_cli(main, [str(tmp_path / "missing.json"), "--out", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "missing.json" in err and "Traceback" not in err
