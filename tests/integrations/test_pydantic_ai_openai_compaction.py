"""pydantic-ai's own compaction capabilities beside SummemHistory (its OpenAI models).

They import what openai 2.20 (the oldest openai summem supports) lacks: skipped there, run on
the newest.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")

from pydantic_ai.messages import (
    CompactionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    UserPromptPart,
)

from summem import Memory, SummarizationReducer
from summem.formats.compaction import PROVIDER_SUMMARY, TWIN_OF
from summem.integrations.pydantic_ai import from_pydantic_ai, to_pydantic_ai

SECRET = base64.b64encode(bytes((i * 41 + 5) % 256 for i in range(2000))).decode()


# -- pydantic-ai's own compaction capabilities beside SummemHistory ---------------------------

pytest.importorskip(
    "pydantic_ai.models.openai",
    reason="pydantic-ai's OpenAI models need a newer openai SDK than the oldest summem supports",
    exc_type=ImportError,
)

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.openai import OpenAICompaction as PydanticOpenAICompaction  # noqa: E402
from pydantic_ai.models.openai import OpenAIResponsesModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from summem.errors import ConfigurationError  # noqa: E402
from summem.integrations.pydantic_ai import SummemHistory  # noqa: E402
from summem.summarizers import OpenAICompaction  # noqa: E402
from tests.fakes.responses import USAGE, response, text_item  # noqa: E402
from tests.fakes.transport import Recorder  # noqa: E402

ITEM = {"type": "compaction", "id": "cmp_srv", "encrypted_content": SECRET}


class Server:
    """``/responses``: a text reply, with a compaction item first on turn ``compact_on`` when
    the request asks for ``context_management``; ``/responses/compact``: the window and item."""

    def __init__(self, compact_on: int = 2, detail: str = "") -> None:
        self.n = 0
        self.compact_on = compact_on
        self.detail = detail
        self.recorder = Recorder(self.answer)

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        self.n += 1
        if path.endswith("/compact"):
            users = [i for i in body["input"] if i.get("role") == "user"]
            item = {**ITEM, "id": f"cmp_d{self.n}"}
            out = {
                "id": "resp_compact",
                "object": "response.compaction",
                "created_at": 1700000000,
                "output": [*users, item],
                "usage": USAGE,
            }
            return 200, out, {}
        output = [text_item(f"Reply {self.n}.{self.detail}", self.n)]
        if self.n == self.compact_on and body.get("context_management"):
            output = [ITEM, *output]
        return 200, response(output, n=self.n), {}

    def inputs(self) -> list[list[Any]]:
        return [b["input"] for _, p, b in self.recorder.requests if p == "/v1/responses"]

    def model(self) -> OpenAIResponsesModel:
        client = self.recorder.async_client()
        return OpenAIResponsesModel("gpt-4.1", provider=OpenAIProvider(openai_client=client))


def test_server_side_compaction_is_kept_twinned_and_sent_back() -> None:
    """pydantic-ai's OpenAICompaction (stateful): OpenAI compacts in the request; the item is
    stored in its response, summem twins what it stands for, and the next request sends it."""
    server = Server(compact_on=2)
    memory = Memory(
        "p", reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000)
    )
    agent = Agent(
        server.model(),
        system_prompt="Be brief.",
        capabilities=[SummemHistory(memory), PydanticOpenAICompaction(token_threshold=1000)],
    )
    for n in range(4):
        agent.run_sync(f"My order is A{n}, code {1000 + n}.")
    # nothing lost: every turn, and the reply that came with the item
    texts = [str(m.get("content")) for m in memory.history()]
    assert [t for t in texts if t.startswith("Reply")] == [f"Reply {n}." for n in (1, 2, 3, 4)]
    assert sum(t.startswith("My order") for t in texts) == 4
    # summem's readable twin of what the item stands for
    twin = memory.summary
    assert twin is not None and twin.summary_info is not None
    assert twin.summary_info.extra[TWIN_OF]["id"] == "cmp_srv"
    assert "1000" in twin.text and SECRET[:30] not in twin.text
    # OpenAI gets the item back, then what came after it; neither the twin nor the turns before
    last = server.inputs()[-1]
    assert {"id": "cmp_srv", "encrypted_content": SECRET, "type": "compaction"} in last
    sent = json.dumps([i for i in last if i.get("type") != "compaction"])
    assert "code 1000" not in sent and twin.text not in sent and "A3, code 1003" in sent


def test_stateless_pydantic_compaction_is_refused_when_the_agent_is_built() -> None:
    """Its /responses/compact result replaces the run's messages: refused, both named."""
    memory = Memory("p")
    with pytest.raises(ConfigurationError, match="OpenAICompaction in its stateless mode") as err:
        stateless = PydanticOpenAICompaction(message_count_threshold=2)
        Agent(Server().model(), capabilities=[SummemHistory(memory), stateless])
    assert "SummemHistory" in str(err.value) and "summem.summarizers" in str(err.value)
    assert memory.history() == []


