from __future__ import annotations

from pathlib import Path

import pytest

from evals.engine.config import EngineConfig, build_summarizer, open_client, provenance_ids
from evals.engine.recording import RecordingClient, ReplayingClient
from summem.errors import ConfigurationError
from summem.messages import Message, SummaryInfo
from summem.summarizers.extractive.summarizer import ExtractiveSummarizer
from summem.summarizers.llm import LLMSummarizer
from tests.fakes.llm import ScriptedLLM


@pytest.mark.parametrize(
    ("threshold", "target", "summary"), [(4000, 4000, 1000), (4000, 3000, 3000), (4000, 3000, 0)]
)
def test_config_refuses_impossible_budgets(threshold: int, target: int, summary: int) -> None:
    with pytest.raises(ConfigurationError, match="summary_max_tokens < target_tokens"):
        EngineConfig(threshold, target, summary)


def test_config_labels_and_round_trips() -> None:
    config = EngineConfig(4000, 3000, 1000, summarizer="llm:gpt-4o-mini", prompt="p/brief.yaml")
    assert config.label == "llm:gpt-4o-mini[brief] 4000/3000/1000"
    assert config.is_llm
    assert EngineConfig.from_dict(config.to_dict()) == config
    assert EngineConfig(4000, 3000, 1000, soft_threshold_tokens=3500).label.endswith("soft 3500")
    with pytest.raises(ConfigurationError, match="'extractive' or 'llm:MODEL'"):
        EngineConfig(4000, 3000, 1000, summarizer="llm:")


def test_summarizers_by_spec() -> None:
    assert isinstance(build_summarizer("extractive"), ExtractiveSummarizer)
    llm = build_summarizer("llm:gpt-4o-mini", client=ScriptedLLM(), prompt="summarize-brief")
    assert isinstance(llm, LLMSummarizer) and llm.prompt.ref.startswith("summarize-brief@")
    with pytest.raises(ConfigurationError, match="needs a client"):
        build_summarizer("llm:gpt-4o-mini")
    with pytest.raises(ConfigurationError):
        build_summarizer("abstractive")


def test_clients(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recording = tmp_path / "r.jsonl"
    recording.write_text("")
    assert isinstance(open_client(replay=recording), ReplayingClient)
    with pytest.raises(ConfigurationError, match="exclude each other"):
        open_client(record=recording, replay=recording)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        open_client()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    client = open_client(record=tmp_path / "new.jsonl")
    assert isinstance(client, RecordingClient)
    assert "sk-test" not in repr(client)


def test_provenance_ids_read_the_extractive_lines() -> None:
    info = SummaryInfo(
        extra={"provenance": [{"line": 0, "ids": ["a", "b"]}, {"line": 1, "ids": ["b", "c"]}]}
    )
    summary = Message.from_openai({"role": "user", "content": "s"}).as_summary(info)
    assert provenance_ids(summary) == ["a", "b", "c"]
    assert provenance_ids(None) == []
    plain = Message.from_openai({"role": "user", "content": "s"}).as_summary(SummaryInfo())
    assert provenance_ids(plain) == []
