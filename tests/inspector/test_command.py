"""``summem inspect``: its options, its errors, and what it serves (the server is stubbed)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from summem.errors import ConfigurationError, StoreError
from summem.inspector import command
from summem.inspector.source import open_source, read_only_url
from summem.messages import user
from summem.stores import SQLiteStore
from tests.cli.test_app import one_error_line, run
from tests.inspector.conftest import SESSION
from tests.inspector.sessions import Written


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Run the command without serving: get ``seen["get"]`` (paths) while it would serve."""
    seen: dict[str, Any] = {"get": []}

    def fake_serve(app: Any, sock: socket.socket) -> None:
        seen["address"] = sock.getsockname()
        sock.close()
        client = TestClient(app, base_url="http://127.0.0.1")
        seen["responses"] = [client.get(path, follow_redirects=False) for path in seen["get"]]

    monkeypatch.setattr(command, "serve", fake_serve)
    monkeypatch.setattr(
        command, "_open_browser", lambda address: seen.setdefault("opened", address)
    )
    return seen


def test_it_serves_the_store_on_loopback(
    db: tuple[Path, Written], config_path: Path, served: dict[str, Any]
) -> None:
    served["get"] = ["/"]
    result = run("inspect", "--store", db[0], "--config", config_path)
    assert result.exit_code == 0, result.output
    host, port = served["address"]
    assert host == "127.0.0.1" and port > 0
    assert f"open http://127.0.0.1:{port}/ " in result.output
    assert served["opened"] == f"http://127.0.0.1:{port}/"
    assert SESSION in served["responses"][0].text


def test_no_browser_only_prints(db: tuple[Path, Written], served: dict[str, Any]) -> None:
    result = run("inspect", "--store", db[0], "--no-browser")
    assert result.exit_code == 0 and "opened" not in served


def test_without_a_config_it_says_the_budget_is_the_defaults(
    db: tuple[Path, Written],
    config_path: Path,
    served: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SUMMEM_CONFIG", raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no ./summem.yaml here
    result = run("inspect", "--store", db[0], "--no-browser")
    assert result.exit_code == 0, result.output
    assert "default budget: give --config" in result.output
    result = run("inspect", "--store", db[0], "--config", config_path, "--no-browser")
    assert result.exit_code == 0 and "default budget" not in result.output


def test_a_host_requires_the_printed_token(
    db: tuple[Path, Written], served: dict[str, Any]
) -> None:
    served["get"] = ["/", "/?token=wrong"]
    result = run("inspect", "--store", db[0], "--host", "127.0.0.1", "--no-browser")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("open "))
    token = line.split("?token=")[1].split()[0]
    assert len(token) >= 24
    assert [r.status_code for r in served["responses"]] == [401, 401]


def test_a_replay_folder_is_opened_with_its_recorded_turns(
    tmp_path: Path, served: dict[str, Any]
) -> None:
    transcript = Path(__file__).parents[2] / "examples" / "support-transcript.json"
    config = Path(__file__).parents[2] / "examples" / "summem.yaml"
    out = tmp_path / "replay"
    assert run("replay", transcript, "--config", config, "--out", out, "-q").exit_code == 0
    source = open_source(str(out))
    try:
        assert source.turns and source.read_only == "SQLite mode=ro"
    finally:
        source.close()
    served["get"] = ["/session?id=replay-support-transcript"]
    result = run("inspect", "--store", out, "--config", config, "--no-browser")
    assert result.exit_code == 0, result.output
    text = served["responses"][0].text
    assert "Reduction turns as the replay recorded them" in text


