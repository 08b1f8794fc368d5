"""``summem replay`` through CliRunner, with transcripts in tmp_path; the helpers the other
``test_cli_*`` files share (a transcript, ``run``, ``one_error_line``)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from summem.cli.app import cli
from summem.stores.sqlite import SQLiteStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "support-transcript.json"
SMALL = ["--threshold-tokens", "400", "--target-tokens", "250", "--summary-max-tokens", "120"]


def transcript(turns: int = 30) -> list[dict[str, Any]]:
    """A support conversation with a tool call group, about 25 tokens a message."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful support agent."}]
    for i in range(turns):
        out.append(
            {
                "role": "user",
                "content": f"Question {i}: my order BW-{1000 + i} is late, "
                f"it was due on day {i % 28 + 1} of March and I paid {20 + i} pounds.",
            }
        )
        if i == 3:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "lookup_order", "arguments": '{"order": "BW-1003"}'},
            }
            out.append({"role": "assistant", "content": None, "tool_calls": [call]})
            out.append({"role": "tool", "tool_call_id": "call_1", "content": '{"status": "late"}'})
        out.append(
            {
                "role": "assistant",
                "content": f"Sorry about order BW-{1000 + i}; I have "
                f"asked the courier and will refund {20 + i} pounds if it is not there.",
            }
        )
    return out


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(*args: str | Path, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def one_error_line(result: Result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    assert lines[0].startswith("Error: ")
    return lines[0]


# -- replay: formats and outputs ----------------------------------------------------------------


def test_replay_writes_the_view_and_every_summary_with_provenance(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    out = tmp_path / "out"
    result = run("replay", source, *SMALL, "--out", out)
    assert result.exit_code == 0, result.output
    assert "no model configured: using the offline extractive summarizer" in result.stderr
    assert "Reductions" in result.stdout and "Totals" in result.stdout
    assert "n/a (offline)" in result.stdout

    view = json.loads((out / "view.json").read_text())
    assert view[0] == {"role": "system", "content": "You are a helpful support agent."}
    assert view[1]["content"].startswith("Summary of the earlier conversation")
    assert view[-1] == transcript()[-1]  # the newest turn is always kept

    lines = (out / "summaries.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) >= 2
    assert records[-1]["message"] == view[1]  # the last summary is the one in the view
    for record in records:
        provenance = record["provenance"]
        assert provenance["summarizer"] == "extractive"
        assert provenance["covered_ids"] and provenance["tokens"] > 0
        assert isinstance(record["turn"], int)
    watermarks = [r["provenance"]["watermark"] for r in records]
    assert watermarks == sorted(watermarks)
    # The session is kept in a SQLite file under --out.
    with SQLiteStore(out / "summem.db") as store:
        assert store.list_sessions() == ["replay-chat"]
        assert len(store.history("replay-chat")) == len(transcript()) - 1


def test_the_files_written_are_named_on_one_line_however_long_their_paths(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    for depth in (1, 3, 7):  # lengths either side of a terminal's width
        out = tmp_path.joinpath(*[f"folder-{depth}-{i}" for i in range(depth)], "out")
        result = run("replay", source, *SMALL, "--out", out)
        assert result.exit_code == 0, result.output
        wrote = [line for line in result.stdout.splitlines() if line.startswith("wrote ")]
        assert wrote == [
            f"wrote {out / 'view.json'}, {out / 'summaries.jsonl'} and {out / 'settings.json'}"
        ], result.stdout


def test_replay_json_is_one_machine_readable_document(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", {"messages": transcript()})
    result = run("replay", source, *SMALL, "--store", f"sqlite:///{tmp_path / 'x.db'}", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    totals = doc["totals"]
    assert totals["messages"] == len(transcript())
    assert totals["reductions"] == len(doc["reductions"]) >= 2
    assert totals["summarizer_calls"] == 0  # offline
    assert totals["estimated_cost_usd"] is None
    assert totals["prompt_tokens"] < totals["full_context_prompt_tokens"]
    assert totals["compression"] > 1
    assert totals["model_calls"] == sum(m["role"] == "assistant" for m in transcript())
    first = doc["reductions"][0]
    assert first["size_before"] > 400 >= 250 >= first["size_after"]
    assert first["evicted"] > 0 and first["summarizer"] == "extractive"
    assert doc["budget"] == {
        "unit": "tokens",
        "threshold": 400,
        "target": 250,
        "summary_max_tokens": 120,
    }
    assert doc["files"] is None
    assert doc["notes"] == ["no model configured: using the offline extractive summarizer"]


def test_jsonl_and_json_forms_replay_alike(tmp_path: Path) -> None:
    messages = transcript(12)
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text("".join(json.dumps(m) + "\n\n" for m in messages))
    docs = []
    for i, source in enumerate(
        [
            jsonl,
            write_json(tmp_path / "a.json", messages),
            write_json(tmp_path / "b.json", {"messages": messages}),
        ]
    ):
        result = run(
            "replay", source, *SMALL, "--store", f"sqlite:///{tmp_path / f'{i}.db'}", "--json"
        )
        assert result.exit_code == 0, result.output
        docs.append(json.loads(result.stdout))
    assert [d["input"]["format"] for d in docs] == ["jsonl", "json", "json"]
    assert len({json.dumps(d["totals"]) for d in docs}) == 1


def test_quiet_prints_nothing(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(5))
    result = run("replay", source, "--out", tmp_path / "out", "--quiet")
    assert result.exit_code == 0
    assert result.output == ""
    assert (tmp_path / "out" / "view.json").exists()


def test_replaying_again_into_the_same_out_dir_replaces_the_session(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(5))
    for _ in range(2):
        assert run("replay", source, "--out", tmp_path / "out", "-q").exit_code == 0
    with SQLiteStore(tmp_path / "out" / "summem.db") as store:
        assert len(store.history("replay-chat")) == len(transcript(5)) - 1
    loud = run("replay", source, "--out", tmp_path / "out")  # and says so
    assert loud.exit_code == 0
    assert f"replaced session 'replay-chat' ({len(transcript(5)) - 1} messages)" in loud.output


def test_a_replay_beside_another_into_the_same_session_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another replay creates the session between the check and the claim: exactly one wins."""
    source = write_json(tmp_path / "chat.json", transcript(5))
    url = f"sqlite:///{tmp_path / 'race.db'}"
    exists = SQLiteStore.exists

    def the_other_replay_wins(self: SQLiteStore, session_id: str) -> bool:
        found = exists(self, session_id)
        if not found:
            SQLiteStore(self.path).create(session_id, history=[])
        return found

    monkeypatch.setattr(SQLiteStore, "exists", the_other_replay_wins)
    result = run("replay", source, "--store", url, "--session", "s1", "-q")
    assert result.exit_code == 2
    assert "created in" in one_error_line(result) and "by someone else" in one_error_line(result)
    monkeypatch.undo()
    with SQLiteStore(tmp_path / "race.db") as store:
        assert store.history("s1") == []  # the other replay's session, untouched


def test_a_plot_in_a_format_it_cannot_draw_is_refused_before_the_replay(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(5))
    result = run("replay", source, "--store", "memory://", "--plot", tmp_path / "v.txt")
    assert result.exit_code == 2
    assert "'--plot'" in result.output and ".png" in result.output


def test_listing_a_store_that_does_not_exist_says_so(tmp_path: Path) -> None:
    result = run("sessions", "list", "--store", f"sqlite:///{tmp_path / 'no' / 'x.db'}")
    assert result.exit_code == 0
    assert "there is no database there" in result.output
    assert not (tmp_path / "no").exists()


def test_an_existing_session_elsewhere_needs_overwrite(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(5))
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    assert run("replay", source, "--store", url, "--session", "s1", "-q").exit_code == 0
    again = run("replay", source, "--store", url, "--session", "s1", "-q")
    assert again.exit_code == 2
    assert "--overwrite" in one_error_line(again)
    assert (
        run("replay", source, "--store", url, "--session", "s1", "-q", "--overwrite").exit_code == 0
    )


def test_a_model_without_its_key_replays_offline_and_prices_the_prompts(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    args: list[str | Path] = [
        "replay",
        source,
        *SMALL,
        "--model",
        "gpt-4o-mini",
        "--out",
        tmp_path / "o",
    ]
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    assert "no API key for gpt-4o-mini (OPENAI_API_KEY not set)" in result.stderr
    doc = json.loads(result.stdout)
    cost = doc["totals"]["estimated_cost_usd"]
    assert 0 < cost["with_summem"] < cost["full_context"]
    assert doc["summarizer"] == "extractive"
    table = run(*args)
    assert "(at gpt-4o-mini prices)" in table.stdout


# -- replay: bad input is one line and exit code 2 -----------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[{"role": "user", "content": "hi"},', "not valid JSON: Expecting value (line 1"),
        (
            '{"role": "user", "content": "hi"}\n{"role": "user" "content": 1}\n',
            "line 2: not valid JSON",
        ),
        ("", "the file is empty"),
        ('{"conversation": []}', 'expected a list of messages or {"messages": [...]}'),
        ("[]", "no messages"),
        ('"hello"', "expected a list of messages, got a string"),
        (
            '[{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]',
            "message 1, field 'role'",
        ),
        (
            '[{"role": "user", "content": "a"}, {"role": "user", "content": 5}]',
            "message 1, field 'content'",
        ),
        (
            '[{"role": "user", "content": "a"},'
            ' {"role": "tool", "tool_call_id": "c9", "content": "x"}]',
            "message 1, field 'tool_call_id': tool result answers no pending tool call",
        ),
    ],
)
def test_bad_input_is_one_error_line_and_exit_code_2(
    tmp_path: Path, content: str, expected: str
) -> None:
    source = tmp_path / "bad.json"
    source.write_text(content)
    url = f"sqlite:///{tmp_path / 'x.db'}"
    result = run("replay", source, "--store", url)
    assert result.exit_code == 2
    line = one_error_line(result)
    assert str(source) in line and expected in line
    with SQLiteStore(tmp_path / "x.db") as store:
        assert store.list_sessions() == []  # nothing half-written


def test_a_missing_file_is_one_error_line(tmp_path: Path) -> None:
    result = run("replay", tmp_path / "nope.json")
    assert result.exit_code == 2
    assert "nope.json: cannot read" in one_error_line(result)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--threshold-tokens", "600"], "summary_max_tokens"),
        (["--threshold-tokens", "500", "--target-tokens", "600"], "--target-tokens 600: must"),
        (["--store", "bogus://x"], "bogus"),
        (["--config", "missing.yaml"], "missing.yaml"),
        (["--session", " "], "session id"),
    ],
)
def test_bad_settings_are_one_error_line(tmp_path: Path, args: list[str], expected: str) -> None:
    source = write_json(tmp_path / "chat.json", transcript(3))
    result = run("replay", source, "--store", f"sqlite:///{tmp_path / 'x.db'}", *args)
    assert result.exit_code == 2, result.output
    assert expected in one_error_line(result)


def test_conversation_is_for_locomo_files_only(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(3))
    result = run("replay", source, "--conversation", "1")
    assert result.exit_code == 2
    assert "LoCoMo files only" in one_error_line(result)


# -- LoCoMo ------------------------------------------------------------------------------------


def locomo_sample(sample_id: str, a: str, b: str, sessions: int = 3) -> dict[str, Any]:
    """A made-up sample in LoCoMo's layout (the dataset itself is never bundled)."""
    conversation: dict[str, Any] = {"speaker_a": a, "speaker_b": b}
    for s in range(1, sessions + 1):
        conversation[f"session_{s}_date_time"] = f"1:00 pm on {s} May, 2023"
        conversation[f"session_{s}"] = [
            {
                "speaker": a if j % 2 == 0 else b,
                "dia_id": f"D{s}:{j + 1}",
                "text": f"{'Hi' if j == 0 else 'Well'}, I went hiking near lake number "
                f"{s * 10 + j} with my dog and we saw {j + 2} deer and a heron by the shore.",
            }
            for j in range(8)
        ]
    qa = [
        {
            "question": "Where did they hike?",
            "answer": "a lake",
            "evidence": ["D1:1"],
            "category": 4,
        }
    ]
    return {"sample_id": sample_id, "conversation": conversation, "qa": qa}


def test_locomo_is_detected_and_one_conversation_replayed(tmp_path: Path) -> None:
    source = write_json(
        tmp_path / "locomo10.json",
        [locomo_sample("conv-a", "Ann", "Bob"), locomo_sample("conv-b", "Cid", "Dee")],
    )
    out = tmp_path / "out"
    result = run("replay", source, *SMALL, "--conversation", "conv-b", "--out", out, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["input"]["format"] == "locomo"
    assert doc["session"] == "replay-conv-b"
    assert doc["totals"]["messages"] == 24 and doc["totals"]["reductions"] >= 1
    covered = json.loads((out / "summaries.jsonl").read_text().splitlines()[0])["provenance"]
    assert covered["covered_ids"][0] == "conv-b/D1:1"  # LoCoMo turn ids survive as message ids
    view = json.loads((out / "view.json").read_text())
    assert {m.get("name") for m in view[1:]} <= {"Cid", "Dee"}

    default = run("replay", source, "--store", f"sqlite:///{tmp_path / 'd.db'}")
    assert "LoCoMo: 2 conversations in the file; replaying #0 conv-a" in default.stderr
    assert (
        run(
            "replay", source, "--conversation", "1", "--store", f"sqlite:///{tmp_path / 'e.db'}"
        ).exit_code
        == 0
    )
    bad = run("replay", source, "--conversation", "7")
    assert bad.exit_code == 2
    assert "no conversation '7'" in one_error_line(bad)


# -- progress ----------------------------------------------------------------------------------


def test_progress_bar_only_on_a_terminal() -> None:
    from rich.console import Console

    from summem.cli.replay import ReplayResult, _with_progress

    def work(step: Any) -> ReplayResult:
        for _ in range(3):
            if step is not None:
                step()
        return ReplayResult(unit="tokens", messages=3 if step else 0)

    tty = Console(file=StringIO(), force_terminal=True)
    assert _with_progress(tty, work, total=3).messages == 3
    assert "replaying" in tty.file.getvalue()  # type: ignore[attr-defined]
    pipe = Console(file=StringIO(), force_terminal=False)
    assert _with_progress(pipe, work, total=3).messages == 0
    assert _with_progress(tty, work, total=0).messages == 0


def test_a_replay_without_reductions_says_how_to_see_some(tmp_path: Path) -> None:
    result = run("replay", EXAMPLE, "--store", "memory://")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "No reduction: the view peaked at 5,906 tokens, under the threshold (8,000" in text
    assert "--threshold-tokens 3937" in text
    again = run("replay", EXAMPLE, "--store", "memory://", "--threshold-tokens", "3937")
    assert "No reduction" not in again.stdout and "Reductions" in again.stdout


def test_an_empty_session_id_is_refused_not_taken_for_the_default(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(3))
    result = run("replay", source, "--store", "memory://", "--session", "")
    assert result.exit_code == 2
    assert "session id must be a non-empty string" in one_error_line(result)


def test_sessions_list_shows_whole_ids(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript(3))
    url = f"sqlite:///{tmp_path / 'ids.db'}"
    long_id = "tenant-acme:customer-000042:support-thread-2026-11-26"
    assert run("replay", source, "--store", url, "--session", long_id, "-q").exit_code == 0
    listed = run("sessions", "list", "--store", url)
    assert listed.exit_code == 0
    assert "…" not in listed.output
    first_column = [
        line.split("│")[1].strip() for line in listed.output.splitlines() if line.startswith("│")
    ]
    assert "".join(first_column) == long_id  # folded over lines, never cut


def test_a_replay_shows_the_last_summary_and_the_command_to_see_every_one(tmp_path: Path) -> None:
    """What ./scripts/demo prints: the last summary's first lines, and how to see them all."""
    source = write_json(tmp_path / "chat.json", transcript())
    out = tmp_path / "out"
    result = run("replay", source, *SMALL, "--out", out)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "summaries.jsonl").read_text().splitlines()]
    last = records[-1]["message"]["content"].splitlines()
    said = result.stdout
    assert f"last summary (of {len(records)}" in said
    assert last[1] in said  # its first lines...
    assert last[-1] not in said or len(last) <= 6  # ...not all of them
    command = next(line.strip() for line in said.splitlines() if "--summaries" in line)
    assert command.startswith("summem sessions show replay-chat --store ")
    # the command it gives shows every summary, oldest first
    store = command.split("--store ", 1)[1].split(" --summaries")[0].strip("'")
    shown = run("sessions", "show", "replay-chat", "--store", store, "--summaries")
    assert shown.exit_code == 0, shown.output
    firsts = [r["message"]["content"].splitlines()[1] for r in records]
    at = [shown.stdout.find(f[:40]) for f in firsts]
    assert all(i >= 0 for i in at), shown.stdout
    assert f"summary 1 of {len(records)}" in shown.stdout
