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
