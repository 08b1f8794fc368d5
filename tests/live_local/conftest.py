"""The live-local tier: tests against a real model on a server ``scripts/live-local`` starts.

The server is llama.cpp's OpenAI-compatible server on 127.0.0.1 running SmolLM2-135M-Instruct;
``SUMMEM_LIVE_BASE_URL`` names it. Without it these tests skip, except under ``CI=true``, where
the tier must run. The network guard stays on: only loopback is reachable.

A 135M model writes weak summaries: the tests assert the mechanics (bounded time and tokens,
validation, provenance, nothing lost, valid views, usage counted) and report recall as a figure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# every test here talks to the local server
pytestmark = pytest.mark.live_local

REQUEST_TIMEOUT = 120.0
"""Seconds a single request may take: a hang guard, never an assertion on speed."""


@pytest.fixture(scope="session")
def live_base_url() -> str:
    url = os.environ.get("SUMMEM_LIVE_BASE_URL")
    if not url:
        reason = "SUMMEM_LIVE_BASE_URL is not set: run the tier with scripts/live-local"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason + " (CI=true requires it)")
        pytest.skip(reason)
    return url


@pytest.fixture(scope="session")
def live_model() -> str:
    return os.environ.get("SUMMEM_LIVE_MODEL", "smollm2-135m-instruct")


@pytest.fixture
def openai_client(live_base_url: str) -> Iterator[object]:
    import openai

    client = openai.OpenAI(
        base_url=live_base_url, api_key="sk-no-key-needed", timeout=REQUEST_TIMEOUT
    )
    yield client
    client.close()


@pytest.fixture
async def async_openai_client(live_base_url: str) -> object:
    import openai

    client = openai.AsyncOpenAI(
        base_url=live_base_url, api_key="sk-no-key-needed", timeout=REQUEST_TIMEOUT
    )
    yield client
    await client.close()
