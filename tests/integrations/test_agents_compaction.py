"""The Agents SDK's ``OpenAIResponsesCompactionSession`` around a ``SummemSession``.

The SDK compacts with ``POST /responses/compact`` and replaces its underlying session's items
with what OpenAI returned (the user messages, then one ``compaction`` item). Over a
``SummemSession`` nothing is cleared: the item joins the history with its window, the SDK reads
back exactly what it wrote, the items it stands for stay in the store, and summem writes their
readable twin. The model and the compact endpoint answer from one recorded transport.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any, cast

import pytest

agents = pytest.importorskip(
    "agents", reason="the OpenAI Agents SDK (summem[agents]) needs openai>=3"
)

from agents import Agent, Runner  # noqa: E402
from agents.memory import OpenAIResponsesCompactionSession  # noqa: E402

from summem import SummarizationReducer  # noqa: E402
from summem.errors import MessageValidationError  # noqa: E402
from summem.formats.compaction import TWIN_OF  # noqa: E402
from summem.integrations.agents import SummemSession  # noqa: E402
from tests.fakes.responses import USAGE, response, text_item  # noqa: E402
from tests.fakes.transport import Recorder  # noqa: E402

SECRET = base64.b64encode(bytes((i * 29 + 3) % 256 for i in range(1800))).decode()
ITEM = {"type": "compaction", "id": "cmp_sdk", "encrypted_content": SECRET}


@pytest.fixture(autouse=True)
def _no_tracing() -> Iterator[None]:
    agents.set_tracing_disabled(True)  # the SDK would export traces over the network
    yield
    agents.set_tracing_disabled(False)


class Server:
    """``/responses`` answers a text reply; ``/responses/compact`` the documented window."""

    def __init__(self) -> None:
        self.n = 0
        self.recorder = Recorder(self.answer)

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        self.n += 1
        if path.endswith("/compact"):
            users = [i for i in body.get("input") or [] if i.get("role") == "user"]
            out = {
                "id": "resp_compact",
                "object": "response.compaction",
                "created_at": 1700000000,
                "output": [*users, ITEM],
                "usage": USAGE,
            }
            return 200, out, {}
        return 200, response([text_item(f"Reply {self.n}.", self.n)], n=self.n), {}

    def inputs(self, path: str) -> list[Any]:
        return [b["input"] for _, p, b in self.recorder.requests if p == path]


async def test_the_sdk_compaction_keeps_the_history_and_sends_its_window() -> None:
    server = Server()
    client = server.recorder.async_client()
    inner = SummemSession(
        "user-1", reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)
    )
    session = OpenAIResponsesCompactionSession(
        "user-1", inner, client=client, model="gpt-4.1", compaction_mode="input"
    )
    agent = Agent(name="a", model=agents.OpenAIResponsesModel("gpt-4.1", client))
    for n in range(3):
        await Runner.run(agent, f"My order is A{n}, code {1000 + n}.", session=session)
    before = await inner.get_items()
    await session.run_compaction({"force": True, "compaction_mode": "input"})
    [sent] = server.inputs("/v1/responses/compact")
    assert sent == before
    window = [i for i in before if i.get("role") == "user"]
    # the SDK reads back what it replaced the items with
    assert await session.get_items() == [*window, ITEM]
    # nothing was cleared: every item is in the store, the item after them
    history = await inner.memory.history_messages()
    assert len(history) == len(before) + 1
    # and summem wrote the twin of what the item stands for
    twin = inner.memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_sdk"
    assert "A0" in twin.text and "binary data" not in twin.text
    # the next run sends the window and the item, then the new turn
    await Runner.run(agent, "Which codes?", session=session)
    last = server.inputs("/v1/responses")[-1]
    assert last[: len(window) + 1] == [*window, ITEM]
    assert last[len(window) + 1]["content"] == "Which codes?"
    await inner.close()


@pytest.mark.parametrize("mode", ["auto", "input"])
async def test_the_runners_automatic_compaction_goes_through_summem(mode: str) -> None:
    """The Runner compacts by itself (the SDK's default trigger: ten model items), in the
    default mode (``previous_response_id``) or from the input: the item joins the history with
    nothing lost, its twin is written, and the next request sends the item."""
    server = Server()
    client = server.recorder.async_client()
    inner = SummemSession(
        "user-3", reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)
    )
    session = OpenAIResponsesCompactionSession(
        "user-3", inner, client=client, model="gpt-4.1", compaction_mode=cast("Any", mode)
    )
    agent = Agent(name="a", model=agents.OpenAIResponsesModel("gpt-4.1", client))
    for n in range(12):
        await Runner.run(agent, f"My order is A{n}, code {1000 + n}.", session=session)
    [compact] = [b for _, p, b in server.recorder.requests if p == "/v1/responses/compact"]
    if mode == "auto":
        assert compact.get("previous_response_id") and "input" not in compact
    # nothing lost: every turn is in the store, the item after the tenth reply
    history = await inner.memory.history_messages()
    texts = [m.text for m in history]
    assert sum(t.startswith("My order") for t in texts) == 12
    assert sum(t.startswith("Reply") for t in texts) == 12
    kinds = [(m.meta.get("provider_item") or {}).get("id") for m in history]
    assert kinds.index("cmp_sdk") == 20
    # the twin of the ten turns the item stands for
    twin = inner.memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_sdk"
    assert "1000" in twin.text and "binary data" not in twin.text
    # the SDK's view (items()) starts at the item; OpenAI is sent it with the turns after it
    items = await session.get_items()
    assert ITEM in items and "My order is A11, code 1011." in str(items)
    last = server.inputs("/v1/responses")[-1]
    window = [i for i in compact.get("input") or [] if i.get("role") == "user"]
    at = last.index(ITEM)
    assert last[:at] == window  # OpenAI's window as it returned it (none from a response id)
    assert "Reply 5." not in str(last) and "My order is A11, code 1011." in str(last[at:])
    await inner.close()


async def test_an_output_without_a_compaction_item_stores_nothing() -> None:
    inner = SummemSession("user-2")
    await inner.add_items([{"role": "user", "content": "hi"}])
    with pytest.raises(MessageValidationError, match="compaction item"):
        await inner._atomic_replace_items([{"role": "user", "content": "hi"}])
    assert await inner.get_items() == [{"role": "user", "content": "hi"}]
    await inner.close()
