"""``summem sessions list|show|export|delete`` against SQLite files in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from summem.stores.sqlite import SQLiteStore
from tests.cli.test_app import SMALL, one_error_line, run, transcript, write_json


@pytest.fixture
def url(tmp_path: Path) -> str:
    """A store holding one replayed session, ``s1``, with several summaries."""
    source = write_json(tmp_path / "chat.json", transcript())
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    assert run("replay", source, *SMALL, "--store", store, "--session", "s1", "-q").exit_code == 0
    return store


def db(url: str) -> SQLiteStore:
    return SQLiteStore(url[len("sqlite:///") :])


def test_list(url: str) -> None:
    table = run("sessions", "list", "--store", url)
    assert table.exit_code == 0
    assert "s1" in table.stdout
    rows = json.loads(run("sessions", "list", "--store", url, "--json").stdout)
    with db(url) as store:
        state = store.load("s1")
        assert rows == [
            {
                "session": "s1",
                "messages": state.length,
                "summarized": state.watermark,
                "in_view": len(state.tail),
                "summaries": len(store.summaries("s1")),
                "summarizer_cost_usd": 0.0,
            }
        ]
    assert rows[0]["summarized"] > 0


def test_inspecting_a_missing_sqlite_file_does_not_create_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'none.db'}"
    assert "No sessions" in run("sessions", "list", "--store", url).stdout
    shown = run("sessions", "show", "s1", "--store", url)
    assert shown.exit_code == 1
    assert "no session 's1'" in one_error_line(shown)
    assert "there is no database there" in one_error_line(shown)  # a mistyped path says so
    assert not (tmp_path / "none.db").exists()


def test_show_prints_system_summary_with_provenance_and_view(url: str) -> None:
    result = run("sessions", "show", "s1", "--store", url)
    assert result.exit_code == 0
    out = result.stdout
    assert "You are a helpful support agent." in out
    assert "Summary of the earlier conversation" in out
    with db(url) as store:
        state = store.load("s1")
    assert state.summary is not None and state.summary.summary_info is not None
    assert f"covers history[:{state.watermark}]" in out
    assert "summarizer extractive" in out and "created 20" in out
    assert "new messages cited by no line (recall finds them)" in out
    assert "view (what the model is sent)" in out
    assert "Question 29" in out  # the newest turn is in the view


def test_show_prints_a_timeline_of_reductions_and_json(url: str) -> None:
    with db(url) as store:
        summaries = store.summaries("s1")
        state = store.load("s1")
    out = run("sessions", "show", "s1", "--store", url).stdout
    assert "reductions" in out and "uncited" in out and "extractive" in out
    doc = json.loads(run("sessions", "show", "s1", "--store", url, "--json").stdout)
    assert doc["session_id"] == "s1" and doc["watermark"] == state.watermark
    assert doc["summary"]["id"] == summaries[-1].id
    timeline = doc["timeline"]
    assert [t["summary_id"] for t in timeline] == [s.id for s in summaries]
    assert timeline[0]["start"] == 0 and timeline[-1]["end"] == state.watermark
    for entry, summary in zip(timeline, summaries, strict=True):
        info = summary.summary_info
        assert info is not None
        assert entry["messages"] == len(info.covered_ids) == entry["end"] - entry["start"]
        assert entry["calls"] == 0 and entry["cost_usd"] == 0.0
        assert entry["summarizer"] == "extractive" and not entry["recomputed"]
        assert entry["dropped_ids"] == info.extra["uncovered_ids"]
    assert "Question 29" in json.dumps(doc["view"])


def test_the_timeline_names_fallbacks_truncations_and_recomputes() -> None:
    from rich.console import Console

    from summem import FallbackSummarizer, Memory, TruncatingSummarizer
    from summem.cli.render import print_timeline
    from summem.cli.sessions import reduction_timeline
    from tests.fakes.memory import small_reducer
    from tests.fakes.summarizers import failing

    chain = FallbackSummarizer([failing(), TruncatingSummarizer()])
    memory = Memory("f", reducer=small_reducer(chain))
    for i in range(12):
        memory.add({"role": "user", "content": f"turn {i} " + "word " * 8})
    memory.recompute()
    timeline = reduction_timeline(memory.summaries())
    assert timeline[0]["fallback_failed"] == ["fake"]
    (reason,) = timeline[0]["fallback_reasons"]  # why, kept with the summary
    assert reason.startswith("fake: ")
    assert timeline[0]["truncated_messages"] == timeline[0]["messages"]
    assert timeline[-1]["recomputed"] and timeline[-1]["start"] == 0
    console = Console(record=True, width=200)
    print_timeline(console, timeline)
    text = console.export_text()
    assert "after fake failed" in text and "truncated" in text and "(recomputed)" in text


def test_show_unknown_session_is_exit_code_1(url: str) -> None:
    result = run("sessions", "show", "nope", "--store", url)
    assert result.exit_code == 1
    assert "no session 'nope'" in one_error_line(result)


def test_export_json_has_every_message_with_its_id(url: str) -> None:
    result = run("sessions", "export", "s1", "--store", url)
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    with db(url) as store:
        history = store.history("s1")
        state = store.load("s1")
        summaries = store.summaries("s1")
    assert doc["messages"][0]["message"]["role"] == "system"
    assert [m["id"] for m in doc["messages"][1:]] == [m.id for m in history]
    assert [m["message"] for m in doc["messages"][1:]] == [m.to_openai() for m in history]
    assert doc["watermark"] == state.watermark
    assert doc["summary"]["provenance"]["watermark"] == state.watermark
    assert len(doc["summaries"]) == len(summaries)


def test_export_jsonl_to_a_file_replays_with_the_same_ids(url: str, tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    assert (
        run("sessions", "export", "s1", "--store", url, "--format", "jsonl", "-o", path).exit_code
        == 0
    )
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    with db(url) as store:
        ids = [m.id for m in store.history("s1")]
    assert [line["id"] for line in lines[1:]] == ids
    other = f"sqlite:///{tmp_path / 'other.db'}"
    replayed = run("replay", path, *SMALL, "--store", other, "--session", "copy", "-q")
    assert replayed.exit_code == 0, replayed.output
    with db(other) as store:
        assert [m.id for m in store.history("copy")] == ids


def test_delete_asks_first(url: str) -> None:
    declined: Result = run("sessions", "delete", "s1", "--store", url, input="n\n")
    assert declined.exit_code == 1
    assert "Delete session 's1'" in declined.output
    with db(url) as store:
        assert store.exists("s1")
    accepted = run("sessions", "delete", "s1", "--store", url, input="y\n")
    assert accepted.exit_code == 0
    assert "deleted session 's1'" in accepted.stdout
    with db(url) as store:
        assert not store.exists("s1")


def test_delete_yes_does_not_ask(url: str) -> None:
    result = run("sessions", "delete", "s1", "--store", url, "--yes")
    assert result.exit_code == 0
    assert "Delete session" not in result.output
    assert run("sessions", "delete", "s1", "--store", url, "--yes").exit_code == 1


def test_store_from_the_config_file(url: str, tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text(f'store: "{url}"\n')
    assert "s1" in run("sessions", "list", "--config", config).stdout


def test_a_sqlite_file_or_a_replay_folder_names_the_store_as_inspect_takes_it(
    tmp_path: Path,
) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    out = tmp_path / "out"
    assert run("replay", source, *SMALL, "--out", out, "--session", "s1", "-q").exit_code == 0
    for target in (out, out / "summem.db"):
        assert "s1" in run("sessions", "list", "--store", target).stdout
        shown = run("sessions", "show", "s1", "--store", target, "--json")
        assert shown.exit_code == 0
        assert json.loads(shown.stdout)["session_id"] == "s1"
        assert run("sessions", "export", "s1", "--store", target).exit_code == 0


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("missing.db", "no such file or folder"),
        ("empty", "a folder without summem.db"),
    ],
)
def test_a_store_path_that_holds_no_store_is_refused_and_nothing_is_created(
    tmp_path: Path, target: str, error: str
) -> None:
    (tmp_path / "empty").mkdir()
    for command in (["list"], ["show", "s1"], ["export", "s1"], ["delete", "s1", "--yes"]):
        result = run("sessions", *command, "--store", tmp_path / target)
        assert result.exit_code == 2, command
        assert error in one_error_line(result)
        assert "a `summem replay --out` folder" in one_error_line(result)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_bad_store_url_is_one_line(tmp_path: Path) -> None:
    result = run("sessions", "list", "--store", "nosuch://x")
    assert result.exit_code == 2
    assert "nosuch" in one_error_line(result)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_an_export_with_an_empty_assistant_message_an_older_summem_stored_replays(
    tmp_path: Path, fmt: str
) -> None:
    """Adding ``{"role": "assistant", "content": None}`` is refused now, but older summem
    stored it: an export of such a session still replays, the message with content ``""``
    and a note saying so; a hand-written transcript with one is still refused."""
    from summem.messages import Message, assistant, user

    source = f"sqlite:///{tmp_path / 'old.db'}"
    stored = [
        user("q"),
        Message.from_openai({"role": "assistant", "content": None}),
        user("q2"),
        assistant("a2"),
    ]
    with db(source) as store:
        store.append("old", stored)  # as the older summem's memory did
        ids = [m.id for m in store.history("old")]
    path = tmp_path / f"old.{fmt}"
    exported = run("sessions", "export", "old", "--store", source, "--format", fmt, "-o", path)
    assert exported.exit_code == 0, exported.output
    other = f"sqlite:///{tmp_path / 'other.db'}"
    replayed = run("replay", path, *SMALL, "--store", other, "--session", "copy")
    assert replayed.exit_code == 0, replayed.output
    assert '1 exported assistant message(s) with no content ([1]) replayed with content ""' in (
        " ".join(replayed.stderr.split())
    )
    with db(other) as store:
        history = store.history("copy")
    assert [m.id for m in history] == ids
    assert [m.to_openai() for m in history] == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
    ]
    hand_written = write_json(
        tmp_path / "hand.json", [{"role": "user", "content": "q"}, {"role": "assistant"}]
    )
    refused = run("replay", hand_written, *SMALL, "--store", other, "--session", "hand")
    assert refused.exit_code == 2 and "needs content or tool_calls" in one_error_line(refused)


@pytest.fixture
def branched(tmp_path: Path) -> str:
    """A store holding session ``b`` with two branches: an edit and a pop."""
    from summem.memory import Memory

    store = f"sqlite:///{tmp_path / 'branched.db'}"
    with Memory("b", store=store) as memory:
        memory.extend(
            [
                {"role": "user", "content": "first question"},
                {"role": "assistant", "content": "first answer"},
                {"role": "user", "content": "second question"},
                {"role": "assistant", "content": "second answer"},
            ]
        )
        memory.branch(2, [{"role": "user", "content": "second question, edited"}])
        memory.pop()
    return store


def test_branches_lists_what_edits_and_pops_abandoned(branched: str) -> None:
    with db(branched) as store:
        first, second = store.branches("b")
    table = run("sessions", "branches", "b", "--store", branched)
    assert table.exit_code == 0, table.output
    assert first.id in table.stdout and second.id in table.stdout
    assert "sessions show b --branch ID" in table.stdout
    rows = json.loads(run("sessions", "branches", "b", "--store", branched, "--json").stdout)
    assert [(r["branch_id"], r["at"], r["abandoned"]) for r in rows] == [
        (first.id, 2, 2),
        (second.id, 2, 1),
    ]
    doc = json.loads(run("sessions", "show", "b", "--store", branched, "--json").stdout)
    assert [r["branch_id"] for r in doc["branches"]] == [first.id, second.id]


def test_show_branch_prints_the_abandoned_messages(branched: str) -> None:
    with db(branched) as store:
        first = store.branches("b")[0]
    shown = run("sessions", "show", "b", "--store", branched, "--branch", first.id)
    assert shown.exit_code == 0, shown.output
    assert "second question" in shown.stdout and "second answer" in shown.stdout
    assert f"branch {first.id}: the 2 message(s) abandoned at position 2" in shown.stdout
    doc = json.loads(
        run("sessions", "show", "b", "--store", branched, "--branch", first.id, "--json").stdout
    )
    assert [m["message"]["content"] for m in doc["messages"]] == [
        "second question",
        "second answer",
    ]
    assert doc["branch"]["at"] == 2
    exported = json.loads(run("sessions", "export", "b", "--store", branched).stdout)
    assert [len(b["messages"]) for b in exported["branches"]] == [2, 1]


def test_branch_commands_refuse_bad_input_in_one_line(branched: str) -> None:
    unknown = run("sessions", "show", "b", "--store", branched, "--branch", "b_nope")
    assert unknown.exit_code == 1
    assert "has no branch 'b_nope'" in one_error_line(unknown)
    both = run("sessions", "show", "b", "--store", branched, "--branch", "x", "--summaries")
    assert both.exit_code == 2 and "pass one" in both.stderr
    empty = run("sessions", "show", "b", "--store", branched, "--branch", " ")
    assert empty.exit_code == 2 and "needs a branch id" in empty.stderr
    missing = run("sessions", "branches", "nope", "--store", branched)
    assert missing.exit_code == 1 and "no session 'nope'" in one_error_line(missing)
    none = run("sessions", "branches", "s1", "--store", branched)
    assert none.exit_code == 1  # s1 is not in this store


def test_a_session_without_branches_says_so(url: str) -> None:
    result = run("sessions", "branches", "s1", "--store", url)
    assert result.exit_code == 0 and "no branches" in result.stdout
