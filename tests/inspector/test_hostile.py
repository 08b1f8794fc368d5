"""Untrusted content in every field the inspector shows is text on the page, never markup."""

from __future__ import annotations

import html
import json
from pathlib import Path

from starlette.testclient import TestClient

from summem.inspector.app import create_app
from summem.inspector.settings import Budget
from summem.inspector.source import open_source
from summem.messages import SummaryInfo, assistant, system, tool, user
from summem.stores import SQLiteStore

BAD = "\"'><script>alert(1)</script><img src=x onerror=alert(2)>"
SID = f"s{BAD}"


def test_every_stored_field_is_escaped(tmp_path: Path, budget: Budget) -> None:
    path = tmp_path / "hostile.db"
    with SQLiteStore(path) as store:
        store.set_system(SID, system(f"sys {BAD}"))
        call = {
            "id": f"c{BAD}",
            "type": "function",
            "function": {"name": f"t{BAD}", "arguments": json.dumps({"q": BAD})},
        }
        msgs = [
            user(f"hi {BAD} javascript:alert(3) https://x.test/?a=<b>"),
            assistant(None, tool_calls=[call]),
            tool(f"r {BAD}", tool_call_id=f"c{BAD}"),
            assistant(f"done {BAD}", name=f"n{BAD}"[:60]),
        ]
        store.append(SID, msgs)
        st = store.load(SID)
        info = SummaryInfo(
            covered_ids=[m.id for m in msgs[:3]],
            watermark=3,
            summarizer=f"llm:{BAD}",
            model=f"m{BAD}",
            extra={
                "provenance": [{"line": 0, "ids": [msgs[0].id, BAD]}],
                "uncovered_ids": [BAD],
                "fallback": {"reason": BAD},
                "summarizer_total": {"calls": 1, "cost_usd": 0.5},
                "note": BAD,
            },
        )
        summary = assistant(f"- summary {BAD}\n- second {BAD}").as_summary(info)
        store.commit(
            SID, summary=summary, watermark=3, expected_version=st.version, expected_epoch=st.epoch
        )
        st = store.load(SID)
        store.rewrite(
            SID,
            keep=2,
            messages=[user(f"edited {BAD}")],
            expected_version=st.version,
            expected_epoch=st.epoch,
            branch_id=f"b{BAD}",
        )
    source = open_source(str(path))
    try:
        client = TestClient(create_app(source, budget), base_url="http://127.0.0.1")
        pages = [client.get("/"), client.get("/session", params={"id": SID})]
        pages.append(client.get("/session", params={"id": SID, "q": BAD}))
        pages.append(client.get("/session", params={"id": SID, "turn": 1}))
        pages.append(client.get("/branch", params={"id": SID, "branch": f"b{BAD}"}))
        pages.append(client.get("/session", params={"id": SID, "summary": summary.id, "line": 0}))
        for response in pages:
            text = response.text
            assert response.status_code == 200, (
                str(response.url)[-60:],
                text[text.find('id="error"') :][:600],
            )
            assert "<script" not in text.lower() and "<img" not in text.lower(), response.url
            assert "onerror=alert" not in text.replace("onerror=alert(2)&gt;", "")
            assert 'href="javascript:' not in text
        assert BAD in html.unescape(pages[1].text)
    finally:
        source.close()