def test_a_replay_folder_sizes_views_with_the_settings_the_replay_ran_with(
    tmp_path: Path, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = Path(__file__).parents[2] / "examples" / "support-transcript.json"
    config = Path(__file__).parents[2] / "examples" / "summem.yaml"  # threshold 3000, target 2000
    out = tmp_path / "replay"
    replayed = run("replay", transcript, "--config", config, "--out", out)
    assert replayed.exit_code == 0, replayed.output
    assert "summaries.jsonl and " in replayed.output and "settings.json" in replayed.output
    recorded = json.loads((out / "settings.json").read_text(encoding="utf-8"))
    assert recorded["settings"]["budget"]["threshold"] == 3000
    assert "store" not in recorded["settings"]  # where things live is never recorded
    monkeypatch.delenv("SUMMEM_CONFIG", raising=False)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no ./summem.yaml, no --config: the record is the settings
    served["get"] = ["/session?id=replay-support-transcript"]
    result = run("inspect", "--store", out, "--no-browser")
    assert result.exit_code == 0, result.output
    assert "views sized with the settings the replay ran with" in result.output
    assert "default budget" not in result.output
    page = served["responses"][0].text
    assert "reduce past <b>3,000</b>" in page
    assert "settings.json (recorded by summem replay)" in page
    # a record that does not validate is said and set aside, never fatal
    (out / "settings.json").write_text(
        json.dumps({"settings": {"budget": {"threshold": "lots"}}}), encoding="utf-8"
    )
    result = run("inspect", "--store", out, "--no-browser")
    assert result.exit_code == 0, result.output
    assert "recorded settings are not usable" in result.output and "threshold" in result.output
    assert "default budget" in result.output
    (out / "settings.json").write_text("not json", encoding="utf-8")  # not a record: ignored
    result = run("inspect", "--store", out, "--no-browser")
    assert result.exit_code == 0 and "recorded settings" not in result.output
    # --config still wins over the record
    (out / "settings.json").write_text(json.dumps(recorded), encoding="utf-8")
    result = run("inspect", "--store", out, "--config", config, "--no-browser")
    assert result.exit_code == 0 and "the replay ran with" not in result.output


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("{tmp}/missing.db", "no such file or folder"),
        ("sqlite:///{tmp}/missing.db", "no SQLite database at"),
        ("{tmp}", "a folder without summem.db"),
        ("nosuch://host/x", "no store for URL scheme 'nosuch'"),
        ("redis://:hunter2secret@127.0.0.1:abc/0", "bad Redis URL redis://:***@127.0.0.1:abc/0"),
        ("postgresql://app:hunter2secret@[::1/db", "bad PostgreSQL URL"),
        ("sqlite:///${{SUMMEM_UNSET_FOR_TEST}}/x.db", "SUMMEM_UNSET_FOR_TEST is not set"),
    ],
)
def test_a_bad_store_is_one_clear_error(
    tmp_path: Path, target: str, words: str, served: dict[str, Any]
) -> None:
    result = run("inspect", "--store", target.format(tmp=tmp_path), "--no-browser")
    assert result.exit_code == 2
    assert words in one_error_line(result)
    assert "hunter2secret" not in result.output
    assert not (tmp_path / "missing.db").exists()  # never created


