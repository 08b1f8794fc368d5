"""The README's code runs: every ```python block, in order, in one namespace.

Blocks that call a provider go through the real openai client, answered by respx at the
transport; the store files land in a temporary directory. The set-up commands it names exist.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
import respx

README = Path(__file__).resolve().parent.parent / "README.md"
REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Sorry to hear that; let me help."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 30, "completion_tokens": 8, "total_tokens": 38},
}


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_code_and_stays_short() -> None:
    assert len(python_blocks()) >= 4
    assert len(README.read_text().splitlines()) <= 200


def test_readme_python_blocks_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-test")
    namespace: dict[str, object] = {}
    with respx.mock:
        route = respx.post("https://api.openai.com/v1/chat/completions").mock(
            return_value=httpx.Response(200, json=REPLY)
        )
        for i, block in enumerate(python_blocks()):
            exec(compile(block, f"README.md block {i}", "exec"), namespace)
    assert route.call_count == 1
    sent = json.loads(route.calls[0].request.content)["messages"]
    assert sent[-1]["content"] == "My order BW-58214-K arrived damaged."
    assert (tmp_path / "summem.db").exists()


def test_readme_commands_exist() -> None:
    text = README.read_text()
    root = README.parent
    for script in re.findall(r"\./(scripts/[\w-]+)", text):
        assert (root / script).exists(), script
    ci = (root / ".ci" / "run").read_text()
    assert "bash scripts/test" in ci  # CI runs the README's test command
    assert "pytest" in (root / "scripts" / "test").read_text()


@pytest.mark.parametrize(
    "name",
    [
        "real-servers.md",
        "reliability.md",
        "background.md",
        "observability.md",
        "cost.md",
        "responses.md",
    ],
)
def test_the_notes_python_blocks_run(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.test_docs_notes import FENCE, run_note  # every note's blocks run there too

    assert FENCE.findall((README.parent / "docs-notes" / name).read_text())
    run_note(name, monkeypatch, tmp_path)  # with top-level await and the transport mocks


def test_readme_says_how_to_install_today_and_how_to_import_litellm_offline() -> None:
    """No release is published yet: the README installs from the source tree, and it names the
    setting that spares an offline ``import litellm`` seconds of price-map fetch warnings."""
    text = README.read_text()
    assert re.search(r"pip install -e (?:\.|\"\.\[[\w,-]+\]\")", text), "no install from source"
    assert "no release is published yet" in text.lower()
    assert "LITELLM_LOCAL_MODEL_COST_MAP=True" in text
    assert "--summaries" in text  # the demo's summaries: how to see every one
