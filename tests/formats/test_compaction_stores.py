"""Every kind of provider item through every store, reopen and export, byte for byte.

An OpenAI compaction item in the history is covered in ``test_compaction.py``; here the others:
an Anthropic reply carrying its compaction block, and delegated summaries holding OpenAI's
window and item or Claude's block (``SummaryInfo.extra["provider_compaction"]``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import respx

from summem import Memory, SummarizationReducer
from summem.formats.compaction import PROVIDER_SUMMARY, TWIN_OF
from summem.summarizers import AnthropicCompaction, OpenAICompaction
from tests.fakes.replies import ANTHROPIC_URL
from tests.fakes.transport import Recorder
from tests.stores.backends import BACKEND_PARAMS, backend_of
from tests.summarizers.test_anthropic_compaction import Claude
from tests.summarizers.test_provider_compaction import Compactor

BLOCK = {"type": "compaction", "content": "Orders A0-A1: codes 1000, 1001.", "signature": "sig_9"}


def fresh(tmp_path: Path, name: str) -> Path:
    (tmp_path / name).mkdir()
    return tmp_path / name


def talk(memory: Memory, turns: range) -> None:
    for n in turns:
        memory.add({"role": "user", "content": f"Order A{n}: what is its code?"})
        memory.add({"role": "assistant", "content": f"Order A{n} has code {1000 + n}."})


def views(memory: Memory) -> str:
    return json.dumps(
        [
            memory.items(),
            memory.messages(),
            memory.messages(provider="anthropic"),
            [m.model_dump(mode="json") for m in memory.history_messages()],
            [s.model_dump(mode="json") for s in memory.summaries()],
        ]
    )


def survives(memory: Memory, make: Any) -> None:
    sent = views(memory)
    reopened = Memory("s", reducer=memory.reducer, store=make())
    assert views(reopened) == sent
    data = json.loads(json.dumps(reopened.to_dict()))
    assert "binary data" not in json.dumps(data)
    imported = Memory.from_dict({**data, "session_id": "copy"}, store=make())
    assert views(imported).replace('"copy"', '"s"') == sent
    for m in (reopened, imported):
        m.close()


@pytest.mark.parametrize("kind_mode", BACKEND_PARAMS)
def test_an_anthropic_block_and_delegated_summaries_survive_every_store(
    kind_mode: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, litellm_httpx: Any
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with backend_of(kind_mode, fresh(tmp_path, "block")) as backend:
        # a Claude reply carrying its block, and its twin
        memory = Memory(
            "s",
            reducer=SummarizationReducer(threshold_tokens=100_000, target_tokens=50_000),
            store=backend.make(),
        )
        talk(memory, range(2))
        memory.add(
            {
                "role": "assistant",
                "content": "Noted.",
                "provider_specific_fields": {"compaction_blocks": [BLOCK]},
            }
        )
        talk(memory, range(2, 3))
        twin = memory.summary
        assert twin is not None and twin.summary_info is not None
        assert TWIN_OF in twin.summary_info.extra
        [carrier] = [
            m for m in memory.messages(provider="anthropic") if m.get("provider_specific_fields")
        ]
        assert carrier["provider_specific_fields"]["compaction_blocks"] == [BLOCK]
        survives(memory, backend.make)
        memory.close()
    with backend_of(kind_mode, fresh(tmp_path, "openai")) as backend:
        rec = Recorder(Compactor())
        memory = Memory(
            "s",
            reducer=SummarizationReducer(
                OpenAICompaction(rec.client(), model="gpt-4.1"),
                threshold_messages=8,
                target_messages=4,
            ),
            store=backend.make(),
        )
        talk(memory, range(5))
        summary = memory.summary
        assert summary is not None and summary.summary_info is not None
        assert summary.summary_info.extra[PROVIDER_SUMMARY]["item"]["type"] == "compaction"
        survives(memory, backend.make)
        memory.close()
    with (
        backend_of(kind_mode, fresh(tmp_path, "claude")) as backend,
        respx.mock(assert_all_mocked=True) as router,
    ):
        router.post(ANTHROPIC_URL).mock(side_effect=Claude())
        memory = Memory(
            "s",
            reducer=SummarizationReducer(
                AnthropicCompaction("anthropic/claude-sonnet-4-5"),
                threshold_messages=8,
                target_messages=4,
            ),
            store=backend.make(),
        )
        talk(memory, range(5))
        summary = memory.summary
        assert summary is not None and summary.summary_info is not None
        assert summary.summary_info.extra[PROVIDER_SUMMARY]["block"]["type"] == "compaction"
        survives(memory, backend.make)
        memory.close()