def test_a_run_compacted_by_a_run_capability_is_refused_and_nothing_is_lost() -> None:
    """Given for one run only, it is seen in the run's messages: refused before recording."""
    server = Server()
    memory = Memory("p")
    agent = Agent(server.model(), capabilities=[SummemHistory(memory)])
    agent.run_sync("My order is A0, code 1000.")
    before = memory.history()
    with pytest.raises(ConfigurationError, match="stateless mode"):
        agent.run_sync(
            "And A1?", capabilities=[PydanticOpenAICompaction(message_count_threshold=1)]
        )
    assert memory.history()[: len(before)] == before
    assert not any("compaction" in json.dumps(m) for m in memory.history())


def test_a_summary_a_capability_wrote_is_refused() -> None:
    """A ``CompactionPart`` in a request (Pydantic AI Harness's SummarizingCompaction)."""
    memory = Memory("p")
    agent = Agent(
        FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("ok")])),
        capabilities=[SummemHistory(memory)],
    )
    history: list[ModelMessage] = [
        ModelRequest(parts=[CompactionPart("earlier: order A17")]),
        ModelResponse(parts=[TextPart("Noted.")]),
    ]
    with pytest.raises(ConfigurationError, match="SummarizingCompaction"):
        agent.run_sync("Go on.", message_history=history)
    assert memory.history() == []


def test_summem_delegating_to_openai_sends_the_item_through_pydantic_ai() -> None:
    """summem's OpenAICompaction under SummemHistory: pydantic-ai sends OpenAI's item (the
    twin is dropped before it), and a model of another provider is sent the twin."""
    detail = "".join(f" Line {k} of the delivery notes." for k in range(60))
    server = Server(compact_on=0, detail=detail)
    summarizer = OpenAICompaction(server.recorder.client(), model="gpt-4.1")
    memory = Memory(
        "p",
        reducer=SummarizationReducer(
            summarizer, threshold_tokens=6000, target_tokens=4000, summary_max_tokens=2500
        ),
    )
    agent = Agent(server.model(), system_prompt="Be brief.", capabilities=[SummemHistory(memory)])
    for n in range(12):
        agent.run_sync(f"My order is A{n}, code {1000 + n}, shipped to {n} Elm Street.")
    summary = memory.summary
    assert summary is not None and summary.summary_info is not None
    item = summary.summary_info.extra[PROVIDER_SUMMARY]["item"]
    agent.run_sync("Which codes?")
    last = server.inputs()[-1]
    assert {k: item[k] for k in ("id", "encrypted_content", "type")} in last
    assert summary.text not in json.dumps(last)
    assert len([m for m in memory.history() if m["role"] == "user"]) == 13
    # another model family: the twin, never the item
    seen: list[list[ModelMessage]] = []

    def other(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart("ok")])

    Agent(FunctionModel(other), capabilities=[SummemHistory(memory)]).run_sync("Codes?")
    prompts = [p for m in seen[0] if isinstance(m, ModelRequest) for p in m.parts]
    assert any(isinstance(p, UserPromptPart) and p.content == summary.text for p in prompts)


def test_a_delegated_claude_block_goes_to_pydantic_ai_as_anthropics_part() -> None:
    """summem's AnthropicCompaction: the block follows the twin, as Anthropic's own part."""
    from summem.messages import Message, SummaryInfo

    block = {"type": "compaction", "content": "Order A17, code 4411.", "signature": "sig_1"}
    held = {"provider": "anthropic", "kind": "compaction", "id": None, "block": block}
    info = SummaryInfo(
        watermark=2, summarizer="anthropic-compact:x", extra={PROVIDER_SUMMARY: held}
    )
    summary = Message.from_openai({"role": "user", "content": "Summary: A17."}).as_summary(info)
    turn = Message.from_openai({"role": "user", "content": "Code?"})
    back = to_pydantic_ai([summary, turn])
    assert isinstance(back[0], ModelRequest) and isinstance(back[1], ModelResponse)
    [part] = back[1].parts
    assert isinstance(part, CompactionPart) and part.content == block["content"]
    assert part.provider_name == "anthropic" and part.provider_details == {"signature": "sig_1"}
    # coming back as a run's history, neither is recorded again
    assert [m.text for m in from_pydantic_ai(back)] == ["Code?"]
