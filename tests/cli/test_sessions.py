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
