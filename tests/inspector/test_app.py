"""The inspector's pages through Starlette's TestClient (no network, no server)."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from summem.inspector.app import CSP, TOKEN_COOKIE, create_app
from summem.inspector.settings import Budget
from summem.inspector.source import Source, open_source
from summem.messages import Message
from summem.stores import SQLiteStore
from summem.stores.base import SessionState
from tests.inspector.conftest import SESSION
from tests.inspector.sessions import IMG, SCRIPT, Written, write_session


def page(client: TestClient, path: str, status: int = 200, **params: object) -> str:
    response = client.get(path, params={k: str(v) for k, v in params.items()})
    assert response.status_code == status, response.text[:500]
    return response.text


# -- the sessions list ---------------------------------------------------------------------------


def test_the_list_shows_each_session_with_its_sizes(
    client: TestClient, db: tuple[Path, Written]
) -> None:
    text = page(client, "/")
    assert "Sessions" in text and SESSION in text and "other-session" in text
    row = re.search(r'<tr>\s*<td><a class="sid"[^>]*>support-1</a></td>(.*?)</tr>', text, re.S)
    assert row is not None
    cells = re.findall(r'<td class="n">([^<]*)</td>', row.group(1))
    with SQLiteStore(db[0]) as store:
        state = store.load(SESSION)
        summaries = len(store.summaries(SESSION))
    assert cells[:4] == [
        str(state.length),
        str(state.watermark),
        str(state.length - state.watermark),
        str(summaries),
    ]
    assert summaries == len(db[1].turns) > 0


def test_the_list_shows_each_sessions_last_activity(
    client: TestClient, db: tuple[Path, Written]
) -> None:
    from datetime import datetime, timezone

    text = page(client, "/")
    assert "last activity" in text
    row = re.search(r'<tr>\s*<td><a class="sid"[^>]*>support-1</a></td>(.*?)</tr>', text, re.S)
    assert row is not None
    with SQLiteStore(db[0]) as store:
        (info,) = [i for i in store.session_infos() if i.session_id == SESSION]
    assert info.updated_at is not None and info.summary is not None
    when = datetime.fromtimestamp(info.updated_at, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    written = info.summary.summary_info.created_at  # type: ignore[union-attr]
    last = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))[-1]
    assert last == when  # the last write, not the last summary
    assert f'title="last reduction {written.strftime("%Y-%m-%d %H:%M:%S")} UTC"' in row.group(1)


def test_the_list_searches_by_id_prefix(client: TestClient) -> None:
    text = page(client, "/", q="supp")
    assert SESSION in text and "other-session" not in text
    text = page(client, "/", q="nothing-like-it")
    assert "No session id starts with" in text


def test_the_list_paginates(tmp_path: Path, budget: Budget) -> None:
    path = tmp_path / "many.db"
    with SQLiteStore(path) as store:
        from summem.messages import user

        for i in range(120):
            store.append(f"s{i:03d}", [user(f"hello {i}")])
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        first = page(client, "/")
        ids = re.findall(r'class="sid"[^>]*>(s\d+)</a>', first)
        assert ids == [f"s{i:03d}" for i in range(50)]
        after = re.search(r'id="next-page" href="/\?after=(s\d+)"', first)
        assert after is not None and after.group(1) == "s049"
        second = page(client, "/", after="s049")
        assert re.findall(r'class="sid"[^>]*>(s\d+)</a>', second)[0] == "s050"
        last = page(client, "/", after="s099")
        assert re.findall(r'class="sid"[^>]*>(s\d+)</a>', last) == [
            f"s{i:03d}" for i in range(100, 120)
        ]
        assert 'id="next-page"' not in last
        prefixed = page(client, "/", q="s11")
        assert re.findall(r'class="sid"[^>]*>(s\d+)</a>', prefixed) == [
            f"s11{i}" for i in range(10)
        ]
        exact = page(client, "/", q="s007")
        assert re.findall(r'class="sid"[^>]*>(s\d+)</a>', exact) == ["s007"]
    finally:
        source.close()


def test_the_list_never_reads_a_message(tmp_path: Path, budget: Budget) -> None:
    path = tmp_path / "index.db"
    with SQLiteStore(path) as store:
        write_session(store, "a-session", turns=6)

    class NoMessages(SQLiteStore):
        def history(self, *args: object, **kwargs: object) -> list[Message]:
            raise AssertionError("the list read messages")

        def load(self, *args: object, **kwargs: object) -> SessionState:
            raise AssertionError("the list loaded a session")

    store = NoMessages(path, read_only=True)
    try:
        source = Source(store=store, url="sqlite:///x", shown="sqlite:///x", read_only="test")
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        assert "a-session" in page(client, "/")
        assert "a-session" in page(client, "/", q="a-session")
    finally:
        store.close()


# -- the session page ----------------------------------------------------------------------------


def test_the_session_page_shows_chart_view_history_and_summaries(
    client: TestClient, db: tuple[Path, Written]
) -> None:
    text = page(client, "/session", id=SESSION)
    with SQLiteStore(db[0]) as store:
        state = store.load(SESSION)
        log = store.summaries(SESSION)
    assert '<svg class="chart"' in text
    assert text.count('class="reduction') == len(db[1].turns) + 1  # one per reduction + legend
    assert 'class="threshold"' in text and 'class="target"' in text
    assert "threshold 400" in text and "target 250" in text
    for i in range(1, len(log) + 1):
        assert f">S{i}</text>" in text
    # the view column: system, the current summary, the tail
    view = text.split('id="view-now"')[1].split('id="history"')[0]
    assert view.count('<article class="msg') == 2 + len(state.tail)
    assert state.summary is not None and state.summary.id in view
    # the history column greys what the summary stands for
    history = text.split('id="history"')[1].split('id="summaries"')[0]
    positions = [int(p) for p in re.findall(r'id="h-(\d+)"', history)]
    greyed = [int(p) for p in re.findall(r'class="msg[^"]* evicted[^"]*" id="h-(\d+)"', history)]
    assert greyed == [p for p in positions if p < state.watermark] and greyed
    # every summary of the log has its card or timeline row
    for s in log:
        assert s.id in text


def test_tool_calls_are_paired_with_their_results(client: TestClient) -> None:
    text = page(client, "/session", id=SESSION, at=0)
    call = re.search(r'class="msg role-assistant[^"]* paired (pair-\d)[^"]*" id="h-1"', text)
    result = re.search(r'class="msg role-tool[^"]* paired (pair-\d)[^"]*" id="h-2"', text)
    assert call and result and call.group(1) == result.group(1)
    assert "result of <b>lookup_order</b>" in text


def test_the_history_paginates(client: TestClient, db: tuple[Path, Written]) -> None:
    from summem.inspector import views

    text = page(client, "/session", id=SESSION, at=40)
    history = text.split('id="history"')[1]
    positions = [int(p) for p in re.findall(r'id="h-(\d+)"', history)]
    assert positions == list(range(40, min(40 + views.HISTORY_PER_PAGE, db[1].length)))


def test_content_is_escaped_never_markup(client: TestClient) -> None:
    text = page(client, "/session", id=SESSION, at=0)
    assert SCRIPT not in text and IMG not in text and "<b>bold</b>" not in text
    assert SCRIPT in html.unescape(text) and IMG in html.unescape(text)  # shown, as text
    assert "onerror=" not in text.replace("onerror=&#34;", "")
    assert "<i>Be kind</i>" not in text
    assert "<script" not in text.lower()  # the pages carry no script of their own either
    found = page(client, "/session", id=SESSION, q="pwned")
    assert "pwned" in found and SCRIPT not in found


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for path in (
        "/",
        f"/session?id={SESSION}",
        "/session?id=nope",
        "/static/inspector.css",
        "/export?id=" + SESSION,
        "/missing",
    ):
        response = client.get(path)
        assert response.headers["content-security-policy"] == CSP, path
        assert "unsafe-inline" not in CSP and "script-src 'none'" in CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"


def test_only_get_is_answered(client: TestClient) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = client.request(method, f"/session?id={SESSION}")
        assert response.status_code == 405
        assert "read-only" in response.text


def test_a_foreign_host_is_refused(source: Source, budget: Budget) -> None:
    client = TestClient(create_app(source, budget), base_url="http://evil.example")
    assert client.get("/").status_code == 400


def test_view_at_a_turn_before_and_after_a_reduction(
    client: TestClient, db: tuple[Path, Written]
) -> None:
    first = db[1].turns[0]
    before = page(client, "/session", id=SESSION, turn=first - 1)
    panel = before.split('id="view-at"')[1].split("</section>")[0]
    assert "No summary yet" in panel
    assert re.findall(r'id="t-(\d+)"', panel) == [str(p) for p in range(first)]
    after = page(client, "/session", id=SESSION, turn=first)
    panel = after.split('id="view-at"')[1].split("</section>")[0]
    with SQLiteStore(db[0]) as store:
        s1 = store.summaries(SESSION)[0]
    assert s1.summary_info is not None
    watermark = s1.summary_info.watermark
    assert s1.id in panel and ">S1</a>" in panel
    assert re.findall(r'id="t-(\d+)"', panel) == [str(p) for p in range(watermark, first + 1)]


def test_reduction_turns_match_what_happened(client: TestClient, db: tuple[Path, Written]) -> None:
    text = page(client, "/session", id=SESSION)
    table = text.split('id="timeline"')[1]
    turns = [int(t) for t in re.findall(r"<td>#(\d+)≈</td>", table)]
    assert turns == db[1].turns


def test_a_summary_line_shows_its_sources(client: TestClient, db: tuple[Path, Written]) -> None:
    with SQLiteStore(db[0]) as store:
        summary = store.summaries(SESSION)[-1]
        history = store.history(SESSION)
    assert summary.summary_info is not None
    entries = summary.summary_info.extra["provenance"]
    entry = entries[0]
    text = page(client, "/session", id=SESSION, summary=summary.id, line=entry["line"])
    panel = text.split('id="sources"')[1].split("</div>\n</article>")[0]
    shown = re.findall(r'<span class="mid" title="message id">([^<]+)</span>', panel)
    assert shown and set(shown) <= set(entry["ids"])
    by_id = {m.id: i for i, m in enumerate(history)}
    assert re.findall(r'id="s-(\d+)"', panel) == [
        str(by_id[i]) for i in sorted(shown, key=by_id.__getitem__)
    ]


def test_a_summary_lists_what_it_dropped(client: TestClient, db: tuple[Path, Written]) -> None:
    with SQLiteStore(db[0]) as store:
        summary = store.summaries(SESSION)[-1]
    assert summary.summary_info is not None
    uncovered = summary.summary_info.extra.get("uncovered_ids")
    assert isinstance(uncovered, list)
    text = page(client, "/session", id=SESSION, summary=summary.id)
    card = text.split(f'id="summary-{summary.id}"')[1].split("</article>")[0]
    if uncovered:
        assert f"{len(uncovered)} folded-in message" in card
        assert len(re.findall(r'#h-\d+">#\d+</a>', card)) == len(uncovered)
    else:
        assert "every folded-in message is cited" in card


def test_recall_finds_an_evicted_value(client: TestClient) -> None:
    text = page(client, "/session", id=SESSION, q="BW-1001")
    results = text.split('id="recall-results"')[1].split("</section>")[0]
    assert "BW-1001" in results
    assert re.search(r"\d+ messages? found", results)


def test_recall_on_a_store_without_search(budget: Budget) -> None:
    from summem.stores import InMemoryStore

    store = InMemoryStore()
    write_session(store, SESSION, turns=6)
    source = Source(store=store, url="memory://", shown="memory://", read_only="test")
    client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
    text = page(client, "/session", id=SESSION, q="BW-1003")
    assert 'id="r-' in text and "BW-1003" in text.split('id="recall-results"')[1]


def test_export_downloads_the_sessions_json(client: TestClient, db: tuple[Path, Written]) -> None:
    response = client.get("/export", params={"id": SESSION})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert 'filename="support-1.json"' in response.headers["content-disposition"]
    doc = json.loads(response.text)
    assert doc["session_id"] == SESSION and doc["history_length"] == db[1].length


@pytest.mark.parametrize("sid", ["日本-chat", 'é"x; y=1', "..", "support-1"])
def test_export_of_any_session_id_is_a_download(tmp_path: Path, budget: Budget, sid: str) -> None:
    from summem.messages import user

    path = tmp_path / "ids.db"
    with SQLiteStore(path) as store:
        store.append(sid, [user("hi")])
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        response = client.get("/export", params={"id": sid})
        assert response.status_code == 200, response.text[:300]
        disposition = response.headers["content-disposition"]
        assert disposition.isascii() and disposition.count('"') == 2, disposition
        assert 'filename=".' not in disposition and "''." not in disposition
        assert json.loads(response.text)["session_id"] == sid
    finally:
        source.close()


def test_branches_are_listed_and_shown(tmp_path: Path, budget: Budget) -> None:
    from summem.memory import Memory

    path = tmp_path / "b.db"
    with SQLiteStore(path) as store:
        write_session(store, SESSION, turns=3)
        memory = Memory(SESSION, store=store)
        popped = memory.pop(2)
        memory.close()
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        text = page(client, "/session", id=SESSION)
        branch = re.search(r'href="/branch\?id=support-1&amp;branch=([^"&]+)"', text)
        assert branch is not None
        shown = page(client, "/branch", id=SESSION, branch=html.unescape(branch.group(1)))
        assert all(m.id in shown for m in popped)
        page(client, "/branch", 404, id=SESSION, branch="no-such-branch")
    finally:
        source.close()


def test_a_summary_without_its_text_is_shown_as_metadata(budget: Budget) -> None:
    from summem.inspector.summaries import summary_card
    from summem.messages import Message, SummaryInfo

    info = SummaryInfo(covered_ids=("a", "b"), watermark=2, summarizer="extractive", tokens=40)
    for content in ("", " "):
        summary = Message(role="user", content=content).as_summary(info)
        card = summary_card(summary, None, current=False, prefix=budget.summary_prefix)
        assert not card.has_text and card.lines == [] and card.covered == 2


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "status", "words"),
    [
        ({"id": "no-such-session"}, 404, "no session"),
        ({}, 400, "which session"),
        ({"id": "bad\x01id"}, 400, "control characters"),
        ({"id": SESSION, "turn": "abc"}, 400, "turn must be a whole number"),
        ({"id": SESSION, "turn": "-1"}, 400, "turn -1 is out of range"),
        ({"id": SESSION, "turn": "100000"}, 400, "turn 100000 is out of range"),
        ({"id": SESSION, "at": "-5"}, 400, "at -5 is out of range"),
        ({"id": SESSION, "line": "2"}, 400, "line needs summary"),
        ({"id": SESSION, "summary": "m_nope"}, 404, "has no summary"),
        ({"id": SESSION, "q": "x" * 501}, 400, "at most 500"),
    ],
)
def test_bad_input_gets_a_clear_page(
    client: TestClient, params: dict[str, str], status: int, words: str
) -> None:
    response = client.get("/session", params=params)
    assert response.status_code == status
    error = re.search(r'<p class="error" id="error">(.*?)</p>', response.text, re.S)
    assert error is not None and words in html.unescape(error.group(1))


def test_a_line_without_sources_is_a_bad_request(
    client: TestClient, db: tuple[Path, Written]
) -> None:
    with SQLiteStore(db[0]) as store:
        summary = store.summaries(SESSION)[0]
    response = client.get("/session", params={"id": SESSION, "summary": summary.id, "line": "9999"})
    assert response.status_code == 400 and "records no sources for line 9999" in response.text


# -- token ---------------------------------------------------------------------------------------


def test_a_token_is_checked_on_every_request(source: Source, budget: Budget) -> None:
    token = "t0ken-" + "x" * 20
    client = TestClient(create_app(source, budget, token=token), base_url="http://127.0.0.1")
    for path in ("/", f"/session?id={SESSION}", "/static/inspector.css", f"/export?id={SESSION}"):
        assert client.get(path).status_code == 401, path
    assert client.get("/", params={"token": "wrong"}).status_code == 401
    response = client.get(f"/session?id={SESSION}&token={token}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/session?id={SESSION}"
    cookie = response.headers["set-cookie"]
    assert TOKEN_COOKIE in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert client.get(f"/session?id={SESSION}").status_code == 200  # the cookie now
    client.cookies.clear()
    client.cookies.set(TOKEN_COOKIE, "forged")
    assert client.get("/").status_code == 401


def test_the_token_redirect_stays_on_this_site(source: Source, budget: Budget) -> None:
    token = "t" * 32
    client = TestClient(create_app(source, budget, token=token), base_url="http://127.0.0.1")
    response = client.get(f"http://127.0.0.1//evil.example/x?token={token}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/evil.example/x"  # a path here, not a site


def test_a_non_ascii_token_is_refused_not_an_error(source: Source, budget: Budget) -> None:
    import asyncio

    app = create_app(source, budget, token="t" * 32)
    client = TestClient(app, base_url="http://127.0.0.1")
    assert client.get("/", params={"token": "é" * 32}).status_code == 401

    async def status(cookie: bytes) -> int:  # a browser may send any bytes in a cookie
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/",
            "raw_path": b"/",
            "query_string": b"",
            "headers": [(b"host", b"127.0.0.1"), (b"cookie", cookie)],
            "scheme": "http",
            "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 1),
            "root_path": "",
            "http_version": "1.1",
        }
        sent: list[dict[str, object]] = []

        async def receive() -> dict[str, object]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, object]) -> None:
            sent.append(message)

        await app(scope, receive, send)  # type: ignore[arg-type]
        code = sent[0]["status"]
        assert isinstance(code, int)
        return code

    assert asyncio.run(status(f"{TOKEN_COOKIE}={'é' * 32}".encode())) == 401
    assert asyncio.run(status(f"{TOKEN_COOKIE}={'t' * 32}".encode())) == 200


# -- secrets and read-only -----------------------------------------------------------------------


def test_the_store_password_is_never_shown(db: tuple[Path, Written], budget: Budget) -> None:
    from summem._secrets import mask_url
    from summem.errors import StoreError

    secret_url = "postgresql://app:hunter2secret@db.internal:5432/app"
    store = SQLiteStore(db[0], read_only=True)

    class Failing(SQLiteStore):
        def load(self, *args: object, **kwargs: object) -> SessionState:
            raise StoreError(f"could not reach {secret_url}")

    failing = Failing(db[0], read_only=True)
    try:
        for s in (store, failing):
            source = Source(store=s, url=secret_url, shown=mask_url(secret_url), read_only="t")
            client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
            for path in ("/", f"/session?id={SESSION}", "/session?id=nope", "/missing"):
                response = client.get(path)
                assert "hunter2secret" not in response.text, path
                assert "db.internal" in response.text, path
        assert client.get(f"/session?id={SESSION}").status_code == 500
    finally:
        store.close()
        failing.close()


def test_serving_every_page_changes_nothing_in_the_file(
    db: tuple[Path, Written], budget: Budget
) -> None:
    path, written = db
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        page(client, "/")
        page(client, "/session", id=SESSION, turn=written.turns[0], q="BW-1002")
        page(client, "/export", id=SESSION)
    finally:
        source.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_masked_tool_results_show_as_their_stubs(tmp_path: Path) -> None:
    from summem.cli.common import load_settings
    from summem.inspector.settings import budget_from_config
    from summem.messages import parse_message
    from tests.inspector.sessions import conversation

    path = tmp_path / "masking.yaml"
    settings = "budget:\n  threshold: 4000\n  target: 3000\nmasking:\n  after: 1\n  min_tokens: 5\n"
    path.write_text(settings, encoding="utf-8")
    budget = budget_from_config(load_settings(str(path)))
    db = tmp_path / "bulky.db"
    with SQLiteStore(db) as store:  # no reduction: three tool groups in the view
        store.append(SESSION, [parse_message(m) for m in conversation(3, tool_padding=40)])
    source = open_source(str(db))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        text = page(client, "/session", id=SESSION)
    finally:
        source.close()
    view = text.split('id="view-now"')[1].split('id="history"')[0]
    history = text.split('id="history"')[1].split('id="summaries"')[0]
    stubs = re.findall(r'<div class="text stub">([^<]*)</div>', view)
    assert stubs and all(
        html.unescape(s).startswith("[masked tool result: lookup_order(") for s in stubs
    )
    assert "old tool result" in view
    assert history.count("masked in the view") == len(stubs)
    with SQLiteStore(db) as store:
        tail = store.load(SESSION).tail
    tools = [m for m in tail if m.role == "tool"]
    assert len(stubs) == len(tools) - 1  # the last tool group stays whole


def test_an_llm_summarys_provenance_and_spend(tmp_path: Path, budget: Budget) -> None:
    from summem.messages import SummaryInfo, assistant, user

    history = [
        message
        for i in range(3)
        for message in (user(f"My order BW-{i} is late."), assistant("It ships tomorrow."))
    ]
    info = SummaryInfo(
        covered_ids=tuple(m.id for m in history[:4]),
        watermark=4,
        summarizer="llm:gpt-4o-mini",
        model="gpt-4o-mini",
        prompt="summarize@3",
        prompt_hash="sha256:abc123",
        tokens=42,
        extra={
            "usage": {"calls": 2, "input_tokens": 900, "output_tokens": 80, "cost_usd": 0.0012},
            "fallback": {
                "used": "gpt-4o-mini",
                "failed": ["claude-3-5-haiku"],
                "reasons": ["LLMRetryError: <rate limited>"],
            },
            "uncovered_ids": [history[1].id],
        },
    )
    summary = user("The user's order BW-1 is late; it ships tomorrow.").as_summary(info)
    path = tmp_path / "llm.db"
    with SQLiteStore(path) as store:
        store.create("llm", history=history, summary=summary, watermark=4)
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        text = page(client, "/session", id="llm", summary=summary.id)
    finally:
        source.close()
    card = html.unescape(text.split(f'id="summary-{summary.id}"')[1].split("</article>")[0])
    for words in (
        "llm:gpt-4o-mini · model gpt-4o-mini · fallback step used: gpt-4o-mini",
        "claude-3-5-haiku: LLMRetryError: <rate limited>",
        "summarize@3",
        "sha256:abc123",
        "2 calls, 900 tokens in, 80 out, $0.0012",
        "1 folded-in message no summary line cites",
        "does not record which messages each line came from",
    ):
        assert words in card, words
    assert "<rate limited>" not in text  # escaped in the page
    assert 'href="/session?id=llm&amp;at=0#h-1">#1</a>' in text


def test_a_store_without_an_index_is_listed_page_by_page(budget: Budget) -> None:
    from summem.messages import user
    from summem.stores import InMemoryStore
    from summem.stores.base import ListingStore

    class Plain(InMemoryStore):
        session_infos = None  # type: ignore[assignment]  # no listing index: loads a page

    store = Plain()
    assert not isinstance(store, ListingStore)
    for i in range(55):
        store.append(f"p{i:02d}", [user(f"hello {i}")])
    source = Source(store=store, url="memory://", shown="memory://", read_only="test")
    client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
    first = page(client, "/")
    assert re.findall(r'class="sid"[^>]*>(p\d+)</a>', first) == [f"p{i:02d}" for i in range(50)]
    rest = page(client, "/", after="p49")
    assert re.findall(r'class="sid"[^>]*>(p\d+)</a>', rest) == [f"p{i:02d}" for i in range(50, 55)]
    assert re.findall(r'class="sid"[^>]*>(p\d+)</a>', page(client, "/", q="p1")) == [
        f"p1{i}" for i in range(10)
    ]


def test_images_and_audio_are_placeholders_never_data(budget: Budget) -> None:
    from summem.messages import parse_message
    from summem.stores import InMemoryStore

    data = "data:image/png;base64," + "A" * 4000
    message = parse_message(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in <this> picture?"},
                {"type": "image_url", "image_url": {"url": data}},
                {"type": "input_audio", "input_audio": {"data": "B" * 400, "format": "wav"}},
            ],
        }
    )
    store = InMemoryStore()
    store.append(SESSION, [message])
    source = Source(store=store, url="memory://", shown="memory://", read_only="test")
    client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
    text = page(client, "/session", id=SESSION)
    assert "What is in &lt;this&gt; picture?" in text
    assert "[image_url]" in text and "[input_audio]" in text
    assert "base64" not in text and "A" * 100 not in text and "B" * 100 not in text