def test_store_urls_take_environment_references(
    db: tuple[Path, Written], served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DB_DIR", str(db[0].parent))
    served["get"] = ["/"]
    url = f"sqlite:///${{INSPECT_DB_DIR}}/{db[0].name}"  # as summem.yaml's store is written
    result = run("inspect", "--store", url, "--no-browser")
    assert result.exit_code == 0, result.output
    assert SESSION in served["responses"][0].text
    config = db[0].parent / "env.yaml"
    config.write_text(f'store: "{url}"\n', encoding="utf-8")
    result = run("inspect", "--config", config, "--no-browser")  # the config's store
    assert result.exit_code == 0, result.output


def test_a_password_in_the_url_is_never_printed(served: dict[str, Any]) -> None:
    result = run("inspect", "--store", "nosuch://app:hunter2secret@db/x", "--no-browser")
    assert result.exit_code == 2 and "hunter2secret" not in result.output


def test_a_port_in_use_is_a_clear_error(db: tuple[Path, Written], served: dict[str, Any]) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        result = run("inspect", "--store", db[0], "--port", port, "--no-browser")
        assert result.exit_code == 2
        assert f"cannot listen on 127.0.0.1:{port}" in one_error_line(result)
    finally:
        taken.close()


def test_sqlite_is_opened_read_only(db: tuple[Path, Written]) -> None:
    url, how = read_only_url(f"sqlite:///{db[0]}?mode=rw")
    assert url.endswith("?mode=ro") and how == "SQLite mode=ro"
    source = open_source(str(db[0]))
    try:
        with pytest.raises(StoreError):
            source.store.append(SESSION, [user("written?")])
    finally:
        source.close()
    with SQLiteStore(db[0]) as store:
        assert all(m.text != "written?" for m in store.history(SESSION))


def test_postgres_urls_ask_for_read_only_transactions() -> None:
    url, how = read_only_url(
        "postgresql://app:pw@db:5432/app?schema=s&options=-c%20search_path%3Dx"
    )
    assert "default_transaction_read_only%3Don" in url and "schema=s" in url
    assert "search_path%3Dx" in url and how == "read-only transactions"


def test_the_leaf_is_imported_by_nothing_else() -> None:
    import subprocess
    import sys

    code = (
        "import sys, summem, summem.cli.app, summem.memory, summem.stores, summem.config;"
        "print(any(m.startswith('summem.inspector') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_uvicorn(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvicorn":
            raise ImportError("no uvicorn")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_uvicorn)
    result = run("inspect", "--store", "memory://", "--no-browser")
    assert result.exit_code == 2
    assert "pip install 'summem[inspect]'" in one_error_line(result)


def test_configuration_errors_are_summem_errors() -> None:
    with pytest.raises(ConfigurationError):
        open_source("/definitely/not/here.db")


def test_the_help_line_is_the_commands_own() -> None:
    from summem.cli.app import LAZY_COMMANDS

    assert LAZY_COMMANDS["inspect"][1] == command.inspect.short_help
    assert "inspect" in run("--help").output


def test_an_unreachable_store_fails_at_once(served: dict[str, Any]) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    result = run("inspect", "--store", f"redis://:hunter2secret@127.0.0.1:{port}/0", "--no-browser")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert "hunter2secret" not in result.output and "responses" not in served
    assert "Redis" in line or "redis" in line


def test_serve_runs_uvicorn_on_the_given_socket(
    db: tuple[Path, Written], config_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    import httpx
    import uvicorn

    from summem.cli.common import load_settings
    from summem.inspector.app import CSP, create_app
    from summem.inspector.settings import budget_from_config

    made: list[uvicorn.Server] = []

    class Recording(uvicorn.Server):
        def __init__(self, config: uvicorn.Config) -> None:
            super().__init__(config)
            made.append(self)

    monkeypatch.setattr(uvicorn, "Server", Recording)
    source = open_source(str(db[0]))
    try:
        app = create_app(source, budget_from_config(load_settings(str(config_path))))
        sock = command.bind("127.0.0.1", 0)
        port = sock.getsockname()[1]
        thread = threading.Thread(target=command.serve, args=(app, sock), daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while not (made and made[0].started):
            assert thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.05)
        response = httpx.get(f"http://127.0.0.1:{port}/session?id={SESSION}")
        assert response.status_code == 200
        assert response.headers["content-security-policy"] == CSP
        made[0].should_exit = True
        thread.join(30)
        assert not thread.is_alive()
    finally:
        source.close()


def test_the_browser_is_opened_when_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import webbrowser

    opened: list[str] = []

    def browser(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    assert command._open_browser("http://127.0.0.1:1/") is True
    assert opened == ["http://127.0.0.1:1/"]

    def no_browser(url: str) -> bool:
        raise webbrowser.Error("no runnable browser")

    monkeypatch.setattr(webbrowser, "open", no_browser)
    assert command._open_browser("http://127.0.0.1:1/") is False  # the address is printed


def test_the_address_printed() -> None:
    assert command.page_address("0.0.0.0", 80, "tok") == "http://127.0.0.1:80/?token=tok"
    assert command.page_address("::1", 8080, None) == "http://[::1]:8080/"
