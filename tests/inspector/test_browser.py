"""The browser tier: headless Chromium against a real ``summem inspect`` server.

Run by ``scripts/browser`` (and CI), deselected otherwise (the ``browser`` marker). Chromium is
the system's (Debian's ``chromium``; ``$SUMMEM_CHROMIUM`` names another), driven by Playwright
for Python without Playwright's own browser download. Each test saves a screenshot of every
page it visits into its own output folder (``tmp_path``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from summem.cli.common import load_settings
from summem.inspector.app import create_app
from summem.inspector.command import bind
from summem.inspector.settings import budget_from_config
from summem.inspector.source import open_source
from summem.stores import SQLiteStore
from tests.cli.test_app import run
from tests.inspector.sessions import IMG, SCRIPT, Written, config_text, write_session

pytestmark = pytest.mark.browser

SESSION = "support-1"
ROOT = Path(__file__).parents[2]
# read at import: the suite's autouse fixture clears SUMMEM_* variables before each test
CHROMIUM = os.environ.get("SUMMEM_CHROMIUM") or shutil.which("chromium")
SCREENSHOT_TO = os.environ.get("SUMMEM_INSPECT_SCREENSHOT")


def chromium() -> str:
    found = CHROMIUM
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("no chromium: .ci/run installs Debian's chromium with apt-get")
        pytest.skip("no chromium (apt-get install chromium)")
    return found


class Server:
    """``summem inspect``'s app served by uvicorn on 127.0.0.1 in a thread."""

    def __init__(self, target: str, config: Path) -> None:
        import uvicorn

        self.source = open_source(target)
        app = create_app(self.source, budget_from_config(load_settings(str(config))))
        sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.source.close()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Written, Path]:
    folder = tmp_path_factory.mktemp("inspect-data")
    config = folder / "summem.yaml"
    config.write_text(config_text(), encoding="utf-8")
    with SQLiteStore(folder / "sessions.db") as store:
        written = write_session(store, SESSION)
    return folder / "sessions.db", written, config


@pytest.fixture(scope="module")
def server(data: tuple[Path, Written, Path]) -> Iterator[Server]:
    served = Server(str(data[0]), data[2])
    yield served
    served.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright import sync_api
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("no playwright: the dev extra installs it")
        pytest.skip("no playwright (pip install playwright)")
    executable = chromium()
    args = ["--no-sandbox"] if os.geteuid() == 0 else []  # root: Chromium's sandbox refuses
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, headless=True, args=args)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    opened = context.new_page()
    yield opened
    context.close()


def shot(page: Any, folder: Path, name: str, *, full: bool = False) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    assert path.stat().st_size > 10_000  # a page was drawn, not a blank
    return path


def test_the_sessions_list_opens_a_session(page: Any, server: Server, tmp_path: Path) -> None:
    page.goto(server.url + "/")
    assert page.title() == "Sessions · summem inspect"
    assert page.locator("#sessions tbody tr").count() == 1
    shot(page, tmp_path, "sessions")
    page.click(f"text={SESSION}")
    page.wait_for_url(re.compile(r"/session\?id=support-1$"))
    assert page.locator("#session-id").inner_text() == SESSION
    shot(page, tmp_path, "session")


def test_a_session_with_reductions(
    page: Any, server: Server, data: tuple[Path, Written, Path], tmp_path: Path
) -> None:
    page.goto(f"{server.url}/session?id={SESSION}")
    chart = page.locator("svg#chart")
    assert chart.is_visible()
    markers = chart.locator("text.marker").all_text_contents()
    assert markers == [f"S{i + 1}" for i in range(len(data[1].turns))]
    assert page.locator("#history article.msg.evicted").count() > 0
    assert page.locator("#view-now article.msg.summary").count() == 1
    shot(page, tmp_path, "session-full", full=True)


