"""CLI papercuts a new user met: errors name the flags typed, --base-url on replay as on chat,
a reply cut by --max-tokens is marked, -q keeps the offline-fallback warning."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from summem.stores.sqlite import SQLiteStore
from tests.cli.test_app import SMALL, one_error_line, run, transcript, write_json
from tests.fakes.replies import chunk, openai_completion, sse

pytestmark = pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier")

LOCAL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("flags", "named", "unnamed"),
    [
        (
            ["--threshold-tokens", "100", "--target-tokens", "200"],
            "--target-tokens 200: must be smaller than --threshold-tokens 100",
            "budget.",
        ),
        (
            ["--threshold-tokens", "100", "--target-tokens", "50", "--summary-max-tokens", "60"],
            "--summary-max-tokens 60: must be smaller than --target-tokens 50",
            "budget.",
        ),
        (["--target-tokens", "9000"], "--target-tokens 9000: must be smaller than", "options"),
        (  # settings nobody typed are named by what they derive from, not by yaml keys
            ["--target-tokens", "9000"],
            "smaller than the default threshold (8000; --threshold-tokens sets it)",
            "budget.",
        ),
        (
            ["--threshold-tokens", "100", "--summary-max-tokens", "80"],
            "--summary-max-tokens 80: must be smaller than the target (75: three quarters of "
            "--threshold-tokens 100; --target-tokens sets it)",
            "budget.",
        ),
        (["--store", "foo://bar"], "--store foo://bar: unknown scheme 'foo'", "options"),
        (  # the summary budget left at its default is not blamed; the fix names flags
            ["--threshold-tokens", "800", "--target-tokens", "500"],
            "--target-tokens 500: must be larger than the default summary_max_tokens (512; "
            "--summary-max-tokens sets it): set --target-tokens above 512, or "
            "--summary-max-tokens below 500",
            "budget.",
        ),
    ],
)
def test_a_bad_option_is_named_by_the_flag_typed(
    tmp_path: Path, flags: list[str], named: str, unnamed: str
) -> None:
    source = write_json(tmp_path / "t.json", transcript(2))
    store = ["--store", f"sqlite:///{tmp_path / 'x.db'}"]
    result = run("replay", source, *(store if "--store" not in flags else []), *flags)
    assert result.exit_code == 2
    line = one_error_line(result)
    assert named in line and unnamed not in line, line
    assert not (tmp_path / "x.db").exists()


def test_a_file_s_setting_keeps_its_yaml_name_beside_the_flag(tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text("budget:\n  threshold: 1000\n  target: 600\n")
    source = write_json(tmp_path / "t.json", transcript(2))
    result = run("replay", source, "--config", config, "--summary-max-tokens", "700")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert str(config) in line and "--summary-max-tokens 700" in line and "budget.target" in line
    config.write_text("budget:\n  threshold: 1000\n  soft_threshold: 900\n")
    result = run("replay", source, "--config", config, "--target-tokens", "950")
    line = one_error_line(result)
    assert "between --target-tokens 950 and budget.threshold (1000)" in line, line


def test_chat_names_its_flags_too(tmp_path: Path) -> None:
    result = run("chat", "--model", "m", "--session", "c1", "--store", "foo://bar")
    assert result.exit_code == 2
    assert "--store foo://bar: unknown scheme" in one_error_line(result)


def test_replay_base_url_summarizes_on_that_server_without_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    source = write_json(tmp_path / "chat.json", transcript())
    with respx.mock() as router:
        body = sse(  # a server of one's own may not cap the output: the summary streams
            [
                chunk({"role": "assistant", "content": "Orders BW-1000 on are late."}),
                chunk({}, "stop"),
                chunk({}, usage={"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13}),
            ]
        )
        route = router.post(LOCAL + "/chat/completions").mock(
            side_effect=lambda request: httpx.Response(
                200, content=body, headers={"content-type": "text/event-stream"}
            )
        )
        result = run(
            "replay", source, *SMALL, "--model", "my-model", "--base-url", LOCAL,
            "--out", tmp_path / "o", "--json",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert route.call_count >= 1
    assert json.loads(route.calls[0].request.content)["model"] == "my-model"
    doc = json.loads(result.stdout)
    assert doc["summarizer"] != "extractive" and "no API key" not in result.stderr
    with SQLiteStore(tmp_path / "o" / "summem.db") as store:
        assert any("BW-1000 on are late" in str(s.content) for s in store.summaries(doc["session"]))


def test_replay_base_url_without_a_model_is_a_usage_error(tmp_path: Path) -> None:
    source = write_json(tmp_path / "t.json", transcript(2))
    result = run("replay", source, "--base-url", LOCAL, "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert "--base-url" in one_error_line(result) and "--model" in one_error_line(result)


def test_base_url_help_is_the_same_on_both_and_documents_openai_base_url() -> None:
    helps = [" ".join(run(cmd, "--help").stdout.split()) for cmd in ("replay", "chat")]
    for text in helps:
        assert "--base-url" in text and "$OPENAI_BASE_URL" in text
    start = helps[0].index("--base-url")
    assert helps[0][start : start + 120] in helps[1]


def test_quiet_replay_still_warns_that_it_fell_back_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    source = write_json(tmp_path / "t.json", transcript(4))
    result = run("replay", source, "--model", "gpt-4o-mini", "-q", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "warning: no API key for gpt-4o-mini" in result.stderr
    quiet = run("replay", source, "-q", "--out", tmp_path / "p")  # no model: a note, hidden
    assert quiet.stdout == "" and quiet.stderr == ""


@pytest.mark.parametrize(
    ("extra", "mark"),
    [
        (["--max-tokens", "5"], "[cut at --max-tokens 5]"),
        ([], "[cut at the model's output limit]"),
    ],
)
def test_chat_marks_a_reply_cut_by_max_tokens(tmp_path: Path, extra: list[str], mark: str) -> None:
    with respx.mock() as router:
        router.post(LOCAL + "/chat/completions").mock(
            side_effect=[
                httpx.Response(200, json=openai_completion("The answer is", "length")),
                httpx.Response(200, json=openai_completion("Done.", "stop")),
            ]
        )
        store = f"sqlite:///{tmp_path / 'c.db'}"
        result = run(
            "chat", "--model", "m", "--session", "c1", "--store", store, "--base-url", LOCAL,
            *extra, input="a\nb\n/exit\n",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    cut = [line for line in lines if "The answer is" in line]
    done = [line for line in lines if "Done." in line]
    assert cut and mark in cut[0]
    assert done and "cut" not in done[0]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--store", r"bogus://a\d"], r"--store bogus://a\d: unknown scheme"),
        (["--store", r"bogus://C:\1x"], r"--store bogus://C:\1x: unknown scheme"),
        (
            ["--model", r"gpt\4o", "--threshold-tokens", "100", "--summary-max-tokens", "200"],
            "--summary-max-tokens 200: must be smaller than",
        ),
    ],
)
def test_a_backslash_in_a_typed_value_is_printed_as_typed(
    tmp_path: Path, flags: list[str], named: str
) -> None:
    source = write_json(tmp_path / "t.json", transcript(2))
    result = run("replay", source, *flags, "--out", tmp_path / "o")
    assert result.exit_code == 2, result.output
    assert named in one_error_line(result)


def test_a_store_password_the_error_refuses_is_not_printed(tmp_path: Path) -> None:
    source = write_json(tmp_path / "t.json", transcript(2))
    url = "postgresql://alice:hunter2@db:notaport/x"
    result = run("replay", source, "--store", url, "--out", tmp_path / "o")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "hunter2" not in result.output and "--store postgresql://alice:***@" in line


def test_prose_that_contains_a_key_name_is_not_rewritten(tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text("api_key_env: {gpt-4o: MY_KEY}\n")
    source = write_json(tmp_path / "t.json", transcript(2))
    result = run("replay", source, "--config", config, "--model", "gpt-4o-mini")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "not a model named in model or fallback" in line and "--model" not in line


def test_replay_base_url_keeps_the_files_fallback_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = tmp_path / "summem.yaml"
    config.write_text("model: llama3\nfallback: [extractive]\nretries:\n  max_attempts: 1\n")
    source = write_json(tmp_path / "chat.json", transcript())
    with respx.mock(assert_all_called=False) as router:  # answers nothing a summary holds
        route = router.post(LOCAL + "/chat/completions").mock(
            return_value=httpx.Response(200, json=openai_completion(""))
        )
        result = run(
            "replay", source, *SMALL, "--config", config, "--base-url", LOCAL,
            "--out", tmp_path / "o", "--json",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert route.call_count >= 1
    doc = json.loads(result.stdout)
    with SQLiteStore(tmp_path / "o" / "summem.db") as store:
        assert store.summaries(doc["session"])  # the extractive step wrote them
