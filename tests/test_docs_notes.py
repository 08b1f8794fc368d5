"""Every python block of docs-notes/*.md runs as written (each file in one namespace, in order).

A block that calls a provider goes through the real client, answered by respx at the transport
(chat completions and the Responses API); top-level ``await`` runs on an event loop. What a block
cannot do here is said in :data:`NEEDS`, visibly: a block importing a framework extra that is
not installed is left out (the others still run, and the test ends as skipped naming it); the
PostgreSQL example's URL (a server named ``db.internal``) is pointed at the test server, which
``CI=true`` requires.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from tests.fakes.responses import response, text_item
from tests.test_readme import REPLY

NOTES = Path(__file__).resolve().parent.parent / "docs-notes"
FENCE = re.compile(r"```(?:python|py)\n(.*?)```", flags=re.S)
PG_EXAMPLE = "postgresql://app@db.internal:5432/app?schema=summem&pool_max_size=10"
CLUSTER_EXAMPLE = "redis+cluster://10.0.0.5:7000"

NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "integrations.md": (
        ("langchain.agents", "needs the langchain extra (Python 3.11+)"),
        ("pydantic_ai", "needs the pydantic-ai extra (Python 3.11+)"),
    ),
    "responses.md": (("agents", "the OpenAI Agents SDK (summem[agents]) needs openai>=3"),),
}
"""Per file: the modules its blocks import that an extra provides, and the skip reason."""


def notes_with_code() -> list[str]:
    return sorted(p.name for p in NOTES.glob("*.md") if FENCE.search(p.read_text()))


def test_every_note_with_python_is_collected() -> None:
    names = notes_with_code()
    assert {"masking.md", "responses.md", "stores.md", "integrations.md"} <= set(names)
    for name in names:  # a ```py fence counts too; no other spelling hides a block
        text = (NOTES / name).read_text()
        assert not re.search(r"```(?:Python|python3|py3|pycon)\n", text), name


@pytest.mark.parametrize("name", notes_with_code())
def test_the_python_blocks_of_each_note_run(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run_note(name, monkeypatch, tmp_path)


def _missing(name: str, block: str) -> str | None:
    """Why ``block`` cannot run here (it imports an extra that is not installed), or None."""
    for module, reason in NEEDS.get(name, ()):
        top = module.split(".")[0]
        if re.search(rf"^\s*(?:from|import) {re.escape(top)}\b", block, flags=re.M):
            try:
                importlib.import_module(module)
            except ImportError:
                return f"{module}: {reason}"
    return None


def run_note(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Run every python block of docs-notes/``name``, in order, in one namespace.

    A block that imports an extra which is not installed is left out, and the test then ends
    as skipped, naming the blocks left out and why, once the others have run.
    """
    left_out: list[str] = []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-notes-test")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # the SDK would export traces
    text = (NOTES / name).read_text()
    if PG_EXAMPLE in text:
        from tests.stores.backends import postgres_url

        text = text.replace(PG_EXAMPLE, postgres_url())  # skips without a server (not under CI)
    if CLUSTER_EXAMPLE in text:
        from tests.stores.redis_cluster import local_cluster

        text = text.replace(CLUSTER_EXAMPLE, local_cluster().url)  # skips without redis-server
    namespace: dict[str, Any] = {}
    with respx.mock:
        respx.post("https://api.openai.com/v1/chat/completions").mock(
            return_value=httpx.Response(200, json=REPLY)
        )
        respx.post("https://api.openai.com/v1/responses").mock(
            return_value=httpx.Response(200, json=response([text_item("Where we left off.")]))
        )
        for i, block in enumerate(FENCE.findall(text)):
            why = _missing(name, block)
            if why is not None:
                left_out.append(f"block {i} ({why})")
                continue
            code = compile(block, f"{name} block {i}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            if code.co_flags & inspect.CO_COROUTINE:
                asyncio.run(eval(code, namespace))
            else:
                exec(code, namespace)
    for value in namespace.values():  # leave no store open behind the temporary directory
        close = getattr(value, "close", None)
        if callable(close) and type(value).__name__ in {
            "Memory",
            "SQLiteStore",
            "PostgresStore",
            "RedisStore",
        }:
            close()
    if left_out:
        pytest.skip(f"{name}: the other blocks ran; left out: " + "; ".join(left_out))
