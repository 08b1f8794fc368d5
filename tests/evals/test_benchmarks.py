"""`python -m benchmarks` runs every benchmark; a tiny run proves the entry point works."""

from __future__ import annotations

import gc
import sys

import pytest

from benchmarks import bench_hotpath, bench_tables, bench_templates, bench_text_tables
from benchmarks.__main__ import main


def test_one_command_runs_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "--sizes", "300", "--skip-latency"]) == 0
    out = capsys.readouterr().out
    assert "== reducers: python benchmarks/bench_reducers.py --sizes 300" in out
    assert "== memory: python benchmarks/bench_memory.py --sizes 300 --latency-turns 300" in out
    assert "summarization" in out and "sqlite" in out
    assert "Part 2" not in out  # --skip-latency reached bench_memory
    assert "== extractive: python benchmarks/bench_extractive.py --sizes 300 --repeat 1" in out
    assert "summarize (us/msg)" in out
    assert "== templates: python benchmarks/bench_templates.py --sizes 300 --repeat 1" in out
    assert "== tables: python benchmarks/bench_tables.py --sizes 300" in out
    assert "== text_tables: python benchmarks/bench_text_tables.py --sizes 300 --repeat 1" in out
    assert "== stores: python benchmarks/bench_stores.py --sizes 300 --turns 200" in out
    assert "Stores 2" in out and "Stores 3" not in out  # --skip-latency skips the throughput
    assert "== hotpath: python benchmarks/bench_hotpath.py --sizes 300" in out
    assert "Part 0" not in out  # --skip-latency skips the fresh-interpreter runs too
    assert "exact-token" not in out  # one size: no scaling figure
    assert "== recall_index: python benchmarks/bench_recall_index.py --sizes 300" in out
    assert "Recall index 2" in out and "us/message indexed" in out
    for unit in ("exact", "approx", "messages"):
        assert f"\n{unit} " in out


def test_hotpath_reports_ratios_and_background_latency(capsys: pytest.CaptureFixture[str]) -> None:
    bench_hotpath.main(["--sizes", "120,240", "--latency-turns", "30", "--slow-ms", "2"])
    out = capsys.readouterr().out
    assert "from summem import Memory, SummarizationReducer" in out and "peak RSS" in out
    assert "exact-token turn scaling 240/120" in out
    assert "reduction turns" in out and "background/blocking summarizer calls" in out
    assert ("cache bytecode in a temporary folder" in out) == sys.dont_write_bytecode


def test_the_cached_bytecode_row_writes_bytecode_to_its_own_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert bench_hotpath._cached_bytecode_env("/tmp/x") is None  # the rows had it already
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = bench_hotpath._cached_bytecode_env("/tmp/x")
    assert env is not None
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPYCACHEPREFIX"] == "/tmp/x"


def test_the_template_count_reports_its_scaling(capsys: pytest.CaptureFixture[str]) -> None:
    bench_templates.main(["--sizes", "60,120", "--repeat", "1"])
    out = capsys.readouterr().out
    for kind in ("plain", "update", "mixed"):
        assert f"{kind} per-line cost scaling 120/60: " in out


def test_the_table_spans_report_their_scaling(capsys: pytest.CaptureFixture[str]) -> None:
    bench_tables.main(["--sizes", "60,120"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["messages", "tables", "summarize", "(us/msg)", "scaling"]
    assert len(lines) == 3 and lines[1].split()[-1] == "1.00"
    assert int(lines[2].split()[1]) > int(lines[1].split()[1]) > 0  # the span has tables


def test_the_text_table_reads_report_their_ratio_to_the_parsers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_text_tables.main(["--sizes", "10,70", "--repeat", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["shape", "rows", "KB", "read"]
    rows = {(line.split()[0], int(line.split()[1])): line.split() for line in lines[1:]}
    assert set(rows) == {(shape, n) for shape in bench_text_tables.SHAPES for n in (10, 70)}
    assert all(float(r[-1]) > 0 for r in rows.values())
    # what each shape is read as: columns one space apart up to the row bound, prose never
    assert rows["listing", 10][3] == "yes" and rows["listing", 70][3] == "no"
    assert rows["notes", 10][3] == "yes"
    assert rows["soup", 10][3] == rows["prose", 10][3] == rows["prose", 70][3] == "no"
    assert rows["capitals", 10][3] == rows["numbers", 10][3] == "no"
    assert rows["markdown", 70][3] == "yes"


def test_only_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--only", "reducers", "--sizes", "200"]) == 0
    out = capsys.readouterr().out
    assert "== reducers" in out and "== memory" not in out


def test_the_gc_pauses_of_a_turn_are_found_in_its_window() -> None:
    pauses = bench_hotpath.Pauses()
    gc.callbacks.append(pauses)
    try:
        t0 = bench_hotpath.CLOCK()
        gc.collect()
        t1 = bench_hotpath.CLOCK()
    finally:
        gc.callbacks.remove(pauses)
    assert 0 < pauses.within(t0, t1) <= t1 - t0
    assert pauses.within(t1 + 1, t1 + 2) == 0
    delay = bench_hotpath._run_delay_ns()
    assert delay is None or delay >= 0


def test_profile_turn_times_each_step_and_the_tokenizer(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import profile_turn

    profile_turn.main(["--unit", "messages", "--turns", "200"])
    profile_turn.main(["--tokenizer", "--turns", "200"])
    out = capsys.readouterr().out
    for step in profile_turn.STEPS:
        assert step in out
    assert "messages: median turn" in out and "encode calls a message" in out


def test_probe_background_reports_its_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks import probe_background

    probe_background.main(["--runs", "1", "--turns", "30", "--slow-ms", "1"])
    out = capsys.readouterr().out
    assert "objects the collector tracks now" in out and "generation-2 collections" in out
