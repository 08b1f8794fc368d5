"""``summem replay`` on long transcripts (#30): the file streamed, the outputs bounded.

``STREAM_BYTES`` and the chunk sizes are lowered so that small files take the streamed path;
the results must be those of the whole-file path (same messages, same errors, same indexes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from summem.cli import replay as replay_module
from summem.cli import transcript as transcript_module
from summem.cli.common import CliError
from summem.cli.transcript import read_transcript
from tests.cli.test_app import SMALL, run, transcript


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file streamed, checked three messages at a time, read 64 characters at a time."""
    monkeypatch.setattr(transcript_module, "STREAM_BYTES", 1)
    monkeypatch.setattr(transcript_module, "_CHUNK", 3)
    monkeypatch.setattr(transcript_module, "_READ", 64)


def jsonl(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in items), encoding="utf-8")
    return path


def as_dicts(messages: Any) -> list[dict[str, Any]]:
    return [m.to_openai() for m in messages]


@pytest.mark.usefixtures("streamed")
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_a_large_file_is_streamed_and_reads_as_the_whole_file(tmp_path: Path, fmt: str) -> None:
    items = transcript(12)
    path = tmp_path / f"chat.{fmt}"
    if fmt == "jsonl":
        jsonl(path, items)
    else:
        path.write_text(json.dumps(items, indent=1), encoding="utf-8")
    data = read_transcript(path)
    assert (data.streamed, data.format, data.count) == (True, fmt, len(items))
    assert as_dicts(data.stream()) == items
    assert as_dicts(data.stream()) == items  # read again from the file, as the replay does


@pytest.mark.usefixtures("streamed")
def test_a_problem_in_a_later_chunk_names_its_index(tmp_path: Path) -> None:
    items = transcript(4)
    stray = {"role": "tool", "tool_call_id": "call_zz", "content": "{}"}
    items.insert(8, stray)
    with pytest.raises(CliError, match=r"message 8, field 'tool_call_id'.*call_zz"):
        read_transcript(jsonl(tmp_path / "bad.jsonl", items))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(CliError, match=r"message 8, field 'tool_call_id'.*call_zz"):
        read_transcript(path)


@pytest.mark.usefixtures("streamed")
def test_a_tool_call_answered_in_the_next_chunk_is_fine(tmp_path: Path) -> None:
    items = transcript(6)  # call_1's result follows its call across a chunk boundary
    starts = [i for i, m in enumerate(items) if m.get("tool_calls")]
    assert starts and starts[0] % 3 == 2  # the call ends one chunk, its result starts the next
    assert read_transcript(jsonl(tmp_path / "ok.jsonl", items)).count == len(items)


@pytest.mark.usefixtures("streamed")
def test_an_id_given_again_for_other_content_is_refused_across_chunks(tmp_path: Path) -> None:
    def exported(i: int, text: str, ident: str) -> dict[str, Any]:
        return {"id": ident, "message": {"role": "user", "content": text}}

    same = [exported(i, f"m{i}", f"m_{i}") for i in range(7)] + [exported(0, "m0", "m_0")]
    assert read_transcript(jsonl(tmp_path / "same.jsonl", same)).count == 8
    other = [*same[:7], exported(0, "changed", "m_0")]
    with pytest.raises(CliError, match=r"message 7, field 'id'.*'m_0' is already stored"):
        read_transcript(jsonl(tmp_path / "other.jsonl", other))


@pytest.mark.usefixtures("streamed")
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('[{"role": "user", "content": "a"} {"role": "user"}]', "expected ',' or ']'"),
        ('[{"role": "user", "content": "a"}] [', "extra data after the list"),
        ('[{"role": "user", "content": "a"}, 3]', "message 1: expected a message object"),
        ('[{"role": "user", "content": "a"}, {"role": "user", "content": ', "not valid JSON"),
        ('{"role": "user", "content": "a"}\n{"role": ', "line 2: not valid JSON"),
        ('{"role": "user", "content": "a"}\n[1]\n', "line 2: expected a message object"),
    ],
)
def test_a_broken_streamed_file_is_one_clear_error(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CliError, match=reason) as err:
        read_transcript(path)
    assert str(path) in str(err.value)


def test_a_long_replay_keeps_its_report_and_files_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcript_module, "STREAM_BYTES", 1)
    monkeypatch.setattr(replay_module, "KEPT_REDUCTIONS", 3)
    source = jsonl(tmp_path / "long.jsonl", transcript(160))
    config = tmp_path / "summem.yaml"
    config.write_text("summary:\n  keep_summaries: 2\n", encoding="utf-8")
    out = tmp_path / "out"
    common: list[str | Path] = [*SMALL, "--config", config, "--out", out]
    doc = json.loads(run("replay", source, *common, "--json").stdout)
    total = doc["totals"]["reductions"]
    assert total > 6
    assert len(doc["reductions"]) == 6 and doc["reductions_omitted"] == total - 6
    turns = [r["turn"] for r in doc["reductions"]]
    assert turns == sorted(turns) and turns[-1] > turns[2] + total - 6
    lines = (out / "summaries.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == total and all(r["turn"] is not None for r in records)
    whole = [r for r in records if r["message"]["content"]]
    assert len(whole) == 2 and records[-2:] == whole
    assert all("text_dropped" in r["provenance"]["extra"] for r in records[:-2])

    text = run("replay", source, *common).stdout
    assert f"{total - 6:,} more" in text  # one row for the reductions left out
    assert sum("extractive" in line for line in text.splitlines()) == 6  # 3 first, 3 last
    assert f"last summary (of {total})" in text

    shown = run(
        "sessions",
        "show",
        "replay-long",
        "--store",
        f"sqlite:///{out / 'summem.db'}",
        "--summaries",
    ).stdout
    assert shown.count("(text dropped") == total - 2
    assert shown.count(f"of {total}") == total  # every entry listed, with its provenance
    assert shown.count("covers history[:") == total and " (0 new in this summary)" not in shown
