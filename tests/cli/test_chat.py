"""``summem chat``: the real litellm.completion, mocked at the transport with respx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from summem.stores.sqlite import SQLiteStore
from tests.cli.test_app import one_error_line, run
from tests.fakes.replies import OPENAI_URL, openai_completion

# litellm 1.106 builds a pydantic schema for a TypedDict with ReadOnly items during some
# calls; pydantic warns about it, and the suite's filterwarnings=error would turn that into
# litellm.APIConnectionError. The warning is litellm's, not the CLI's.
pytestmark = pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier")

URL = OPENAI_URL
KEY = "sk-SENTINEL-chat-0123456789abcdef"


def completion(text: str) -> dict[str, Any]:
    return openai_completion(text, usage=(11, 2))


@pytest.fixture
def openai_route() -> Iterator[respx.Route]:
    with respx.mock(assert_all_called=False) as router:
        replies = iter(f"reply number {i}" for i in range(100))
        yield router.post(URL).mock(
            side_effect=lambda request: httpx.Response(200, json=completion(next(replies)))
        )


def bodies(route: respx.Route) -> list[dict[str, Any]]:
    return [json.loads(call.request.content) for call in route.calls]


def chat(tmp_path: Path, *extra: str | Path, input: str) -> Any:
    store = f"sqlite:///{tmp_path / 'chat.db'}"
    return run(
        "chat", "--model", "gpt-4o-mini", "--session", "c1", "--store", store, *extra, input=input
    )


def history(tmp_path: Path) -> list[dict[str, Any]]:
    with SQLiteStore(tmp_path / "chat.db") as store:
        return [m.to_openai() for m in store.history("c1")]


def test_without_an_api_key_it_names_the_variable_and_sends_nothing(
    tmp_path: Path, openai_route: respx.Route
) -> None:
    result = chat(tmp_path, input="hello\n/exit\n")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "no API key for gpt-4o-mini" in line and "OPENAI_API_KEY" in line
    assert openai_route.call_count == 0
    assert not (tmp_path / "chat.db").exists()


def test_api_key_env_from_the_config_is_the_variable_named(tmp_path: Path) -> None:
    config = tmp_path / "summem.yaml"
    config.write_text("api_key_env: MY_LLM_KEY\n")
    result = chat(tmp_path, "--config", config, input="/exit\n")
    assert result.exit_code == 2
    assert "set MY_LLM_KEY" in one_error_line(result)


def test_no_model_anywhere_is_a_usage_error(tmp_path: Path) -> None:
    result = run("chat", "--session", "c1", "--store", f"sqlite:///{tmp_path / 'x.db'}")
    assert result.exit_code == 2
    assert "--model" in one_error_line(result)


def test_chat_sends_the_view_prints_replies_and_persists(
    tmp_path: Path, openai_route: respx.Route, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    result = chat(
        tmp_path,
        "--system",
        "Be brief.",
        input="hello there\n/summary\nsecond question\n/history\n/help\n/bogus\n/exit\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "gpt-4o-mini> reply number 0" in out and "reply number 1" in out
    assert "no summary yet" in out
    assert "history of c1" in out and "second question" in out
    assert "/summary" in out and "unknown command /bogus" in out
    assert "session c1 saved (4 messages)" in out
    sent = bodies(openai_route)
    assert [b["model"] for b in sent] == ["gpt-4o-mini", "gpt-4o-mini"]
    assert sent[0]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hello there"},
    ]
    assert sent[1]["messages"][-2:] == [
        {"role": "assistant", "content": "reply number 0"},
        {"role": "user", "content": "second question"},
    ]
    assert openai_route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    assert [m["role"] for m in history(tmp_path)] == ["user", "assistant", "user", "assistant"]


def test_chat_resumes_a_session_and_ends_at_end_of_input(
    tmp_path: Path, openai_route: respx.Route, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert chat(tmp_path, input="first\n").exit_code == 0  # no /exit: end of input leaves
    again = chat(tmp_path, input="again\n/exit\n")
    assert again.exit_code == 0
    assert "(2 messages so far)" in again.stdout
    last = bodies(openai_route)[-1]["messages"]
    assert [m["content"] for m in last] == ["first", "reply number 0", "again"]


def test_a_provider_error_is_one_line_and_the_loop_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    error = {
        "error": {
            "message": f"Incorrect API key provided: {KEY}.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
            "param": None,
        }
    }
    with respx.mock() as router:
        route = router.post(URL).mock(
            side_effect=[
                httpx.Response(401, json=error),
                httpx.Response(200, json=completion("ok")),
            ]
        )
        result = chat(tmp_path, input="one\ntwo\n/exit\n")
    assert result.exit_code == 0, result.output
    assert "AuthenticationError" in result.stdout
    assert KEY not in result.output  # never echo a secret (I6)
    assert "gpt-4o-mini> ok" in result.stdout
    assert route.call_count == 2
    # The first message was recorded before the failed call, as the wrapper documents.
    assert [m["content"] for m in history(tmp_path)] == ["one", "two", "ok"]


def test_long_chats_are_summarized_with_provenance(
    tmp_path: Path, openai_route: respx.Route, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    config = tmp_path / "summem.yaml"
    config.write_text("budget:\n  threshold: 300\n  target: 200\n  summary_max_tokens: 80\n")
    lines = [
        f"Note {i}: my order BW-{2000 + i} was paid with the Visa ending {4400 + i} on "
        f"{i + 1} March and the parcel should go to 27 Calder Row, Leeds, after 2pm."
        for i in range(8)
    ]
    result = chat(
        tmp_path, "--config", config, input="\n".join([*lines, "/summary", "/exit"]) + "\n"
    )
    assert result.exit_code == 0, result.output
    assert "summaries by the offline extractive summarizer" in result.stdout
    assert "Summary of the earlier conversation" in result.stdout
    assert "covers history[:" in result.stdout and "summarizer extractive" in result.stdout
    last = bodies(openai_route)[-1]["messages"]
    assert last[0]["content"].startswith("Summary of the earlier conversation")
    assert len(last) < 2 * len(lines)


def test_a_missing_key_is_reported_without_importing_litellm(tmp_path: Path) -> None:
    """The check is instant: the common providers' variables are known without litellm."""
    import subprocess
    import sys

    code = (
        "import sys, os\n"
        "os.environ.pop('OPENAI_API_KEY', None)\n"
        "from summem.cli.app import main\n"
        "try:\n"
        f"    main(['chat', '--model', 'gpt-4o-mini', '--session', 's', '--store', "
        f"'sqlite:///{tmp_path / 'k.db'}'])\n"
        "except SystemExit as exc:\n"
        "    print('EXIT', exc.code, 'litellm' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "EXIT 2 False" in out.stdout, out.stdout + out.stderr
    assert "OPENAI_API_KEY" in out.stderr


def test_base_url_needs_no_key_and_sends_the_options(tmp_path: Path) -> None:
    local = "http://127.0.0.1:9/v1"
    with respx.mock() as router:
        route = router.post(local + "/chat/completions").mock(
            return_value=httpx.Response(200, json=completion("local reply"))
        )
        result = chat(
            tmp_path,
            "--base-url",
            local,
            "--max-tokens",
            "33",
            "--temperature",
            "0.2",
            input="hi\n/exit\n",
        )
    assert result.exit_code == 0, result.output
    assert (
        "gpt-4o-mini> local reply" in result.stdout and "at http://127.0.0.1:9/v1" in result.stdout
    )
    body = json.loads(route.calls[0].request.content)
    assert body["max_tokens"] == 33 and body["temperature"] == 0.2
    assert body["model"] == "gpt-4o-mini"


def test_the_exit_status_is_1_when_the_last_turn_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with respx.mock() as router:
        router.post(URL).mock(
            side_effect=[
                httpx.Response(200, json=completion("fine")),
                httpx.Response(400, json={"error": {"message": "bad request"}}),
            ]
        )
        result = chat(tmp_path, input="one\ntwo\n")
    assert result.exit_code == 1, result.output
    assert "the last turn failed" in one_error_line(result)
    assert [m["content"] for m in history(tmp_path)] == ["one", "fine", "two"]


def test_summary_reports_a_failed_reduction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    config = tmp_path / "summem.yaml"
    config.write_text(
        "model: gpt-4o-mini\nbudget:\n  threshold: 200\n  target: 120\n  summary_max_tokens: 40\n"
    )

    def answer(request: httpx.Request) -> httpx.Response:
        if "<transcript>" in request.content.decode():  # the summarizer's call
            return httpx.Response(400, json={"error": {"message": "model overloaded"}})
        return httpx.Response(200, json=completion("noted"))

    with respx.mock() as router:
        router.post(URL).mock(side_effect=answer)
        lines = [f"message {i} with plenty of words to fill the budget quickly" for i in range(12)]
        result = chat(tmp_path, "--config", config, input="\n".join([*lines, "/summary"]) + "\n")
    assert "no summary yet" not in result.stdout
    assert "the last reduction failed" in result.stdout and "SummarizationError" in result.stdout