def test_clicking_a_summary_line_shows_its_sources(
    page: Any, server: Server, data: tuple[Path, Written, Path], tmp_path: Path
) -> None:
    with SQLiteStore(data[0], read_only=True) as store:
        summary = store.summaries(SESSION)[-1]
        history = {m.id: m for m in store.history(SESSION)}
    page.goto(f"{server.url}/session?id={SESSION}")
    card = page.locator(f"[id='summary-{summary.id}']")
    line = card.locator("a.line").first
    line_text = line.inner_text()
    line.click()
    page.wait_for_url(re.compile(r"line=\d+#sources$"))
    sources = page.locator("#sources")
    assert sources.is_visible()
    ids = sources.locator(".mid").all_inner_texts()
    assert ids and all(i in history for i in ids)
    assert page.locator("li.picked a.line").inner_text() == line_text
    shot(page, tmp_path, "summary-line-sources")


def test_picking_a_turn_shows_its_view(
    page: Any, server: Server, data: tuple[Path, Written, Path], tmp_path: Path
) -> None:
    first = data[1].turns[0]
    page.goto(f"{server.url}/session?id={SESSION}")
    page.fill("#turn", str(first))
    page.click("#turn-section button")
    page.wait_for_url(re.compile(rf"turn={first}"))
    panel = page.locator("#view-at")
    assert f"The view at turn #{first}" in panel.locator("h3").inner_text()
    assert panel.locator("article.msg.summary").count() == 1
    shot(page, tmp_path, "view-at-turn")
    # the chart picks turns too: its first slice is turn #0, before any summary
    page.locator("svg#chart g.links a").first.click()
    page.wait_for_url(re.compile(r"turn=0#view-at$"))
    assert "No summary yet" in page.locator("#view-at").inner_text()


def test_recall_search(page: Any, server: Server, tmp_path: Path) -> None:
    page.goto(f"{server.url}/session?id={SESSION}")
    page.fill("#recall input[name=q]", "BW-1001")
    page.click("#recall button")
    page.wait_for_url(re.compile(r"q=BW-1001"))
    results = page.locator("#recall-results")
    assert "BW-1001" in results.inner_text()
    assert results.locator("article.msg").count() >= 1
    shot(page, tmp_path, "recall")


def test_hostile_content_is_text_and_runs_nothing(
    page: Any, server: Server, tmp_path: Path
) -> None:
    dialogs: list[str] = []
    errors: list[str] = []
    console: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(m.text))
    for path in (f"/session?id={SESSION}&at=0", f"/session?id={SESSION}&q=pwned#recall"):
        response = page.goto(server.url + path)
        assert "script-src 'none'" in response.headers["content-security-policy"]
        page.wait_for_load_state("load")
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.evaluate("document.scripts.length") == 0
        assert page.evaluate("document.images.length") == 0
        texts = page.locator("article.msg .text").all_inner_texts()
        assert any(SCRIPT in t and IMG in t for t in texts)  # shown as the text it is
    shot(page, tmp_path, "hostile")
    assert dialogs == [] and errors == []
    assert not [c for c in console if "pwned" in c]


def test_export_json_downloads(page: Any, server: Server, tmp_path: Path) -> None:
    page.goto(f"{server.url}/session?id={SESSION}")
    with page.expect_download() as info:
        page.click("#export")
    saved = tmp_path / "export.json"
    info.value.save_as(str(saved))
    assert json.loads(saved.read_text(encoding="utf-8"))["session_id"] == SESSION


def test_the_demo_session_page(page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled transcript replayed as scripts/demo does, and its session page.

    ``SUMMEM_INSPECT_SCREENSHOT=PATH`` also saves the page there (docs-notes/inspect.png).
    """
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").mkdir()
    for name in ("support-transcript.json", "summem.yaml"):
        shutil.copyfile(ROOT / "examples" / name, tmp_path / "examples" / name)
    config = Path("examples/summem.yaml")
    replayed = run(
        "replay", "examples/support-transcript.json", "--config", config, "--out", "out/demo", "-q"
    )
    assert replayed.exit_code == 0, replayed.output
    served = Server("out/demo", config)
    try:
        page.set_viewport_size({"width": 1400, "height": 1250})
        page.goto(f"{served.url}/session?id=replay-support-transcript")
        assert page.locator("svg#chart text.marker").count() >= 1
        assert "recorded" in page.locator("#chart-section").inner_text()
        assert "out/demo" in page.locator("header").inner_text()
        path = shot(page, tmp_path, "demo-session")
        if SCREENSHOT_TO:
            shutil.copyfile(path, SCREENSHOT_TO)
    finally:
        served.stop()
