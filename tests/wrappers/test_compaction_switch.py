"""A provider switch after an OpenAI compaction, on the wire: the request litellm sends.

The history holds an OpenAI compaction item (from ``context_management``), or the summary is a
delegated one (OpenAI's window and item from ``/responses/compact``). ``wrap_completion`` then
sends the conversation to Claude or to a chat-completions model: the request is valid for that
provider, carries the twin, and nothing of OpenAI's item.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

from summem import Memory, SummarizationReducer, wrap_completion
from summem.summarizers import OpenAICompaction
from tests.fakes.replies import ANTHROPIC_URL, OPENAI_URL, anthropic_message, openai_completion
from tests.fakes.transport import Recorder
from tests.formats.test_compaction import COMPACTION, SECRET, big_reducer, turn
from tests.provider_rules import check_anthropic, check_openai
from tests.summarizers.test_provider_compaction import Compactor, talk

ROUTES: dict[str, tuple[str, str, dict[str, Any], Callable[[dict[str, Any]], list[str]]]] = {
    "claude": (
        "anthropic/claude-sonnet-4-5",
        ANTHROPIC_URL,
        anthropic_message("Noted."),
        check_anthropic,
    ),
    "gpt": ("gpt-4o-mini", OPENAI_URL, openai_completion("Noted."), check_openai),
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def sent_to(memory: Memory, route: str) -> dict[str, Any]:
    import litellm

    model, url, reply, check = ROUTES[route]
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=reply)

    completion = wrap_completion(litellm.completion, memory)
    with respx.mock(assert_all_mocked=True) as router:
        router.post(url).mock(side_effect=answer)
        completion(model=model, messages=[{"role": "user", "content": "And the code for A1?"}])
    [body] = bodies
    assert check(body) == []
    return body


def text_of(body: dict[str, Any]) -> str:
    return json.dumps(body["messages"])


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_after_an_openai_item_another_provider_gets_the_twin(route: str) -> None:
    memory = Memory("s", reducer=big_reducer())
    memory.add_items([*turn(1), COMPACTION, *turn(2)])
    twin = memory.summary
    assert twin is not None
    body = sent_to(memory, route)
    sent = text_of(body)
    assert SECRET[:40] not in sent and "encrypted_content" not in sent
    assert "compaction item" not in sent  # not even its label
    assert "Order A1 has code 1001." in twin.text and "code 1001" in sent  # the twin went


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_after_a_delegated_compaction_another_provider_gets_the_twin(route: str) -> None:
    memory = Memory(
        "s",
        reducer=SummarizationReducer(
            OpenAICompaction(Recorder(Compactor()).client(), model="gpt-4.1"),
            threshold_messages=8,
            target_messages=4,
        ),
    )
    talk(memory, range(5))
    summary = memory.summary
    assert summary is not None
    body = sent_to(memory, route)
    sent = text_of(body)
    assert "encrypted_content" not in sent and "compaction" not in sent
    assert "Order A0" in sent  # the twin's text
