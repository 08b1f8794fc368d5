"""``summem replay --model``: the LLM summarizer through the real litellm, mocked with respx."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import httpx
import pytest
import respx

from summem.observe.cost import cost_usd
from tests.cli.test_app import SMALL, one_error_line, run, transcript, write_json
from tests.cli.test_chat import completion
from tests.fakes.replies import OPENAI_URL as URL

pytestmark = pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real-0000")


def test_replay_with_a_model_calls_it_counts_it_and_prices_it(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    with respx.mock() as router:
        route = router.post(URL).mock(
            return_value=httpx.Response(200, json=completion("Orders BW-1000 on are late."))
        )
        result = run(
            "replay", source, *SMALL, "--model", "gpt-4o-mini", "--out", tmp_path / "o", "--json"
        )
    assert result.exit_code == 0, result.output
    assert "no API key" not in result.stderr and "extractive" not in result.stderr
    doc = json.loads(result.stdout)
    totals = doc["totals"]
    assert totals["reductions"] >= 2
    assert totals["summarizer_calls"] == route.call_count == totals["reductions"]
    assert totals["summarizer_input_tokens"] == 11 * route.call_count  # the mocked usage
    cost = totals["estimated_cost_usd"]
    assert 0 < cost["with_summem"] < cost["full_context"]
    assert {r["summarizer"] for r in doc["reductions"]} == {"llm:gpt-4o-mini"}
    records = [json.loads(x) for x in (tmp_path / "o" / "summaries.jsonl").read_text().splitlines()]
    assert records[-1]["provenance"]["model"] == "gpt-4o-mini"
    assert records[-1]["provenance"]["prompt"].startswith("summarize@")
    # The transcript is data: the summarizer got the evicted turns, not the raw JSON file.
    sent = json.loads(route.calls[0].request.content)["messages"]
    assert "Question 0" in json.dumps(sent)
    per_call = cost_usd("gpt-4o-mini", 11, 2)
    assert per_call > 0
    assert [r["cost_usd"] for r in doc["reductions"]] == pytest.approx(
        [per_call] * route.call_count
    )
    assert totals["summarizer_cost_usd"] == pytest.approx(per_call * route.call_count)

    store = ["--store", doc["store"]]
    shown = json.loads(run("sessions", "show", doc["session"], *store, "--json").stdout)
    timeline = shown["timeline"]
    assert len(timeline) == route.call_count
    assert [t["cost_usd"] for t in timeline] == pytest.approx([per_call] * route.call_count)
    assert all(t["calls"] == 1 and t["input_tokens"] == 11 for t in timeline)
    assert all(t["summarizer"] == "llm:gpt-4o-mini" for t in timeline)
    assert [t["end"] for t in timeline][-1] == shown["watermark"]
    assert all(a["end"] == b["start"] for a, b in itertools.pairwise(timeline))
    assert shown["summarizer_spent"]["cost_usd"] == pytest.approx(per_call * route.call_count)
    table = run("sessions", "show", doc["session"], *store)
    assert "reductions" in table.stdout and "11 / 2" in table.stdout
    listed = json.loads(run("sessions", "list", *store, "--json").stdout)
    assert listed[0]["summarizer_cost_usd"] == pytest.approx(per_call * route.call_count)


def test_a_failing_summarizer_is_one_line_and_exit_code_1(tmp_path: Path) -> None:
    source = write_json(tmp_path / "chat.json", transcript())
    error = {
        "error": {
            "message": "bad request",
            "type": "invalid_request_error",
            "code": None,
            "param": None,
        }
    }
    with respx.mock() as router:
        router.post(URL).mock(return_value=httpx.Response(400, json=error))
        result = run(
            "replay",
            source,
            *SMALL,
            "--model",
            "gpt-4o-mini",
            "--store",
            f"sqlite:///{tmp_path / 'x.db'}",
        )
    assert result.exit_code == 1
    assert "summarizer 'llm:gpt-4o-mini' failed" in one_error_line(result)
    from summem.stores.sqlite import SQLiteStore

    with SQLiteStore(tmp_path / "x.db") as store:  # so the same command can simply run again
        assert not store.exists("replay-chat")
