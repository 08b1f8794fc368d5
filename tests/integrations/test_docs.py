"""docs-notes/integrations.md's examples run (with the frameworks' own test models)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("langchain.agents", reason="needs the langchain extra (Python 3.11+)")
pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra (Python 3.11+)")

NOTES = Path(__file__).resolve().parents[2] / "docs-notes" / "integrations.md"


def test_the_notes_python_blocks_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", NOTES.read_text(), flags=re.S)
    assert len(blocks) == 2
    for i, block in enumerate(blocks):
        exec(compile(block, f"integrations.md block {i}", "exec"), {})
